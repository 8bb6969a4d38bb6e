#include "fleet/footprint.h"

#include <algorithm>
#include <map>

#include "core/rng.h"

namespace anatomy::fleet {
namespace {

bool shared_kind(const topo::Topology& t, topo::LinkId l) {
  const topo::LinkKind k = t.link(l).kind;
  return k == topo::LinkKind::kFabric || k == topo::LinkKind::kStorage;
}

Footprint collect(const std::map<topo::LinkId, LinkUse>& m) {
  Footprint f;
  f.reserve(m.size());
  for (const auto& [l, u] : m) f.push_back(u);
  return f;
}

void add_route(const topo::Topology& t, topo::NodeId src, topo::NodeId dst, uint64_t hash, double bytes,
               std::vector<topo::LinkId>& path, std::map<topo::LinkId, LinkUse>& out) {
  path.clear();
  t.route(src, dst, hash, path);
  for (topo::LinkId l : path) {
    if (!shared_kind(t, l)) continue;
    LinkUse& u = out[l];
    u.link = l;
    u.flows += 1;
    u.bytes += bytes;
  }
}

}  // namespace

Footprint ring_footprint(const topo::Topology& t, const std::vector<uint32_t>& hosts, int gpus_per_host,
                         double bytes_per_nic, uint64_t salt) {
  std::map<topo::LinkId, LinkUse> m;
  if (hosts.size() < 2 || bytes_per_nic <= 0) return {};
  uint32_t host_gpus = 0;
  while (host_gpus < t.num_gpus() && t.host_of(host_gpus) == 0) ++host_gpus;
  std::vector<topo::LinkId> path;
  for (int r = 0; r < gpus_per_host; ++r)
    for (size_t i = 0; i < hosts.size(); ++i) {
      const uint32_t a = hosts[i] * host_gpus + static_cast<uint32_t>(r);
      const uint32_t b = hosts[(i + 1) % hosts.size()] * host_gpus + static_cast<uint32_t>(r);
      add_route(t, t.gpu_node(a), t.gpu_node(b), core::mix64(salt * 1000003 + r * 65537 + i), bytes_per_nic, path,
                m);
    }
  return collect(m);
}

Footprint checkpoint_footprint(const topo::Topology& t, const std::vector<uint32_t>& hosts, int gpus_per_host,
                               double bytes_per_gpu, uint64_t salt) {
  const auto& servers = t.storage_nodes();
  if (servers.empty() || bytes_per_gpu <= 0) return {};
  uint32_t host_gpus = 0;
  while (host_gpus < t.num_gpus() && t.host_of(host_gpus) == 0) ++host_gpus;
  std::map<topo::LinkId, LinkUse> m;
  std::vector<topo::LinkId> path;
  for (size_t i = 0; i < hosts.size(); ++i)
    for (int g = 0; g < gpus_per_host; ++g)
      add_route(t, t.gpu_node(hosts[i] * host_gpus + static_cast<uint32_t>(g)), servers[(salt + i) % servers.size()],
                core::mix64(salt * 7919 + i * 131 + static_cast<uint64_t>(g)), bytes_per_gpu, path, m);
  return collect(m);
}

double alone_seconds(const topo::Topology& t, const Footprint& f) {
  double worst = 0;
  for (const LinkUse& u : f) worst = std::max(worst, u.bytes * 8 / t.link(u.link).bandwidth.bps());
  return worst;
}

}  // namespace anatomy::fleet
