#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "app/collective.h"
#include "coll/collective.h"
#include "coll/library_model.h"
#include "hw/catalog.h"
#include "net/flow/flow_network.h"
#include "topo/builders.h"

#include "../coll/fixture.h"

namespace anatomy::app {
namespace {

using coll::testing::cluster_spec;

TEST(CollectiveSweep, SizesGrowByTheFactorUpToTheLargest) {
  // 1 MiB to 16 MiB by 4: 1, 4, 16 MiB (nccl-tests -b 1M -e 16M -f 4).
  const auto s = sweep_sizes(core::Bytes(1 << 20), core::Bytes(16 << 20), 4, "-b", "-e", "-f");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[2].count(), 16 << 20);
}

TEST(CollectiveSweep, EachRowIsHandedOverAsItsSizeFinishes) {
  // Three sizes: the callback runs three times, with one, two, then three
  // rows, and already knows the group and library for the header.
  const topo::ClusterSpec spec = cluster_spec("dgx-h100", 16);
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
  const topo::ClusterSpec spec = cluster_spec("dgx-h100", 8);
  const topo::Topology t = topo::build_cluster(spec);
  CollectiveSweep sweep;
  sweep.sizes = {core::Bytes(1 << 20)};
  sweep.channels = 65;
  int rows = 0;
  EXPECT_THROW(run_collective_sweep(t, coll::nccl_library(spec.system), sweep, [&](const auto&) { ++rows; }),
               core::InputError);
  EXPECT_EQ(rows, 0);
}

TEST(CollectiveSweep, CtaLimitsBoundTheRingAndAreNamedBesideTheLibrary) {
  // NCCL_MAX_CTAS=8 on one DGX B200: a ring all-reduce of 1 GiB at 8 CTAs
  // of 20.4 GB/s reaches at most 163.2 GB/s of busbw (NCCL's own 32 reach
  // about 640), and the run says under what limits it ran. A minimum above
  // the maximum is refused, naming the flag, before any size runs.
  const topo::ClusterSpec spec = cluster_spec("dgx-b200", 8);
  const topo::Topology t = topo::build_cluster(spec);
  CollectiveSweep sweep;
  sweep.sizes = {core::Bytes(1 << 30)};
  sweep.algorithm = "ring";
  sweep.max_ctas = 8;
  const CollectiveSweepRun capped = run_collective_sweep(t, coll::nccl_library(spec.system), sweep, {});
  EXPECT_LE(capped.rows[0].busbw_GBps, 163.2);
  EXPECT_GT(capped.rows[0].busbw_GBps, 150.0);
  EXPECT_EQ(capped.library, "NCCL 2.28 tuning model (at most 8 CTAs)");
  sweep.min_ctas = 16;
  try {
    run_collective_sweep(t, coll::nccl_library(spec.system), sweep, {});
    ADD_FAILURE() << "a minimum above the maximum ran";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().field, "--min-ctas");
  }
}

TEST(CollectiveCase, ItsCtaLimitsAreTheSweepsOnes) {
  // The collective case of a scenario (validate's, Python's) takes the same
  // limits as anatomy collective: 8 CTAs hold a ring on one DGX B200 to at
  // most 8 x 20.4 = 163.2 GB/s, as the sweep test above derives.
  const scenario::Scenario s = scenario::parse_scenario(R"(cluster: {system: dgx-b200, gpus: 8}
collective: {op: all_reduce, bytes: 1GiB, algorithm: ring, max_ctas: 8}
)",
                                                        "c.yaml");
  const CollectiveCaseRun run = run_collective_case(s);
  EXPECT_LE(run.result.busbw_GBps, 163.2);
  EXPECT_GT(run.result.busbw_GBps, 150.0);
}

// Alone on the flow network an all-to-all of any size is answered from its
// busiest link (coll/link_load.h), which is the flow model's own time:
// within a picosecond of what its 4,032 flows give when they run (a collective sharing the
// network runs them), with no flow started. On a packet network the
// transfers run.
TEST(CollectiveSweep, AloneOnTheFlowNetworkAnAllToAllIsAnsweredFromItsBusiestLink) {
  const topo::ClusterSpec spec = cluster_spec("dgx-h100", 64);
  const topo::Topology t = topo::build_cluster(spec);
  const coll::LibraryModel lib = coll::nccl_library(spec.system);
  CollectiveSweep sweep;
  sweep.op = coll::Op::kAllToAll;
  sweep.sizes = {core::Bytes(64 << 20)};
  const coll::CollectiveResult alone = run_collective_sweep(t, lib, sweep).rows.at(0);
  EXPECT_EQ(alone.stats.sends_issued, 0);

  coll::AlgorithmRegistry reg;
  coll::register_builtin_algorithms(reg);
  const coll::CollectiveRunner shared(t, reg, lib, [](engine::Simulator& sim, const topo::Topology& topo) {
    return std::unique_ptr<net::Network>(std::make_unique<net::FlowNetwork>(sim, topo));
  });
  coll::Request r;
  r.op = coll::Op::kAllToAll;
  r.bytes = sweep.sizes[0];
  const coll::CollectiveResult flows = shared.run(coll::whole_topology(t), r, "auto");
  EXPECT_EQ(flows.stats.sends_issued, 64 * 63);
  EXPECT_NEAR(alone.time.seconds(), flows.time.seconds(), 1e-12);  // each side rounds up to whole picoseconds

  sweep.network.model = net::NetworkModel::kPacket;
  sweep.sizes = {core::Bytes(64 << 10)};
  EXPECT_GT(run_collective_sweep(t, lib, sweep).rows.at(0).stats.sends_issued, 0);
}

}  // namespace
}  // namespace anatomy::app
