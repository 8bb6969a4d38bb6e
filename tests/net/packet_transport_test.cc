// Transports: loss recovery, timeouts with backoff, congestion signals.

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "packet_test_util.h"

namespace anatomy::net::packet {
namespace {

using testing::fat_tree;
using testing::make_packet;
using testing::with_transport;

// A transport whose receiver never answers: the sender sends packet 0,
// and resends it on every timeout, recording when.
class Silent final : public Transport {
 public:
  explicit Silent(std::vector<SimTime>* timeouts) : timeouts_(timeouts) {}
  const char* name() const override { return "silent"; }
  Defaults defaults() const override { return {}; }
  void start(Flow&, SimTime) override {}
  Next next(Flow& f, SimTime, uint32_t& seq, SimTime&) override {
    if (f.snd_nxt > 0 && !f.retx_pending()) return Next::kBlocked;
    seq = f.take_next();
    return Next::kSend;
  }
  bool ready(const Flow&) const override { return false; }
  void on_data(Flow&, const Packet&) override {}
  void on_control(Flow&, const Packet&) override {}
  void on_timeout(Flow& f) override {
    timeouts_->push_back(host().sim().now());
    f.mark_lost(0);
    host().activate(f);
  }

 private:
  std::vector<SimTime>* timeouts_;
};

TEST(PacketTransport, TimeoutsBackOffExponentially) {
  // rto_min = 100 us dominates srtt + 4 rttvar (3 x the ~6 us base RTT of
  // one 1 GB/s hop). Each timeout doubles the next: 100, 200, 400, ... us
  // after the previous one, until 2^6 x 100 us = 6.4 ms, where it stays.
  const topo::Topology t = topo::build_torus({4}, Bandwidth::gbps(8), SimTime::us(1));
  engine::Simulator sim;
  std::vector<SimTime> timeouts;
  PacketConfig c;
  c.rto_min = SimTime::us(100);
  c.rto_backoff_max = 6;
  PacketNetwork net(sim, t, c, std::make_unique<Silent>(&timeouts), make_buffer_policy(c));
  net.transfer(t.gpu_node(0), t.gpu_node(1), Bytes(4096), [] {});
  sim.run_until(SimTime::ms(30));
  ASSERT_GE(timeouts.size(), 9u);
  EXPECT_EQ(timeouts[0], SimTime::us(100));
  const int64_t expected_us[] = {200, 400, 800, 1600, 3200, 6400, 6400, 6400};
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(timeouts[i + 1] - timeouts[i], SimTime::us(expected_us[i])) << i;
  EXPECT_EQ(net.stats().retransmits, timeouts.size());
}

struct IncastRun {
  SimTime last;
  int done = 0;
  PacketStats stats;
};

// `n` flows of `bytes` on a 128-host two-tier fat-tree, flow i from host
// ends(i).first to host ends(i).second.
template <class Ends>
IncastRun run_flows(const PacketConfig& c, int n, Bytes bytes, Ends ends) {
  static const topo::Topology t = fat_tree(128, 16, 2);
  engine::Simulator sim;
  auto net = make_packet(sim, t, c);
  IncastRun r;
  for (int i = 0; i < n; ++i) {
    const auto [src, dst] = ends(i);
    net->transfer(t.gpu_node(src), t.gpu_node(dst), bytes, [&] {
      r.last = std::max(r.last, sim.now());
      ++r.done;
    });
  }
  sim.run();
  r.stats = net->stats();
  return r;
}

// `n` hosts each send `bytes` to host 0.
IncastRun incast(const PacketConfig& c, int n, Bytes bytes) {
  return run_flows(c, n, bytes, [](int i) { return std::pair{i + 1, 0}; });
}

TEST(PacketTransport, GoBackNRecoversFromDropsWithoutPfc) {
  // RoCE on a lossy fabric (no PFC, 16 packets per port): an 8-to-1 incast
  // overflows the receiver's port; the receiver NAKs the first gap and the
  // sender goes back to it, so every flow still finishes, later.
  PacketConfig c = with_transport("roce");
  c.pfc = Toggle::kOff;
  c.buffer = BufferKind::kStatic;
  c.port_buffer = Bytes(16 * 4178);
  const IncastRun r = incast(c, 8, Bytes::MiB(1));
  EXPECT_EQ(r.done, 8);
  EXPECT_GT(r.stats.drops, 0u);
  EXPECT_GT(r.stats.retransmits, r.stats.drops);  // go-back-N resends what followed a loss too
  EXPECT_EQ(r.stats.pfc_pauses, 0u);
}

TEST(PacketTransport, UecRecoversFromDropsByTimeout) {
  // Without trimming a drop leaves no trace: the timeout finds it.
  PacketConfig c = with_transport("uec");
  c.trimming = Toggle::kOff;
  c.buffer = BufferKind::kStatic;
  c.port_buffer = Bytes(16 * 4178);
  const IncastRun r = incast(c, 8, Bytes::MiB(1));
  EXPECT_EQ(r.done, 8);
  EXPECT_GT(r.stats.drops, 0u);
  EXPECT_GT(r.stats.timeouts, 0u);
  EXPECT_GE(r.stats.retransmits, r.stats.drops);
}

TEST(PacketTransport, TrimmedHeadersAreResentWithoutTimeouts) {
  // EQDS and UEC with trimming: every packet a full queue refuses reaches
  // the receiver as a header, is NACKed and resent; nothing is lost outright.
  for (const char* name : {"eqds", "uec"}) {
    SCOPED_TRACE(name);
    PacketConfig c = with_transport(name);
    c.buffer = BufferKind::kStatic;
    c.port_buffer = Bytes(16 * 4178);
    const IncastRun r = incast(c, 32, Bytes(256 * 1024));
    EXPECT_EQ(r.done, 32);
    EXPECT_GT(r.stats.trims, 0u);
    EXPECT_EQ(r.stats.drops, 0u);
    EXPECT_EQ(r.stats.timeouts, 0u);
    EXPECT_EQ(r.stats.retransmits, r.stats.trims + r.stats.bounces);
  }
}

// `n` hosts each send `bytes` to the host 64 places on, across the spine,
// sprayed over its paths (so packets can arrive out of order).
IncastRun shift(const PacketConfig& c, int n, Bytes bytes) {
  return run_flows(c, n, bytes, [](int i) { return std::pair{i, i + 64}; });
}

TEST(PacketTransport, UecCoalescedAcksNameEveryPacketInAQuarterOfTheAcks) {
  // With ack_bytes 16 KiB (htsim's UEC receiver) an ACK goes out once four
  // 4 KiB packets wait, or at once for a flow's first and last packet and a
  // marked one: 1 MiB is 256 packets, so about 64 + 2 ACKs a flow, under a
  // third of the data packets. Every packet is still named by one (those
  // that arrive out of order in a later ACK's bitmap), so nothing times out
  // or is resent. The last flow ends later, by under a tenth: up to three
  // packets a window are acknowledged a few packet times late, and a window
  // of about one BDP (88 packets) is what keeps a flow at line rate.
  PacketConfig c = with_transport("uec");
  const IncastRun each = shift(c, 32, Bytes::MiB(1));
  c.ack_bytes = Bytes::KiB(16);
  const IncastRun coalesced = shift(c, 32, Bytes::MiB(1));
  EXPECT_EQ(each.done, 32);
  EXPECT_EQ(coalesced.done, 32);
  EXPECT_EQ(each.stats.control_sent, each.stats.data_sent);
  EXPECT_LT(coalesced.stats.control_sent * 3, coalesced.stats.data_sent);
  EXPECT_GT(coalesced.stats.control_sent * 5, coalesced.stats.data_sent);
  EXPECT_EQ(coalesced.stats.timeouts, 0u);
  EXPECT_EQ(coalesced.stats.retransmits, 0u);
  EXPECT_GT(coalesced.last, each.last);
  EXPECT_LT(coalesced.last.seconds() / each.last.seconds(), 1.10);
}

TEST(PacketTransport, UecCoalescingReceiverLeavesNoSenderWaitingForATimeout) {
  // In a trimmed 32-to-1 incast the windows shrink to a packet or two, far
  // under 16 KiB: a receiver waiting for ack_bytes would leave each sender
  // waiting for its timeout (200 us). The sender flags a packet that fills
  // its window (or its last) and the receiver answers it at once, as htsim's
  // UEC does; a trimmed header also answers what waits; and what has waited
  // one unloaded RTT (a window cut after it was sent) is answered then. So,
  // as with an ACK a packet, nothing times out (with the flag alone 7 did).
  PacketConfig c = with_transport("uec");
  c.buffer = BufferKind::kStatic;
  c.port_buffer = Bytes(16 * 4178);
  c.ack_bytes = Bytes::KiB(16);
  const IncastRun r = incast(c, 32, Bytes(256 * 1024));
  EXPECT_EQ(r.done, 32);
  EXPECT_GT(r.stats.trims, 0u);
  EXPECT_EQ(r.stats.timeouts, 0u);
}

TEST(PacketTransport, DcqcnCutsRatesOnlyWhenQueuesMark) {
  // A 16-to-1 incast builds a queue past ecn_kmin: receivers send CNPs.
  // With marking out of reach (kmin = kmax = 1 GiB) there are none.
  PacketConfig c = with_transport("roce");
  const IncastRun marked = incast(c, 16, Bytes::MiB(1));
  EXPECT_EQ(marked.done, 16);
  EXPECT_GT(marked.stats.cnps, 0u);
  EXPECT_EQ(marked.stats.drops + marked.stats.pfc_headroom_drops, 0u);  // PFC: lossless
  c.ecn_kmin = c.ecn_kmax = Bytes::GiB(1);
  const IncastRun unmarked = incast(c, 16, Bytes::MiB(1));
  EXPECT_EQ(unmarked.stats.cnps, 0u);
  EXPECT_EQ(unmarked.stats.ecn_marks, 0u);
}

}  // namespace
}  // namespace anatomy::net::packet
