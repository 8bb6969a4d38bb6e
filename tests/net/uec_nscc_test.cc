// NSCC's four quadrants in anatomy's UEC transport (net/packet/uec.cc),
// driven ACK by ACK on one flow through a stand-in host, so each rule is
// seen alone: no network, no queues, only the window.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/simulator.h"
#include "net/packet/config.h"
#include "net/packet/transport.h"

namespace anatomy::net::packet {
namespace {

class StandInHost final : public Host {
 public:
  engine::Simulator& sim() override { return sim_; }
  const PacketConfig& config() const override { return cfg_; }
  Flow& flow(uint32_t) override { return *flow_; }
  void send_control(Flow&, PacketKind, uint32_t, uint32_t, uint8_t, uint16_t, int64_t) override {}
  void activate(Flow&) override {}
  void arm_rto(Flow&, bool) override {}
  void disarm_rto(Flow&) override {}
  void receiver_complete(Flow&) override {}
  void sender_complete(Flow&) override {}
  void count_cnp() override {}

  engine::Simulator sim_;
  PacketConfig cfg_;
  Flow* flow_ = nullptr;
};

// A 400 Gb/s path with a 10 us unloaded RTT: BDP 500,000 B; the window
// starts at 123 packets of 4,096 B (503,808 B).
struct OneFlow {
  StandInHost host;
  std::unique_ptr<Transport> uec = make_uec_transport();
  PathSet paths;
  Flow f;
  OneFlow() {
    uec->attach(host);
    host.flow_ = &f;
    paths.base_rtt = SimTime::us(10);
    paths.line_bps = 400e9;
    f.paths = &paths;
    f.mtu = 4096;
    f.npkts = 1000;
    f.last_payload = 4096;
    f.acked_bits.assign(16, 0);
    f.lost_bits.assign(16, 0);
    f.rcv_bits.assign(16, 0);
    f.srtt = paths.base_rtt;
    uec->start(f, SimTime::zero());
    f.snd_nxt = 200;
    f.inflight = 200 * 4096;
  }
  // The acknowledgement of packet `seq`, sent `rtt` ago, marked or not.
  void ack(uint32_t seq, SimTime rtt, bool marked) {
    Packet p;
    p.kind = PacketKind::kAck;
    p.seq = seq;
    p.flags = marked ? kFlagEcnEcho : 0;
    p.stamp_ps = (host.sim_.now() - rtt).count_ps();
    uec->on_control(f, p);
  }
  void advance(SimTime d) {
    host.sim_.schedule_in(d, [] {});
    host.sim_.run();
  }
};

TEST(UecNscc, AMarkWithoutQueueingDelayLeavesTheWindow) {
  // Marked, RTT = base: the mark is one path's queue (REPS moves off it);
  // the window neither grows nor shrinks, over more than a window of ACKs
  // (130 x 4,096 B > 503,808 B; a DCTCP rule would have halved it).
  OneFlow x;
  x.advance(SimTime::us(20));
  const double w = x.f.cc.cwnd;
  EXPECT_EQ(w, 123.0 * 4096);
  for (uint32_t s = 0; s < 130; ++s) x.ack(s, SimTime::us(10), true);
  EXPECT_EQ(x.f.cc.cwnd, w);
}

TEST(UecNscc, AMarkWithDelayOverTheTargetCutsOncePerRtt) {
  // Target = 0.75 x 10 us = 7.5 us of queueing delay. An RTT of 25 us is
  // d = 15 us: w x max(1 - 0.8 (15 - 7.5) / 15, 1/2) = w x 0.6. A second
  // marked ACK in the same base RTT changes nothing; one after it cuts again.
  OneFlow x;
  x.advance(SimTime::us(20));
  const double w = x.f.cc.cwnd;
  x.ack(0, SimTime::us(25), true);
  EXPECT_NEAR(x.f.cc.cwnd, w * 0.6, 1e-6);
  x.ack(1, SimTime::us(25), true);
  EXPECT_NEAR(x.f.cc.cwnd, w * 0.6, 1e-6);
  x.advance(SimTime::us(10));
  x.ack(2, SimTime::us(25), true);
  EXPECT_NEAR(x.f.cc.cwnd, w * 0.36, 1e-6);
}

TEST(UecNscc, UnmarkedAcksGrowTheWindowFasterUnderTheTarget) {
  // Unmarked, d = 0: one ACK of 4,096 B adds 4,096 x 4,096 / w (fair) plus
  // 4,096 x 1/2 (proportional, 1 - d/target = 1). Unmarked with d = 10 us,
  // over the target: only the fair term.
  OneFlow x;
  const double w = x.f.cc.cwnd;
  x.ack(0, SimTime::us(10), false);
  EXPECT_NEAR(x.f.cc.cwnd, w + 4096.0 * 4096 / w + 2048, 1e-6);
  const double w2 = x.f.cc.cwnd;
  x.ack(1, SimTime::us(20), false);
  EXPECT_NEAR(x.f.cc.cwnd, w2 + 4096.0 * 4096 / w2, 1e-6);
}

}  // namespace
}  // namespace anatomy::net::packet
