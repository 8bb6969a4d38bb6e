#include <gtest/gtest.h>

#include "net/tsn/tsn_bounds.h"
#include "net/tsn/tsn_segment.h"

namespace anatomy::net::tsn {
namespace {

using core::Bandwidth;
using core::Bytes;

int64_t worst(const SegmentResult& r, int stream) { return r.streams[stream].latency_ps.back(); }

// A 1 Gb/s port; the stream under test and a best-effort class-0 stream of
// full 1500-byte frames every 97 us, whose phase against the stream's
// period drifts by whole microseconds, so over 100 ms the measured frames
// meet a lower-priority frame at almost every point of its transmission.
SegmentSpec one_port(StreamSpec measured) {
  SegmentSpec s;
  TsnPortConfig port;
  port.rate = Bandwidth::gbps(1);
  port.latency = SimTime::ns(500);
  s.ports = {port};
  measured.hops = {0};
  s.streams.push_back(measured);
  s.streams.push_back({.name = "best-effort", .hops = {0}, .message_bytes = 1500, .mtu = 1500,
                       .period = SimTime::us(97), .priority = 0, .measured = false});
  return s;
}

TEST(TsnPort, FrameTimeCountsPreambleHeaderTagFcsAndGap) {
  // 1500 + 42 = 1542 bytes = 12,336 bits: 12.336 us at 1 Gb/s.
  EXPECT_EQ(frame_time(1500, Bandwidth::gbps(1)), SimTime::ns(12336));
  // A 10-byte payload is padded to 42: 84 bytes, 672 ns.
  EXPECT_EQ(frame_time(10, Bandwidth::gbps(1)), SimTime::ns(672));
}

TEST(TsnPort, GateScheduleSaysWhenAClassIsOpenAndForHowLong) {
  // Cycle 1 ms: 100 us class 7 only, then 900 us classes 0-6.
  const GateSchedule g({{SimTime::us(100), 0x80}, {SimTime::us(900), 0x7f}});
  EXPECT_TRUE(g.open(7, SimTime::us(1050)));
  EXPECT_FALSE(g.open(7, SimTime::us(1100)));
  EXPECT_EQ(g.open_for(7, SimTime::us(1030)), SimTime::us(70));
  EXPECT_EQ(g.open_for(0, SimTime::us(50)), SimTime::zero());
  EXPECT_EQ(g.next_change(SimTime::us(1030)), SimTime::us(1100));
  EXPECT_EQ(g.longest_window(0), SimTime::us(900));
  EXPECT_EQ(g.longest_window(7), SimTime::us(100));
  // A class whose bit is never set never opens.
  EXPECT_EQ(GateSchedule({{SimTime::us(10), 0x01}}).longest_window(3), SimTime::zero());
}

TEST(TsnStrictPriority, WorstCaseIsOneLowerFrameThenItsOwnAndWithinTwentyPercentOfTheBound) {
  // Class 7: one 200-byte frame every 100 us. Bound (802.1Q strict
  // priority, non-preemptive): a 1542-byte lower frame that just started,
  // then its own 242 bytes: (1542 + 242) x 8 / 1e9 = 14.272 us, + 0.5 us = 14.772 us.
  const SegmentSpec s = one_port({.name = "sensor", .message_bytes = 200, .mtu = 1500,
                                  .period = SimTime::us(100), .priority = 7});
  const SegmentResult r = simulate_segment(s, SimTime::ms(100));
  const SimTime bound = strict_priority_bound(Bandwidth::gbps(1), Bytes(1542), 1, Bytes(242), SimTime::ns(500));
  EXPECT_EQ(bound, SimTime::ns(14772));
  EXPECT_LE(worst(r, 0), bound.count_ps());
  EXPECT_GE(worst(r, 0), bound.count_ps() * 8 / 10);
  // Alone on the port it would take 1.936 + 0.5 us: the best case.
  EXPECT_EQ(r.streams[0].latency_ps.front(), SimTime::ns(2436).count_ps());
}

TEST(TsnStrictPriority, WithoutPriorityTheSensorWaitsBehindTheQueue) {
  // The same sensor in class 0 beside a 10-frame best-effort burst every
  // 97 us shares one FIFO: it can wait behind the whole burst, far past
  // the one-frame blocking strict priority allows.
  SegmentSpec s = one_port({.name = "sensor", .message_bytes = 200, .mtu = 1500, .period = SimTime::us(300),
                            .priority = 0});
  s.streams[1].message_bytes = 15000;
  s.streams[1].period = SimTime::us(297);
  const SegmentResult fifo = simulate_segment(s, SimTime::ms(100));
  s.streams[0].priority = 7;
  const SegmentResult prio = simulate_segment(s, SimTime::ms(100));
  EXPECT_GT(worst(fifo, 0), 5 * worst(prio, 0));
}

TEST(TsnCreditShaper, BurstIsSpacedByIdleSlopeAndWithinTwentyPercentOfTheBound) {
  // Class 6 shaped to idleSlope 0.5 Gb/s: a burst of 6 frames of 1000 bytes
  // (1042 on the wire) every 1 ms. Bound (802.1Qav): 1542 x 8 / 1e9
  // (blocking) + 5 x 1042 x 8 / 0.5e9 + 1042 x 8 / 1e9 + 0.5 us
  // = 12.336 + 83.36 + 8.336 + 0.5 = 104.532 us.
  SegmentSpec s = one_port({.name = "camera", .message_bytes = 6000, .mtu = 1000, .period = SimTime::ms(1),
                            .priority = 6});
  s.ports[0].classes[6].cbs_idle_slope = Bandwidth::gbps(0.5);
  const SegmentResult r = simulate_segment(s, SimTime::ms(200));
  const SimTime bound = cbs_bound(Bandwidth::gbps(1), Bytes(1542), 6, Bytes(1042), Bandwidth::gbps(0.5), SimTime::ns(500));
  EXPECT_EQ(bound, SimTime::ns(104532));
  EXPECT_LE(worst(r, 0), bound.count_ps());
  EXPECT_GE(worst(r, 0), bound.count_ps() * 8 / 10);
  // With no blocking the burst leaves at the idle slope: 83.36 + 8.336 + 0.5 = 92.196 us.
  EXPECT_EQ(r.streams[0].latency_ps.front(), SimTime::ns(92196).count_ps());
}

TEST(TsnCreditShaper, ShapedClassLeavesTheRestOfTheLinkToBestEffort) {
  // A shaped class with a backlog gets its idle slope and no more, even
  // on an otherwise idle link: a 250-frame burst at 0.1 Gb/s of a 1 Gb/s port.
  SegmentSpec s = one_port({.name = "bulk", .message_bytes = 250000, .mtu = 1000, .period = SimTime::ms(50),
                            .priority = 6});
  s.ports[0].classes[6].cbs_idle_slope = Bandwidth::gbps(0.1);
  const SegmentResult r = simulate_segment(s, SimTime::ms(100));
  // 250 frames of 1042 bytes at 0.1 Gb/s: 249 x 83.36 us + 8.336 us = 20.765 ms (+ blocking, + 0.5 us).
  EXPECT_GE(worst(r, 0), SimTime::us(20765).count_ps());
  EXPECT_LE(worst(r, 0), SimTime::us(20765 + 13).count_ps());
}

TEST(TsnTimeAware, ScheduledClassWaitsAtMostTheClosedTimePlusTwoFramesAndWithinTwentyPercent) {
  // Class 7 alone in a 100 us window every 1 ms; one 1500-byte frame every
  // 1001 us, so its arrival walks through the whole cycle. Bound
  // (802.1Qbv, length-aware): 900 us closed + 2 x 12.336 us + 0.5 us = 925.172 us.
  SegmentSpec s = one_port({.name = "control", .message_bytes = 1500, .mtu = 1500, .period = SimTime::us(1001),
                            .priority = 7});
  s.ports[0].gates = {{SimTime::us(100), 0x80}, {SimTime::us(900), 0x7f}};
  s.streams[1].period = SimTime::us(20);  // heavy best effort: 62% of the link
  const SegmentResult r = simulate_segment(s, SimTime::sec(1));
  const SimTime bound = tas_bound(Bandwidth::gbps(1), SimTime::us(1000), SimTime::us(100), Bytes(1542), SimTime::ns(500));
  EXPECT_EQ(bound, SimTime::ns(925172));
  EXPECT_LE(worst(r, 0), bound.count_ps());
  EXPECT_GE(worst(r, 0), bound.count_ps() * 8 / 10);
  // Inside its window nothing delays it: the best case is its own 12.836 us.
  EXPECT_EQ(r.streams[0].latency_ps.front(), SimTime::ns(12836).count_ps());
}

TEST(TsnTimeAware, SynchronisedStreamIsDeterministic) {
  // Released at each window's start, the scheduled frame never waits:
  // jitter (max - min) is 0 despite the best-effort load.
  SegmentSpec s = one_port({.name = "control", .message_bytes = 1500, .mtu = 1500, .period = SimTime::us(1000),
                            .priority = 7});
  s.ports[0].gates = {{SimTime::us(100), 0x80}, {SimTime::us(900), 0x7f}};
  s.streams[1].period = SimTime::us(20);
  const SegmentResult r = simulate_segment(s, SimTime::ms(200));
  EXPECT_EQ(r.streams[0].latency_ps.front(), r.streams[0].latency_ps.back());
}

TEST(TsnFaults, UdpLosesFramesToBitErrorsAndReliableStreamsResend) {
  // 10% frame loss per hop: a 4-frame UDP message survives with 0.9^4 = 66%;
  // a reliable one always arrives, some later by the retransmission delay.
  SegmentSpec s = one_port({.name = "udp", .message_bytes = 6000, .mtu = 1500, .period = SimTime::us(500),
                            .deadline = SimTime::ms(1), .priority = 5});
  s.frame_loss = 0.1;
  const SegmentResult udp = simulate_segment(s, SimTime::ms(500));
  const double survived = static_cast<double>(udp.streams[0].delivered) / udp.streams[0].released;
  EXPECT_NEAR(survived, 0.6561, 0.05);
  EXPECT_EQ(udp.streams[0].deadline_misses, udp.streams[0].lost);
  s.streams[0].retransmit = true;
  const SegmentResult rel = simulate_segment(s, SimTime::ms(500));
  EXPECT_EQ(rel.streams[0].delivered, rel.streams[0].released);
  EXPECT_GT(rel.streams[0].retransmissions, 0);
  EXPECT_GE(rel.streams[0].latency_ps.back(), SimTime::us(10).count_ps());
}

TEST(TsnFaults, OutageHoldsReliableFramesUntilFailover) {
  // The port is down from 1 ms for a 5 ms switchover: a reliable frame
  // released at 1 ms waits until 6 ms.
  SegmentSpec s = one_port({.name = "ctl", .message_bytes = 100, .mtu = 1500, .period = SimTime::ms(1), .priority = 7,
                            .retransmit = true});
  s.outages = {{0, SimTime::ms(1), SimTime::ms(6)}};
  const SegmentResult r = simulate_segment(s, SimTime::ms(20));
  EXPECT_GE(worst(r, 0), SimTime::ms(5).count_ps());
  EXPECT_EQ(r.streams[0].delivered, r.streams[0].released);
}

}  // namespace
}  // namespace anatomy::net::tsn
