#pragma once
// The packet backend's settings as one table: every PacketConfig knob a
// user may set, declared once with its key, kind, default, validator and
// help, and a setter that parses its text into the struct. Both front ends
// go through it, so they accept the same keys and values and give the same
// PacketConfig:
//   --network packet:transport=roce,pfc=on    (net/network_spec.h)
//   network: {model: packet, transport: roce, pfc: on}   (scenario/)
//
//   PacketConfig c = parse_packet_options("transport=roce,ecn_kmin=50KB");
//   set_packet_option(c, "pfc", "on");
//   packet_options_text(c);  // "transport=roce,ecn_kmin=50KB,pfc=on"
//
// Values are written with their units ("50KB", "500ns"). Errors are
// core::InputError whose field is the option's key and which name no file:
// the caller says where the text came from (the --network flag, or the
// scenario file, line and network.<key>).
//
// Not here, on purpose: the MTU and per-packet overhead, which belong to
// the fabric (topo::Framing, cluster.fabric.mtu), and the internal
// constants of the model (minimum frame, cell size, RTO backoff cap).

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "net/packet/config.h"

namespace anatomy::net::packet {

enum class OptionKind { kChoice, kInt, kNumber, kBytes, kTime };
const char* to_string(OptionKind k);

struct PacketOption {
  std::string_view key;
  OptionKind kind;
  std::vector<std::string_view> choices;  // kChoice: the names it accepts
  std::string_view help;                  // what it models; the unit is in the kind
  // Parses `text`, checks it and stores it in the config; throws
  // InputError (field: the key) when the text is not a valid value.
  std::function<void(PacketConfig&, std::string_view text)> set;
  // The config's value as it would be written: setting it back gives the
  // same value (sizes and times at the precision core's formatters keep).
  std::function<std::string(const PacketConfig&)> show;
  std::string default_text;  // show(PacketConfig{})
};

// Every option, in the order PacketConfig declares them.
const std::vector<PacketOption>& packet_options();
// The option named `key`, or nullptr.
const PacketOption* find_packet_option(std::string_view key);

// Sets one option; an unknown key is an error that lists the known ones.
void set_packet_option(PacketConfig& c, std::string_view key, std::string_view value);
// What no single option can check: ecn_kmin <= ecn_kmax, pfc_xon <= pfc_xoff
// (an explicit xon; 0 is derived from xoff). The field names the first key.
void check_packet_config(const PacketConfig& c);

// "key=value,key=value" applied to the defaults, then checked. "" gives
// the defaults.
PacketConfig parse_packet_options(std::string_view text);
// The options whose value differs from the default, as "key=value,..." in
// table order ("" for the defaults): parse_packet_options reads it back.
std::string packet_options_text(const PacketConfig& c);

}  // namespace anatomy::net::packet
