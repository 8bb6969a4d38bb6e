#include <gtest/gtest.h>

#include <vector>

#include "app/collective.h"
#include "coll/library_model.h"
#include "hw/catalog.h"
#include "topo/builders.h"

namespace anatomy::app {
namespace {

TEST(CollectiveSweep, SizesGrowByTheFactorUpToTheLargest) {
  // 1 MiB to 16 MiB by 4: 1, 4, 16 MiB (nccl-tests -b 1M -e 16M -f 4).
  const auto s = sweep_sizes(core::Bytes(1 << 20), core::Bytes(16 << 20), 4, "-b", "-e", "-f");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[2].count(), 16 << 20);
}

TEST(CollectiveSweep, EachRowIsHandedOverAsItsSizeFinishes) {
  // Three sizes: the callback runs three times, with one, two, then three
  // rows, and already knows the group and library for the header.
  topo::ClusterSpec spec;
  spec.system = hw::find_system("dgx-h100");
  spec.gpus = 16;
  const topo::Topology t = topo::build_cluster(spec);
  CollectiveSweep sweep;
  sweep.sizes = {core::Bytes(1 << 20), core::Bytes(4 << 20), core::Bytes(16 << 20)};
  std::vector<size_t> seen;
  const CollectiveSweepRun run =
      run_collective_sweep(t, coll::nccl_library(spec.system), sweep, [&](const CollectiveSweepRun& so_far) {
        EXPECT_EQ(so_far.gpus, 16);
        EXPECT_FALSE(so_far.library.empty());
        EXPECT_EQ(so_far.rows.back().bytes, sweep.sizes[so_far.rows.size() - 1]);
        seen.push_back(so_far.rows.size());
      });
  EXPECT_EQ(seen, (std::vector<size_t>{1, 2, 3}));
  EXPECT_EQ(run.rows.size(), 3u);
}

TEST(CollectiveSweep, ABadInputFailsBeforeAnySizeRuns) {
  // 65 channels is past NCCL's 64: refused before the first size.
  topo::ClusterSpec spec;
  spec.system = hw::find_system("dgx-h100");
  spec.gpus = 8;
  const topo::Topology t = topo::build_cluster(spec);
  CollectiveSweep sweep;
  sweep.sizes = {core::Bytes(1 << 20)};
  sweep.channels = 65;
  int rows = 0;
  EXPECT_THROW(run_collective_sweep(t, coll::nccl_library(spec.system), sweep, [&](const auto&) { ++rows; }),
               core::InputError);
  EXPECT_EQ(rows, 0);
}

}  // namespace
}  // namespace anatomy::app
