// The packet model's telemetry (NetworkSignals) says what its counters say:
// one signal per ECN mark, drop, PFC frame and resend, and link_tx adds up
// to the bytes each link carried.

#include <gtest/gtest.h>

#include <map>

#include "packet_test_util.h"

namespace anatomy::net::packet::testing {
namespace {

TEST(PacketSignals, EveryMarkPauseDropAndResendIsEmittedOnce) {
  // A 32-to-1 incast of 256 KiB each over RoCE: the receiver's port queues
  // far past the ECN threshold (DCQCN marks) and, lossless, pauses upstream.
  const topo::Topology t = fat_tree(128, 16, 2);
  engine::Simulator sim;
  auto net = make_packet(sim, t, with_transport("roce"));
  uint64_t marks = 0, drops = 0, pauses = 0, resends = 0;
  std::map<LinkId, double> tx;
  net->signals().ecn_mark.subscribe([&](SimTime, LinkId, int64_t queued) {
    ++marks;
    EXPECT_GT(queued, 0);  // a mark is made on a queue
  });
  net->signals().drop.subscribe([&](SimTime, LinkId) { ++drops; });
  net->signals().pfc.subscribe([&](SimTime, LinkId, bool pause) { pauses += pause ? 1 : 0; });
  net->signals().retransmit.subscribe([&](SimTime, TransferId) { ++resends; });
  net->signals().link_tx.subscribe([&](SimTime, LinkId l, int64_t bytes) { tx[l] += static_cast<double>(bytes); });
  for (int i = 1; i <= 32; ++i) net->transfer(t.gpu_node(i), t.gpu_node(0), Bytes::KiB(256), [] {});
  sim.run();
  const PacketStats& s = net->stats();
  EXPECT_GT(marks, 0u);
  EXPECT_EQ(marks, s.ecn_marks);
  EXPECT_EQ(drops, s.drops + s.pfc_headroom_drops + s.header_drops + s.voq_drops);
  // A pause frame is emitted where it arrives, one link delay after it was
  // sent; every one sent has arrived by the end of the run.
  EXPECT_EQ(pauses, s.pfc_pauses);
  EXPECT_EQ(resends, s.retransmits);
  ASSERT_FALSE(tx.empty());
  for (const auto& [l, bytes] : tx) EXPECT_EQ(bytes, net->link_bytes(l).as_double()) << t.link_label(l);
}

}  // namespace
}  // namespace anatomy::net::packet::testing
