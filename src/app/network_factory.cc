#include "app/network_factory.h"

#include <fmt/format.h>

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "net/flow/flow_network.h"
#include "net/packet/packet_network.h"

namespace anatomy::app {
namespace {

using net::packet::PacketConfig;

// ---- packet options: "packet:transport=roce,pfc=on,ecn_kmin=50KB" ----------
// Each key declared once: name, meaning, and how its text becomes a field.

core::InputError option_error(std::string_view key, const std::string& why) {
  return core::InputError({"", 0, "--network"}, fmt::format("packet option '{}': {}", key, why));
}

template <typename E>
E pick(std::string_view key, std::string_view v, std::initializer_list<std::pair<std::string_view, E>> choices) {
  std::string known;
  for (const auto& [name, e] : choices) {
    if (name == v) return e;
    known += (known.empty() ? "" : ", ") + std::string(name);
  }
  throw option_error(key, fmt::format("'{}' is not one of {}", v, known));
}

double number(std::string_view key, std::string_view v, double lo, double hi) {
  try {
    size_t used = 0;
    const double d = std::stod(std::string(v), &used);
    if (used == v.size() && d >= lo && d <= hi) return d;
  } catch (const std::exception&) {
  }
  throw option_error(key, fmt::format("'{}' must be a number from {} to {}", v, lo, hi));
}

struct PacketOption {
  std::string_view key;
  std::string_view help;
  std::function<void(PacketConfig&, std::string_view key, std::string_view value)> set;
};

net::packet::Toggle toggle(std::string_view key, std::string_view v) {
  using net::packet::Toggle;
  return pick<Toggle>(key, v, {{"auto", Toggle::kAuto}, {"on", Toggle::kOn}, {"off", Toggle::kOff}});
}

core::Bytes bytes(std::string_view key, std::string_view v) {
  try {
    return core::parse_bytes(v, key);
  } catch (const core::InputError& e) {
    throw option_error(key, e.message());
  }
}

core::SimTime time(std::string_view key, std::string_view v) {
  try {
    return core::parse_time(v, key);
  } catch (const core::InputError& e) {
    throw option_error(key, e.message());
  }
}

const std::vector<PacketOption>& packet_options() {
  using namespace net::packet;
  using C = PacketConfig;
  static const std::vector<PacketOption> options = {
      {"transport", "roce, eqds (endpoint-scheduled) or uec",
       [](C& c, auto, auto v) { c.transport = std::string(v); }},
      {"fabric", "endpoint (shallow buffers, scheduling at the NICs) or switch-scheduled (VOQs, grants)",
       [](C& c, auto k, auto v) {
         c.fabric = pick<FabricKind>(k, v, {{"endpoint", FabricKind::kEndpoint},
                                            {"switch-scheduled", FabricKind::kSwitchScheduled}});
       }},
      {"load_balancing", "auto (the transport's), ecmp, spray or adaptive",
       [](C& c, auto k, auto v) {
         c.load_balancing = pick<LoadBalancing>(k, v, {{"auto", LoadBalancing::kAuto}, {"ecmp", LoadBalancing::kEcmp},
                                                       {"spray", LoadBalancing::kSpray},
                                                       {"adaptive", LoadBalancing::kAdaptive}});
       }},
      {"spray_paths", "equal-cost paths a flow sprays over (1-1024)",
       [](C& c, auto k, auto v) { c.spray_paths = static_cast<int>(number(k, v, 1, 1024)); }},
      {"buffer", "shared (dynamic thresholds) or static (per port)",
       [](C& c, auto k, auto v) {
         c.buffer = pick<BufferKind>(k, v, {{"shared", BufferKind::kShared}, {"static", BufferKind::kStatic}});
       }},
      {"switch_buffer", "shared buffer per switch", [](C& c, auto k, auto v) { c.switch_buffer = bytes(k, v); }},
      {"dt_alpha", "dynamic-threshold alpha", [](C& c, auto k, auto v) { c.dt_alpha = number(k, v, 1e-6, 1e6); }},
      {"port_buffer", "static buffer per egress port", [](C& c, auto k, auto v) { c.port_buffer = bytes(k, v); }},
      {"ecn_kmin", "queue where ECN marking starts", [](C& c, auto k, auto v) { c.ecn_kmin = bytes(k, v); }},
      {"ecn_kmax", "queue where every packet is marked", [](C& c, auto k, auto v) { c.ecn_kmax = bytes(k, v); }},
      {"ecn_pmax", "marking probability at ecn_kmax", [](C& c, auto k, auto v) { c.ecn_pmax = number(k, v, 0, 1); }},
      {"trimming", "auto, on or off: cut refused packets to headers", [](C& c, auto k, auto v) { c.trimming = toggle(k, v); }},
      {"header_queue", "per-port queue for headers and control", [](C& c, auto k, auto v) { c.header_queue = bytes(k, v); }},
      {"pfc", "auto, on or off: lossless fabric with pause frames", [](C& c, auto k, auto v) { c.pfc = toggle(k, v); }},
      {"pfc_xoff", "ingress bytes that pause the upstream port", [](C& c, auto k, auto v) { c.pfc_xoff = bytes(k, v); }},
      {"pfc_xon", "ingress bytes that resume it (default xoff - 2 packets)",
       [](C& c, auto k, auto v) { c.pfc_xon = bytes(k, v); }},
      {"rto_min", "minimum retransmission timeout (default: the transport's)",
       [](C& c, auto k, auto v) { c.rto_min = time(k, v); }},
      {"initial_window", "eqds: unscheduled bytes a flow starts with (default one BDP)",
       [](C& c, auto k, auto v) { c.initial_window = bytes(k, v); }},
      {"ack_every", "roce: packets per acknowledgement",
       [](C& c, auto k, auto v) { c.ack_every = static_cast<int>(number(k, v, 1, 1 << 20)); }},
      {"mtu", "payload bytes per packet (must match the topology's fabric MTU)",
       [](C& c, auto k, auto v) { c.mtu = static_cast<int>(number(k, v, 256, 9216)); }},
      {"deep_buffer_latency", "switch-scheduled: extra latency of a packet buffered in a VOQ",
       [](C& c, auto k, auto v) { c.deep_buffer_latency = time(k, v); }},
      {"voq_buffer", "switch-scheduled: VOQ memory per ingress switch",
       [](C& c, auto k, auto v) { c.voq_buffer = bytes(k, v); }},
      {"seed", "seed of the ECN marking stream",
       [](C& c, auto k, auto v) { c.seed = static_cast<uint64_t>(number(k, v, 0, 9e15)); }},
  };
  return options;
}

PacketConfig parse_packet_options(std::string_view text) {
  PacketConfig c;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    const std::string_view key = item.substr(0, eq);
    if (eq == std::string_view::npos) throw option_error(key, "expected key=value");
    const std::string_view value = item.substr(eq + 1);
    bool found = false;
    for (const PacketOption& o : packet_options()) {
      if (o.key != key) continue;
      o.set(c, key, value);
      found = true;
      break;
    }
    if (!found) {
      std::string known;
      for (const PacketOption& o : packet_options()) known += (known.empty() ? "" : ", ") + std::string(o.key);
      throw option_error(key, "unknown (known: " + known + ")");
    }
  }
  if (c.ecn_kmin > c.ecn_kmax) throw option_error("ecn_kmin", "must not exceed ecn_kmax");
  if (c.pfc_xon > c.pfc_xoff) throw option_error("pfc_xon", "must not exceed pfc_xoff");
  return c;
}

}  // namespace

