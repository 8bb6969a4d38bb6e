#include <gtest/gtest.h>

#include "coll/collective.h"
#include "fixture.h"
#include "hw/catalog.h"
#include "net/flow/flow_network.h"
#include "topo/builders.h"

namespace anatomy::coll {
namespace {

using testing::Fixture;

Fixture ring_of(int n, double GBps, SimTime hop) {
  return Fixture(topo::build_torus({static_cast<uint32_t>(n)}, Bandwidth::gigabytes_per_s(GBps), hop),
                 ideal_library());
}

Fixture cluster(const char* system, int gpus) {
  const topo::ClusterSpec s = testing::cluster_spec(system, gpus);
  return Fixture(topo::build_cluster(s), nccl_library(s.system));
}

TEST(Ring, AllReduceMatchesTheTextbookFormula) {
  // A ring all-reduce of S bytes on N ranks over links of bandwidth B moves
  // 2(N-1)/N S per rank, taking 2(N-1)/N S / B plus 2(N-1) hop latencies.
  for (int n : {4, 16, 64}) {
    auto fx = ring_of(n, 50, SimTime::ns(500));
    const Bytes S = Bytes::GiB(1);
    const double ideal_s = 2.0 * (n - 1) / n * S.as_double() / 50e9 + 2.0 * (n - 1) * 500e-9;
    auto r = fx.run(Op::kAllReduce, S, "ring");
    EXPECT_NEAR(r.time.seconds() / ideal_s, 1.0, 0.01) << "n=" << n;
    // nccl-tests' busbw equals the link bandwidth when bandwidth dominates.
    EXPECT_NEAR(r.busbw_GBps, 50, 0.5) << "n=" << n;
  }
}

TEST(Ring, AllGatherAndReduceScatterTakeHalfAnAllReduce) {
  // (N-1)/N S over B: S is the total gathered buffer (nccl-tests' convention).
  auto fx = ring_of(8, 50, SimTime::ns(100));
  const Bytes S = Bytes::GiB(1);
  const double expect = 7.0 / 8 * S.as_double() / 50e9 + 7 * 100e-9;
  EXPECT_NEAR(fx.run(Op::kAllGather, S, "ring").time.seconds() / expect, 1.0, 0.01);
  EXPECT_NEAR(fx.run(Op::kReduceScatter, S, "ring").time.seconds() / expect, 1.0, 0.01);
}

TEST(Ring, BroadcastPipelinesChunksDownAChain) {
  // A pipelined chain of N-1 edges with L chunks takes (N-1+L-1) chunk times;
  // for L >> N it approaches S / B.
  auto fx = ring_of(8, 50, SimTime::zero());
  const Bytes S = Bytes::MiB(512);
  auto r = fx.run(Op::kBroadcast, S, "ring", Fidelity::kStep, Protocol::kSimple, 64);
  const double chunk_s = S.as_double() / 64 / 50e9;
  EXPECT_NEAR(r.time.seconds() / (chunk_s * (7 + 64 - 1)), 1.0, 0.001);
}

TEST(Ring, StepAndBulkFidelitiesAgree) {
  // On a multi-node cluster with real contention (PXN over NVLink, rails):
  // the bulk form (one flow per edge) is within 2% of step by step.
  auto fx = cluster("dgx-h100", 32);
  for (const char* algo : {"ring", "tree", "hierarchical", "nvls"}) {
    auto step = fx.run(Op::kAllReduce, Bytes::GiB(1), algo, Fidelity::kStep);
    auto bulk = fx.run(Op::kAllReduce, Bytes::GiB(1), algo, Fidelity::kBulk);
    EXPECT_NEAR(bulk.time.seconds() / step.time.seconds(), 1.0, 0.02) << algo;
  }
}

TEST(Ring, ScheduleBytesAreTwoNMinusOneSlicesPerRank) {
  auto fx = ring_of(16, 50, SimTime::zero());
  AlgorithmRegistry reg;
  register_builtin_algorithms(reg);
  Request r;
  r.bytes = Bytes::MiB(64);
  const Group g = whole_topology(fx.topo);
  const Schedule s = reg.find("ring").build(g, r, ideal_library());
  // 16 ranks each send 2 * 15 / 16 of 64 MiB.
  EXPECT_NEAR(s.total_bytes().as_double(), 16 * 2.0 * 15 / 16 * r.bytes.as_double(), 16.0 * 64);
  // LL doubles the wire bytes (half of every line is flags).
  r.protocol = Protocol::kLL;
  const Schedule ll = reg.find("ring").build(g, r, nccl_library(hw::find_system("dgx-h100")));
  EXPECT_NEAR(ll.total_bytes().as_double() / s.total_bytes().as_double(), 2.0, 1e-3);
}

TEST(Ring, AstraSimOneDimensionalRingCase) {
  // ASTRA-sim's analytical backend reports 46.13 ms for a 1 GiB ring
  // all-reduce on 1,024 devices of a 1-D ring, 50 GB/s and 500 ns per hop,
  // in 4 chunks. The pipelined ring costs 2*1023/1024 GiB / 50 GB/s = 42.9 ms
  // of bandwidth plus 2,046 hops of 500 ns, 43.9 ms: within 5%.
  auto fx = ring_of(1024, 50, SimTime::ns(500));
  auto r = fx.run(Op::kAllReduce, Bytes::GiB(1), "ring", Fidelity::kStep, Protocol::kSimple, 4);
  EXPECT_NEAR(r.time.millis(), 43.93, 0.05);
  EXPECT_NEAR(r.time.millis() / 46.13, 1.0, 0.05);
  // It ran a handful of distinct waves, not 2 million messages.
  EXPECT_LT(r.stats.sends_issued, 10 * 1024);
}

TEST(Nvls, DgxH100AllReduceMatchesThePublishedPeak) {
  // Case B2-8G: an NVIDIA maintainer puts the NVLS peak on 8 H100 at ~480
  // GB/s busbw (nccl-tests #212), reached only at large sizes.
  auto fx = cluster("dgx-h100", 8);
  auto big = fx.run(Op::kAllReduce, Bytes::GiB(8), "auto");
  EXPECT_EQ(big.algorithm, "nvls");
  EXPECT_NEAR(big.busbw_GBps / 480, 1.0, 0.05);
  // 256 MB is "too small to reach peak bandwidth": 32 loops of 8 MiB, two
  // of them spent filling and draining the pipeline.
  auto mid = fx.run(Op::kAllReduce, Bytes::MiB(256), "auto");
  EXPECT_LT(mid.busbw_GBps, big.busbw_GBps * 0.96);
}

TEST(Nvls, H200AllReduceMatchesThePublishedPeak) {
  // Case B3-4G (nccl-tests #272): 475 GB/s at 4 GB on 8 H200.
  auto fx = cluster("dgx-h200", 8);
  auto big = fx.run(Op::kAllReduce, Bytes::GiB(4), "auto");
  EXPECT_NEAR(big.busbw_GBps / 475, 1.0, 0.05);
}

TEST(Nvls, BusBandwidthGrowsWithGpusAsInSwitchReductionPredicts) {
  // Each GPU moves S(1+1/n) each way, so busbw = B 2(n-1)/(n+1): more GPUs,
  // more bus bandwidth over the same links (nccl#1455 measured 420 -> 480 GB/s
  // from 5 to 8 H100s).
  double prev = 0;
  for (int n : {4, 6, 8}) {
    auto fx = cluster("dgx-h100", n);
    auto r = fx.run(Op::kAllReduce, Bytes::GiB(4), "nvls");
    EXPECT_GT(r.busbw_GBps, prev) << n;
    prev = r.busbw_GBps;
  }
}

TEST(Auto, SmallMessagesPickLowLatencyProtocols) {
  auto fx = cluster("dgx-h100", 8);
  auto r = fx.run(Op::kAllReduce, Bytes(1024), "auto");
  EXPECT_EQ(r.protocol, "LL");
  // About NCCL's ring/LL latency: 6.6 us + 14 x 0.6 us.
  EXPECT_NEAR(r.time.micros(), 15.0, 2.0);
}

// Auto keeps the first (registry order) of the fastest candidates, and it
// skips simulating a candidate whose fixed latencies and protocol floor
// alone exceed the best time found: the pick must be what simulating every
// candidate gives, to the picosecond, from latency-bound to bandwidth-bound
// sizes and on one node, across nodes and across racks.
TEST(Auto, PicksWhatSimulatingEveryCandidateWouldPick) {
  for (const auto& [system, gpus] : {std::pair{"dgx-h100", 8}, std::pair{"dgx-h100", 32}, std::pair{"gb200-nvl72", 144},
                                     std::pair{"mi300x-8", 16}}) {
    auto fx = cluster(system, gpus);
    CollectiveRunner runner(fx.topo, fx.reg, fx.lib, testing::flow);
    const Group g = whole_topology(fx.topo);
    for (Op op : {Op::kAllReduce, Op::kAllGather}) {
      for (const int64_t bytes : {int64_t{1024}, int64_t{1} << 20, int64_t{256} << 20}) {
        Request r;
        r.op = op;
        r.bytes = Bytes(bytes);
        bool have = false;
        CollectiveResult best;
        for (const Algorithm& a : fx.reg.all()) {
          if (!a.in_auto || !a.supports(op) || !a.applicable(g, op)) continue;
          for (Protocol p : a.protocols) {
            if (p == Protocol::kLL128 && !fx.lib.ll128) continue;  // not the library's own choice here
            r.protocol = p;
            CollectiveResult one = runner.run_one(g, r, a);
            if (!have || one.time < best.time) {
              best = one;
              have = true;
            }
          }
        }
        const CollectiveResult pick = runner.run(g, r, "auto");
        EXPECT_EQ(pick.time, best.time) << system << " " << gpus << " " << to_string(op) << " " << bytes;
        EXPECT_EQ(pick.algorithm + "/" + pick.protocol, best.algorithm + "/" + best.protocol)
            << system << " " << gpus << " " << to_string(op) << " " << bytes;
      }
    }
  }
}

// RCCL enables LL128 on gfx942 only for 4-NIC platforms, so on an 8-NIC
// MI300X host auto never picks it: a 16 MiB all-reduce on one node, which
// LL128 would win (207 GB/s against Simple's 203), runs ring/Simple. An
// explicit LL128 (NCCL_PROTO=LL128) still runs. MI355X (gfx950) keeps it.
TEST(Auto, OnAnEightNicMi300xHostLl128IsNotTheLibrarysChoice) {
  auto mi300x = cluster("mi300x-8", 8);
  const auto pick = mi300x.run(Op::kAllReduce, Bytes::MiB(16), "auto");
  EXPECT_EQ(pick.algorithm + "/" + pick.protocol, "ring/Simple");
  const auto forced = mi300x.run(Op::kAllReduce, Bytes::MiB(16), "ring", Fidelity::kStep, Protocol::kLL128);
  EXPECT_EQ(forced.protocol, "LL128");
  EXPECT_LT(forced.time, pick.time);
  auto mi355x = cluster("mi355x-8", 8);
  EXPECT_EQ(mi355x.run(Op::kAllReduce, Bytes::MiB(16), "auto").protocol, "LL128");
}

// A ring step waits for the slower of NCCL's hop latency and the path's: on
// an NVL72 rack a GPU reaches another through the switch trays, 1.37 us (XLA's
// measured GB200 slope, hw/catalog_systems.cc), where a B200 baseboard takes
// 0.7 us. A 1 KiB ring/LL all-reduce on 8 GPUs has 14 steps after NCCL's
// 6.6 us base: 6.6 + 14 x 1.37 = 25.8 us on the rack, 6.6 + 14 x 0.7 = 16.4
// us on the board (1 KiB adds well under 0.1 us a step).
TEST(Ring, OnAnNvl72RackEveryStepCrossesTheSwitchTrays) {
  auto rack = cluster("gb200-nvl72", 8);
  EXPECT_NEAR(rack.run(Op::kAllReduce, Bytes(1024), "ring", Fidelity::kStep, Protocol::kLL).time.micros(), 25.8, 0.3);
  auto board = cluster("dgx-b200", 8);
  EXPECT_NEAR(board.run(Op::kAllReduce, Bytes(1024), "ring", Fidelity::kStep, Protocol::kLL).time.micros(), 16.4,
              0.3);
}

// Inside one NVLink-switch domain NCCL runs a ring on its collective
// channels, one CTA each: 32 on Blackwell at 20.4 GB/s, a bus bandwidth of
// 32 x 20.4 = 652.8 GB/s, under NVLink 5's 721.8 GB/s payload rate. So a
// 4-GPU ring all-reduce of 8 GiB on a GB200 rack, where the time is all
// transfer, reads 652.8 GB/s (less the fixed costs, under 0.3%). Hopper's 24 x
// 19.0 = 456 GB/s is above NVLink 4's 370.8, so an 8x H100 ring keeps the
// links' rate (busbw over 360 GB/s). Across domains the bound is not
// applied (a ring's CTAs there wait on its NICs).
TEST(Ring, InsideOneNvlinkDomainItsCtasBoundTheBusBandwidth) {
  auto rack = cluster("gb200-nvl72", 4);
  const auto r = rack.run(Op::kAllReduce, Bytes::GiB(8), "ring", Fidelity::kBulk);
  EXPECT_NEAR(r.busbw_GBps, 652.8, 2.0);
  auto h100 = cluster("dgx-h100", 8);
  EXPECT_GT(h100.run(Op::kAllReduce, Bytes::GiB(8), "ring", Fidelity::kBulk).busbw_GBps, 360.0);
}

// A communicator capped at 8 CTAs (NCCL's maxCTAs, as the file Megatron-Core
// reads in the MLPerf 5.1 NeMo launches gives their TP and DP) runs 8
// channels, each one CTA at Blackwell's 20.4 GB/s: 8 x 20.4 = 163.2 GB/s of
// busbw on one DGX B200, where NCCL's own 32 channels reach 652.8. Across
// nodes each channel still writes the NVLink hops inside every node, so
// 2 DGX B200 are held to the same 163.2, under their NICs' bound (8 x 400G,
// about 384 GB/s); a cap of 64 binds nowhere and leaves them as without one.
TEST(Ring, ACommunicatorsCtaCapBoundsItsRingsInsideAndAcrossNodes) {
  auto one = cluster("dgx-b200", 8);
  one.lib = with_ctas(one.lib, 0, 8);
  EXPECT_NEAR(one.run(Op::kAllReduce, Bytes::GiB(8), "ring", Fidelity::kBulk).busbw_GBps, 163.2, 1.0);
  auto two = cluster("dgx-b200", 16);
  const double uncapped = two.run(Op::kAllReduce, Bytes::GiB(8), "ring", Fidelity::kBulk).busbw_GBps;
  EXPECT_GT(uncapped, 300.0);
  two.lib = with_ctas(nccl_library(hw::find_system("dgx-b200")), 0, 8);
  EXPECT_NEAR(two.run(Op::kAllReduce, Bytes::GiB(8), "ring", Fidelity::kBulk).busbw_GBps, 163.2, 1.0);
  two.lib = with_ctas(nccl_library(hw::find_system("dgx-b200")), 0, 64);
  EXPECT_DOUBLE_EQ(two.run(Op::kAllReduce, Bytes::GiB(8), "ring", Fidelity::kBulk).busbw_GBps, uncapped);
}

// Across domains a ring runs a channel per NIC of a domain (72 on a GB200
// rack, held to NCCL's MAXCHANNELS of 64), within the communicator's CTA
// limits: 8 at most 8, 32 at least 32 on 8 NICs. One switched domain keeps
// its single fluid channel whatever the limits.
TEST(Ring, ItsChannelsAcrossDomainsStayWithinTheCtaLimits) {
  auto racks = cluster("gb200-nvl72", 144);
  Request r;
  r.op = Op::kAllReduce;
  r.bytes = Bytes::MiB(64);
  r.fidelity = Fidelity::kBulk;
  const Algorithm& ring = racks.reg.find("ring");
  EXPECT_EQ(ring.build(whole_topology(racks.topo), r, with_ctas(racks.lib, 0, 8)).channels, 8);
  EXPECT_EQ(ring.build(whole_topology(racks.topo), r, racks.lib).channels, 64);
  auto nodes = cluster("dgx-b200", 16);
  EXPECT_EQ(ring.build(whole_topology(nodes.topo), r, with_ctas(nodes.lib, 32, 0)).channels, 32);
  auto node = cluster("dgx-b200", 8);
  EXPECT_EQ(ring.build(whole_topology(node.topo), r, with_ctas(node.lib, 32, 64)).channels, 1);
}

TEST(Ring, OneRankPerNodeExposesTheTreesNetworkLatency) {
  // NCCL's tuner (tuning.cc): with one rank per node a ring's network
  // latencies are "fully exposed" and it charges the tree's network hop
  // (LL128 8.5 us) instead of the ring's (4.0 us). A 4 KB LL128 all-reduce
  // over 4 GPUs on 4 DGX H100 nodes: base 14.0 us + 2(4-1) = 6 hops x
  // 8.5 us = 65 us (with the ring's hop it would be 14 + 24 = 38 us).
  // Bytes are negligible: 4 KB at tens of GB/s is well under 1 us a step.
  auto fx = cluster("dgx-h100", 32);
  CollectiveRunner runner(fx.topo, fx.reg, fx.lib, testing::flow);
  Request r;
  r.op = Op::kAllReduce;
  r.bytes = Bytes(4096);
  r.protocol = Protocol::kLL128;
  const auto one_per_node = runner.run(make_group(fx.topo, {0, 8, 16, 24}), r, "ring");
  EXPECT_NEAR(one_per_node.time.micros(), 65.0, 3.0);
  // Two per node (GPUs 0, 1, 8, 9): two NVLink hops at 1.9 us and two
  // network hops at the ring's 4.0 us per pass, so well under 65 us.
  const auto two_per_node = runner.run(make_group(fx.topo, {0, 1, 8, 9}), r, "ring");
  EXPECT_LT(two_per_node.time.micros(), 50.0);
}

TEST(Ring, AcrossNodesEveryStepWaitsAtLeastTheNetworkPostOverhead) {
  // NCCL's ring latency (tuning.cc) charges each intra-node step of a ring
  // that crosses nodes max(its hop latency, the network post overhead),
  // x3 for Simple: 1 us on Intel hosts (3 us for Simple, under NVLink's
  // 3.5: NCCL's 3.4 on the board's 0.7 us path, 0.1 over its LL figure;
  // for LL, 1 us is above NVLink's 0.7), 2 us on AMD hosts (6 us for
  // Simple). A 4 KB Simple all-reduce on 2 DGX H100 nodes (16 ranks, 30
  // steps; each channel's ring has 14 NVLink edges and 2 network ones):
  // with AMD hosts the mean hop grows by 14/16 x (6 - 3.5) = 2.1875 us,
  // 65.625 us over the 30 steps. On one node there is no network to post
  // to and the host makes no difference.
  // Each run against the same library with no post overhead (NCCL_NET_OVERHEAD=0).
  const auto extra_us = [](int gpus, hw::CpuVendor vendor, Op op, Protocol protocol) {
    topo::ClusterSpec s = testing::cluster_spec("dgx-h100", gpus);
    s.system.cpu_vendor = vendor;
    Fixture fx(topo::build_cluster(s), nccl_library(s.system));
    const double with = fx.run(op, Bytes(4096), "ring", Fidelity::kStep, protocol).time.micros();
    fx.lib.net_overhead_us = 0;
    return with - fx.run(op, Bytes(4096), "ring", Fidelity::kStep, protocol).time.micros();
  };
  EXPECT_NEAR(extra_us(16, hw::CpuVendor::kAmd, Op::kAllReduce, Protocol::kSimple), 65.625, 1.0);
  EXPECT_NEAR(extra_us(16, hw::CpuVendor::kIntel, Op::kAllReduce, Protocol::kSimple), 0.0, 1e-6);
  // LL on Intel hosts: 1 us over the NVLink hop's max(0.6, the 0.7 us
  // physical path), 14/16 x 0.3 x 30 = 7.875 us.
  EXPECT_NEAR(extra_us(16, hw::CpuVendor::kIntel, Op::kAllReduce, Protocol::kLL), 7.875, 0.5);
  // A broadcast's chain and a ring on one node pay none of it.
  EXPECT_NEAR(extra_us(16, hw::CpuVendor::kAmd, Op::kBroadcast, Protocol::kSimple), 0.0, 1e-6);
  EXPECT_NEAR(extra_us(8, hw::CpuVendor::kAmd, Op::kAllReduce, Protocol::kSimple), 0.0, 1e-6);
}

TEST(Hierarchical, CrossesTheFabricWithOnlyASlicePerGpu) {
  // 4 DGX H100 nodes: the inter-node stage carries 2(m-1)/m of S/8 per NIC.
  auto fx = cluster("dgx-h100", 32);
  auto h = fx.run(Op::kAllReduce, Bytes::GiB(1), "hierarchical", Fidelity::kBulk);
  auto flat = fx.run(Op::kAllReduce, Bytes::GiB(1), "ring", Fidelity::kBulk);
  EXPECT_GT(h.busbw_GBps, 100);
  EXPECT_GT(flat.busbw_GBps, 100);
  EXPECT_EQ(h.algorithm, "hierarchical");
}

TEST(Busbw, FactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kAllReduce, 8), 14.0 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kAllGather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kReduceScatter, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kAllToAll, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kBroadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kSendRecv, 8), 1.0);
}

