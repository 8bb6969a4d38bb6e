#pragma once
// Switch: one scale-out switch as a datasheet describes it — its ports, their
// speed, its packet buffer and its forwarding latency. A scenario gives one
// as cluster.fabric.switch; its figures are the fabric's radix,
// switch-to-switch link speed and per-switch latency, and the packet
// model's shared buffer, unless the fabric (or network) section sets those
// itself.
//
//   Switch s{.radix = 64, .port_speed = Bandwidth::gbps(800),
//            .buffer = Bytes(160'000'000), .latency = SimTime::ns(600)};

#include <string>

#include "core/units.h"

namespace anatomy::hw {

struct Switch {
  std::string name;           // for reports, e.g. "51.2T 64x800G"
  int radix = 0;              // ports
  core::Bandwidth port_speed;  // per port, per direction
  core::Bytes buffer;          // shared packet buffer (0: the packet model's default)
  core::SimTime latency;       // forwarding delay, port to port
  std::string source;
};

}  // namespace anatomy::hw
