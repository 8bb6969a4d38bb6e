#include "app/network_factory.h"

#include <memory>

#include "core/error.h"
#include "net/flow/flow_network.h"
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
    return std::make_unique<net::packet::PacketNetwork>(sim, t, cfg, transports->make(cfg.transport),
                                                        net::packet::make_buffer_policy(cfg));
  };
}

NetworkFactory bulk_network_factory(const net::NetworkSpec& spec) {
  if (spec.model == net::NetworkModel::kFlow)
    return [](engine::Simulator& sim, const topo::Topology& t) -> std::unique_ptr<net::Network> {
      return std::make_unique<net::FlowNetwork>(sim, t, net::FlowNetwork::Options{core::SimTime::ms(1)});
    };
  return network_factory(spec);
}

}  // namespace anatomy::app
