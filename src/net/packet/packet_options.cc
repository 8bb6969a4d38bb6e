#include "net/packet/packet_options.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "core/error.h"
#include "net/packet/transport.h"

namespace anatomy::net::packet {
namespace {

using C = PacketConfig;

[[noreturn]] void fail(std::string_view key, const std::string& why) {
  throw core::InputError({"", 0, std::string(key)}, why);
}

std::string list(const std::vector<std::string_view>& items) {
  std::string out;
  for (auto s : items) out += (out.empty() ? "" : ", ") + std::string(s);
  return out;
}

// ---- one builder per kind: the member pointer gives both set and show ----

template <typename E>
PacketOption choice(std::string_view key, std::string_view help, E C::*member,
                    std::vector<std::pair<std::string_view, E>> names) {
  PacketOption o{key, OptionKind::kChoice, {}, help, {}, {}, {}};
  for (const auto& [name, value] : names) o.choices.push_back(name);
  o.set = [key, member, names](C& c, std::string_view text) {
    for (const auto& [name, value] : names)
      if (name == text) {
        c.*member = value;
        return;
      }
    std::vector<std::string_view> known;
    for (const auto& [name, value] : names) known.push_back(name);
    fail(key, fmt::format("'{}' is not one of: {}", text, list(known)));
  };
  o.show = [member, names](const C& c) {
    for (const auto& [name, value] : names)
      if (value == c.*member) return std::string(name);
    return std::string("?");
  };
  return o;
}

template <typename T>
PacketOption integer(std::string_view key, std::string_view help, T C::*member, int64_t lo, int64_t hi) {
  PacketOption o{key, OptionKind::kInt, {}, help, {}, {}, {}};
  o.set = [key, member, lo, hi](C& c, std::string_view text) {
    int64_t v = 0;
    const char* end = text.data() + text.size();
    const auto r = std::from_chars(text.data(), end, v);
    if (text.empty() || r.ec != std::errc() || r.ptr != end) fail(key, fmt::format("'{}' is not a whole number", text));
    if (v < lo) fail(key, fmt::format("must be at least {} (got {})", lo, v));
    if (v > hi) fail(key, fmt::format("must be at most {} (got {})", hi, v));
    c.*member = static_cast<T>(v);
  };
  o.show = [member](const C& c) { return fmt::format("{}", c.*member); };
  return o;
}

PacketOption number(std::string_view key, std::string_view help, double C::*member, double lo, double hi) {
  PacketOption o{key, OptionKind::kNumber, {}, help, {}, {}, {}};
  o.set = [key, member, lo, hi](C& c, std::string_view text) {
    double v = 0;
    const char* end = text.data() + text.size();
    const auto r = std::from_chars(text.data(), end, v);
    if (text.empty() || r.ec != std::errc() || r.ptr != end || !std::isfinite(v))
      fail(key, fmt::format("'{}' is not a number", text));
    if (v < lo || v > hi) fail(key, fmt::format("must be from {:g} to {:g} (got {})", lo, hi, text));
    c.*member = v;
  };
  o.show = [member](const C& c) { return fmt::format("{:g}", c.*member); };
  return o;
}

// A size; `positive`: zero is refused (a buffer of nothing), otherwise it
// means "derived" as the help says.
PacketOption bytes(std::string_view key, std::string_view help, core::Bytes C::*member, bool positive) {
  PacketOption o{key, OptionKind::kBytes, {}, help, {}, {}, {}};
  o.set = [key, member, positive](C& c, std::string_view text) {
    core::Bytes v;
    try {
      v = core::parse_bytes(text, key);
    } catch (const core::InputError& e) {
      fail(key, e.message());
    }
    if (positive && v.count() <= 0) fail(key, fmt::format("'{}' must be greater than zero", text));
    c.*member = v;
  };
  o.show = [member](const C& c) { return core::format_bytes(c.*member); };
  return o;
}

PacketOption time(std::string_view key, std::string_view help, core::SimTime C::*member) {
  PacketOption o{key, OptionKind::kTime, {}, help, {}, {}, {}};
  o.set = [key, member](C& c, std::string_view text) {
    try {
      c.*member = core::parse_time(text, key);
    } catch (const core::InputError& e) {
      fail(key, e.message());
    }
  };
  o.show = [member](const C& c) { return core::format_time(c.*member); };
  return o;
}

// The transport is a registry name (transport.h): its choices are the
// registered transports, so a new one is accepted without touching this table.
PacketOption transport_option() {
  static const TransportRegistry registry = [] {
    TransportRegistry r;
    register_builtin_transports(r);
    return r;
  }();
  std::vector<std::pair<std::string_view, std::string>> names;
  for (const auto& e : registry.all()) names.emplace_back(e.name, e.name);
  PacketOption o = choice<std::string>("transport",
                                       "the endpoints' transport: roce (DCQCN, go-back-N, PFC), eqds (endpoint-"
                                       "scheduled: the receiver pulls, trimming) or uec (ECN/delay window, spraying)",
                                       &C::transport, std::move(names));
  o.show = [](const C& c) { return c.transport; };  // a config built in code may name another registry's transport
  return o;
}

std::vector<PacketOption> make_options() {
  constexpr int64_t kMaxSeed = std::numeric_limits<int64_t>::max();
  std::vector<PacketOption> o = {
      transport_option(),
      choice<FabricKind>("fabric",
                         "endpoint (shallow-buffer switches, the NICs schedule) or switch-scheduled (ingress VOQs, "
                         "request/grant, deep buffers)",
                         &C::fabric, {{"endpoint", FabricKind::kEndpoint}, {"switch-scheduled", FabricKind::kSwitchScheduled}}),
      choice<LoadBalancing>("load_balancing",
                            "ecmp (a path per flow), spray (per packet) or adaptive (least-queued next hop); auto: the "
                            "transport's, ecmp for roce, spray otherwise",
                            &C::load_balancing,
                            {{"auto", LoadBalancing::kAuto}, {"ecmp", LoadBalancing::kEcmp},
                             {"spray", LoadBalancing::kSpray}, {"adaptive", LoadBalancing::kAdaptive}}),
      integer("spray_paths",
              "equal-cost paths a flow sprays over; 0: the transport's, 32 for eqds, every one for uec (its 16-bit "
              "entropy value reaches all)",
              &C::spray_paths, 0, Transport::kEveryPath),
      choice<SprayOrder>("spray_order",
                         "in which order a sprayed flow takes its paths: round_robin (from a per-flow offset), "
                         "random (a fresh entropy value per packet) or recycle (REPS: again the values whose "
                         "packets were acknowledged unmarked, else a fresh one; only uec's acknowledgements echo "
                         "ECN, so with eqds or roce it reuses every path); auto: the transport's, recycle for uec, "
                         "round_robin otherwise. A switch-scheduled fabric sprays cells its own way",
                         &C::spray_order,
                         {{"auto", SprayOrder::kAuto}, {"round_robin", SprayOrder::kRoundRobin},
                          {"random", SprayOrder::kRandom}, {"recycle", SprayOrder::kRecycle}}),
      choice<BufferKind>("buffer", "switch buffers shared (dynamic thresholds) or static per port", &C::buffer,
                         {{"shared", BufferKind::kShared}, {"static", BufferKind::kStatic}}),
      bytes("switch_buffer", "shared buffer per switch", &C::switch_buffer, true),
      number("dt_alpha", "dynamic threshold: a port may queue alpha x the free shared buffer", &C::dt_alpha, 1e-6, 1e6),
      bytes("port_buffer", "buffer per egress port (buffer: static)", &C::port_buffer, true),
      bytes("ecn_kmin", "queue where ECN marking starts", &C::ecn_kmin, false),
      bytes("ecn_kmax", "queue where every packet is marked", &C::ecn_kmax, false),
      number("ecn_pmax", "marking probability at ecn_kmax", &C::ecn_pmax, 0, 1),
      choice<Toggle>("trimming",
                     "cut packets a full buffer refuses to their headers; auto: the transport's, off for roce, on "
                     "otherwise",
                     &C::trimming, {{"auto", Toggle::kAuto}, {"on", Toggle::kOn}, {"off", Toggle::kOff}}),
      bytes("header_queue", "per-port queue for trimmed headers and control packets", &C::header_queue, true),
      choice<Toggle>("pfc",
                     "lossless fabric with per-port pause frames; auto: the transport's, on for roce, off otherwise",
                     &C::pfc, {{"auto", Toggle::kAuto}, {"on", Toggle::kOn}, {"off", Toggle::kOff}}),
      bytes("pfc_xoff", "bytes buffered from one ingress port that pause its sender", &C::pfc_xoff, true),
      bytes("pfc_xon", "bytes below which a paused sender resumes (0: xoff - 2 full packets)", &C::pfc_xon, false),
      time("rto_min", "minimum retransmission timeout (0: the transport's)", &C::rto_min),
      bytes("initial_window", "eqds: unscheduled bytes a flow starts with (0: one bandwidth-delay product)",
            &C::initial_window, false),
      integer("ack_every", "roce: packets per acknowledgement", &C::ack_every, 1, 1 << 20),
      bytes("ack_bytes",
            "uec: acknowledge once this many payload bytes wait unacknowledged (at once when marked, resent, "
            "duplicate, asked for by a full window, first or last, or after one unloaded RTT; htsim's UEC: "
            "16KiB); 0: every packet",
            &C::ack_bytes, false),
      time("deep_buffer_latency", "switch-scheduled: extra latency of a packet buffered in a VOQ",
           &C::deep_buffer_latency),
      bytes("voq_buffer", "switch-scheduled: VOQ memory per ingress switch", &C::voq_buffer, true),
      integer("seed", "seed of the ECN marking stream and of sprayed entropy values", &C::seed, 0, kMaxSeed),
      choice<Chooser>("choose",
                      "how auto picks a collective's algorithm and protocol: flow (every candidate on the flow "
                      "model, then only the winner packet by packet, as NCCL's tuner picks from a cost model) or "
                      "packet (every candidate packet by packet)",
                      &C::choose, {{"flow", Chooser::kFlow}, {"packet", Chooser::kPacket}}),
      choice<PacketScope>("scope",
                          "what runs packet by packet, the rest on the flow model: fabric (transfers that cross "
                          "the scale-out or storage fabric; inside a scale-up domain, whose switch the packet "
                          "model keeps lossless and unbounded, they stay flows), all, dp (the iteration's "
                          "data-parallel collectives), gpus (transfers between "
                          "GPUs scope_first_gpu .. + scope_gpus - 1, e.g. one pod) or window (transfers starting in "
                          "[window_from, window_until)); the two models do not share link capacity",
                          &C::scope,
                          {{"all", PacketScope::kAll}, {"dp", PacketScope::kDataParallel},
                           {"fabric", PacketScope::kFabric}, {"gpus", PacketScope::kGpus},
                           {"window", PacketScope::kWindow}}),
      integer("scope_first_gpu", "scope: gpus: the first GPU of the packet-level part", &C::scope_first_gpu, 0,
              1 << 30),
      integer("scope_gpus", "scope: gpus: how many GPUs (0: every one from scope_first_gpu on)", &C::scope_gpus, 0,
              1 << 30),
      time("window_from", "scope: window: transfers starting at or after this run packet by packet", &C::window_from),
      time("window_until", "scope: window: ... and before this (0: no end)", &C::window_until),
  };
  const PacketConfig defaults;
  for (PacketOption& x : o) x.default_text = x.show(defaults);
  return o;
}

}  // namespace

const char* to_string(OptionKind k) {
  switch (k) {
    case OptionKind::kChoice: return "one of";
    case OptionKind::kInt: return "integer";
    case OptionKind::kNumber: return "number";
    case OptionKind::kBytes: return "size";
    case OptionKind::kTime: return "time";
  }
  return "?";
}

const std::vector<PacketOption>& packet_options() {
  static const std::vector<PacketOption> options = make_options();
  return options;
}

const PacketOption* find_packet_option(std::string_view key) {
  for (const PacketOption& o : packet_options())
    if (o.key == key) return &o;
  return nullptr;
}

void set_packet_option(PacketConfig& c, std::string_view key, std::string_view value) {
  const PacketOption* o = find_packet_option(key);
  if (!o && key == "mtu")  // it was one until the fabric became its only owner
    fail(key, "the MTU belongs to the fabric, not to the packet model: set cluster.fabric.mtu, which the links' "
              "bandwidth and the packet size both follow");
  if (!o) {
    std::vector<std::string_view> known;
    for (const PacketOption& x : packet_options()) known.push_back(x.key);
    fail(key, "unknown (known: " + list(known) + ")");
  }
  o->set(c, value);
}

void check_packet_config(const PacketConfig& c) {
  if (c.ecn_kmin > c.ecn_kmax)
    fail("ecn_kmin", fmt::format("{} must not exceed ecn_kmax ({})", core::format_bytes(c.ecn_kmin),
                                 core::format_bytes(c.ecn_kmax)));
  if (c.window_until > SimTime::zero() && c.window_until <= c.window_from)
    fail("window_until", fmt::format("{} must be after window_from ({})", core::format_time(c.window_until),
                                     core::format_time(c.window_from)));
  if (c.pfc_xon > c.pfc_xoff)
    fail("pfc_xon", fmt::format("{} must not exceed pfc_xoff ({})", core::format_bytes(c.pfc_xon),
                                core::format_bytes(c.pfc_xoff)));
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
    if (eq == std::string_view::npos) fail(key, "expected key=value");
    set_packet_option(c, key, item.substr(eq + 1));
  }
  check_packet_config(c);
  return c;
}

std::string packet_options_text(const PacketConfig& c) {
  std::string out;
  for (const PacketOption& o : packet_options()) {
    const std::string v = o.show(c);
    if (v == o.default_text) continue;
    out += fmt::format("{}{}={}", out.empty() ? "" : ",", o.key, v);
  }
  return out;
}

}  // namespace anatomy::net::packet
