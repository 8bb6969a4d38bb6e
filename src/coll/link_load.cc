#include "coll/link_load.h"

#include <cmath>
#include <vector>

#include "coll/pipeline.h"

namespace anatomy::coll::detail {

namespace {

// How many of the group's ordered pairs each link carries.
std::vector<uint64_t> count_pairs(const Group& g) {
  const int n = g.size();
  std::vector<uint64_t> pairs(g.topo->num_links(), 0);
  std::vector<topo::LinkId> path;
  for (int i = 0; i < n; ++i) {
    const auto a = static_cast<uint32_t>(i);
    for (int k = 1; k < n; ++k) {
      const auto b = static_cast<uint32_t>((i + k) % n);
      path.clear();
      g.topo->route(g.node(a), g.node(b), edge_hash(g, a, b, 0), path);
      for (const topo::LinkId l : path) ++pairs[l];
    }
  }
  return pairs;
}

}  // namespace

LinkLoad all_to_all_link_load(const Group& g, Bytes wire_bytes_per_pair) {
  LinkLoad out;
  if (g.size() < 2 || wire_bytes_per_pair.count() <= 0) return out;
  // Counted in whole pairs, so the sums are exact whatever the order, and
  // scaled once at the end.
  std::vector<uint64_t> own;
  const std::vector<uint64_t>* counted = &own;
  if (AllToAllPairsMemo* memo = g.all_to_all_pairs.get()) {
    std::call_once(memo->counted, [&] {
      memo->topo = g.topo;
      memo->gpus = g.gpus;
      memo->pairs = count_pairs(g);
    });
    if (memo->topo == g.topo && memo->gpus == g.gpus) counted = &memo->pairs;
  }
  if (counted == &own) own = count_pairs(g);
  const std::vector<uint64_t>& pairs = *counted;
  const double wire = wire_bytes_per_pair.as_double();
  double slowest_s = -1;
  for (topo::LinkId l = 0; l < pairs.size(); ++l) {
    if (pairs[l] == 0) continue;
    const double bytes = static_cast<double>(pairs[l]) * wire;
    const double s = bytes / g.topo->link(l).bandwidth.bytes_per_second();
    if (s > slowest_s) {
      slowest_s = s;
      out.busiest = l;
      out.busiest_bytes = bytes;
    }
  }
  if (slowest_s > 0) out.time = SimTime::ps(static_cast<int64_t>(std::ceil(slowest_s * 1e12 - 1e-6)));
  return out;
}

}  // namespace anatomy::coll::detail
