#include "coll/forwarded_all_to_all.h"

#include <cmath>

#include "coll/pipeline.h"
#include "core/error.h"

namespace anatomy::coll {

Schedule build_forwarded_all_to_all(const Group& g, const std::vector<Bytes>& to_domain, Bytes to_peer,
                                    Protocol protocol, const LibraryModel& lib) {
  ANATOMY_CHECK(to_domain.size() == g.domains.size(), "one size per domain of the group");
  Schedule s;
  s.algorithm = "forwarded";
  s.protocol = to_string(protocol);
  s.base_latency = lib.base_latency(AlgoClass::kRing, protocol);
  s.channels = 1;
  s.steps = 1;
  if (g.size() <= 1) return s;
  const double eff = lib.efficiency(protocol);
  Phase p;
  p.label = "forwarded all_to_all (bulk)";
  std::vector<detail::Edge> across, inside;
  // `kind`: where the pair counts for the latency (once a pair; forwarding
  // reuses the pairs of the domain's own sends).
  auto send = [&](uint32_t a, uint32_t b, double payload, std::vector<detail::Edge>* kind) {
    const detail::Edge e{a, b, detail::edge_hash(g, a, b, 0)};
    if (kind) kind->push_back(e);
    p.sends.push_back(Send{g.node(a), g.node(b), Bytes(std::llround(payload / eff)), e.hash});
  };
  for (size_t d = 0; d < g.domains.size(); ++d) {
    const std::vector<uint32_t>& mine = g.domains[d];
    for (size_t place = 0; place < mine.size(); ++place) {
      const uint32_t a = mine[place];
      for (const uint32_t b : mine)
        if (b != a) send(a, b, to_peer.as_double(), &inside);
      for (size_t e = 0; e < g.domains.size(); ++e) {
        if (e == d) continue;
        const std::vector<uint32_t>& theirs = g.domains[e];
        const uint32_t c = theirs[place % theirs.size()];
        send(a, c, to_domain[e].as_double(), &across);
        for (const uint32_t b : theirs)
          if (b != c) send(c, b, to_peer.as_double(), nullptr);
      }
    }
  }
  // One network hop, then one forwarding hop inside the far domain.
  p.latency_after = detail::mean_hop_latency(g, across, lib, AlgoClass::kRing, protocol) +
                    detail::mean_hop_latency(g, inside, lib, AlgoClass::kRing, protocol);
  s.phases.push_back(std::move(p));
  s.merge_sends();
  return s;
}

}  // namespace anatomy::coll
