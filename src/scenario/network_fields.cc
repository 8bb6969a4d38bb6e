#include "scenario/network_fields.h"

#include <deque>
#include <string>

#include <fmt/format.h>

#include "net/packet/packet_options.h"

namespace anatomy::scenario::detail {
namespace {

using net::NetworkModel;
using net::NetworkSpec;
using net::packet::OptionKind;
using net::packet::PacketOption;

Kind kind_of(OptionKind k) {
  switch (k) {
    case OptionKind::kChoice: return Kind::kEnum;
    case OptionKind::kInt: return Kind::kInt;
    case OptionKind::kNumber: return Kind::kDouble;
    case OptionKind::kBytes: return Kind::kBytes;
    case OptionKind::kTime: return Kind::kTime;
  }
  return Kind::kString;
}

// A packet option as a scenario field: the YAML value is checked for its
// kind here (so type errors read as every other field's), then its text goes
// to the option's own setter, the same one --network uses, which validates
// and stores it. Absent keys keep PacketConfig's defaults.
Field<NetworkSpec> packet_field(const PacketOption& o) {
  static std::deque<std::string> helps;  // Field keeps views; the table lives as long as the program
  helps.push_back("packet: " + std::string(o.help));
  Field<NetworkSpec> f{o.key, kind_of(o.kind), derived(o.default_text), {}, helps.back(),
                       [&o](NetworkSpec& s, const Value& v) {
                         if (s.model != NetworkModel::kPacket)
                           throw core::InputError(
                               fmt::format("applies to model: packet only (model is {})", net::to_string(s.model)));
                         o.set(s.packet, v.text);
                       },
                       [&o](const NetworkSpec& s) { return o.show(s.packet); }, o.choices};
  return f;
}

}  // namespace

const std::vector<Field<NetworkSpec>>& network_fields() {
  static const std::vector<Field<NetworkSpec>> f = [] {
    std::vector<Field<NetworkSpec>> t = {
        // First: the packet options below need it.
        {"model", Kind::kEnum, by_default("flow"), {},
         "flow: max-min fair sharing of links; packet: packets, queues, buffers and transports (net/packet), set "
         "by the keys below",
         [](NetworkSpec& s, const Value& v) { s.model = v.text == "packet" ? NetworkModel::kPacket : NetworkModel::kFlow; },
         [](const NetworkSpec& s) { return std::string(net::to_string(s.model)); }, {"flow", "packet"}},
    };
    for (const PacketOption& o : net::packet::packet_options()) t.push_back(packet_field(o));
    return t;
  }();
  return f;
}

NetworkSpec read_network(const YAML::Node& node, int line, Context& ctx) {
  NetworkSpec s;
  read_section(node, "network", line, network_fields(), s, ctx);
  try {
    net::packet::check_packet_config(s.packet);
  } catch (const core::InputError& e) {
    const std::string field = join("network", e.where().field);
    throw ctx.locate(e, field, ctx.line_for(field));
  }
  return s;
}

}  // namespace anatomy::scenario::detail
