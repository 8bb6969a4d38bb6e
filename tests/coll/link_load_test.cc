#include "coll/link_load.h"

#include <cmath>

#include <gtest/gtest.h>

#include "coll/pipeline.h"
#include "fixture.h"

namespace anatomy::coll {
namespace {

using testing::Fixture;

Fixture all_to_all_fixture(const char* system, int gpus, double oversubscription, bool rails) {
  topo::ClusterSpec spec = testing::cluster_spec(system, gpus);
  spec.fabric.oversubscription = oversubscription;
  spec.fabric.rail_optimized = rails;
  // Free network posts: these tests time the drain; the proxy's posts are
  // Direct.AProxyPostsARanksNetworkSendsOneAfterAnother's.
  LibraryModel lib = nccl_library(hw::find_system(system));
  lib.net_overhead_us = 0;
  return Fixture(topo::build_cluster(spec), lib);
}

// What the direct all-to-all charges besides draining its bytes: the
// library's base latency and its slowest pair's hop.
SimTime fixed_part(const Fixture& fx, const Group& g) {
  std::vector<detail::Edge> all;
  for (int k = 1; k < g.size(); k += std::max(1, g.size() / 64))
    for (int i = 0; i < g.size(); ++i) {
      const auto a = static_cast<uint32_t>(i), b = static_cast<uint32_t>((i + k) % g.size());
      all.push_back({a, b, detail::edge_hash(g, a, b, 0)});
    }
  return fx.lib.base_latency(AlgoClass::kRing, Protocol::kSimple) +
         detail::slowest_hop_latency(g, all, fx.lib, AlgoClass::kRing, Protocol::kSimple);
}

Bytes wire_per_pair(const Fixture& fx, Bytes s, int n) {
  return Bytes(std::llround(s.as_double() / n / fx.lib.efficiency(Protocol::kSimple)));
}

// In a uniform all-to-all every flow crossing the busiest link has it for
// its bottleneck, so max-min sharing keeps that link busy from the first
// byte to the last: the flow model drains the transfers in exactly the
// busiest link's load over its bandwidth. Checked where the NIC is the
// busiest link (a non-blocking rail-optimized fabric) and where the spine
// is (3:1 oversubscribed leaves, every NIC of a host on one leaf), on
// AMD's meshes with their NICs, and on a 2-D torus whose pairs take
// several hops.
TEST(LinkLoad, AnAllToAllsBusiestLinkSetsTheFlowModelsTime) {
  struct Case {
    const char* system;
    int gpus;
    double oversubscription;
    bool rails;
  };
  for (const Case c : {Case{"dgx-h100", 64, 1, true}, Case{"dgx-h100", 128, 3, false}, Case{"mi300x-8", 32, 1, true}}) {
    Fixture fx = all_to_all_fixture(c.system, c.gpus, c.oversubscription, c.rails);
    const Group g = whole_topology(fx.topo);
    for (const Bytes s : {Bytes::MiB(64), Bytes::GiB(1)}) {
      const SimTime flows = fx.run(Op::kAllToAll, s, "direct").time;
      const detail::LinkLoad load = detail::all_to_all_link_load(g, wire_per_pair(fx, s, c.gpus));
      EXPECT_NEAR((flows - fixed_part(fx, g)).seconds(), load.time.seconds(), 1e-9)
          << c.system << " x" << c.gpus << " at " << s.count() << " B";
    }
  }
  Fixture torus(topo::build_torus({8, 8}, Bandwidth::gigabytes_per_s(50), SimTime::ns(500)), ideal_library());
  const Group g = whole_topology(torus.topo);
  const SimTime flows = torus.run(Op::kAllToAll, Bytes::MiB(64), "direct").time;
  const detail::LinkLoad load = detail::all_to_all_link_load(g, wire_per_pair(torus, Bytes::MiB(64), 64));
  EXPECT_NEAR((flows - fixed_part(torus, g)).seconds(), load.time.seconds(), 1e-9);
}

// Leaves oversubscribed 3:1 have a third of their down bandwidth to the
// spines, so where most of a leaf's pairs leave it the busiest link is a
// leaf's uplink, a switch-to-switch link, not a NIC.
TEST(LinkLoad, OnAnOversubscribedFabricTheBusiestLinkIsALeafsUplink) {
  Fixture fx = all_to_all_fixture("dgx-h100", 256, 3, false);
  const Group g = whole_topology(fx.topo);
  const detail::LinkLoad load = detail::all_to_all_link_load(g, Bytes::MiB(1));
  const topo::Link& busiest = fx.topo.link(load.busiest);
  EXPECT_EQ(fx.topo.kind(busiest.from), topo::NodeKind::kSwitch);
  EXPECT_EQ(fx.topo.kind(busiest.to), topo::NodeKind::kSwitch);
  // A GPU's NIC carries its 248 pairs with the other hosts' GPUs, 1 MiB each.
  EXPECT_GT(load.time.seconds(), 248.0 * 1024 * 1024 / nic_Bps(g, 0));
}

// The pairs a link carries do not depend on the size: a group counts them
// once (a sweep of sizes then scales them) and its time grows with the
// bytes exactly. A copy whose ranks were changed counts its own.
TEST(LinkLoad, AGroupCountsItsPairsOnceAndACopyWithOtherRanksCountsItsOwn) {
  Fixture fx = all_to_all_fixture("dgx-h100", 64, 1, true);
  const Group g = whole_topology(fx.topo);
  const detail::LinkLoad one = detail::all_to_all_link_load(g, Bytes::MiB(1));
  ASSERT_EQ(g.all_to_all_pairs->pairs.size(), fx.topo.num_links());
  const detail::LinkLoad four = detail::all_to_all_link_load(g, Bytes::MiB(4));
  EXPECT_EQ(four.busiest, one.busiest);
  EXPECT_NEAR(four.time.seconds(), 4 * one.time.seconds(), 1e-12);

  Group half = g;  // shares g's count
  half.gpus.resize(32);
  std::vector<uint32_t> first(32);
  for (uint32_t i = 0; i < 32; ++i) first[i] = i;
  const Group fresh = make_group(fx.topo, first);
  // 32 GPUs on 4 hosts: a NIC carries 24 pairs, not the whole group's 56.
  EXPECT_EQ(detail::all_to_all_link_load(half, Bytes::MiB(1)).time,
            detail::all_to_all_link_load(fresh, Bytes::MiB(1)).time);
  EXPECT_LT(detail::all_to_all_link_load(half, Bytes::MiB(1)).time, one.time);
}

// Past 2,048 ranks the all-to-all is not run as flows but answered from its
// busiest link. On 2,056 H100s (257 hosts of 8, one 400G NIC a GPU, a
// non-blocking fabric) that is a GPU's NIC, which carries its pairs with
// the 2,048 GPUs of the other hosts: 2,048 x S/2,056 wire bytes.
TEST(LinkLoad, PastTwoThousandRanksAnAllToAllIsAnsweredFromItsBusiestLink) {
  constexpr int n = 2056;
  Fixture fx = all_to_all_fixture("dgx-h100", n, 1, true);
  const Group g = whole_topology(fx.topo);
  const Bytes s = Bytes::GiB(1);
  const CollectiveResult r = fx.run(Op::kAllToAll, s, "auto");
  EXPECT_EQ(r.algorithm, "direct");
  EXPECT_EQ(r.stats.sends_issued, 0);
  const double nic_bytes = 2048.0 * static_cast<double>(wire_per_pair(fx, s, n).count());
  const double expected_s = nic_bytes / nic_Bps(g, 0) + fixed_part(fx, g).seconds();
  EXPECT_NEAR(r.time.seconds(), expected_s, 1e-9);
}

}  // namespace
}  // namespace anatomy::coll
