#include <gtest/gtest.h>

#include "coll/executor.h"
#include "net/flow/flow_network.h"
#include "topo/builders.h"

namespace anatomy::coll {
namespace {

// A ring of 4 devices, 8 Gb/s (1 GB/s) per link, 1 us per hop.
topo::Topology executor_ring4() { return topo::build_torus({4}, Bandwidth::gbps(8), SimTime::us(1)); }

TEST(ExecutorSignal, EachCollectiveEmitsItsDurationOnItsCommunicator) {
  auto t = executor_ring4();
  engine::Simulator sim;
  net::FlowNetwork net(sim, t);
  CollectiveSignal done;
  std::vector<std::tuple<std::string, SimTime, SimTime>> seen;
  done.subscribe([&](const std::string& comm, SimTime a, SimTime b) { seen.emplace_back(comm, a, b); });
  // One phase of one 1 MB send repeated twice, after 5 us of base latency
  // and with 2 us after the phase: 5 + 2 x 1000 (1 MB at 1 GB/s, send
  // completion) + 2 = 2,007 us.
  Schedule s;
  s.base_latency = SimTime::us(5);
  Phase p;
  p.sends.push_back({t.gpu_node(0), t.gpu_node(1), Bytes(1'000'000), 0});
  p.repeat = 2;
  p.latency_after = SimTime::us(2);
  s.phases.push_back(p);
  const std::string name = "dp stage 0";
  Executor ex(net, {.exclusive = false, .done = &done, .communicator = &name});
  sim.schedule_at(SimTime::us(10), [&] { ex.start(s, [] {}); });
  sim.run();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(std::get<0>(seen[0]), "dp stage 0");
  EXPECT_EQ(std::get<1>(seen[0]), SimTime::us(10));
  EXPECT_EQ(std::get<2>(seen[0]) - std::get<1>(seen[0]), SimTime::us(2007));
}

TEST(ExecutorSignal, NoSignalNoEmit) {
  // Without Options::done the executor runs as before: nothing to observe, and the time is the same.
  auto t = executor_ring4();
  engine::Simulator sim;
  net::FlowNetwork net(sim, t);
  Schedule s;
  Phase p;
  p.sends.push_back({t.gpu_node(0), t.gpu_node(1), Bytes(1'000'000), 0});
  s.phases.push_back(p);
  Executor ex(net, {});
  SimTime end;
  ex.start(s, [&] { end = sim.now(); });
  sim.run();
  EXPECT_EQ(end, SimTime::ms(1));
  EXPECT_EQ(ex.stats().end, SimTime::ms(1));
}

}  // namespace
}  // namespace anatomy::coll
