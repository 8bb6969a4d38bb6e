#include "coll/mesh_rings.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <utility>

namespace anatomy::coll {
namespace {

// Every mesh ring visits each GPU once, starting at 0, and the rings load
// every directed link of the mesh equally: each link carries the same
// number of rings (one, or two where one each is impossible), so together
// they keep every link of every GPU busy.
TEST(MeshRings, LoadEveryDirectedLinkEqually) {
  for (int n = 3; n <= 16; ++n) {
    const auto& rings = mesh_rings(n);
    ASSERT_FALSE(rings.empty()) << n;
    std::map<std::pair<int, int>, int> load;
    for (const auto& cyc : rings) {
      ASSERT_EQ(static_cast<int>(cyc.size()), n);
      EXPECT_EQ(cyc.front(), 0);
      EXPECT_EQ(std::set<int>(cyc.begin(), cyc.end()).size(), static_cast<size_t>(n)) << "n=" << n;
      for (int i = 0; i < n; ++i) ++load[{cyc[i], cyc[(i + 1) % n]}];
    }
    EXPECT_EQ(static_cast<int>(load.size()), n * (n - 1)) << "n=" << n << " leaves a link idle";
    const int fold = n == 4 || n == 6 ? 2 : 1;
    EXPECT_EQ(static_cast<int>(rings.size()), fold * (n - 1)) << "n=" << n;
    for (const auto& [link, rings_on_it] : load) EXPECT_EQ(rings_on_it, fold) << "n=" << n;
  }
}

// The 8-GPU mesh of an MI300X platform splits into 7 rings, one per link of
// each GPU. 4 and 6 GPUs have no such split (Tillson 1980), so their rings
// take every link twice: the 6 directed Hamiltonian cycles of 4 GPUs, 10 for
// 6 GPUs, each at half a link, so a GPU still sends on all n - 1 links.
TEST(MeshRings, UseEveryLinkOnceOrEveryLinkTwice) {
  EXPECT_EQ(mesh_rings(8).size(), 7u);
  EXPECT_EQ(mesh_rings(7).size(), 6u);
  EXPECT_EQ(mesh_rings(4).size(), 6u);
  EXPECT_EQ(mesh_rings(6).size(), 10u);
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
