#include <gtest/gtest.h>

#include <set>

#include "coll/pipeline.h"
#include "fixture.h"
#include "hw/catalog.h"
#include "topo/builders.h"

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

// Three 4-GPU NVLink domains of GB200 NVL72 hardware, one 400G NIC per GPU,
// no in-switch reduction: NCCL's tree against its ring across racks.
struct ThreeDomains : testing::Fixture {
  static topo::ClusterSpec spec() {
    topo::ClusterSpec s;
    s.system = hw::find_system("gb200-nvl72");
    s.system.scaleup.domain_gpus = 4;
    s.system.scaleup.in_network_reduction = false;
    s.gpus = 12;
    return s;
  }
  ThreeDomains() : Fixture(topo::build_cluster(spec()), nccl_library(spec().system)) {}
};

TEST(TreeAcrossDomains, EveryNicCarriesBothTreesSoTheBusiestSendsThreeEighthsOfTheBuffer) {
  // Trees over 3 domains: 0 -> 2 -> 1 and 1 -> 0 -> 2. NCCL runs each
  // NIC's graph channel on both trees (8 channels, S/8 each, two per NIC):
  // a domain in the middle of one tree and a leaf of the other sends
  // 2 + 1 = 3 eighths of S on every NIC, so the NIC time is 3S/8 at its
  // rate R (flow-model payload) and 0.92 (NCCL's tree factor): busbw =
  // 2 (11/12) S / t = 2 (11/12) (8/3) 0.92 R = 4.50 R. With one tree per
  // NIC the middle domain's NICs would carry 2 x S/4 = S/2 and pace the
  // all-reduce at 3.37 R, below the ring's ~4 R (4 NICs a domain).
  ThreeDomains f;
  const auto tree = f.run(Op::kAllReduce, Bytes::GiB(16), "tree", Fidelity::kBulk);
  const auto ring = f.run(Op::kAllReduce, Bytes::GiB(16), "ring", Fidelity::kBulk);
  const double R = 50.0 * 0.98;  // 400 Gb/s, less the packet headers the flow model charges (~2%)
  EXPECT_NEAR(tree.busbw_GBps / (2 * 11.0 / 12 * 8.0 / 3 * 0.92 * R), 1.0, 0.04);
  EXPECT_GT(tree.busbw_GBps, 1.05 * ring.busbw_GBps);
}

TEST(TreeAcrossDomains, FewerChannelsThanTwicePerNicStillUseEveryNicFirst) {
  // NCCL doubles the graph's channels (one per NIC) into trees 0 and 1; a
  // cap on channels keeps the first ones: with as many channels as NICs
  // (4 a domain here), every NIC carries one channel, all on tree 0. (It
  // used to halve the channels into graph channels: NICs 0 and 1 only.)
  ThreeDomains f;
  const Group g = whole_topology(f.topo);
  std::set<uint32_t> rails;
  for (int c = 0; c < 4; ++c)
    for (const Edge& e : tree_edges(g, c, 4, nullptr, nullptr))
      if (e.hash != 0) rails.insert(f.topo.rail_of(g.gpus[e.src]));
  EXPECT_EQ(rails.size(), 4u);
  // Eight channels: every NIC on both trees, as by default.
  std::set<uint32_t> rails8;
  for (int c = 0; c < 8; ++c)
    for (const Edge& e : tree_edges(g, c, 8, nullptr, nullptr))
      if (e.hash != 0) rails8.insert(f.topo.rail_of(g.gpus[e.src]));
  EXPECT_EQ(rails8.size(), 4u);
}

// NCCL's ring graph search stops at 32 channels (MAXCHANNELS / 2) and the
// tree's at the ring's, so two racks of 64 GPUs, a NIC each, run 2 x 32 =
// 64 tree channels: NICs 0-31 of each rack carry both trees, the other 32
// none. (Doubling one graph channel a NIC would give 128, more than NCCL's
// 64 channels.)
TEST(TreeAcrossDomains, NoMoreThanThirtyTwoGraphChannelsHoweverManyNics) {
  topo::ClusterSpec s;
  s.system = hw::find_system("gb200-nvl72");
  s.system.scaleup.domain_gpus = 64;
  s.system.scaleup.in_network_reduction = false;
  s.gpus = 128;
  testing::Fixture f(topo::build_cluster(s), nccl_library(s.system));
  const auto r = f.run(Op::kAllReduce, Bytes::MiB(64), "tree", Fidelity::kBulk);
  EXPECT_EQ(r.channels, 64);
  const Group g = whole_topology(f.topo);
  std::set<uint32_t> nics;
  for (int c = 0; c < 64; ++c)
    for (const Edge& e : tree_edges(g, c, 64, nullptr, nullptr))
      if (e.hash != 0) nics.insert(f.topo.nic_of(g.gpus[e.src]));
  EXPECT_EQ(nics.size(), 64u);  // 32 a rack
}

TEST(TreeAcrossDomains, ANetworkHopHoldsAChannelsFirstStepBeforeForwardingIt) {
  // NCCL's proxy posts a step to the NIC only once the GPU has filled it. A
  // 16 MiB LL128 tree on two DGX H100 nodes runs 16 channels of 1 MiB, two
  // on each 400G NIC, whose payload rate is 50 GB/s x 4,096 / 4,178 (RoCE
  // framing) = 49.02 GB/s, 24.51 a channel. A step is 576,000 B, 614,400
  // on the wire: 25.07 us to fill at that pace, held once on the way up and
  // once on the way down, 50.14 us. Beside it NCCL's hop latencies: 7
  // NVLink hops of 1.25 + (0.7 - 0.6) us and one network hop of 8.5 us,
  // each way: 2 x (9.45 + 8.5) = 35.9 us. At 64 KiB a channel's whole share,
  // 4 KiB (4,369 B on the wire), is its step: 2 x 0.178 us. Twelve channels
  // on the 8 NICs still put two on the busiest four, each holding a whole
  // step of its 1.33 MiB: the same 50.14 us.
  testing::Fixture f(topo::build_cluster(testing::cluster_spec("dgx-h100", 16)),
                     nccl_library(hw::find_system("dgx-h100")));
  const Group g = whole_topology(f.topo);
  const auto latency_us = [&](Bytes b, int channels = 0) {
    Request r;
    r.op = Op::kAllReduce;
    r.bytes = b;
    r.protocol = Protocol::kLL128;
    r.fidelity = Fidelity::kBulk;
    r.channels = channels;
    const Schedule s = f.reg.find("tree").build(g, r, f.lib);
    return s.phases.back().latency_after.micros();
  };
  EXPECT_NEAR(latency_us(Bytes::MiB(16)), 35.9 + 50.14, 0.05);
  EXPECT_NEAR(latency_us(Bytes::KiB(64)), 35.9 + 0.357, 0.01);
  EXPECT_NEAR(latency_us(Bytes::MiB(16), 12), 35.9 + 50.14, 0.05);
}

}  // namespace
}  // namespace anatomy::coll::detail
