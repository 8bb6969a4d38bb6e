#include "net/hybrid_network.h"

#include <algorithm>

#include "net/packet/paths.h"

namespace anatomy::net {

HybridNetwork::HybridNetwork(engine::Simulator& sim, const topo::Topology& t, std::unique_ptr<Network> flow,
                             std::unique_ptr<Network> packet, HybridRule rule)
    : sim_(sim), topo_(t), flow_(std::move(flow)), packet_(std::move(packet)), rule_(rule) {
  flow_->emit_into(signals());
  packet_->emit_into(signals());
  if (rule_.scope != packet::PacketScope::kGpus) return;
  in_scope_.assign(t.num_nodes(), false);
  const uint32_t end = rule_.gpus == 0 ? t.num_gpus() : std::min(t.num_gpus(), rule_.first_gpu + rule_.gpus);
  for (uint32_t g = rule_.first_gpu; g < end; ++g) {
    in_scope_[t.gpu_node(g)] = true;
    in_scope_[t.host_node(t.host_of(g))] = true;
  }
}

bool HybridNetwork::at_packet_level(NodeId src, NodeId dst, const TransferOptions& options) const {
  switch (rule_.scope) {
    case packet::PacketScope::kAll: return true;
    case packet::PacketScope::kDataParallel: return options.traffic == TrafficClass::kDataParallel;
    case packet::PacketScope::kGpus: return in_scope_[src] && in_scope_[dst];
    case packet::PacketScope::kFabric:
      // Equal-cost routes cross the same kinds of link, so any hash will do.
      route_.clear();
      topo_.route(src, dst, 0, route_);
      return std::any_of(route_.begin(), route_.end(),
                         [&](LinkId l) { return packet::is_fabric_link(topo_.link(l).kind); });
    case packet::PacketScope::kWindow: {
      const SimTime now = sim_.now();
      return now >= rule_.from && (rule_.until == SimTime::zero() || now < rule_.until);
    }
  }
  return true;
}

TransferId HybridNetwork::transfer(NodeId src, NodeId dst, Bytes bytes, Callback on_done,
                                   const TransferOptions& options) {
  Network& to = at_packet_level(src, dst, options) ? *packet_ : *flow_;
  to.transfer(src, dst, bytes, std::move(on_done), options);
  return next_id_++;
}

size_t HybridNetwork::active_transfers() const { return flow_->active_transfers() + packet_->active_transfers(); }

const NetworkCounters& HybridNetwork::counters() const {
  const NetworkCounters& f = flow_->counters();
  const NetworkCounters& p = packet_->counters();
  sum_.transfers_started = f.transfers_started + p.transfers_started;
  sum_.transfers_finished = f.transfers_finished + p.transfers_finished;
  sum_.rate_solves = f.rate_solves + p.rate_solves;
  sum_.solved_flows = f.solved_flows + p.solved_flows;
  sum_.bytes_delivered = f.bytes_delivered + p.bytes_delivered;
  return sum_;
}

Bytes HybridNetwork::link_bytes(LinkId l) const { return flow_->link_bytes(l) + packet_->link_bytes(l); }

int64_t HybridNetwork::queued_bytes(LinkId l) const { return flow_->queued_bytes(l) + packet_->queued_bytes(l); }

size_t HybridNetwork::shared_links() const {
  size_t n = 0;
  for (LinkId l = 0; l < topo_.num_links(); ++l)
    if (flow_->link_bytes(l).count() > 0 && packet_->link_bytes(l).count() > 0) ++n;
  return n;
}

}  // namespace anatomy::net
