#include "net/packet/partition.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"

namespace anatomy::net::packet {

int default_partitions(uint32_t hosts) {
  const uint32_t by_size = std::clamp<uint32_t>(hosts / 256, 8, 64);
  return static_cast<int>(std::max<uint32_t>(1, std::min(by_size, hosts)));
}

Partition partition_nodes(const topo::Topology& t, int parts) {
  const uint32_t hosts = t.num_gpus();
  if (parts < 1 || static_cast<uint32_t>(parts) > std::max<uint32_t>(hosts, 1))
    throw core::InputError(fmt::format("partitions: {} is not between 1 and the {} hosts", parts, hosts));
  constexpr uint16_t kUnplaced = UINT16_MAX;
  Partition p;
  p.parts = static_cast<uint16_t>(parts);
  p.owner.assign(t.num_nodes(), kUnplaced);
  for (uint32_t g = 0; g < hosts; ++g)
    p.owner[t.gpu_node(g)] = static_cast<uint16_t>(uint64_t{g} * static_cast<uint64_t>(parts) / hosts);
  std::vector<size_t> placed(parts, 0);  // nodes other than hosts placed in each part so far
  std::vector<uint32_t> votes(parts, 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (topo::NodeId n = 0; n < t.num_nodes(); ++n) {
      if (p.owner[n] != kUnplaced) continue;
      std::fill(votes.begin(), votes.end(), 0);
      bool any = false;
      for (topo::LinkId l : t.out_links(n)) {
        const uint16_t o = p.owner[t.link(l).to];
        if (o == kUnplaced) continue;
        ++votes[o];
        any = true;
      }
      if (!any) continue;
      uint16_t best = 0;
      for (uint16_t k = 1; k < parts; ++k)
        if (votes[k] > votes[best] || (votes[k] == votes[best] && placed[k] < placed[best])) best = k;
      p.owner[n] = best;
      ++placed[best];
      progress = true;
    }
  }
  for (uint16_t& o : p.owner)
    if (o == kUnplaced) o = 0;  // a node no link reaches
  for (const topo::Link& l : t.links()) {
    if (p.owner[l.from] == p.owner[l.to]) continue;
    ++p.cut_links;
    p.lookahead = std::min(p.lookahead, l.latency);
  }
  if (p.cut_links > 0 && p.lookahead <= core::SimTime::zero())
    throw core::InputError(fmt::format("partitions: {} parts are joined by a link without latency, so they cannot "
                                       "run apart (use 1 partition)",
                                       parts));
  return p;
}

}  // namespace anatomy::net::packet