// On a fully connected mesh one ring would use one of a GPU's n - 1 links;
// the channels follow the mesh rings, so a large ring all-gather runs on
// all of them: busbw = (n - 1) x 48 GB/s of payload per xGMI link, times the
// protocol's efficiency. On an MI300X platform's 8 GPUs, 7 rings use each
// link once. 4 GPUs have no 3 rings that do (Tillson 1980), so the channels
// follow the 6 directed Hamiltonian cycles, each link carrying two at half
// its rate: 3 x 48 = 144 GB/s, where 2 link-disjoint rings would give 96.
// XLA's gfx942 collective table measured RCCL at 126-135 GB/s (all-reduce,
// all-gather, reduce-scatter of 1 GiB) on two such groups at once.
TEST(Ring, OnAMeshEveryLinkCarriesAChannel) {
  struct Case {
    int gpus, channels;
  };
  for (const Case c : {Case{8, 7}, Case{4, 6}}) {
    auto fx = cluster("mi300x-8", c.gpus);
    auto r = fx.run(Op::kAllGather, Bytes::GiB(1), "ring", Fidelity::kBulk);
    EXPECT_EQ(r.channels, c.channels) << c.gpus;
    const double per_link_GBps = 64 * 0.75;
    const double links = c.gpus - 1;
    EXPECT_NEAR(r.busbw_GBps / (links * per_link_GBps * fx.lib.efficiency(Protocol::kSimple)), 1.0, 0.03) << c.gpus;
  }
}

