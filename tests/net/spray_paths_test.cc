#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "engine/simulator.h"
#include "net/packet/paths.h"
#include "net/packet/transport.h"
#include "packet_test_util.h"

namespace anatomy::net::packet {
namespace {

// Spraying over every equal-cost path (a PathCache keeps a reference to it).
const PacketConfig& every_path() {
  static const PacketConfig c = [] {
    PacketConfig x;
    x.spray_paths = Transport::kEveryPath;
    return x;
  }();
  return c;
}

TEST(SprayPaths, EveryPathReachesAllEqualCostPathsBetweenPods) {
  // k = 8 fat tree (128 hosts): between pods a flow climbs to one of 4
  // aggregation switches and then one of 4 cores: 16 equal-cost paths, all
  // of which UEC's 16-bit entropy value reaches; the sampled default (32)
  // finds them too, while 4 samples keep 4.
  const topo::Topology t = testing::fat_tree(128, 8, 3);
  PathCache all(t, every_path());
  EXPECT_EQ(all.spray(t.gpu_node(0), t.gpu_node(127)).count, 16u);
  PacketConfig four;
  four.spray_paths = 4;
  PathCache some(t, four);
  EXPECT_EQ(some.spray(t.gpu_node(0), t.gpu_node(127)).count, 4u);
  // Same leaf: one path.
  EXPECT_EQ(all.spray(t.gpu_node(0), t.gpu_node(1)).count, 1u);
}

// Every path's compact bytes name its links, forward and back, whichever
// way the set keeps them.
void ExpectCompactBytesNameTheLinks(const topo::Topology& t, const PathSet& s) {
  ASSERT_TRUE(s.compact());
  for (uint32_t i = 0; i < s.count; ++i) {
    uint8_t fwd[kCompactHops], rev[kCompactHops];
    s.compact_bytes(i, false, fwd);
    s.compact_bytes(i, true, rev);
    for (uint32_t k = 0; k < s.len; ++k) {
      const LinkId f = s.forward(i)[k], r = s.reverse(i)[k];
      EXPECT_EQ(t.out_link(t.out_begin(t.link(f).from) + fwd[k]), f) << i << " " << k;
      EXPECT_EQ(t.out_link(t.out_begin(t.link(r).from) + rev[k]), r) << i << " " << k;
    }
    // Every way back starts at the receiver's NIC: rev_first finds its
    // first link without reading the path.
    EXPECT_EQ(t.out_link(s.rev_first + rev[0]), s.reverse(i)[0]);
    // A data packet copies kCompactHops (13) bytes: its links, then those
    // of the way back, which its acknowledgement takes from it
    // (send_control) instead of from the path set.
    if (2 * s.len <= kCompactHops)
      for (uint32_t k = 0; k < s.len; ++k) EXPECT_EQ(fwd[s.len + k], rev[k]);
  }
}

TEST(SprayPaths, ACompactPathNamesTheSameLinksAsTheFullOne) {
  // A packet carries its route as one byte a hop, each link's place among
  // its node's out-links; Topology::out_link() must give every link back, forward and
  // reversed, or packets would take other links than their path's. k = 8:
  // 16 paths of 6 modelled links between pods.
  const topo::Topology t = testing::fat_tree(128, 8, 3);
  PathCache cache(t, every_path());
  const PathSet& s = cache.spray(t.gpu_node(0), t.gpu_node(127));
  ASSERT_EQ(s.count, 16u);
  ASSERT_EQ(s.len, 6u);
  ExpectCompactBytesNameTheLinks(t, s);
}

TEST(SprayPaths, AFatTreesPathsAreKeptAsFieldsOfTheirIndex) {
  // Between pods of a k = 8 fat tree the 16 paths, sorted, differ in two
  // choices, the aggregation switch (4) and the core (4): path i climbs by
  // up-link i / 4 of the leaf and i % 4 of the aggregation switch, and
  // comes back by the matching down-links. So each of the 12 bytes is
  // fixed or a 2-bit field of i: 4 fields (two each way) of 4 values, and
  // no table of 16 x 12 bytes.
  const topo::Topology t = testing::fat_tree(128, 8, 3);
  PathCache cache(t, every_path());
  const PathSet& s = cache.spray(t.gpu_node(0), t.gpu_node(127));
  EXPECT_EQ(s.fields, 4);
  EXPECT_TRUE(s.local.empty());
  for (uint8_t k = 0; k < s.fields; ++k) EXPECT_EQ(s.field[k].mask, 3) << int(k);
  // 4 of the 16, sampled (here they still happen to be fields of their
  // index; a set that is not, such as any one-path ECMP set, keeps its
  // table, which every RoCE test's packets read).
  PacketConfig four;
  four.spray_paths = 4;
  PathCache some(t, four);
  const PathSet& sampled = some.spray(t.gpu_node(0), t.gpu_node(127));
  ASSERT_EQ(sampled.count, 4u);
  ExpectCompactBytesNameTheLinks(t, sampled);
  // On a k = 16 fat tree (1,024 hosts): 64 paths, 8 x 8.
  const topo::Topology t16 = testing::fat_tree(1024, 16, 3);
  PathCache cache16(t16, every_path());
  const PathSet& s16 = cache16.spray(t16.gpu_node(0), t16.gpu_node(1023));
  ASSERT_EQ(s16.count, 64u);
  EXPECT_EQ(s16.fields, 4);
  ExpectCompactBytesNameTheLinks(t16, s16);
}

TEST(SprayPaths, UecSpraysOverEveryPathAndEqdsOverItsSample) {
  // spray_paths 0 (the default) takes the transport's: every path for uec,
  // 32 for eqds.
  TransportRegistry reg;
  register_builtin_transports(reg);
  EXPECT_EQ(reg.make("uec")->defaults().spray_paths, Transport::kEveryPath);
  EXPECT_EQ(reg.make("eqds")->defaults().spray_paths, 32);
  EXPECT_EQ(PacketConfig{}.spray_paths, 0);
}

TEST(SprayPaths, UecRecyclesEntropiesAndEqdsGoesRoundRobin) {
  TransportRegistry reg;
  register_builtin_transports(reg);
  EXPECT_EQ(reg.make("uec")->defaults().spray_order, SprayOrder::kRecycle);
  EXPECT_EQ(reg.make("eqds")->defaults().spray_order, SprayOrder::kRoundRobin);
  EXPECT_EQ(PacketConfig{}.spray_order, SprayOrder::kAuto);
}

// UEC on the k = 16 fat tree (1,024 hosts), spraying in `order`.
struct UecOnK16 {
  static const topo::Topology& tree() {
    static const topo::Topology t = testing::fat_tree(1024, 16, 3);
    return t;
  }
  explicit UecOnK16(SprayOrder order) {
    PacketConfig c = testing::with_transport("uec");
    c.spray_order = order;
    net = testing::make_packet(sim, tree(), c);
  }
  engine::Simulator sim;
  std::unique_ptr<PacketNetwork> net;
};

// The deepest queue on the links from the aggregation switches down to
// host 0's ToR, while four 2 MB flows from four other pods go to hosts 0..3
// under that ToR, in step: the same flow hash gives them the same starting
// offset.
int64_t peak_into_tor_of_four_flows_in_step(SprayOrder order) {
  const topo::Topology& t = UecOnK16::tree();
  UecOnK16 run(order);
  auto& net = run.net;
  auto& sim = run.sim;
  TransferOptions same;
  same.flow_hash = 99;
  for (uint32_t i = 0; i < 4; ++i)
    net->transfer(t.gpu_node(64 * (i + 1) + 8 * i), t.gpu_node(i), Bytes(2'000'000), [] {}, same);
  sim.run();
  std::vector<LinkId> path;
  t.route(t.gpu_node(64), t.gpu_node(0), 1, path);
  // The route ends NIC <- ToR <- aggregation: the ToR is where the
  // second-to-last fabric link of the route lands.
  std::vector<LinkId> fabric;
  for (LinkId l : path)
    if (t.link(l).kind == topo::LinkKind::kFabric) fabric.push_back(l);
  const NodeId tor = t.link(fabric[fabric.size() - 2]).to;
  int64_t peak = 0;
  for (size_t l = 0; l < t.num_links(); ++l) {
    const topo::Link& k = t.link(static_cast<LinkId>(l));
    if (k.to == tor && k.kind == topo::LinkKind::kFabric && t.level(k.from) > t.level(tor))
      peak = std::max(peak, net->port_stats(static_cast<LinkId>(l)).peak_bytes);
  }
  return peak;
}

TEST(SprayPaths, RoundRobinInStepBurstsIntoOneAggregationDownlinkAndRandomEntropiesDoNot) {
  // Paths between pods of the k = 16 tree are enumerated aggregation switch
  // by aggregation switch (8 x 8 cores), so in round robin a flow sends 8
  // packets in a row through one aggregation switch, and flows in step do so
  // together: the link from that switch to their ToR takes 4 packets per
  // packet time for 8 packet times and drains 1, peaking near 3 x 8 = 24
  // packets (about 100 KB). Drawn at random or recycled, each packet picks
  // one of the 8 downlinks on its own and four flows rarely stack more than
  // a few.
  const int64_t round_robin = peak_into_tor_of_four_flows_in_step(SprayOrder::kRoundRobin);
  const int64_t random = peak_into_tor_of_four_flows_in_step(SprayOrder::kRandom);
  const int64_t recycled = peak_into_tor_of_four_flows_in_step(SprayOrder::kRecycle);
  constexpr int64_t kPacket = 4096 + 82;  // a 4 KiB MTU on the wire
  EXPECT_GE(round_robin, 16 * kPacket);  // 22 packets when this was written
  EXPECT_LE(random, 8 * kPacket);        // 6
  EXPECT_LE(recycled, 8 * kPacket);      // 3
}

// How many of the 64 paths between two pods of the k = 16 tree one 2 MB
// flow (489 packets) puts data on, alone on the fabric: each path leaves
// the source pod on its own aggregation-to-core link.
int paths_used_by_a_lone_flow(SprayOrder order) {
  const topo::Topology& t = UecOnK16::tree();
  UecOnK16 run(order);
  auto& net = run.net;
  auto& sim = run.sim;
  net->transfer(t.gpu_node(0), t.gpu_node(1023), Bytes(2'000'000), [] {});
  sim.run();
  uint8_t core = 0;
  for (size_t n = 0; n < t.num_nodes(); ++n)
    if (t.kind(static_cast<NodeId>(n)) == topo::NodeKind::kSwitch) core = std::max(core, t.level(static_cast<NodeId>(n)));
  int used = 0;
  for (size_t l = 0; l < t.num_links(); ++l)
    if (t.level(t.link(static_cast<LinkId>(l)).to) == core && net->port_stats(static_cast<LinkId>(l)).payload_bytes > 0)
      ++used;
  return used;
}

TEST(SprayPaths, RecyclingKeepsAFlowOnThePathsItsFirstWindowFound) {
  // Drawn afresh, 489 packets over 64 paths leave a given path unused with
  // probability (63/64)^489 = 0.05%, so some path with about 64 x 0.05% =
  // 3%: 62 or more carry data. Recycled (REPS), only the first window (one
  // BDP, about 88 packets at 400 Gb/s and a 7.3 us RTT) is drawn; every
  // later packet reuses a value an unmarked acknowledgement returned, so the
  // flow stays on the distinct paths of those draws: 64 (1 - e^(-88/64)) =
  // 48 expected (42 when this was written).
  EXPECT_GE(paths_used_by_a_lone_flow(SprayOrder::kRandom), 62);
  const int recycled = paths_used_by_a_lone_flow(SprayOrder::kRecycle);
  EXPECT_GE(recycled, 38);
  EXPECT_LE(recycled, 58);

}

}  // namespace
}  // namespace anatomy::net::packet
