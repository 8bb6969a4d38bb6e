#pragma once
// Internal to scenario/: the `network:` section, read into a typed
// net::NetworkSpec. Its keys are `model` and every packet option of
// net/packet/packet_options.h, one YAML key each, taken from that table
// (so the scenario and --network packet:... accept the same settings):
//
//   network:
//     model: packet          # flow (default) or packet
//     transport: roce        # packet options: only with model: packet
//     ecn_kmin: 50KB

#include <vector>

#include "net/network_spec.h"
#include "scenario/yaml_fields.h"

namespace anatomy::scenario::detail {

const std::vector<Field<net::NetworkSpec>>& network_fields();
// Reads the section at `line` (absent: the flow model) and checks what no
// single key can (ecn_kmin <= ecn_kmax, ...), naming the key.
net::NetworkSpec read_network(const YAML::Node& node, int line, Context& ctx);

}  // namespace anatomy::scenario::detail
