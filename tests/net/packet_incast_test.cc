// N-to-1 incast against the line-rate bound (validation cases E1/E2: NDP's
// incast completion sits on the bound for n up to thousands of senders).

#include <gtest/gtest.h>

#include "packet_test_util.h"

namespace anatomy::net::packet {
namespace {

using testing::fat_tree;
using testing::make_packet;
using testing::with_transport;

// The bound: the receiver's link must carry every payload byte, at the
// fabric link's payload rate (400 Gb/s x 4096 / 4178 = 392.2 Gb/s), so the
// last byte cannot arrive before n x bytes / 392.2 Gb/s, plus one unloaded
// path latency for the first byte to get there (small next to it).
double bound_s(int n, Bytes bytes) { return n * bytes.as_double() * 8 / testing::fabric_payload_bps(); }

SimTime run_incast(const topo::Topology& t, const PacketConfig& c, int n, Bytes bytes, PacketStats* stats) {
  engine::Simulator sim;
  auto net = make_packet(sim, t, c);
  SimTime last;
  int done = 0;
  for (int i = 1; i <= n; ++i)
    net->transfer(t.gpu_node(i), t.gpu_node(0), bytes, [&] {
      last = sim.now();
      ++done;
    });
  sim.run();
  EXPECT_EQ(done, n);
  if (stats) *stats = net->stats();
  return last;
}

TEST(PacketIncast, EndpointScheduled64To1IsWithin5PercentOfLineRate) {
  // 64 x 256 KiB = 16 MiB into one 400G NIC: bound 342.3 us. Every sender
  // starts with a full window (a BDP); the receiver's port trims the excess
  // and the receiver then pulls at its line rate, so its link never idles.
  const topo::Topology t = fat_tree(128, 16, 2);
  PacketStats s;
  const SimTime last = run_incast(t, with_transport("eqds"), 64, Bytes::KiB(256), &s);
  const double bound = bound_s(64, Bytes::KiB(256));
  EXPECT_NEAR(bound * 1e6, 342.26, 0.01);
  EXPECT_GE(last.seconds(), bound);
  EXPECT_LE(last.seconds(), 1.05 * bound);
  EXPECT_GT(s.trims, 0u);
  EXPECT_EQ(s.timeouts, 0u);
}

TEST(PacketIncast, EndpointScheduled512To1IsWithin5PercentOfLineRate) {
  // 512 x 64 KiB = 32 MiB into one NIC of the k = 16 fat-tree (1,024
  // hosts, three tiers): bound 684.5 us.
  const topo::Topology t = fat_tree(1024, 16, 3);
  PacketStats s;
  const SimTime last = run_incast(t, with_transport("eqds"), 512, Bytes::KiB(64), &s);
  const double bound = bound_s(512, Bytes::KiB(64));
  EXPECT_NEAR(bound * 1e6, 684.52, 0.01);
  EXPECT_GE(last.seconds(), bound);
  EXPECT_LE(last.seconds(), 1.05 * bound);
}

TEST(PacketIncast, SwitchScheduledFabricGrantsAtTheEgressRate) {
  // The same 64-to-1 incast on a switch-scheduled fabric with RoCE senders
  // at line rate: the ingress switches' VOQs absorb the excess, the
  // receiver's port grants one packet per packet time, and every data
  // packet is granted once. Within 5% of the bound, and no pause frames.
  const topo::Topology t = fat_tree(128, 16, 2);
  PacketConfig c = with_transport("roce");
  c.fabric = FabricKind::kSwitchScheduled;
  PacketStats s;
  const SimTime last = run_incast(t, c, 64, Bytes::KiB(256), &s);
  const double bound = bound_s(64, Bytes::KiB(256));
  EXPECT_GE(last.seconds(), bound);
  EXPECT_LE(last.seconds(), 1.05 * bound);
  EXPECT_EQ(s.grants, s.data_sent);
  EXPECT_EQ(s.pfc_pauses, 0u);
  EXPECT_GT(s.peak_switch_bytes, 1 << 20);  // the backlog sits in ingress VOQs
}

}  // namespace
}  // namespace anatomy::net::packet
