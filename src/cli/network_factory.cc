#include "cli/network_factory.h"

#include <fmt/format.h>

#include "core/error.h"
#include "net/flow/flow_network.h"

namespace anatomy::cli {

NetworkFactory network_factory(const std::string& model) {
  if (model == "flow")
    return [](engine::Simulator& sim, const topo::Topology& t) -> std::unique_ptr<net::Network> {
      return std::make_unique<net::FlowNetwork>(sim, t);
    };
  throw core::InputError({"", 0, "--network"}, fmt::format("unknown network model '{}' (known: flow)", model));
}

}  // namespace anatomy::cli
