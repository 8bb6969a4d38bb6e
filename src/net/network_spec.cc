#include "net/network_spec.h"

#include <fmt/format.h>

#include "core/error.h"
#include "net/packet/packet_options.h"

namespace anatomy::net {

const char* to_string(NetworkModel m) { return m == NetworkModel::kFlow ? "flow" : "packet"; }

NetworkSpec parse_network_spec(std::string_view text, std::string_view what) {
  const size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const std::string_view options = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  const std::string field(what);
  NetworkSpec s;
  if (name == "flow") {
    if (!options.empty()) throw core::InputError({"", 0, field}, "the flow model takes no options");
    return s;
  }
  if (name != "packet")
    throw core::InputError({"", 0, field},
                           fmt::format("unknown network model '{}' (known: flow, packet[:key=value,...])", text));
  s.model = NetworkModel::kPacket;
  try {
    s.packet = packet::parse_packet_options(options);
  } catch (const core::InputError& e) {
    throw core::InputError({"", 0, field}, fmt::format("packet option '{}': {}", e.where().field, e.message()));
  }
  return s;
}

std::string to_string(const NetworkSpec& s) {
  if (s.model == NetworkModel::kFlow) return "flow";
  const std::string options = packet::packet_options_text(s.packet);
  return options.empty() ? "packet" : "packet:" + options;
}

}  // namespace anatomy::net
