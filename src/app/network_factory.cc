#include "app/network_factory.h"

#include <memory>

#include "core/error.h"
#include "net/flow/flow_network.h"
#include "net/hybrid_network.h"
#include "net/packet/packet_network.h"

namespace anatomy::app {

NetworkFactory network_factory(const net::NetworkSpec& spec) {
  if (spec.model == net::NetworkModel::kFlow)
    return [](engine::Simulator& sim, const topo::Topology& t) -> std::unique_ptr<net::Network> {
      return std::make_unique<net::FlowNetwork>(sim, t);
    };
  const net::packet::PacketConfig cfg = spec.packet;
  auto transports = std::make_shared<net::packet::TransportRegistry>();
  net::packet::register_builtin_transports(*transports);
  try {
    transports->make(cfg.transport);  // an unknown name fails here, before anything runs
  } catch (const core::InputError& e) {
    throw e.with_field("network.transport");
  }
  return [cfg, transports](engine::Simulator& sim, const topo::Topology& t) -> std::unique_ptr<net::Network> {
    auto packet = std::make_unique<net::packet::PacketNetwork>(sim, t, cfg, transports->make(cfg.transport),
                                                               net::packet::make_buffer_policy(cfg));
    if (cfg.scope == net::packet::PacketScope::kAll) return packet;
    const net::HybridRule rule{cfg.scope, static_cast<uint32_t>(cfg.scope_first_gpu),
                               static_cast<uint32_t>(cfg.scope_gpus), cfg.window_from, cfg.window_until};
    return std::make_unique<net::HybridNetwork>(sim, t, std::make_unique<net::FlowNetwork>(sim, t), std::move(packet),
                                                rule);
  };
}

NetworkFactory choice_network_factory(const net::NetworkSpec& spec) {
  if (spec.model == net::NetworkModel::kFlow || spec.packet.choose == net::packet::Chooser::kPacket) return {};
  return network_factory(net::NetworkSpec{});
}

std::string choice_text(const net::NetworkSpec& spec) {
  if (spec.model == net::NetworkModel::kFlow) return {};
  return spec.packet.choose == net::packet::Chooser::kFlow
             ? "auto's algorithm and protocol chosen on the flow model, then run packet by packet"
             : "auto's algorithm and protocol chosen packet by packet";
}

NetworkFactory bulk_network_factory(const net::NetworkSpec& spec) {
  if (spec.model == net::NetworkModel::kFlow)
    return [](engine::Simulator& sim, const topo::Topology& t) -> std::unique_ptr<net::Network> {
      return std::make_unique<net::FlowNetwork>(sim, t, net::FlowNetwork::Options{core::SimTime::ms(1)});
    };
  return network_factory(spec);
}

}  // namespace anatomy::app
