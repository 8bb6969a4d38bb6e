#include "coll/mesh_rings.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

namespace anatomy::coll {
namespace {

// Every mesh ring visits each GPU once, starting at 0, and no two rings
// share a directed link: together they run on different links at once.
TEST(MeshRings, AreEdgeDisjointDirectedHamiltonianCycles) {
  for (int n = 3; n <= 16; ++n) {
    const auto& rings = mesh_rings(n);
    ASSERT_FALSE(rings.empty()) << n;
    std::set<std::pair<int, int>> links;
    for (const auto& cyc : rings) {
      ASSERT_EQ(static_cast<int>(cyc.size()), n);
      EXPECT_EQ(cyc.front(), 0);
      EXPECT_EQ(std::set<int>(cyc.begin(), cyc.end()).size(), static_cast<size_t>(n)) << "n=" << n;
      for (int i = 0; i < n; ++i)
        EXPECT_TRUE(links.insert({cyc[i], cyc[(i + 1) % n]}).second) << "n=" << n << " reuses a link";
    }
  }
}

// The 8-GPU mesh of an MI300X platform splits into 7 rings, one per link of
// each GPU; 4 and 6 GPUs cannot use every link (Tillson 1980), and get as
// many as exist.
TEST(MeshRings, UseEveryLinkWhereADecompositionExists) {
  EXPECT_EQ(mesh_rings(8).size(), 7u);
  EXPECT_EQ(mesh_rings(7).size(), 6u);
  EXPECT_EQ(mesh_rings(4).size(), 2u);
  EXPECT_EQ(mesh_rings(6).size(), 4u);
  EXPECT_TRUE(mesh_rings(2).empty());
}

// Across hosts each channel crosses the 8-GPU mesh on a Hamiltonian path;
// Walecki's 4 zig-zag paths and their reverses are 8 paths of 7 links:
// 8 x 7 = 56 = every directed link of the mesh, each used once, and each
// GPU starts one path and ends one (one channel per NIC each way).
TEST(MeshPaths, UseEveryDirectedLinkOnceAndEveryGpuAsAnEndOnce) {
  for (int n : {2, 4, 8, 16}) {
    const auto& paths = mesh_paths(n);
    ASSERT_EQ(static_cast<int>(paths.size()), n);
    std::set<std::pair<int, int>> links;
    std::set<int> firsts, lasts;
    for (const auto& p : paths) {
      ASSERT_EQ(static_cast<int>(p.size()), n);
      EXPECT_EQ(std::set<int>(p.begin(), p.end()).size(), static_cast<size_t>(n));
      for (int i = 0; i + 1 < n; ++i) EXPECT_TRUE(links.insert({p[i], p[i + 1]}).second) << "n=" << n;
      firsts.insert(p.front());
      lasts.insert(p.back());
    }
    EXPECT_EQ(static_cast<int>(links.size()), n * (n - 1));
    EXPECT_EQ(static_cast<int>(firsts.size()), n);
    EXPECT_EQ(static_cast<int>(lasts.size()), n);
  }
  EXPECT_EQ(mesh_paths(8)[0], (std::vector<int>{0, 1, 7, 2, 6, 3, 5, 4}));
  EXPECT_TRUE(mesh_paths(7).empty());
}

}  // namespace
}  // namespace anatomy::coll
