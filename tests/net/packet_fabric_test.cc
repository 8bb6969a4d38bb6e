// Fabric-level behaviour: buffer policies, PFC spreading to a victim flow
// (case E4), ECMP collisions against spraying and adaptive routing (E3).

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "core/rng.h"
#include "packet_test_util.h"

namespace anatomy::net::packet {
namespace {

using testing::fat_tree;
using testing::make_packet;
using testing::with_transport;

TEST(PacketBuffers, SharedBufferDynamicThreshold) {
  // Pool B = 1,000 B, alpha = 1: a port may hold alpha (B - used). Alone, a
  // port fills until q = B - q, i.e. 500 B; next to a port holding 300 B it
  // stops at q = 1000 - 300 - q, i.e. 350 B.
  const SharedBufferPolicy p(Bytes(1000), 1.0);
  EXPECT_TRUE(p.admit(0, 0, 500));
  EXPECT_TRUE(p.admit(499, 499, 1));    // 500 <= 1000 - 499
  EXPECT_FALSE(p.admit(500, 500, 1));   // 501 > 500
  EXPECT_TRUE(p.admit(349, 649, 1));    // 350 <= 1000 - 649
  EXPECT_FALSE(p.admit(350, 650, 1));   // 351 > 350
  EXPECT_FALSE(p.admit(0, 1000, 1));    // the pool is full
  // alpha = 1/8: one congested port stops at B alpha / (1 + alpha) = 111 B.
  const SharedBufferPolicy q(Bytes(1000), 0.125);
  EXPECT_TRUE(q.admit(110, 110, 1));    // 111 <= 0.125 x 890
  EXPECT_FALSE(q.admit(111, 111, 1));   // 112 > 0.125 x 889
}

TEST(PacketBuffers, StaticBufferIsPerPort) {
  const StaticBufferPolicy p(Bytes(1000));
  EXPECT_TRUE(p.admit(999, 1'000'000, 1));
  EXPECT_FALSE(p.admit(1000, 0, 1));
}

struct VictimRun {
  SimTime victim;
  SimTime alone;
  PacketStats stats;
  uint64_t pauses_on_victim_path = 0;
  SimTime paused_on_victim_path;
};

constexpr uint64_t kVictimHash = 7;

// Case E4 on a 128-host two-tier fat-tree (8 hosts per leaf): a long flow
// from host 100 to host 0, and a 64-to-1 incast of 1 MB flows from hosts
// 16..79 to host 1, which shares host 0's leaf.
VictimRun victim_next_to_incast(const PacketConfig& c) {
  static const topo::Topology t = fat_tree(128, 16, 2);
  VictimRun r;
  const NodeId from = t.gpu_node(100), to = t.gpu_node(0);
  TransferOptions victim;
  victim.flow_hash = kVictimHash;
  {
    engine::Simulator sim;
    auto net = make_packet(sim, t, c);
    net->transfer(from, to, Bytes(8'000'000), [&] { r.alone = sim.now(); }, victim);
    sim.run();
  }
  engine::Simulator sim;
  auto net = make_packet(sim, t, c);
  net->transfer(from, to, Bytes(8'000'000), [&] { r.victim = sim.now(); }, victim);
  for (int i = 0; i < 64; ++i) net->transfer(t.gpu_node(16 + i), t.gpu_node(1), Bytes(1'000'000), [] {});
  sim.run();
  r.stats = net->stats();
  // The victim's own route (ECMP with its flow hash): its NIC, leaf and spine ports.
  std::vector<LinkId> path;
  t.route(from, to, kVictimHash, path);
  for (LinkId l : path) {
    const PortStats ps = net->port_stats(l);
    r.pauses_on_victim_path += ps.pauses_received;
    r.paused_on_victim_path += ps.paused_time;
  }
  return r;
}

TEST(PacketFabric, PfcPausesReachAnUncongestedVictimFlow) {
  // RoCE over PFC: host 1's port at the shared leaf backs up, the leaf
  // pauses its spine links, the spines' queues back up and pause the leaves
  // above the senders, and the victim, whose own receiver is idle, waits
  // behind pauses that were never about it (NDP paper, Fig. 19). Alone it
  // takes 8 MB / 392 Gb/s = 163 us; next to the incast, many times that.
  const VictimRun roce = victim_next_to_incast(with_transport("roce"));
  EXPECT_NEAR(roce.alone.micros(), 8e6 * 8 / testing::fabric_payload_bps() * 1e6, 5.0);
  EXPECT_GT(roce.stats.pfc_pauses, 0u);
  EXPECT_GT(roce.pauses_on_victim_path, 0u);
  EXPECT_GT(roce.paused_on_victim_path, SimTime::us(100));
  EXPECT_GT(roce.victim, roce.alone * 5);
  EXPECT_EQ(roce.stats.drops + roce.stats.pfc_headroom_drops, 0u);  // lossless, as promised

  // The endpoint-scheduled transport on the same fabric without PFC: the
  // incast is trimmed at host 1's port and the victim runs near line rate.
  const VictimRun eqds = victim_next_to_incast(with_transport("eqds"));
  EXPECT_EQ(eqds.stats.pfc_pauses, 0u);
  EXPECT_LT(eqds.victim, eqds.alone * 3 / 2);

  // And on a switch-scheduled fabric the incast waits in ingress VOQs.
  PacketConfig ss = with_transport("roce");
  ss.fabric = FabricKind::kSwitchScheduled;
  const VictimRun voq = victim_next_to_incast(ss);
  EXPECT_EQ(voq.stats.pfc_pauses, 0u);
  EXPECT_LT(voq.victim, voq.alone * 2);
}

struct PermutationRun {
  double mean_us = 0;
  double max_us = 0;
};

// A random permutation of 512 KB flows among the 128 hosts of a k = 8
// fat-tree (three tiers, 16 paths between pods).
PermutationRun permutation(const PacketConfig& c) {
  static const topo::Topology t = fat_tree(128, 8, 3);
  const int n = 128;
  std::vector<int> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  core::Rng rng(13);
  for (int i = n - 1; i > 0; --i) std::swap(perm[i], perm[rng.uniform_index(static_cast<uint64_t>(i) + 1)]);
  engine::Simulator sim;
  auto net = make_packet(sim, t, c);
  std::vector<double> fct;
  for (int i = 0; i < n; ++i) {
    if (perm[i] == i) continue;
    net->transfer(t.gpu_node(i), t.gpu_node(perm[i]), Bytes(512 * 1024), [&] { fct.push_back(sim.now().micros()); });
  }
  sim.run();
  PermutationRun r;
  for (double x : fct) r.mean_us += x / static_cast<double>(fct.size());
  r.max_us = *std::max_element(fct.begin(), fct.end());
  return r;
}

TEST(PacketFabric, SprayingAvoidsEcmpCollisions) {
  // A flow alone between pods: 512 KiB / 392.2 Gb/s = 10.695 us to drain,
  // 3.15 us of links (five of 600 ns forwarding + 25 ns cable, and the
  // last 25 ns cable), five extra 83.6 ns packet times of store-and-forward,
  // and the NICs' 1 us DMA at each end: 16.26 us. With per-flow ECMP,
  // random hashing puts several flows on some links (the fullest of 64
  // uplinks gets 4 or 5 of 128 flows), and those take two or three times
  // as long; spraying every packet over the equal-cost paths, or choosing
  // the least-queued next hop at every switch, keeps every flow near its
  // time alone (case E3: ~1,040 us with ECMP against ~230 us sprayed, for
  // 2 MB flows at 1,024 hosts).
  PacketConfig ecmp = with_transport("eqds");
  ecmp.load_balancing = LoadBalancing::kEcmp;
  const PermutationRun e = permutation(ecmp);
  const PermutationRun s = permutation(with_transport("eqds"));
  PacketConfig adaptive = with_transport("eqds");
  adaptive.load_balancing = LoadBalancing::kAdaptive;
  const PermutationRun a = permutation(adaptive);
  static const topo::Topology t = fat_tree(128, 8, 3);
  engine::Simulator sim;
  auto net = make_packet(sim, t, with_transport("eqds"));
  SimTime alone;
  net->transfer(t.gpu_node(0), t.gpu_node(127), Bytes(512 * 1024), [&] { alone = sim.now(); });
  sim.run();
  EXPECT_NEAR(alone.micros(), 10.695 + 3.15 + 5 * 0.08356 + 2.0, 0.01);
  EXPECT_LT(s.mean_us, 1.3 * alone.micros());
  EXPECT_LT(a.mean_us, 1.3 * alone.micros());
  EXPECT_GT(e.max_us, 1.8 * s.max_us);
  EXPECT_GT(e.mean_us, 1.2 * s.mean_us);
}

}  // namespace
}  // namespace anatomy::net::packet
