#include "hw/link.h"

#include <fmt/format.h>

#include "core/error.h"

namespace anatomy::hw {

const std::vector<Link>& known_links() {
  static const std::vector<Link> kAll = {
      {"pcie-gen4", core::Bandwidth::gigabytes_per_s(32)},
      {"pcie-gen5", core::Bandwidth::gigabytes_per_s(64)},
      {"pcie-gen6", core::Bandwidth::gigabytes_per_s(128)},
      {"nvlink-c2c", core::Bandwidth::gigabytes_per_s(450)},
  };
  return kAll;
}

const Link* find_known_link(std::string_view kind) {
  for (const Link& l : known_links())
    if (l.kind == kind) return &l;
  return nullptr;
}

std::string known_link_names() {
  std::string names;
  for (const Link& l : known_links()) names += (names.empty() ? "" : ", ") + l.kind;
  return names;
}

Link parse_link(std::string_view text, std::string_view field) {
  if (const Link* l = find_known_link(text)) return *l;
  try {
    return {"custom", core::parse_bandwidth(text, field)};
  } catch (const core::InputError&) {
    throw core::InputError({"", 0, std::string(field)}, fmt::format("'{}' is neither a known link ({}) nor a rate "
                                                                    "such as 100GB/s",
                                                                    text, known_link_names()));
  }
}

std::string exact_rate_text(core::Bandwidth b, bool in_bytes) {
  // The shortest text that parses back to the very same double, so a
  // printed preset reads back with the figures it was printed from.
  const std::string gbps = fmt::format("{}Gbps", b.bps() / 1e9);
  const std::string bytes = fmt::format("{}GB/s", b.gigabytes_per_second());
  for (const std::string& t : in_bytes ? std::vector{bytes, gbps} : std::vector{gbps, bytes})
    if (core::parse_bandwidth(t).bps() == b.bps()) return t;
  return fmt::format("{}bps", b.bps());
}

std::string link_text(const Link& l) { return l.kind == "custom" ? exact_rate_text(l.per_direction, true) : l.kind; }

}  // namespace anatomy::hw
