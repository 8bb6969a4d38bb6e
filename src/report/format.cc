#include "report/format.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace anatomy::report {
namespace {

// The whole part fits 64 bits for any job time (core::kMaxJobYears).
std::string fixed(core::int128_ps ps, int64_t unit, int decimals) {
  const char* sign = ps < 0 ? "-" : "";
  const core::int128_ps a = ps < 0 ? -ps : ps;
  return fmt::format("{}{}.{:0{}}", sign, static_cast<uint64_t>(a / unit), static_cast<uint64_t>(a % unit), decimals);
}

}  // namespace

std::string exact_seconds(core::SimTime t) { return fixed(t.count_ps(), 1'000'000'000'000, 12); }

std::string exact_micros(core::SimTime t) { return fixed(t.count_ps(), 1'000'000, 6); }
std::string exact_micros(core::JobTime t) { return fixed(t.count_ps(), 1'000'000, 6); }

std::string human_time(core::SimTime t) {
  const double s = t.seconds();
  return s >= 1 ? fmt::format("{:.3f} s", s) : fmt::format("{:.2f} ms", s * 1e3);
}

std::string human_gb(core::Bytes b) { return fmt::format("{:.1f} GB", b.as_double() / 1e9); }

std::string percent(double fraction) { return fmt::format("{:.1f}%", 100 * fraction); }

std::string signed_fixed(double v, int decimals) {
  if (std::fabs(v) < 0.5 * std::pow(10.0, -decimals)) v = 0;
  return fmt::format("{:+.{}f}", v, decimals);
}

}  // namespace anatomy::report