// Across two MI300X hosts each channel crosses a mesh on its own
// Hamiltonian path and leaves by the NIC of the GPU it ends on: 8 channels,
// one per NIC, each link of the mesh used once. A channel's slowest edge is
// an xGMI link (64 x 0.75 = 48 GB/s; the NIC gives 400G x 4096/4178 = 49.0
// GB/s), so busbw = 8 x 48 = 384 GB/s, above one host's 7 x 48 = 336.
TEST(Ring, AcrossMeshHostsEveryNicCarriesAChannel) {
  auto fx = cluster("mi300x-8", 16);
  auto r = fx.run(Op::kAllReduce, Bytes::GiB(4), "ring", Fidelity::kBulk);
  EXPECT_EQ(r.channels, 8);
  EXPECT_NEAR(r.busbw_GBps / 384, 1.0, 0.03);
}

// Inside one node NCCL's all-to-all rides its p2p channels (p2p_plan.h),
// each moving one CTA's rate, and the receiver's copy of a part's last 512
// KiB chunk comes after the sender's. At 1 GiB on 8 B200 the busiest
// channel carries 32 MiB: (32 MiB + 512 KiB) / 20.4 GB/s = 1.67 ms, above
// the 1.30 ms the GPU's link takes for its 7/8 GiB at 900 x 40.1 / 50 =
// 721.8 GB/s. On 8 H100 at 8 GiB every channel carries all 7 peers' 32 MiB
// parts, 224.5 MiB in 12.4 ms at 19.0 GB/s, and the link's 20.3 ms (370.8
// GB/s) binds instead.
TEST(Direct, AllToAllOnOneSwitchIsBoundByItsBusiestChannelOrItsLink) {
  const double lat = 8.4e-6 + 3.4e-6;  // ring Simple's base and its NVLink hop
  auto b200 = cluster("dgx-b200", 8);
  auto one = b200.run(Op::kAllToAll, Bytes::GiB(1), "direct", Fidelity::kBulk);
  EXPECT_NEAR(one.time.seconds() / ((Bytes::MiB(32) + Bytes::KiB(512)).as_double() / 20.4e9 + lat), 1.0, 0.01);
  auto h100 = cluster("dgx-h100", 8);
  const double link = 450e9 * 20.6 / 25;
  auto eight = h100.run(Op::kAllToAll, Bytes::GiB(8), "direct", Fidelity::kBulk);
  EXPECT_NEAR(eight.time.seconds() / (7.0 / 8 * Bytes::GiB(8).as_double() / link + lat), 1.0, 0.01);
}

