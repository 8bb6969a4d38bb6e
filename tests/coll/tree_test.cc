#include <gtest/gtest.h>

#include "coll/pipeline.h"

namespace anatomy::coll::detail {
namespace {

TEST(DoubleBinaryTree, EveryNodeHasOneRootAndNoCycles) {
  for (int m : {2, 3, 7, 8, 16, 33}) {
    for (int t = 0; t < 2; ++t) {
      auto parent = btree_parents(m, t);
      int roots = 0;
      for (int k = 0; k < m; ++k) {
        if (parent[k] < 0) ++roots;
        // Walking up reaches the root within m steps.
        int v = k, steps = 0;
        while (parent[v] >= 0 && steps <= m) v = parent[v], ++steps;
        EXPECT_LE(steps, m);
      }
      EXPECT_EQ(roots, 1) << "m=" << m << " t=" << t;
    }
  }
}

TEST(DoubleBinaryTree, BinaryAndLogDepth) {
  const int m = 64;
  for (int t = 0; t < 2; ++t) {
    auto parent = btree_parents(m, t);
    std::vector<int> children(m, 0);
    int deepest = 0;
    for (int k = 0; k < m; ++k) {
      if (parent[k] >= 0) ++children[parent[k]];
      int d = 0;
      for (int v = k; parent[v] >= 0; v = parent[v]) ++d;
      deepest = std::max(deepest, d);
    }
    for (int c : children) EXPECT_LE(c, 2);
    EXPECT_LE(deepest, ceil_log2(m) + 1);
  }
}

TEST(DoubleBinaryTree, InteriorNodesOfOneTreeAreLeavesOfTheOther) {
  // With an even count, the mirror makes the two trees' interior sets disjoint
  // (except the roots' special positions), which balances the NICs.
  const int m = 16;
  auto p0 = btree_parents(m, 0), p1 = btree_parents(m, 1);
  std::vector<int> c0(m, 0), c1(m, 0);
  for (int k = 0; k < m; ++k) {
    if (p0[k] >= 0) ++c0[p0[k]];
    if (p1[k] >= 0) ++c1[p1[k]];
  }
  int both = 0;
  for (int k = 0; k < m; ++k) both += (c0[k] > 0 && c1[k] > 0);
  EXPECT_LE(both, 2);
}

}  // namespace
}  // namespace anatomy::coll::detail