NetworkFactory network_factory(const std::string& model) {
  const size_t colon = model.find(':');
  const std::string name = model.substr(0, colon);
  const std::string options = colon == std::string::npos ? "" : model.substr(colon + 1);
  if (name == "flow") {
    if (!options.empty()) throw core::InputError({"", 0, "--network"}, "the flow model takes no options");
    return [](engine::Simulator& sim, const topo::Topology& t) -> std::unique_ptr<net::Network> {
      return std::make_unique<net::FlowNetwork>(sim, t);
    };
  }
  if (name == "packet") {
    const PacketConfig cfg = parse_packet_options(options);
    auto transports = std::make_shared<net::packet::TransportRegistry>();
    net::packet::register_builtin_transports(*transports);
    try {
      transports->make(cfg.transport);  // an unknown name fails here, before anything runs
    } catch (const core::InputError& e) {
      throw option_error("transport", e.message());
    }
    return [cfg, transports](engine::Simulator& sim, const topo::Topology& t) -> std::unique_ptr<net::Network> {
      return std::make_unique<net::packet::PacketNetwork>(sim, t, cfg, transports->make(cfg.transport),
                                                          net::packet::make_buffer_policy(cfg));
    };
  }
  throw core::InputError({"", 0, "--network"},
                         fmt::format("unknown network model '{}' (known: flow, packet[:key=value,...])", model));
}

NetworkFactory bulk_network_factory(const std::string& model) {
  if (model == "flow")
    return [](engine::Simulator& sim, const topo::Topology& t) -> std::unique_ptr<net::Network> {
      return std::make_unique<net::FlowNetwork>(sim, t, net::FlowNetwork::Options{core::SimTime::ms(1)});
    };
  return network_factory(model);
}

}  // namespace anatomy::app
