#include <gtest/gtest.h>

#include "engine/simulator.h"
#include "net/flow/flow_network.h"
#include "net/link_recorder.h"
#include "net/link_sampler.h"
#include "topo/builders.h"

namespace anatomy::net {
namespace {

// A ring of 4 devices, 8 Gb/s (1 GB/s) per link, 1 us per hop.
topo::Topology ring4_signals() { return topo::build_torus({4}, Bandwidth::gbps(8), SimTime::us(1)); }

TEST(LinkSignals, FlowModelEmitsEachLinkRateChange) {
  auto t = ring4_signals();
  engine::Simulator sim;
  FlowNetwork net(sim, t);
  const topo::LinkId l = t.find_link(t.gpu_node(0), t.gpu_node(1));
  std::vector<std::pair<SimTime, double>> seen;
  net.signals().link_rate.subscribe([&](SimTime at, LinkId link, double bps) {
    if (link == l) seen.emplace_back(at, bps);
  });
  // Two flows over 0 -> 1, 1 MB and 0.5 MB. Sharing 8 Gb/s they each get
  // 4 Gb/s; the 0.5 MB flow drains at 1 ms (0.5 MB x 8 / 4 Gb/s), and the
  // other then has the link alone, 8 Gb/s, until its remaining 0.5 MB are
  // through at 1.5 ms. The link's total is 8 Gb/s throughout: one signal
  // at 0 and one at 1.5 ms, when it falls to 0.
  net.transfer(t.gpu_node(0), t.gpu_node(1), Bytes(1'000'000), [] {});
  net.transfer(t.gpu_node(0), t.gpu_node(1), Bytes(500'000), [] {});
  sim.run();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].first, SimTime::zero());
  EXPECT_DOUBLE_EQ(seen[0].second, 8e9);
  EXPECT_EQ(seen[1].first, SimTime::us(1500));
  EXPECT_DOUBLE_EQ(seen[1].second, 0);
}

TEST(LinkSignals, RecorderGivesTheBytesOfAnyIntervalWithoutARerun) {
  auto t = ring4_signals();
  engine::Simulator sim;
  FlowNetwork net(sim, t);
  LinkRecorder rec(net);
  const topo::LinkId l = t.find_link(t.gpu_node(0), t.gpu_node(1));
  // 1 MB at 1 GB/s from t = 0, then 0.5 MB from t = 2 ms: the link carries
  // 1 MB in [0, 1 ms], nothing in [1, 2] ms, 0.5 MB in [2, 2.5] ms.
  net.transfer(t.gpu_node(0), t.gpu_node(1), Bytes(1'000'000), [] {});
  sim.schedule_at(SimTime::ms(2), [&] { net.transfer(t.gpu_node(0), t.gpu_node(1), Bytes(500'000), [] {}); });
  sim.run();
  EXPECT_NEAR(rec.bytes_between(l, SimTime::zero(), SimTime::us(250)), 250'000, 1e-3);
  EXPECT_NEAR(rec.bytes_between(l, SimTime::us(500), SimTime::us(1500)), 500'000, 1e-3);
  EXPECT_NEAR(rec.bytes_between(l, SimTime::ms(1), SimTime::ms(2)), 0, 1e-3);
  EXPECT_NEAR(rec.bytes_between(l, SimTime::zero(), SimTime::ms(3)), 1'500'000, 1e-3);
  EXPECT_DOUBLE_EQ(rec.bytes_between(l, SimTime::zero(), SimTime::ms(3)), net.link_bytes(l).as_double());
}

TEST(LinkSignals, RecorderMemoryIsBoundedOnABusyLink) {
  auto t = ring4_signals();
  engine::Simulator sim;
  FlowNetwork net(sim, t);
  LinkRecorder rec(net);
  const topo::LinkId l = t.find_link(t.gpu_node(0), t.gpu_node(1));
  // 20,000 back-to-back 1 kB transfers with a 1 us gap: 40,000 rate changes
  // on the link, more than the recorder keeps; the total stays exact
  // (20 MB) because C is exact at every point it keeps.
  std::function<void(int)> next = [&](int k) {
    if (k == 20'000) return;
    net.transfer(t.gpu_node(0), t.gpu_node(1), Bytes(1'000), [&, k] {
      sim.schedule_in(SimTime::us(1), [&, k] { next(k + 1); });
    });
  };
  next(0);
  sim.run();
  EXPECT_LE(rec.points(l), LinkRecorder::kMaxPoints);
  EXPECT_NEAR(rec.bytes_between(l, SimTime::zero(), sim.now()), 20e6, 1e-3);
}

TEST(LinkSignals, SamplerReportsUtilizationPerPeriod) {
  auto t = ring4_signals();
  engine::Simulator sim;
  FlowNetwork net(sim, t);
  const topo::LinkId l = t.find_link(t.gpu_node(0), t.gpu_node(1));
  LinkSampler sampler(net, {l}, SimTime::us(500), 4);
  std::vector<double> util;
  sampler.sample.subscribe([&](SimTime, LinkId, double u, int64_t queued) {
    util.push_back(u);
    EXPECT_EQ(queued, 0);  // the flow model has no queues
  });
  // 750 kB at 1 GB/s: busy for 750 us, so the first 500 us period is full,
  // the second half full, the last two empty.
  net.transfer(t.gpu_node(0), t.gpu_node(1), Bytes(750'000), [] {});
  sim.run();
  ASSERT_EQ(util.size(), 4u);
  EXPECT_NEAR(util[0], 1.0, 1e-9);
  EXPECT_NEAR(util[1], 0.5, 1e-9);
  EXPECT_NEAR(util[2], 0.0, 1e-9);
  EXPECT_NEAR(util[3], 0.0, 1e-9);
}

}  // namespace
}  // namespace anatomy::net
