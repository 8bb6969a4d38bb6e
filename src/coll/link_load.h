#pragma once
// The busiest link of an all-to-all, without running its flows.
//
// An all-to-all of n ranks is n(n - 1) transfers that start together; run
// as flows that is 4 million at 2,048 ranks and 268 million at 16,384,
// beyond what a flow model holds. Routed as the flows would be (the same
// routes, the same ECMP hashes, the same wire bytes each) and summed per
// link, they give every link's load, and the busiest link's load over its
// bandwidth is the least time the transfers can take. It is also the flow
// model's time wherever that link stays busy to the end, as it does when
// every flow crossing it has it for its bottleneck: on the Clos fabrics
// (rail-optimized or not, oversubscribed or not), AMD's meshes with their
// NICs and the tori tried, the two drain times agree within a picosecond
// (tests/coll/link_load_test.cc). Elsewhere it is a lower bound.

#include <cstdint>
#include <mutex>
#include <vector>

#include "coll/group.h"

namespace anatomy::coll::detail {

struct LinkLoad {
  SimTime time;         // busiest link's load over its bandwidth
  topo::LinkId busiest = 0;
  double busiest_bytes = 0;
};

// Every ordered pair (i, j != i) of g's ranks sends `wire_bytes_per_pair`
// along its route (flow hash edge_hash(g, i, j, 0), as the direct
// all-to-all's sends carry). The pairs each link carries depend on the
// ranks and the routes alone, not the size: they are counted once a group
// (Group::all_to_all_pairs) and scaled per size.
LinkLoad all_to_all_link_load(const Group& g, Bytes wire_bytes_per_pair);

// The count, kept: pairs[l] of the ranks `gpus` on `topo`.
struct AllToAllPairsMemo {
  std::once_flag counted;
  const topo::Topology* topo = nullptr;
  std::vector<uint32_t> gpus;
  std::vector<uint64_t> pairs;
};

}  // namespace anatomy::coll::detail
