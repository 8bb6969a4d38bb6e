// The packet backend's pipeline, checked against times derived by hand.

#include "net/packet/packet_network.h"

#include <gtest/gtest.h>

#include <functional>

#include "net/flow/flow_network.h"
#include "packet_test_util.h"

namespace anatomy::net::packet {
namespace {

using testing::fat_tree;
using testing::make_packet;
using testing::with_transport;

// A ring of 4 devices, 8 Gb/s (1 GB/s) per link, 1 us per hop. Ring links
// are scale-up links: modelled packet by packet, no wire overhead.
topo::Topology ring4() { return topo::build_torus({4}, Bandwidth::gbps(8), SimTime::us(1)); }

TEST(PacketNetwork, PacketRecordsAreSmall) {
  // The issue allows 200 bytes per packet in flight, state included: a
  // record is one cache line, and the event queue holds one entry per busy
  // link, not per packet.
  EXPECT_LE(sizeof(Packet), 64u);
}

TEST(PacketNetwork, StoreAndForwardOverTwoHops) {
  // 1 MB from device 0 to 2 over two 1 GB/s hops: 244 full packets of
  // 4,096 B (4.096 us each) and one of 576 B (0.576 us). RoCE at line rate
  // sends them back to back, so the first link is done at 244 x 4.096 +
  // 0.576 = 1,000 us. The second link lags one full packet plus the 1 us
  // hop: its last full packet ends at 245 x 4.096 + 1 = 1,004.52 us, the
  // small one (there since 1,001 us) then takes 0.576 us, and 1 us later it
  // is in: 1,006.096 us (the fluid model says 1,002 us: store-and-forward
  // costs one packet time per extra hop).
  auto t = ring4();
  for (const char* name : {"roce", "eqds", "uec"}) {
    SCOPED_TRACE(name);
    engine::Simulator sim;
    auto net = make_packet(sim, t, with_transport(name));
    SimTime done;
    net->transfer(t.gpu_node(0), t.gpu_node(2), Bytes(1'000'000), [&] { done = sim.now(); });
    sim.run();
    EXPECT_EQ(done, SimTime::ps(1'006'096'000));
    EXPECT_EQ(net->counters().transfers_finished, 1u);
    EXPECT_EQ(net->active_transfers(), 0u);
    EXPECT_EQ(net->link_bytes(t.find_link(t.gpu_node(0), t.gpu_node(1))).count(), 1'000'000);
    EXPECT_EQ(net->stats().retransmits, 0u);
  }
}

TEST(PacketNetwork, CompleteOnSendIsWhenTheLastPacketLeaves) {
  // The first link finishes at exactly 1 MB / 1 GB/s = 1 ms, as the fluid model says.
  auto t = ring4();
  engine::Simulator sim;
  auto net = make_packet(sim, t, with_transport("roce"));
  SimTime done;
  TransferOptions o;
  o.complete_on_send = true;
  net->transfer(t.gpu_node(0), t.gpu_node(2), Bytes(1'000'000), [&] { done = sim.now(); }, o);
  sim.run();
  EXPECT_EQ(done, SimTime::ms(1));
}

TEST(PacketNetwork, EmptyAndLocalTransfersOnlyTravel) {
  auto t = ring4();
  engine::Simulator sim;
  auto net = make_packet(sim, t, with_transport("eqds"));
  SimTime done = SimTime::max();
  net->transfer(t.gpu_node(0), t.gpu_node(2), Bytes(0), [&] { done = sim.now(); });
  sim.run();
  EXPECT_EQ(done, SimTime::us(2));
  bool local = false;
  net->transfer(t.gpu_node(1), t.gpu_node(1), Bytes(100), [&] { local = true; });
  sim.run();
  EXPECT_TRUE(local);
  EXPECT_EQ(net->active_transfers(), 0u);
}

TEST(PacketNetwork, OneLargeTransferMatchesTheFlowModel) {
  // 16 MiB between hosts in different pods of a k = 16 fat-tree, uncongested:
  // the flow model drains it at the NIC's payload rate and adds the path
  // latency; the packet model adds store-and-forward (one 4 KiB packet time,
  // 84 ns, per extra hop) and nothing else. Agreement well within 5%.
  auto t = fat_tree(1024, 16, 3);
  const NodeId a = t.gpu_node(0), b = t.gpu_node(1000);
  SimTime fluid;
  {
    engine::Simulator sim;
    FlowNetwork net(sim, t);
    net.transfer(a, b, Bytes::MiB(16), [&] { fluid = sim.now(); });
    sim.run();
  }
  for (const char* name : {"roce", "eqds", "uec"}) {
    SCOPED_TRACE(name);
    engine::Simulator sim;
    auto net = make_packet(sim, t, with_transport(name));
    SimTime done;
    net->transfer(a, b, Bytes::MiB(16), [&] { done = sim.now(); });
    sim.run();
    EXPECT_NEAR(done.seconds() / fluid.seconds(), 1.0, 0.05);
    EXPECT_GE(done, fluid);
  }
}

// A ring all-reduce as coll's executor runs one: 2(N - 1) steps; in each,
// every rank sends S/N bytes to the next (a send completion), and the step
// ends when every send has completed.
SimTime ring_all_reduce(Network& net, const topo::Topology& t, int n, Bytes s) {
  engine::Simulator& sim = net.simulator();
  int step = 0, outstanding = 0;
  SimTime end;
  std::function<void()> begin = [&] {
    if (step == 2 * (n - 1)) {
      end = sim.now();
      return;
    }
    ++step;
    outstanding = n;
    for (int r = 0; r < n; ++r) {
      TransferOptions o;
      o.flow_hash = static_cast<uint64_t>(r + 1);
      o.complete_on_send = true;
      net.transfer(t.gpu_node(r), t.gpu_node((r + 1) % n), s / n, [&] {
        if (--outstanding == 0) begin();
      }, o);
    }
  };
  begin();
  sim.run();
  return end;
}

TEST(PacketNetwork, RingAllReduceOnARailOptimizedFabricMatchesTheFlowModel) {
  // 16 H100s in two DGX hosts on a rail-optimized fabric: 30 steps of
  // 256 KiB. Inside a host a step crosses NVLink (740 GB/s); across hosts
  // it crosses PXN and a 400G NIC (49 GB/s payload), which sets every
  // step's time: 256 KiB / 49.0 GB/s = 5.35 us, 160 us in all. Both models say so; the
  // packet model's send completion is when the last packet leaves the NIC.
  topo::ClusterSpec spec;
  spec.system = hw::find_system("dgx-h100");
  spec.gpus = 16;
  const topo::Topology t = topo::build_cluster(spec);
  SimTime fluid;
  {
    engine::Simulator sim;
    FlowNetwork net(sim, t);
    fluid = ring_all_reduce(net, t, 16, Bytes::MiB(4));
  }
  EXPECT_NEAR(fluid.micros(), 30 * 262144.0 * 8 / testing::fabric_payload_bps() * 1e6, 0.5);
  for (const char* name : {"roce", "eqds", "uec"}) {
    SCOPED_TRACE(name);
    engine::Simulator sim;
    auto net = make_packet(sim, t, with_transport(name));
    const SimTime packets = ring_all_reduce(*net, t, 16, Bytes::MiB(4));
    EXPECT_NEAR(packets.seconds() / fluid.seconds(), 1.0, 0.05);
    EXPECT_EQ(net->active_transfers(), 0u);
  }
}

}  // namespace
}  // namespace anatomy::net::packet