// Up to 512 KiB a peer NCCL 2.28 sends LL (p2p_plan.h), and an LL part
// moves at one CTA's LL rate, 5.20 GB/s on Blackwell, a quarter of
// Simple's. 16 MiB on a GB200 rack's 64 GPUs: 256 KiB a peer, one part,
// two on the busiest channel (rounds k and k + 32, two batches): 512 KiB /
// 5.20 GB/s = 100.8 us, plus a hop for the second batch. 32 MiB + 64 KiB
// a peer more is Simple at 20.4 GB/s: (2 x 513 KiB + 513 KiB) / 20.4 GB/s
// = 77.3 us, less time for more bytes, as nccl-tests shows on GB300 racks
// (236 us at 32 MiB, 162 us at 64 MiB).
TEST(Direct, AllToAllOfAtMostHalfAMebibyteAPeerRunsAtLlsRate) {
  auto rack = cluster("gb200-nvl72", 64);
  auto ll = rack.run(Op::kAllToAll, Bytes::MiB(16), "direct", Fidelity::kBulk);
  const double bound_ll = Bytes::KiB(512).as_double() / 5.20e9;
  EXPECT_GT(ll.time.seconds(), bound_ll);
  EXPECT_LT(ll.time.seconds(), bound_ll + 25e-6);
  auto simple = rack.run(Op::kAllToAll, Bytes::KiB(64 * 513), "direct", Fidelity::kBulk);
  EXPECT_LT(simple.time.seconds(), ll.time.seconds());
  EXPECT_GT(simple.time.seconds(), 3 * Bytes::KiB(513).as_double() / 20.4e9);
}

