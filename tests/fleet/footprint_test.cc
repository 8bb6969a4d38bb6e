// Where a placed job's traffic crosses the shared links, by parallel
// dimension (fleet/footprint.h), on the four hosts of four_hosts.h: a job
// on hosts 0 and 2 crosses leaf 0's and leaf 1's one uplink to the spine
// both ways; its NICs' cables and the NVSwitch are its own.
#include "fleet/footprint.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "four_hosts.h"

namespace anatomy::fleet {
namespace {

using test_cluster::four_hosts;

// The footprint's entries on the links between a leaf and the spine (both
// directions of both leaves: 4 links); the rest are NIC-leaf cables (the
// fleet leaves a job of whole hosts its own).
std::vector<LinkUse> spine_links(const topo::Topology& t, const Footprint& f) {
  std::vector<LinkUse> out;
  for (const LinkUse& u : f) {
    const topo::Link& l = t.link(u.link);
    if (t.kind(l.from) == topo::NodeKind::kSwitch && t.kind(l.to) == topo::NodeKind::kSwitch) out.push_back(u);
    else EXPECT_TRUE(t.kind(l.from) == topo::NodeKind::kNic || t.kind(l.to) == topo::NodeKind::kNic);
  }
  return out;
}

TEST(Footprint, ADataParallelRingCrossesEachHostBoundaryOncePerRail) {
  // TP 8, DP 2 on hosts 0 and 2: a ring per rail, host 0 -> host 2 -> host
  // 0: each uplink and downlink carries one flow per rail, 8 flows of the
  // per-NIC 2 GB: 16 GB.
  const topo::Topology t = four_hosts();
  PlanTraffic p;
  p.tp = 8;
  p.dp_bytes_per_nic = 2e9;
  const auto links = spine_links(t, plan_footprint(t, {0, 2}, 8, p));
  ASSERT_EQ(links.size(), 4u);
  for (const LinkUse& u : links) {
    EXPECT_EQ(u.flows, 8);
    EXPECT_DOUBLE_EQ(u.bytes, 16e9);
  }
}

TEST(Footprint, APipelineBoundaryBetweenHostsIsOneFlowEachWayPerRank) {
  // TP 8, PP 2, DP 1 on hosts 0 and 2: stage 0 is host 0, stage 1 host 2.
  // Each of the 8 ranks of stage 0 sends its activations to its peer in
  // stage 1 and gets the gradients back: 8 flows of 1 GB each way, and
  // no data-parallel ring (DP 1).
  const topo::Topology t = four_hosts();
  PlanTraffic p;
  p.tp = 8;
  p.pp = 2;
  p.pp_bytes_per_gpu = 1e9;
  const auto links = spine_links(t, plan_footprint(t, {0, 2}, 8, p));
  ASSERT_EQ(links.size(), 4u);
  for (const LinkUse& u : links) {
    EXPECT_EQ(u.flows, 8);
    EXPECT_DOUBLE_EQ(u.bytes, 8e9);
  }
}

TEST(Footprint, AnExpertParallelGroupAcrossHostsSendsEachOtherRankItsShare) {
  // TP 8, EP 2, DP 2 on hosts 0 and 2: an EP group is DP ranks 0 and 1 of
  // one TP rank, GPU r of host 0 and GPU r of host 2; each sends the
  // other 0.5 GB: per direction 8 flows, 4 GB.
  const topo::Topology t = four_hosts();
  PlanTraffic p;
  p.tp = 8;
  p.ep = 2;
  p.ep_bytes_per_pair = 0.5e9;
  const auto links = spine_links(t, plan_footprint(t, {0, 2}, 8, p));
  ASSERT_EQ(links.size(), 4u);
  for (const LinkUse& u : links) {
    EXPECT_EQ(u.flows, 8);
    EXPECT_DOUBLE_EQ(u.bytes, 4e9);
  }
}

TEST(Footprint, ATensorParallelGroupSpanningTwoHostsRingsAcrossThemTwice) {
  // TP 16 on hosts 0 and 2: the ring 0 -> 1 -> ... -> 15 -> 0 leaves host
  // 0 once (rank 7 -> 8) and host 2 once (15 -> 0): one flow of 3 GB each
  // way. Its 14 other edges stay inside a host.
  const topo::Topology t = four_hosts();
  PlanTraffic p;
  p.tp = 16;
  p.tp_bytes_per_gpu = 3e9;
  const auto links = spine_links(t, plan_footprint(t, {0, 2}, 8, p));
  ASSERT_EQ(links.size(), 4u);
  for (const LinkUse& u : links) {
    EXPECT_EQ(u.flows, 1);
    EXPECT_DOUBLE_EQ(u.bytes, 3e9);
  }
}

TEST(Footprint, WithTensorParallelismAcrossTwoHostsTheGradientRingsSkipEveryOtherHost) {
  // TP 16, DP 2 on hosts 0, 2, 1, 3 (rank order): TP groups are hosts
  // {0, 2} and {1, 3}; a DP group holds one TP rank, so its ring runs over
  // every other host: hosts 0 and 1 (leaf 0, no spine) and hosts 2 and 3
  // (leaf 1). The gradient rings never reach the spine; only the TP rings
  // (left out here) would.
  const topo::Topology t = four_hosts();
  PlanTraffic p;
  p.tp = 16;
  p.dp_bytes_per_nic = 2e9;
  const Footprint f = plan_footprint(t, {0, 2, 1, 3}, 8, p);
  EXPECT_TRUE(spine_links(t, f).empty());
}

TEST(Footprint, OneHostHasNoSharedTraffic) {
  const topo::Topology t = four_hosts();
  PlanTraffic p;
  p.tp = 2;
  p.pp = 2;
  p.dp_bytes_per_nic = 1e9;
  p.pp_bytes_per_gpu = 1e9;
  EXPECT_TRUE(plan_footprint(t, {1}, 8, p).empty());
}

TEST(Footprint, AnEqualCostGroupIsALeafsUplinksOrTheLinksDownIntoALeaf) {
  // Radix 18 at 8:1: each leaf has 16 ports down and 2 up, one to each of
  // 2 spines. ECMP picks between a leaf's 2 uplinks (and between the 2
  // spines' links down into a leaf): each is a group of 2. A NIC's cable
  // has no alternative: a group of its own.
  topo::ClusterSpec c;
  c.system = hw::find_system("dgx-h100");
  c.gpus = 32;
  c.fabric.tiers = 2;
  c.fabric.radix = 18;
  c.fabric.oversubscription = 8;
  c.fabric.rail_optimized = false;
  const topo::Topology t = topo::build_cluster(c);
  int up = 0, down = 0, nic = 0;
  for (topo::LinkId l = 0; l < t.num_links(); ++l) {
    const topo::Link& k = t.link(l);
    const std::vector<topo::LinkId> g = equal_cost_group(t, l);
    ASSERT_FALSE(g.empty());
    EXPECT_TRUE(std::find(g.begin(), g.end(), l) != g.end()) << l;
    if (t.kind(k.from) == topo::NodeKind::kSwitch && t.kind(k.to) == topo::NodeKind::kSwitch) {
      ASSERT_EQ(g.size(), 2u) << t.link_label(l);
      const bool is_up = t.level(k.to) > t.level(k.from);
      for (const topo::LinkId o : g) {
        // Up: from the same leaf; down: into the same leaf.
        if (is_up) EXPECT_EQ(t.link(o).from, k.from);
        else EXPECT_EQ(t.link(o).to, k.to);
        EXPECT_EQ(equal_cost_group(t, o), g);  // one group, whichever link names it
      }
      ++(is_up ? up : down);
    } else if ((t.kind(k.from) == topo::NodeKind::kNic && t.kind(k.to) == topo::NodeKind::kSwitch) ||
               (t.kind(k.from) == topo::NodeKind::kSwitch && t.kind(k.to) == topo::NodeKind::kNic)) {
      EXPECT_EQ(g.size(), 1u);
      ++nic;
    }
  }
  EXPECT_EQ(up, 4);    // 2 leaves x 2 spines
  EXPECT_EQ(down, 4);
  EXPECT_EQ(nic, 64);  // 32 NICs' cables to their leaf, both ways
}

}  // namespace
}  // namespace anatomy::fleet
