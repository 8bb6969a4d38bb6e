#include "net/packet/transport.h"

#include <fmt/format.h>

#include "core/error.h"

namespace anatomy::net::packet {

void Transport::sample_rtt(Flow& f, SimTime rtt) {
  // Jacobson/Karels: rttvar += (|srtt - rtt| - rttvar) / 4; srtt += (rtt - srtt) / 8.
  const SimTime err = rtt > f.srtt ? rtt - f.srtt : f.srtt - rtt;
  f.rttvar = f.rttvar + (err - f.rttvar) / 4;
  f.srtt = f.srtt + (rtt - f.srtt) / 8;
}

void TransportRegistry::add(std::string name, std::string help, Make make) {
  entries_.push_back({std::move(name), std::move(help), std::move(make)});
}

std::unique_ptr<Transport> TransportRegistry::make(std::string_view name) const {
  std::string known;
  for (const Entry& e : entries_) {
    if (e.name == name) return e.make();
    known += (known.empty() ? "" : ", ") + e.name;
  }
  throw core::InputError({"", 0, "transport"}, fmt::format("unknown transport '{}' (known: {})", name, known));
}

void register_builtin_transports(TransportRegistry& reg) {
  reg.add("roce", "RoCEv2: DCQCN rate control, go-back-N, over a lossless (PFC) fabric with ECMP", make_roce_transport);
  reg.add("eqds", "endpoint-scheduled, receiver-driven (EQDS/NDP): an initial window, then one packet per pull "
                  "paced at the receiver's link rate; trimmed headers trigger resends",
          make_eqds_transport);
  reg.add("uec", "UEC-like: sender ECN/delay congestion window, per-packet spraying, resend on trim or timeout",
          make_uec_transport);
}

}  // namespace anatomy::net::packet
