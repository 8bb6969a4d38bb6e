#include "net/flow/flow_network.h"

#include <gtest/gtest.h>

#include "topo/builders.h"

namespace anatomy::net {
namespace {

// A ring of 4 devices, 8 Gb/s (1 GB/s) per link, 1 us per hop.
topo::Topology ring4() { return topo::build_torus({4}, Bandwidth::gbps(8), SimTime::us(1)); }

TEST(FlowNetwork, OneFlowTakesSizeOverRatePlusLatency) {
  auto t = ring4();
  engine::Simulator sim;
  FlowNetwork net(sim, t);
  SimTime done;
  // 0 -> 2 is two hops: 1 MB at 1 GB/s = 1 ms, plus 2 x 1 us.
  net.transfer(t.gpu_node(0), t.gpu_node(2), Bytes(1'000'000), [&] { done = sim.now(); });
  sim.run();
  EXPECT_EQ(done, SimTime::ms(1) + SimTime::us(2));
  EXPECT_EQ(net.link_bytes(t.find_link(t.gpu_node(0), t.gpu_node(1))).count(), 1'000'000);
  EXPECT_EQ(net.counters().transfers_finished, 1u);
  EXPECT_EQ(net.active_transfers(), 0u);
}

TEST(FlowNetwork, LinkBytesMidFlowAreWhatHasMovedSoFar) {
  auto t = ring4();
  engine::Simulator sim;
  FlowNetwork net(sim, t);
  const topo::LinkId l = t.find_link(t.gpu_node(0), t.gpu_node(1));
  net.transfer(t.gpu_node(0), t.gpu_node(1), Bytes(1'000'000), [] {});
  int64_t at_quarter = -1;
  // 1 GB/s: a quarter of a millisecond in, 250 kB have crossed the link.
  sim.schedule_at(SimTime::us(250), [&] { at_quarter = net.link_bytes(l).count(); });
  sim.run();
  EXPECT_EQ(at_quarter, 250'000);
  EXPECT_EQ(net.link_bytes(l).count(), 1'000'000);
}

TEST(FlowNetwork, TwoFlowsShareALinkEqually) {
  auto t = ring4();
  engine::Simulator sim;
  FlowNetwork net(sim, t);
  SimTime a, b;
  // Both cross link 0 -> 1: each gets 0.5 GB/s, so 1 MB takes 2 ms.
  net.transfer(t.gpu_node(0), t.gpu_node(1), Bytes(1'000'000), [&] { a = sim.now(); });
  net.transfer(t.gpu_node(0), t.gpu_node(1), Bytes(1'000'000), [&] { b = sim.now(); });
  sim.run();
  EXPECT_EQ(a, SimTime::ms(2) + SimTime::us(1));
  EXPECT_EQ(b, a);
}

TEST(FlowNetwork, AFinishingFlowHandsItsShareToTheOther) {
  auto t = ring4();
  engine::Simulator sim;
  FlowNetwork net(sim, t);
  SimTime small, big;
  // 0.5 MB and 1.5 MB share the link at 0.5 GB/s each. The small one drains
  // at 1 ms; the big one has 1 MB left and then runs alone at 1 GB/s: 2 ms.
  net.transfer(t.gpu_node(0), t.gpu_node(1), Bytes(500'000), [&] { small = sim.now(); });
  net.transfer(t.gpu_node(0), t.gpu_node(1), Bytes(1'500'000), [&] { big = sim.now(); });
  sim.run();
  EXPECT_EQ(small, SimTime::ms(1) + SimTime::us(1));
  EXPECT_EQ(big, SimTime::ms(2) + SimTime::us(1));
  EXPECT_EQ(net.link_bytes(t.find_link(t.gpu_node(0), t.gpu_node(1))).count(), 2'000'000);
}

TEST(FlowNetwork, ALateFlowSlowsTheFirst) {
  auto t = ring4();
  engine::Simulator sim;
  FlowNetwork net(sim, t);
  SimTime first, second;
  // Flow 1 (1 MB) runs alone for 0.5 ms (0.5 MB done), then shares with
  // flow 2 (0.25 MB): both at 0.5 GB/s; flow 2 drains in 0.5 ms, leaving
  // flow 1 0.25 MB at 1 GB/s: 0.25 ms. Flow 1 drains at 1.25 ms.
  net.transfer(t.gpu_node(0), t.gpu_node(1), Bytes(1'000'000), [&] { first = sim.now(); });
  sim.schedule_at(SimTime::us(500), [&] {
    net.transfer(t.gpu_node(0), t.gpu_node(1), Bytes(250'000), [&] { second = sim.now(); });
  });
  sim.run();
  EXPECT_EQ(second, SimTime::ms(1) + SimTime::us(1));
  EXPECT_EQ(first, SimTime::us(1250) + SimTime::us(1));
}

TEST(FlowNetwork, DisjointFlowsDoNotInteract) {
  auto t = ring4();
  engine::Simulator sim;
  FlowNetwork net(sim, t);
  SimTime a, b;
  net.transfer(t.gpu_node(0), t.gpu_node(1), Bytes(1'000'000), [&] { a = sim.now(); });
  net.transfer(t.gpu_node(2), t.gpu_node(3), Bytes(1'000'000), [&] { b = sim.now(); });
  sim.run();
  EXPECT_EQ(a, SimTime::ms(1) + SimTime::us(1));
  EXPECT_EQ(b, a);
}

TEST(FlowNetwork, CompleteOnSendSkipsThePathLatency) {
  auto t = ring4();
  engine::Simulator sim;
  FlowNetwork net(sim, t);
  SimTime done;
  TransferOptions o;
  o.complete_on_send = true;
  net.transfer(t.gpu_node(0), t.gpu_node(2), Bytes(1'000'000), [&] { done = sim.now(); }, o);
  sim.run();
  EXPECT_EQ(done, SimTime::ms(1));
}

TEST(FlowNetwork, EmptyTransfersOnlyTravel) {
  auto t = ring4();
  engine::Simulator sim;
  FlowNetwork net(sim, t);
  SimTime done = SimTime::max();
  net.transfer(t.gpu_node(0), t.gpu_node(2), Bytes(0), [&] { done = sim.now(); });
  sim.run();
  EXPECT_EQ(done, SimTime::us(2));
  bool local = false;
  net.transfer(t.gpu_node(1), t.gpu_node(1), Bytes(100), [&] { local = true; });
  sim.run();
  EXPECT_TRUE(local);
}

}  // namespace
}  // namespace anatomy::net
