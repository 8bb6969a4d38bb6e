#include "coll/group.h"

#include <algorithm>

#include <fmt/format.h>

#include "coll/link_load.h"
#include "core/error.h"

namespace anatomy::coll {

bool Group::uniform_domains() const {
  for (const auto& d : domains)
    if (d.size() != domains.front().size()) return false;
  return true;
}

Group make_group(const topo::Topology& t, std::vector<uint32_t> gpus) {
  Group g;
  g.topo = &t;
  std::vector<uint8_t> seen(t.num_gpus(), 0);
  std::vector<int> slot(t.num_domains(), -1);
  for (uint32_t r = 0; r < gpus.size(); ++r) {
    const uint32_t gpu = gpus[r];
    if (gpu >= t.num_gpus())
      throw core::InputError(fmt::format("GPU {} is not in the topology ({} GPUs)", gpu, t.num_gpus()));
    if (seen[gpu]++) throw core::InputError(fmt::format("GPU {} appears twice in one group", gpu));
    const uint32_t d = t.domain_of(gpu);
    if (slot[d] < 0) {
      slot[d] = static_cast<int>(g.domains.size());
      g.domains.emplace_back();
    }
    g.domains[slot[d]].push_back(r);
  }
  g.gpus = std::move(gpus);
  g.all_to_all_pairs = std::make_shared<detail::AllToAllPairsMemo>();
  return g;
}

Group whole_topology(const topo::Topology& t) {
  std::vector<uint32_t> gpus(t.num_gpus());
  for (uint32_t i = 0; i < gpus.size(); ++i) gpus[i] = i;
  return make_group(t, std::move(gpus));
}

LinkClass link_class(const Group& g, uint32_t a, uint32_t b) {
  // NCCL/RCCL treat NVLink and xGMI peers alike (P2P over the scale-up fabric).
  return g.same_domain(a, b) ? LinkClass::kNvlink : LinkClass::kNet;
}

SimTime physical_latency(const topo::Topology& t, NodeId a, NodeId b) {
  thread_local std::vector<topo::LinkId> path;
  path.clear();
  t.route(a, b, 0, path);
  SimTime total;
  for (topo::LinkId l : path) total += t.link(l).latency;
  return total;
}

double nic_Bps(const Group& g, uint32_t r) {
  const NodeId nic = g.topo->nic_of(g.gpus[r]);
  if (nic == topo::kNoNode) return 0.0;
  double port = 0;
  for (topo::LinkId l : g.topo->out_links(nic)) {
    const auto& link = g.topo->link(l);
    if (g.topo->fabric_of(link.to) == 0) port = std::max(port, link.bandwidth.bytes_per_second());
  }
  const topo::LinkId in = g.topo->find_link(g.node(r), nic);
  return in == topo::kNoLink ? port : std::min(port, g.topo->link(in).bandwidth.bytes_per_second());
}

}  // namespace anatomy::coll