// NCCL's and RCCL's all-to-all is one group of sends to every peer, which
// proceed together. On MI300X's mesh each peer has its own xGMI link: every
// GPU sends S/8 to each of 7 peers on 7 links at once, in S/8 / 48 GB/s,
// a busbw of 7 x 48 = 336 GB/s (x Simple's efficiency). One peer at a time
// would use one link: 48 GB/s. Step and bulk fidelity run the same group.
TEST(Direct, AllToAllOnAMeshUsesEveryLinkAtOnce) {
  auto fx = cluster("mi300x-8", 8);
  const double per_link_GBps = 64 * 0.75;
  for (Fidelity f : {Fidelity::kStep, Fidelity::kBulk}) {
    auto r = fx.run(Op::kAllToAll, Bytes::GiB(1), "direct", f);
    EXPECT_NEAR(r.busbw_GBps / (7 * per_link_GBps * fx.lib.efficiency(Protocol::kSimple)), 1.0, 0.03);
  }
}

// An all-to-all's pairs all transfer at once, so it ends with its slowest
// pair. On 2 DGX H100 nodes each GPU has 7 peers over NVLink and 8 across
// the network; a 4 KB all-to-all (256 B a peer, well under 1 us on any link)
// takes ring Simple's base latency, 8.4 us, plus the network hop's 14 us,
// plus the 7 posts of 1 us (Intel hosts) its proxy makes before the last
// network send leaves (Direct.AProxyPostsARanksNetworkSendsOneAfterAnother):
// 29.4 us. Averaging the 15 peers' hops (7 x 3.4 us and 8 x 14 us) would
// give 8.4 + 9.05 + 7 = 24.45 us. On one node every hop is NVLink's and no
// send is posted: 8.4 + 3.4.
TEST(Direct, AllToAllWaitsForItsSlowestPeer) {
  auto two_nodes = cluster("dgx-h100", 16);
  EXPECT_NEAR(two_nodes.run(Op::kAllToAll, Bytes(4096), "direct").time.micros(), 29.4, 0.3);
  auto one_node = cluster("dgx-h100", 8);
  EXPECT_NEAR(one_node.run(Op::kAllToAll, Bytes(4096), "direct").time.micros(), 11.8, 0.3);
}

}  // namespace
}  // namespace anatomy::coll
