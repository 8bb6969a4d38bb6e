#include <gtest/gtest.h>

#include <memory>

#include "net/flow/flow_network.h"
#include "net/hybrid_network.h"
#include "hw/catalog.h"
#include "packet_test_util.h"
#include "topo/builders.h"

namespace anatomy::net {
namespace {

using packet::PacketScope;
using packet::testing::fat_tree;
using packet::testing::make_packet;
using packet::testing::with_transport;

struct Hybrid {
  engine::Simulator sim;
  topo::Topology t = fat_tree(16, 8, 2);  // 4 hosts per leaf
  std::unique_ptr<HybridNetwork> net;
  explicit Hybrid(HybridRule rule)
      : net(std::make_unique<HybridNetwork>(sim, t, std::make_unique<FlowNetwork>(sim, t),
                                            make_packet(sim, t, with_transport("eqds")), rule)) {}
  SimTime send(uint32_t a, uint32_t b, Bytes bytes, TransferOptions o = {}) {
    SimTime done;
    net->transfer(t.gpu_node(a), t.gpu_node(b), bytes, [&] { done = sim.now(); }, o);
    sim.run();
    return done;
  }
};

TEST(HybridNetwork, EachRuleSendsATransferToOneModel) {
  // gpus 0..3: a transfer between two of them is packet level; one that
  // leaves the group (0 -> 9) is flow level.
  Hybrid g(HybridRule{PacketScope::kGpus, 0, 4});
  g.send(0, 1, Bytes::KiB(64));
  g.send(0, 9, Bytes::KiB(64));
  EXPECT_EQ(g.net->packet_transfers(), 1u);
  EXPECT_EQ(g.net->flow_transfers(), 1u);
  // dp: only what the caller labels data-parallel.
  Hybrid d(HybridRule{PacketScope::kDataParallel});
  d.send(0, 9, Bytes::KiB(64), {.traffic = TrafficClass::kDataParallel});
  d.send(0, 9, Bytes::KiB(64));
  EXPECT_EQ(d.net->packet_transfers(), 1u);
  EXPECT_EQ(d.net->flow_transfers(), 1u);
  // window [10 us, no end): the model is the one at the transfer's start.
  Hybrid w(HybridRule{PacketScope::kWindow, 0, 0, SimTime::us(10), SimTime::zero()});
  w.send(0, 9, Bytes::KiB(64));  // starts at 0
  w.sim.schedule_at(SimTime::us(20), [&] { w.net->transfer(w.t.gpu_node(0), w.t.gpu_node(9), Bytes::KiB(64), [] {}); });
  w.sim.run();
  EXPECT_EQ(w.net->flow_transfers(), 1u);
  EXPECT_EQ(w.net->packet_transfers(), 1u);
  EXPECT_EQ(w.net->counters().transfers_finished, 2u);
}

TEST(HybridNetwork, FabricScopeKeepsTheScaleUpDomainOnTheFlowModel) {
  // Two DGX H100 hosts (8 GPUs on NVSwitch each, a NIC per GPU): GPU 0 -> 1
  // stays inside the first host's NVLink domain, so it is a flow; GPU 0 ->
  // 8 leaves through a NIC and the fabric, so it goes packet by packet.
  engine::Simulator sim;
  topo::ClusterSpec spec;
  spec.system = hw::find_system("dgx-h100");
  spec.gpus = 16;
  const topo::Topology t = topo::build_cluster(spec);
  HybridNetwork net(sim, t, std::make_unique<FlowNetwork>(sim, t), make_packet(sim, t, with_transport("eqds")),
                    HybridRule{PacketScope::kFabric});
  EXPECT_FALSE(net.at_packet_level(t.gpu_node(0), t.gpu_node(1), {}));
  EXPECT_TRUE(net.at_packet_level(t.gpu_node(0), t.gpu_node(8), {}));
  int64_t tx_bytes = 0;
  int rate_changes = 0;
  net.signals().link_tx.subscribe([&](SimTime, LinkId, int64_t bytes) { tx_bytes += bytes; });
  net.signals().link_rate.subscribe([&](SimTime, LinkId, double) { ++rate_changes; });
  for (uint32_t dst : {1u, 8u, 9u}) net.transfer(t.gpu_node(0), t.gpu_node(dst), Bytes::KiB(256), [] {});
  sim.run();
  EXPECT_EQ(net.flow_transfers(), 1u);
  EXPECT_EQ(net.packet_transfers(), 2u);
  // Both backends report through the hybrid's signals: the packet model
  // puts each fabric transfer's 256 KiB on at least one link's wire, the
  // flow model sets the NVLink transfer's rate.
  EXPECT_GE(tx_bytes, 2 * 262144);
  EXPECT_GT(rate_changes, 0);
  // The NVLink transfer and the two fabric ones touch no common modelled
  // link: the packet model charges the GPU -> NIC hop as latency.
  EXPECT_EQ(net.shared_links(), 0u);
}

TEST(HybridNetwork, TheTwoModelsDoNotShareALinksCapacity) {
  // The rule at the boundary: 1 -> 0 at flow level and 2 -> 0 at packet
  // level both cross leaf -> host 0, and each takes as long as it would
  // alone there, where two flows of one model would halve the rate. The
  // shared link is counted.
  Hybrid alone(HybridRule{PacketScope::kGpus, 0, 1});  // only host 0: nothing is packet level below
  const SimTime flow_alone = alone.send(1, 0, Bytes::MiB(1));
  Hybrid both(HybridRule{PacketScope::kGpus, 0, 3});  // hosts 0..2 packet level, 3 flow level
  SimTime flow_done, packet_done;
  both.net->transfer(both.t.gpu_node(3), both.t.gpu_node(0), Bytes::MiB(1), [&] { flow_done = both.sim.now(); });
  both.net->transfer(both.t.gpu_node(2), both.t.gpu_node(0), Bytes::MiB(1), [&] { packet_done = both.sim.now(); });
  both.sim.run();
  EXPECT_EQ(flow_done, flow_alone);
  EXPECT_GT(packet_done, SimTime::zero());
  EXPECT_GE(both.net->shared_links(), 1u);
  EXPECT_EQ(alone.net->shared_links(), 0u);
}

}  // namespace
}  // namespace anatomy::net
