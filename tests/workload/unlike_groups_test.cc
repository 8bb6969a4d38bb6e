#include "workload/unlike_groups.h"

#include <gtest/gtest.h>

#include "hw/catalog.h"
#include "topo/builders.h"

namespace anatomy::workload {
namespace {

topo::Topology cluster(const char* system, int gpus, int domain_gpus = 0) {
  topo::ClusterSpec spec;
  spec.system = hw::find_system(system);
  if (domain_gpus > 0) spec.system.scaleup.domain_gpus = domain_gpus;
  spec.gpus = gpus;
  return topo::build_cluster(spec);
}

ParallelPlan plan(int tp, int cp, int dp, int pp, int ep) {
  ParallelPlan p;
  p.tp = tp;
  p.cp = cp;
  p.dp = dp;
  p.pp = pp;
  p.ep = ep;
  return p;
}

// 256 GPUs fill NVL72 racks 72 + 72 + 72 + 40. At TP 1, PP 4, DP 64, EP 64
// a stage's 64 ranks are one EP group: stage 0 (GPUs 0-63) lies in rack 0,
// stage 1 (64-127) straddles racks 0 and 1, stage 2 (128-191) racks 1 and 2,
// stage 3 (192-255) racks 2 and 3.
TEST(UnlikeGroups, EpGroupsOfAPartlyFilledRackStraddleTwoWhereTheFirstLiesInOne) {
  const topo::Topology t = cluster("gb200-nvl72", 256);
  const std::vector<UnlikeGroups> u = unlike_groups(Layout(plan(1, 1, 64, 4, 64)), t, {});
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].dimension, "EP");
  EXPECT_EQ(u[0].total, 4);
  EXPECT_EQ(u[0].fewest, 1);
  EXPECT_EQ(u[0].at_fewest, 1);
  EXPECT_EQ(u[0].most, 2);
  EXPECT_EQ(u[0].first, 1);
  EXPECT_EQ(unlike_groups_note(u),
            "1 of 4 EP groups span 1 scale-up domain and the others up to 2 (every group's all-to-alls are timed as "
            "placed): the job's GPUs do not fill its domains with whole groups (cluster.system.scaleup.domain_gpus "
            "sets the GPUs a domain holds)");
}

// With 64 GPUs a rack (16 of its 18 trays), each stage is one rack: nothing to say.
TEST(UnlikeGroups, RacksOfSixtyFourHoldEveryEpGroupWhole) {
  const topo::Topology t = cluster("gb200-nvl72", 256, 64);
  EXPECT_TRUE(unlike_groups(Layout(plan(1, 1, 64, 4, 64)), t, {}).empty());
}

// A CP group across DGX nodes spans as many nodes as it has ranks when TP
// fills a node (TP 8, CP 4: four nodes), every group alike: by design, not
// a placement's accident.
TEST(UnlikeGroups, GroupsThatAllCrossNodesAlikeAreNotReported) {
  const topo::Topology t = cluster("dgx-h100", 64);
  EXPECT_TRUE(unlike_groups(Layout(plan(8, 4, 2, 1, 1)), t, {}).empty());
}

// TP 16 on racks of 72: groups of GPUs 0-15 ... 48-63 lie in rack 0, 64-79
// straddles racks 0 and 1, 80-95 ... 128-143 lie in rack 1: of 9 groups on
// 144 GPUs one spans two, and the first (timed for all) spans one.
TEST(UnlikeGroups, ATpGroupAcrossARackBoundaryIsNamedWithWhatTheFirstGroupSpans) {
  const topo::Topology t = cluster("gb200-nvl72", 144);
  const std::vector<UnlikeGroups> u = unlike_groups(Layout(plan(16, 1, 9, 1, 1)), t, {});
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].dimension, "TP");
  EXPECT_EQ(u[0].total, 9);
  EXPECT_EQ(u[0].at_fewest, 8);
  EXPECT_EQ(u[0].most, 2);
  EXPECT_NE(unlike_groups_note(u).find("timed on the first group, which spans 1, and charged to every group alike"),
            std::string::npos);
}

// Hierarchical CP 16 in all-to-all groups of 4 on 144 GPUs of NVL72 racks:
// CP groups are 16 consecutive ranks, so the one of ranks 64-79 straddles
// racks 0 and 1; its collectives are timed on the first group's sub-groups,
// ranks 0-3 (the all-to-all's) and 0, 4, 8, 12 (the ring's), both in rack 0.
TEST(UnlikeGroups, HierarchicalCpNamesWhatItsTimedSubGroupsSpan) {
  const topo::Topology t = cluster("gb200-nvl72", 144);
  ParallelPlan p = plan(1, 16, 9, 1, 1);
  p.cp_a2a_size = 4;
  const std::vector<UnlikeGroups> u = unlike_groups(Layout(p), t, {});
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].dimension, "CP");
  EXPECT_EQ(u[0].first_a2a, 1);
  EXPECT_EQ(u[0].first_ring, 1);
  EXPECT_NE(unlike_groups_note(u).find("timed on the first group's all-to-all ranks, which span 1, and its ring's, "
                                       "which span 1, and charged to every group alike"),
            std::string::npos)
      << unlike_groups_note(u);
}

// Placement moves ranks: the same plan with ranks 0-63 on rack 1's GPUs
// and 64-127 on rack 0's keeps every group inside a rack.
TEST(UnlikeGroups, RanksArePlacedBeforeTheirDomainsAreRead) {
  const topo::Topology t = cluster("gb200-nvl72", 144);
  std::vector<uint32_t> rank_to_gpu(128);
  for (uint32_t r = 0; r < 64; ++r) rank_to_gpu[r] = 72 + r;
  for (uint32_t r = 64; r < 128; ++r) rank_to_gpu[r] = r - 64;
  EXPECT_TRUE(unlike_groups(Layout(plan(1, 1, 64, 2, 64)), t, rank_to_gpu).empty());
  EXPECT_EQ(unlike_groups(Layout(plan(1, 1, 64, 2, 64)), t, {}).size(), 1u);
}

}  // namespace
}  // namespace anatomy::workload
