#pragma once
// NetworkSpec: which network model a run uses and, for the packet model,
// every setting, as typed data. The command line writes it as text
// ("flow", "packet", "packet:transport=roce,pfc=on"); a scenario writes
// it as its network section; both become this struct, and nothing parses
// it again: the one place that builds networks (cli/network_factory.h)
// takes it as it is.
//
//   NetworkSpec s = parse_network_spec("packet:transport=roce", "--network");
//   to_string(s);  // "packet:transport=roce": the options that differ from the defaults

#include <cstdint>
#include <string>
#include <string_view>

#include "net/packet/config.h"

namespace anatomy::net {

enum class NetworkModel : uint8_t {
  kFlow,    // max-min fair sharing of links (net/flow)
  kPacket,  // packets, queues, buffers and transports (net/packet)
};
const char* to_string(NetworkModel m);

struct NetworkSpec {
  NetworkModel model = NetworkModel::kFlow;
  packet::PacketConfig packet;  // the packet model's settings; left at the defaults for flow

  friend bool operator==(const NetworkSpec&, const NetworkSpec&) = default;
};

// "flow", "packet" or "packet:key=value,..." (packet_options.h); throws
// core::InputError naming `what` (the flag the text came from).
NetworkSpec parse_network_spec(std::string_view text, std::string_view what = "network");
// The canonical text of a spec: the model, and for packet the options that
// differ from the defaults; parse_network_spec reads it back.
std::string to_string(const NetworkSpec& s);

}  // namespace anatomy::net
