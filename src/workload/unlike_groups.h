#pragma once
// Model-parallel groups that a placement leaves unlike each other.
//
// TP, CP and EP collectives run at least once a layer. A group may span
// several scale-up domains by design (CP or EP across DGX nodes), but when
// the job's GPUs do not fill its domains with whole groups, the groups of
// one dimension differ: 256 GPUs on NVL72 racks fill 72 + 72 + 72 + 40, so
// of four EP groups of 64 one lies in a rack and three straddle two, and
// their traffic crosses the scale-out fabric. The iteration times EP
// all-to-alls on every group, but TP and CP collectives on the group
// through rank 0 only (step_cost.h: one representative), so a user must be
// told when the other groups are not like it.

#include <cstdint>
#include <string>
#include <vector>

#include "topo/topology.h"
#include "workload/layout.h"

namespace anatomy::workload {

struct UnlikeGroups {
  std::string dimension;  // "TP", "CP" or "EP"
  int64_t total = 0;      // the plan's groups of this dimension, over every stage
  int fewest = 0;         // the fewest scale-up domains a group spans ...
  int64_t at_fewest = 0;  // ... and how many groups span that few
  int most = 0;           // the most a group spans
  int first = 0;          // what the group through rank 0 spans
  // Hierarchical CP (ParallelPlan::cp_a2a_size) times its collectives on
  // two sub-groups of that group, its first cp_a2a_size ranks (the
  // all-to-all's) and every cp_a2a_size-th (the ring's): what each spans;
  // 0 otherwise.
  int first_a2a = 0, first_ring = 0;
};

// The dimensions of size > 1 whose groups span different numbers of
// scale-up domains. Rank r runs on GPU rank_to_gpu[r] (empty: GPU r).
std::vector<UnlikeGroups> unlike_groups(const Layout& layout, const topo::Topology& topology,
                                        const std::vector<uint32_t>& rank_to_gpu);

// One sentence for reports ("" when every dimension's groups are alike):
// how the groups differ, and what the iteration's prices make of it.
std::string unlike_groups_note(const std::vector<UnlikeGroups>& unlike);

}  // namespace anatomy::workload
