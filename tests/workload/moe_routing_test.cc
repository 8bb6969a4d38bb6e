#include "workload/moe_routing.h"

#include <gtest/gtest.h>

#include <vector>

namespace anatomy::workload {
namespace {

TEST(TokenSpread, DeepSeekV3OverEightNodesReachesHalfOfThem) {
  // 256 experts, top-8 from 4 of 8 groups, EP 64 over 8 nodes: a group is a
  // node. A node is hit when its group is among the 4 selected: 4/8.
  // A rank (4 experts of its node's 32) is hit when its group is selected
  // (1/2) and not missed by both the group's own expert (28/32) and the 4
  // others, drawn from the 124 other experts of the selected groups:
  //   1/2 x (1 - 7/8 x (120 119 118 117) / (124 123 122 121))
  //   = 1/2 x (1 - 7/8 x 197,149,680 / 225,150,024) = 0.116909
  // i.e. 7.48 of the 64 ranks, fewer than 8 experts: some share a rank.
  const TokenSpread s = token_spread(find_model("deepseek-v3"), std::vector<int64_t>(8, 8));
  EXPECT_DOUBLE_EQ(s.domain_hit[0], 0.5);
  EXPECT_NEAR(s.rank_hit, 0.5 * (1 - 0.875 * 197'149'680.0 / 225'150'024.0), 1e-12);
}

TEST(TokenSpread, AGroupOverTwoDomainsIsHitInEitherHalf) {
  // The same routing over 16 domains of 4 ranks: each group spans two
  // domains of 16 experts. A domain is hit when its group is selected and
  // the group's own expert (8 of 16 chances elsewhere) and the 4 others
  // (from 124) all miss its 16:
  //   1/2 x (1 - 1/2 x (108 107 106 105) / (124 123 122 121)) = 0.357186
  const TokenSpread s = token_spread(find_model("deepseek-v3"), std::vector<int64_t>(16, 4));
  EXPECT_NEAR(s.domain_hit[0], 0.5 * (1 - 0.5 * 128'618'280.0 / 225'150'024.0), 1e-12);
}

TEST(TokenSpread, WithoutGroupsEveryChoiceOfExpertsIsAlike) {
  // Mixtral: 8 experts, top-2, one per rank of one node. A rank is missed
  // by both picks with probability 7/8 x 6/7 = 3/4; the node always holds them.
  const TokenSpread s = token_spread(find_model("mixtral-8x7b"), {8});
  EXPECT_DOUBLE_EQ(s.rank_hit, 0.25);
  EXPECT_DOUBLE_EQ(s.domain_hit[0], 1.0);
  // 16 experts top-2 over two nodes of 8: a node is missed when both picks
  // are on the other, 8/16 x 7/15, so hit with 1 - 56/240 = 0.7667.
  ModelSpec m = find_model("mixtral-8x7b");
  m.experts = 16;
  EXPECT_NEAR(token_spread(m, {8, 8}).domain_hit[1], 1 - 56.0 / 240.0, 1e-12);
}

TEST(TokenSpread, GroupsThatStraddleDomainsCountAsNoneForThem) {
  // 96 experts in 8 groups of 12 over 3 domains of 8 ranks (4 experts a
  // rank): a domain's 32 experts are parts of three groups, so the groups
  // say nothing simple about it and its chance is the ungrouped one,
  // 1 - C(64, 6) / C(96, 6) = 0.919126; a rank is still inside one group.
  ModelSpec m = find_model("deepseek-v3");
  m.experts = 96;
  m.top_k = 6;
  const TokenSpread grouped = token_spread(m, {8, 8, 8});
  m.expert_groups = m.group_top_k = 0;
  const TokenSpread plain = token_spread(m, {8, 8, 8});
  EXPECT_EQ(grouped.domain_hit, plain.domain_hit);
  EXPECT_NEAR(plain.domain_hit[0], 0.9191257, 1e-6);
  EXPECT_NEAR(plain.rank_hit, 0.2308185529, 1e-9);  // 1 - C(92, 6) / C(96, 6)
  EXPECT_NE(grouped.rank_hit, plain.rank_hit);
}

TEST(TokenSpread, UnevenDomainsAreHitAsTheirExpertsLie) {
  // DeepSeek-V3's EP 128 over NVL72 racks from rank 64: 8 ranks in one rack
  // and 120 in the next, 2 experts a rank. The small rack's 16 experts are
  // half of group 0: hit when the group is selected (1/2) and not missed by
  // its own expert (16 of 32 elsewhere) and the 4 others (from 124):
  //   1/2 x (1 - 1/2 x C(108, 4) / C(124, 4)) = 0.357186, as in the test above.
  // The big rack's 240 take part of group 0 and more: taken as ungrouped,
  // 1 - C(16, 8) / C(256, 8). A rank's 2 experts are inside a group:
  //   1/2 x (1 - 15/16 x C(122, 4) / C(124, 4)) = 1/2 x (1 - 15/16 x 0.93627)
  const ModelSpec& m = find_model("deepseek-v3");
  const TokenSpread s = token_spread(m, {8, 120});
  EXPECT_NEAR(s.domain_hit[0], 0.5 * (1 - 0.5 * 128'618'280.0 / 225'150'024.0), 1e-12);
  double miss = 1;
  for (int i = 0; i < 8; ++i) miss *= (16.0 - i) / (256.0 - i);
  EXPECT_NEAR(s.domain_hit[1], 1 - miss, 1e-12);
  const double rank_miss = (122.0 * 121 * 120 * 119) / (124.0 * 123 * 122 * 121);
  EXPECT_NEAR(s.rank_hit, 0.5 * (1 - 15.0 / 16.0 * rank_miss), 1e-12);
}

TEST(TokenSpread, ARankOfWholeGroupsIsHitWhenOneOfThemIsSelected) {
  // DeepSeek-V3 at EP 4: a rank holds 64 experts, 2 whole groups, and is
  // hit unless the 4 selected groups are among the other 6:
  //   1 - C(6, 4) / C(8, 4) = 1 - 15/70.
  const TokenSpread s = token_spread(find_model("deepseek-v3"), {4});
  EXPECT_NEAR(s.rank_hit, 1 - 15.0 / 70.0, 1e-12);
  EXPECT_DOUBLE_EQ(s.domain_hit[0], 1.0);  // every group is in the one domain
}

}  // namespace
}  // namespace anatomy::workload
