#pragma once
// Where each rank of a parallelism plan sits, and its communicator groups.
//
// Rank r = tp + TP (cp + CP (dp + DP pp)) under Megatron-LM's default order
// (ParallelPlan::rank_order): tensor parallelism fastest, so a TP group is
// contiguous and shares a scale-up domain; the pipeline is the slowest
// dimension. Under tp-cp-pp-dp, r = tp + TP (cp + CP (pp + PP dp)): a
// pipeline is a contiguous block and data parallelism the slowest. Rank r
// runs on GPU r of the topology (placement is the job layer's business;
// issue 5).

#include <cstdint>
#include <vector>

#include "workload/training.h"

namespace anatomy::workload {

struct RankCoord {
  int tp = 0, cp = 0, dp = 0, pp = 0;
};

class Layout {
 public:
  explicit Layout(const ParallelPlan& p) : p_(p) {}
  uint32_t rank(RankCoord c) const {
    const int outer = p_.rank_order == RankOrder::kTpCpPpDp ? c.pp + p_.pp * c.dp : c.dp + p_.dp * c.pp;
    return static_cast<uint32_t>(c.tp + p_.tp * (c.cp + p_.cp * outer));
  }
  RankCoord coord(uint32_t r) const;
  // Ranks of the group through `c` along one dimension, in order.
  std::vector<uint32_t> tp_group(RankCoord c) const;
  std::vector<uint32_t> cp_group(RankCoord c) const;
  // Within c's CP group, the ranks CP's all-to-alls span
  // (ParallelPlan::cp_a2a_ways consecutive CP ranks) and the ring through c
  // (every cp_a2a_ways-th): the whole group and c alone without hierarchy.
  std::vector<uint32_t> cp_a2a_group(RankCoord c) const;
  std::vector<uint32_t> cp_ring_group(RankCoord c) const;
  std::vector<uint32_t> dp_group(RankCoord c) const;
  // Data-parallel x context-parallel: the group gradients are reduced over.
  std::vector<uint32_t> dp_cp_group(RankCoord c) const;
  // Expert-parallel group, folded over the stage's TP x CP x DP ranks
  // (expert TP fastest, then EP, then expert DP): without CP and expert TP
  // below TP, `ep` consecutive data-parallel ranks.
  std::vector<uint32_t> ep_group(RankCoord c) const;
  // The ranks holding the same experts as `c` (expert data parallelism):
  // its gradients are reduced over them.
  std::vector<uint32_t> expert_dp_group(RankCoord c) const;
  // Every group of pipeline stage `stage` that `group_of` gives its ranks,
  // each once (found at its lowest rank), in order of that rank.
  std::vector<std::vector<uint32_t>> distinct_groups(int stage,
                                                     std::vector<uint32_t> (Layout::*group_of)(RankCoord) const) const;
  const ParallelPlan& plan() const { return p_; }

 private:
  // A stage's ranks numbered i = tp + TP (cp + CP dp), whatever the rank
  // order: the index expert groups fold over.
  int stage_index(RankCoord c) const { return c.tp + p_.tp * (c.cp + p_.cp * c.dp); }
  uint32_t stage_rank(int stage, int index) const;
  ParallelPlan p_;
};

}  // namespace anatomy::workload
