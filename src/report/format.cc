#include "report/format.h"

#include <fmt/format.h>

#include <cstdlib>

namespace anatomy::report {
namespace {

std::string fixed(int64_t ps, int64_t unit, int decimals) {
  const char* sign = ps < 0 ? "-" : "";
  const uint64_t a = ps < 0 ? -static_cast<uint64_t>(ps) : static_cast<uint64_t>(ps);
  return fmt::format("{}{}.{:0{}}", sign, a / unit, a % unit, decimals);
}

}  // namespace

std::string exact_seconds(core::SimTime t) { return fixed(t.count_ps(), 1'000'000'000'000, 12); }

std::string exact_micros(core::SimTime t) { return fixed(t.count_ps(), 1'000'000, 6); }

std::string human_time(core::SimTime t) {
  const double s = t.seconds();
  return s >= 1 ? fmt::format("{:.3f} s", s) : fmt::format("{:.2f} ms", s * 1e3);
}

std::string human_gb(core::Bytes b) { return fmt::format("{:.1f} GB", b.as_double() / 1e9); }

std::string percent(double fraction) { return fmt::format("{:.1f}%", 100 * fraction); }

}  // namespace anatomy::report
