#include "fleet/footprint.h"

#include <algorithm>
#include <map>

#include "core/rng.h"
#include "net/network.h"

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

Footprint plan_footprint(const topo::Topology& t, const std::vector<uint32_t>& hosts, int gpus_per_host,
                         const PlanTraffic& p) {
  if (hosts.size() < 2 || gpus_per_host <= 0) return {};
  const uint32_t host_gpus = gpus_on_a_host(t);
  const int g = gpus_per_host;
  const int n = static_cast<int>(hosts.size()) * g;
  const int pp = std::max(1, p.pp), tp = std::max(1, p.tp), ep = std::max(1, p.ep);
  const int per_stage = n / pp;
  std::map<topo::LinkId, LinkUse> m;
  std::vector<topo::LinkId> path;
  // Rank a to rank b, `bytes` per step; ranks on one host never reach the fabric.
  auto send = [&](int a, int b, double bytes) {
    if (bytes <= 0 || a / g == b / g) return;
    const topo::NodeId src = t.gpu_node(hosts[static_cast<size_t>(a / g)] * host_gpus + static_cast<uint32_t>(a % g));
    const topo::NodeId dst = t.gpu_node(hosts[static_cast<size_t>(b / g)] * host_gpus + static_cast<uint32_t>(b % g));
    add_route(t, src, dst, net::connection_hash(src, dst), bytes, path, m);
  };
  if (p.dp_bytes_per_nic > 0) {
    // Per stage, per rail, per TP slice of hosts (k > 1 when a TP group spans k hosts): a ring over its hosts.
    const int k = std::max(1, tp / g);
    for (int s = 0; s < pp; ++s) {
      const int first = s * per_stage / g, last = ((s + 1) * per_stage - 1) / g;
      for (int c = 0; c < k; ++c) {
        std::vector<int> ring;
        for (int h = first + c; h <= last; h += k) ring.push_back(h);
        if (ring.size() < 2) continue;
        for (int r = 0; r < g; ++r)
          for (size_t i = 0; i < ring.size(); ++i)
            send(ring[i] * g + r, ring[(i + 1) % ring.size()] * g + r, p.dp_bytes_per_nic);
      }
    }
  }
  for (int s = 0; s + 1 < pp; ++s)
    for (int q = 0; q < per_stage; ++q) {
      const int a = s * per_stage + q, b = a + per_stage;
      send(a, b, p.pp_bytes_per_gpu);
      send(b, a, p.pp_bytes_per_gpu);
    }
  if (ep > 1 && p.ep_bytes_per_pair > 0) {
    const int dp = per_stage / tp;
    for (int s = 0; s < pp; ++s)
      for (int t0 = 0; t0 < tp; ++t0)
        for (int d0 = 0; d0 + ep <= dp; d0 += ep)
          for (int i = 0; i < ep; ++i)
            for (int j = 0; j < ep; ++j)
              if (i != j)
                send(s * per_stage + (d0 + i) * tp + t0, s * per_stage + (d0 + j) * tp + t0, p.ep_bytes_per_pair);
  }
  if (tp > g && p.tp_bytes_per_gpu > 0)
    for (int start = 0; start + tp <= n; start += tp)
      for (int i = 0; i < tp; ++i) send(start + i, start + (i + 1) % tp, p.tp_bytes_per_gpu);
  return collect(m);
}

Footprint checkpoint_footprint(const topo::Topology& t, const std::vector<uint32_t>& hosts, int gpus_per_host,
                               double bytes_per_gpu, uint64_t salt) {
  const auto& servers = t.storage_nodes();
  if (servers.empty() || bytes_per_gpu <= 0) return {};
  const uint32_t host_gpus = gpus_on_a_host(t);
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

uint32_t gpus_on_a_host(const topo::Topology& t) {
  uint32_t n = 0;
  while (n < t.num_gpus() && t.host_of(n) == 0) ++n;
  return n;
}

std::vector<topo::LinkId> equal_cost_group(const topo::Topology& t, topo::LinkId l) {
  const topo::Link& k = t.link(l);
  using topo::NodeKind;
  if (t.kind(k.from) != NodeKind::kSwitch || t.kind(k.to) != NodeKind::kSwitch || t.level(k.from) == t.level(k.to))
    return {l};
  std::vector<topo::LinkId> group;
  const bool up = t.level(k.to) > t.level(k.from);
  // Up: the lower switch's links to the upper tier. Down: the same group
  // seen from below, each link reversed (into the lower switch).
  const topo::NodeId low = up ? k.from : k.to;
  const uint8_t high_level = up ? t.level(k.to) : t.level(k.from);
  for (const topo::LinkId o : t.out_links(low)) {
    const topo::Link& m = t.link(o);
    if (t.kind(m.to) != NodeKind::kSwitch || t.level(m.to) != high_level || t.fabric_of(m.to) != t.fabric_of(low)) continue;
    if (up) {
      group.push_back(o);
    } else {
      // Every cable between the two, each direction a link of its own.
      for (const topo::LinkId back : t.out_links(m.to))
        if (t.link(back).to == low) group.push_back(back);
    }
  }
  std::sort(group.begin(), group.end());
  group.erase(std::unique(group.begin(), group.end()), group.end());
  return group;
}

}  // namespace anatomy::fleet
