#pragma once
// HybridNetwork: packet level on part of a job, flow level on the rest.
// Two backends run on one simulator and one topology; each transfer goes to
// exactly one of them, chosen when it starts by a rule on the transfer
// alone (its ends, its traffic class, the time it starts):
//
//   dp      the caller labelled it data-parallel (TrafficClass)
//   fabric  its route crosses a scale-out or storage fabric link; a transfer
//           inside a scale-up domain (NVLink, Infinity Fabric) or to host
//           memory stays a flow. The packet model charges a fabric
//           transfer's hops inside the host (PCIe, a PXN hop over NVLink) as
//           latency only (packet/paths.h), so neither model sees the other
//           on those links: the split is the packet model's own.
//   gpus    both ends are GPUs of [first_gpu, first_gpu + gpus), or their hosts
//   window  it starts in [from, until); one in flight at a boundary finishes
//           in the model it started in
//
// The rule at the boundary: the two models do not see each other's
// traffic. A link that carries transfers of both kinds gives each model
// its full capacity, so contention between a packet-level and a flow-level
// transfer is not modelled; `shared_links()` counts the links where that
// happened, so a report can say how far the split was clean. A split that
// follows the traffic (the data-parallel collectives of a plan whose other
// traffic stays in the scale-up domain, or a pod that talks only to itself)
// loses nothing.
//
// Counters, link bytes, queued bytes and active transfers are the sums of
// both; both backends emit into this network's signals.
//
//   HybridNetwork net(sim, topo, std::move(flow), std::move(packet), rule);
//   net.transfer(a, b, Bytes::MiB(1), done, {.traffic = TrafficClass::kDataParallel});

#include <memory>
#include <vector>

#include "net/network.h"
#include "net/packet/config.h"

namespace anatomy::net {

struct HybridRule {
  packet::PacketScope scope = packet::PacketScope::kAll;
  uint32_t first_gpu = 0;
  uint32_t gpus = 0;  // 0: to the last GPU
  SimTime from, until;  // until 0: no end
};

class HybridNetwork final : public Network {
 public:
  HybridNetwork(engine::Simulator& sim, const topo::Topology& t, std::unique_ptr<Network> flow,
                std::unique_ptr<Network> packet, HybridRule rule);

  TransferId transfer(NodeId src, NodeId dst, Bytes bytes, Callback on_done,
                      const TransferOptions& options = {}) override;
  size_t active_transfers() const override;
  const NetworkCounters& counters() const override;
  Bytes link_bytes(LinkId l) const override;
  int64_t queued_bytes(LinkId l) const override;
  const topo::Topology& topology() const override { return topo_; }
  engine::Simulator& simulator() override { return sim_; }
  const char* model_name() const override { return "hybrid"; }

  // Whether a transfer starting now would run packet by packet.
  bool at_packet_level(NodeId src, NodeId dst, const TransferOptions& options) const;
  uint64_t packet_transfers() const { return packet_->counters().transfers_started; }
  // The packet-level part, for its statistics (packet::PacketNetwork).
  Network& packet_model() { return *packet_; }
  uint64_t flow_transfers() const { return flow_->counters().transfers_started; }
  // Links that have carried bytes of both models so far.
  size_t shared_links() const;

 private:
  engine::Simulator& sim_;
  const topo::Topology& topo_;
  std::unique_ptr<Network> flow_, packet_;
  HybridRule rule_;
  std::vector<bool> in_scope_;  // by NodeId, for scope gpus
  mutable std::vector<LinkId> route_;  // scratch, for scope fabric
  mutable NetworkCounters sum_;
  TransferId next_id_ = 1;
};

}  // namespace anatomy::net
