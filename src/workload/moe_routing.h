#pragma once
// TokenSpread: where one token's experts live across an EP group, which is
// what decides how many copies of it a deduplicating dispatcher (Megatron-
// LM's flex: DeepEP, HybridEP) sends, and over which links.
//
// The EP group's ranks lie in scale-up domains, domain_ranks[d] of them in
// domain d, consecutive; rank r holds experts r * E/ep .. (r + 1) * E/ep - 1
// (Megatron's contiguous placement), so a domain holds consecutive experts.
// Routing is taken as uniform (a balanced router, or Megatron's
// --moe-router-force-load-balancing):
//   - without groups, the token's top_k experts are any top_k of the E,
//     every choice alike;
//   - with group-limited routing (ModelSpec::expert_groups), the token's
//     group_top_k groups are any of the expert_groups, every choice alike;
//     each selected group holds one of its experts at least, and the rest
//     are any of the other experts of the selected groups. That is an
//     approximation: a group is selected for the sum of its best top_k /
//     group_top_k scores, so its best expert is nearly always among the
//     token's, but not always (other groups can hold all top_k above it).
// A set of experts (a rank's, a domain's) inside one group, or made of
// whole groups, is hit as those groups are selected; one that takes part
// of a group and more is taken as ungrouped (e.g. an NVL72 rack holding
// part of an EP group's experts), as Megatron-LM's device- and node-limited
// routing avoid by setting the groups to the ranks or nodes
// (transformer_config.py: "Set 'moe_router_num_groups' equal to number of
// nodes in EP group").
//
// DeepSeek-V3 (256 experts, top-8, 4 of 8 groups) with EP 64 over 8 nodes:
// a given node holds some of a token's experts with probability 1/2 (4 of
// its 8 nodes), a given rank with 0.117 (7.5 of the 64 ranks: fewer than 8,
// as two experts can share a rank).
//
//   TokenSpread s = token_spread(find_model("deepseek-v3"), {8, 8, 8, 8, 8, 8, 8, 8});
//   s.domain_hit[0];  // 0.5

#include <cstdint>
#include <vector>

#include "workload/model.h"

namespace anatomy::workload {

struct TokenSpread {
  double rank_hit = 0;             // probability that an EP rank holds one of the token's experts at least (mean over ranks)
  std::vector<double> domain_hit;  // the same for each domain of the group
};

// Requires a MoE model whose experts the group's ranks split evenly.
TokenSpread token_spread(const ModelSpec& m, const std::vector<int64_t>& domain_ranks);

}  // namespace anatomy::workload
