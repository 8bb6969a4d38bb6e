#include <gtest/gtest.h>

#include "coll/collective.h"
#include "fixture.h"
#include "coll/nvls_plan.h"
#include "core/error.h"
#include "hw/catalog.h"
#include "net/flow/flow_network.h"
#include "topo/builders.h"

namespace anatomy::coll {
namespace {

// An NCCL cluster's all-reduce at bulk fidelity.
struct Cluster : testing::Fixture {
  explicit Cluster(const topo::ClusterSpec& s) : Fixture(topo::build_cluster(s), nccl_library(s.system)) {}
  CollectiveResult run(Bytes b, const std::string& algo) { return Fixture::run(Op::kAllReduce, b, algo, Fidelity::kBulk); }
};

using testing::cluster_spec;

TEST(NvlsPlan, AnNvl72RackHas32HeadsAnd24ChannelsAndHalvesItsChunk) {
  // 72 GPUs, but NCCL_MAX_NVLS_ARITY caps the NVLS graph at 32 heads; SM100
  // in one NVLink domain runs 24 CTAs. 4 GiB is below 64 x (24 x 32) x
  // 128 KiB = 6 GiB, so the chunk drops to 64 KiB (not below 8 x 768 x 64
  // KiB = 384 MiB): a loop is 24 x 32 x 64 KiB = 48 MiB, 85.3 loops.
  const NvlsPlan p = nvls_plan({.compute_capability = 100, .min_domain_gpus = 72, .domains = 1}, Bytes::GiB(4));
  EXPECT_EQ(p.heads, 32);
  EXPECT_EQ(p.channels, 24);
  EXPECT_EQ(p.chunk, Bytes::KiB(64));
  EXPECT_NEAR(p.loops, 4096.0 / 48, 1e-9);
  EXPECT_EQ(p.stages, 3);
  // 256 MiB < 384 MiB: 32 KiB chunks.
  EXPECT_EQ(nvls_plan({.compute_capability = 100, .min_domain_gpus = 72, .domains = 1}, Bytes::MiB(256)).chunk,
            Bytes::KiB(32));
}

TEST(NvlsPlan, ADgxH100KeepsFullChunksForLargeBuffers) {
  // 8 heads x 16 channels: 8 GiB >= 64 x 128 x 128 KiB = 1 GiB keeps 128
  // KiB chunks; a loop is 16 MiB, 512 loops.
  const NvlsPlan p = nvls_plan({.compute_capability = 90, .min_domain_gpus = 8, .domains = 1}, Bytes::GiB(8));
  EXPECT_EQ(p.heads, 8);
  EXPECT_EQ(p.channels, 16);
  EXPECT_EQ(p.chunk, Bytes::KiB(128));
  EXPECT_NEAR(p.loops, 512, 1e-9);
}

TEST(NvlsPlan, APartialDomainSetsTheHeadsOfEveryDomainAndTheTreeAddsStages) {
  // 1,024 GB200: 14 racks of 72 and one of 16. NCCL keeps the smallest NVLS
  // graph: 16 heads everywhere. 15 domains at 50 GB/s NICs: 24 channels,
  // tree chunks of at most 64 KiB; the tree over 15 domains is 4 levels
  // deep, up and down: 3 + 8 stages.
  const NvlsPlan p =
      nvls_plan({.compute_capability = 100, .min_domain_gpus = 16, .domains = 15, .nic_GBps = 50}, Bytes::GiB(1));
  EXPECT_EQ(p.heads, 16);
  EXPECT_EQ(p.channels, 24);
  EXPECT_EQ(p.chunk, Bytes::KiB(64));
  EXPECT_EQ(p.stages, 11);
  // Two 8-GPU DGX B200 nodes on 400G: 32 channels, 64 KiB tree chunks.
  const NvlsPlan two =
      nvls_plan({.compute_capability = 100, .min_domain_gpus = 8, .domains = 2, .nic_GBps = 50}, Bytes::GiB(1));
  EXPECT_EQ(two.channels, 32);
  EXPECT_EQ(two.chunk, Bytes::KiB(64));
  EXPECT_EQ(two.stages, 5);
}

TEST(Nvls, AnNvl72RacksBusBandwidthGrowsWithSizeFromPipelineFill) {
  // One rack: a head's NVLink (900 GB/s x 40.1/50 = 721.8 GB/s, x 0.74
  // nvlsEfficiency = 534.1 GB/s at 128 KiB chunks) carries S(1 + 1/32).
  // Below 6 GiB the chunk is 64 KiB, and each chunk step's 0.90 us costs
  // f = 0.9 us x 534.1 GB/s / (24 x 64 KiB x 1.03125) = 0.296 of the step
  // against 0.148 at 128 KiB: 534.1 x 1.148 / 1.296 = 473.1 GB/s. The
  // pipeline's fill and drain are the scatter's and the gather's copies of
  // a loop in the GPU's own memory, which pay no chunk steps but run at the
  // 24 CTAs' 24 x 20.4 = 489.6 GB/s: 2 x 48 MiB / 489.6 GB/s = 205.6 us,
  // plus NCCL's 25 us and the rest of the last loop's steps (32 x 0.9 us /
  // 1.148 = 25.1 us a loop). 4 GiB (85.33 loops): 9.363 + 0.2056 + 0.025 +
  // 0.0167 ms = 9.610 ms, busbw = 4 GiB / 9.610 ms x 142/72 = 881.4 GB/s.
  // 512 MiB (64 KiB chunks too, 10.67 loops): 1.170 + 0.2056 + 0.025 +
  // 0.0084 ms, busbw 751.5 GB/s.
  Cluster c(cluster_spec("gb200-nvl72", 72));
  const auto big = c.run(Bytes::GiB(4), "nvls");
  const auto mid = c.run(Bytes::MiB(512), "nvls");
  EXPECT_EQ(big.algorithm, "nvls");
  EXPECT_NEAR(big.busbw_GBps, 881.4, 1);
  EXPECT_NEAR(mid.busbw_GBps, 751.5, 1);
}

TEST(Nvls, ARacksChannelsCopyTheBufferAtTheirCtasRateWhateverItsHeads) {
  // Every GPU's scatter and gather warps copy its whole buffer S, so the 24
  // CTAs of a rack's NVLS move at most 24 x 20.4 = 489.6 GB/s of algorithm
  // bandwidth, where its NVLink, S(1 + 1/32) at 534.1 GB/s, would allow
  // 517.9. 16 GiB on 64 GPUs (128 KiB chunks, loops of 96 MiB, 170.67 of
  // them): 16 GiB / 489.6 GB/s = 35.088 ms, the fill of a loop through two
  // copies and the reduce, 2 x 205.6 + 194.4 - 205.6 = 400 us, NCCL's 25
  // us and the last loop's remaining steps, 0.33 x 25.1 = 8.4 us: 35.52 ms,
  // busbw 16 GiB / 35.52 ms x 126/64 = 952 GB/s (XLA's GB200 table and
  // Oracle's GB300 one read 898-937 at 8 to 32 GiB). Without the CTAs'
  // rate the link sets the pace: 16 GiB x 1.03125 / 534.1 GB/s = 33.17 ms.
  Cluster rack(cluster_spec("gb200-nvl72", 64)), no_cta(cluster_spec("gb200-nvl72", 64));
  no_cta.lib.p2p_channel_GBps = 0;
  EXPECT_NEAR(rack.run(Bytes::GiB(16), "nvls").busbw_GBps, 952, 2);
  EXPECT_LT(no_cta.run(Bytes::GiB(16), "nvls").time.millis(), 33.17 + 0.45);
  // Eight heads make the link the slower one: 534.1 / 1.125 = 474.8 GB/s.
  // On 8 B200s the CTAs change only the fill (two copies of a 24 MiB loop,
  // 94.2 against 102.8 us), well under 1% of 16 GiB's 36 ms.
  Cluster node(cluster_spec("dgx-b200", 8)), node_no_cta(cluster_spec("dgx-b200", 8));
  node_no_cta.lib.p2p_channel_GBps = 0;
  EXPECT_NEAR(node.run(Bytes::GiB(16), "nvls").time.millis() / node_no_cta.run(Bytes::GiB(16), "nvls").time.millis(),
              1.0, 0.005);
}

TEST(Nvls, SmallerChunksPayEachStepsFixedCostMoreOften) {
  // On 8 B200s (24 channels, 8 heads) NCCL moves 128 KiB chunks from 1.5
  // GiB up and 64 KiB chunks below. A step's fixed 0.90 us is f = 0.9 us x
  // 534.1 GB/s / (24 x 128 KiB x 1.125) = 0.136 of a 128 KiB step's time,
  // where nvlsEfficiency already holds, so 4 GiB takes as long as with no
  // step cost but for the rest of its last loop's steps: a loop's steps cost
  // 8 heads x 0.9 us / 1.136 = 6.34 us, and 4 GiB is 170.67 loops of 24 x 8
  // x 128 KiB, so 0.333 x 6.34 = 2.11 us. At 1 GiB each step's cost is
  // 0.272 of its data's time: 1 GiB x 1.125 / 534.1 GB/s = 2.2617 ms takes
  // 1.272 / 1.136 = 1.120x as long. Beside NCCL's 25 us of latency and
  // that rest (85.33 loops of 64 KiB chunks: 0.667 x 6.34 = 4.23 us), the
  // scatter's and gather's copies of a loop in the GPU's own memory, 2 x
  // 12 MiB / 534.1 GB/s = 47.1 us, pay no steps: (1.120 x 2.2617 + 0.0471)
  // / (2.2617 + 0.0471) = 1.1175.
  Cluster with(cluster_spec("dgx-b200", 8)), without(cluster_spec("dgx-b200", 8));
  without.lib.nvls_step_us = 0;
  EXPECT_NEAR((with.run(Bytes::GiB(4), "nvls").time - without.run(Bytes::GiB(4), "nvls").time).micros(), 2.11, 0.03);
  const SimTime latency = SimTime::us(25);
  const double slower = (with.run(Bytes::GiB(1), "nvls").time - latency - SimTime::ns(4230)).seconds() /
                        (without.run(Bytes::GiB(1), "nvls").time - latency).seconds();
  EXPECT_NEAR(slower, 1.1175, 0.001);
}

TEST(Nvls, APartialLoopStillPaysEveryHeadsStep) {
  // NCCL's NVLS kernel runs a step for every head in every loop, the last
  // loop's chunks shrunk to fit (device/all_reduce.h lastChunkSize). On a
  // rack of 64 (32 heads, 24 channels, 16 KiB chunks) a 64 KiB all-reduce
  // is 0.0052 of a loop of 24 x 32 x 16 KiB, yet pays the loop's steps:
  // f = 0.9 us x 534.1 GB/s / (24 x 128 KiB x 1.03125) = 0.148, so 32 x
  // 0.9 us / 1.148 = 25.1 us, x (1 - 0.0052) = 24.95 us, beside NCCL's
  // 25 us of latency and 0.7 us for the data and its fill: 50.7 us, the
  // floor XLA's GB200 table measures on 32 to 72 GPUs (54-59 us at 64-144 KiB).
  Cluster c(cluster_spec("gb200-nvl72", 64));
  EXPECT_NEAR(c.run(Bytes::KiB(64), "nvls").time.micros(), 50.7, 0.3);
}

TEST(Nvls, AGatherOnMoreThanThirtyTwoGpusOfADomainRunsWithoutNvls) {
  // NCCL 2.27+ skips NVLS for every collective but all-reduce where a node
  // has more than NCCL_MAX_NVLS_ARITY = 32 local ranks, and a rack's NVLink
  // clique is one node. So 64 GPUs of a rack gather 1 MiB on a ring: 63
  // steps, each at least the rack's 1.37 us LL hop, where NVLS took 59 us
  // (25 us of latency and its partial loop's steps) before this rule. The
  // all-reduce keeps NVLS; 32 GPUs may still gather with it.
  testing::Fixture rack(topo::build_cluster(cluster_spec("gb200-nvl72", 64)),
                        nccl_library(hw::find_system("gb200-nvl72")));
  const auto gather = rack.run(Op::kAllGather, Bytes::MiB(1), "auto");
  EXPECT_EQ(gather.algorithm, "ring");
  EXPECT_GT(gather.time.micros(), 63 * 1.37);
  EXPECT_THROW(rack.run(Op::kReduceScatter, Bytes::MiB(1), "nvls"), core::InputError);
  EXPECT_EQ(rack.run(Op::kAllReduce, Bytes::MiB(1), "nvls").algorithm, "nvls");
  testing::Fixture half(topo::build_cluster(cluster_spec("gb200-nvl72", 32)),
                        nccl_library(hw::find_system("gb200-nvl72")));
  EXPECT_EQ(half.run(Op::kAllGather, Bytes::MiB(1), "nvls").algorithm, "nvls");
}

TEST(Nvls, UnequalDomainsKeepNvlsWithTheSmallestDomainsHeads) {
  // 1,024 GPUs leave a rack of 16: NVLS across domains stays (NCCL takes
  // the fewest heads, 16), where it used to fall back to a ring or tree.
  Cluster c(cluster_spec("gb200-nvl72", 1024));
  const auto r = c.run(Bytes::GiB(1), "nvls");
  EXPECT_EQ(r.algorithm, "nvls-tree");
  Cluster full(cluster_spec("gb200-nvl72", 1008));
  const auto f = full.run(Bytes::GiB(1), "nvls");
  // 16 heads per rack instead of 32: each head's NIC carries S/16 instead of
  // S/32, but the NVLink side still sets the pace for 1 GiB: within 25%.
  EXPECT_LT(r.time.seconds() / f.time.seconds(), 1.25);
}

TEST(Nvls, AcrossRacksOnlyTheHeadsNicsCarryTheTreeSoTheirSpeedShows) {
  // 16 heads per domain (a 1,024-GPU job) on 400G: each head's NIC sends 2
  // slices of S/16 per all-reduce, S/8 over ~49 GB/s (S/392), slower than
  // the NVLink side's S(1 + 1/16) / 534 GB/s (S/503). An 800G NIC behind
  // PCIe Gen5 gets 64 GB/s: S/512, the NVLink side sets the pace, ~1.28x.
  auto s400 = cluster_spec("gb200-nvl72", 1024);
  auto s800 = s400;
  s800.fabric.nic_speed = Bandwidth::gbps(800);
  Cluster a(s400), b(s800);
  const auto slow = a.run(Bytes::GiB(4), "nvls");
  const auto fast = b.run(Bytes::GiB(4), "nvls");
  EXPECT_GT(fast.busbw_GBps, slow.busbw_GBps * 1.1);
}

TEST(Nvls, InNetworkReductionReplacesTheTreeAcrossRacks) {
  // With SHARP on the fabric each head sends its slice up once and takes
  // the sum back: half the tree's NIC bytes, and no tree levels to fill.
  Cluster tree(cluster_spec("gb200-nvl72", 1440)), sharp(cluster_spec("gb200-nvl72", 1440));
  sharp.lib.fabric_reduction = true;  // cluster.fabric.in_network_reduction
  const auto t = tree.run(Bytes::GiB(1), "nvls");
  const auto s = sharp.run(Bytes::GiB(1), "nvls");
  EXPECT_EQ(t.algorithm, "nvls-tree");
  EXPECT_EQ(s.algorithm, "nvls-sharp");
  EXPECT_GT(s.busbw_GBps, t.busbw_GBps);
}

TEST(Nvls, BusBandwidthFallsAsRacksAreAdded) {
  // More racks, a deeper tree: 2 ceil(log2 m) more pipeline stages per loop.
  Cluster one(cluster_spec("gb200-nvl72", 72)), two(cluster_spec("gb200-nvl72", 144)), twenty(cluster_spec("gb200-nvl72", 1440));
  const double b1 = one.run(Bytes::GiB(1), "auto").busbw_GBps;
  const double b2 = two.run(Bytes::GiB(1), "auto").busbw_GBps;
  const double b20 = twenty.run(Bytes::GiB(1), "auto").busbw_GBps;
  EXPECT_GT(b1, b2);
  EXPECT_GT(b2, b20);
}

}  // namespace
}  // namespace anatomy::coll
