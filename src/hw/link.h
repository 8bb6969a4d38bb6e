#pragma once
// Link: a named point-to-point interconnect inside a host — the PCIe
// between a GPU and its NIC, or between a GPU and the host CPU (PCIe, or
// NVLink-C2C on Grace) — and its payload bandwidth per direction.
//
//   Link l = parse_link("pcie-gen6", "gpu_nic_link");  // 128 GB/s each way
//   Link c = parse_link("100GB/s", "host_link");      // a rate: kind "custom"
//
// x16 PCIe per direction: Gen4 32 GB/s, Gen5 64 GB/s, Gen6 128 GB/s (PCI-SIG:
// 16, 32, 64 GT/s per lane); NVLink-C2C 450 GB/s (NVIDIA Grace Hopper and
// GB200 datasheets: 900 GB/s bidirectional).

#include <string>
#include <string_view>
#include <vector>

#include "core/units.h"

namespace anatomy::hw {

struct Link {
  std::string kind;               // "pcie-gen5", ..., or "custom" for a rate given as such
  core::Bandwidth per_direction;  // payload bandwidth, each way
};

// The named links, in order, with their bandwidths.
const std::vector<Link>& known_links();
// The named link of that kind, or null.
const Link* find_known_link(std::string_view kind);
// Their names, comma-separated, for an error that lists them.
std::string known_link_names();
// A named link, or a rate ("100GB/s"): kind "custom". Throws InputError
// naming `field` (with the names known) on anything else.
Link parse_link(std::string_view text, std::string_view field);
// How a scenario writes it: the kind, or the rate of a custom link.
std::string link_text(const Link& l);
// A rate as text that parses back to exactly the same value: in GB/s
// ("537.6GB/s") or Gb/s ("400Gbps") as preferred, whichever is exact,
// else plain bps.
std::string exact_rate_text(core::Bandwidth b, bool in_bytes);

}  // namespace anatomy::hw
