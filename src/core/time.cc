#include "core/time.h"

#include <array>
#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "core/quantity_text.h"

namespace anatomy::core {
namespace {

struct TimeUnit {
  std::string_view name;
  double ps;
};

constexpr std::array<TimeUnit, 11> kTimeUnits{{
    {"ps", 1.0},
    {"ns", 1e3},
    {"us", 1e6},
    {"µs", 1e6},
    {"ms", 1e9},
    {"s", 1e12},
    {"sec", 1e12},
    {"min", 60e12},
    {"h", 3600e12},
    {"d", 86400e12},
    {"day", 86400e12},
}};

}  // namespace

SimTime SimTime::from_seconds(double s) { return SimTime::ps(std::llround(s * 1e12)); }

SimTime parse_time(std::string_view text, std::string_view what) {
  auto q = detail::split_quantity(text, what);
  auto fail = [&](const std::string& why) {
    return InputError({"", 0, std::string(what)}, fmt::format("'{}' {}", std::string(text), why));
  };
  if (q.unit.empty()) throw fail("needs a unit (ps, ns, us, ms, s, min, h, d)");
  for (const auto& u : kTimeUnits) {
    if (q.unit == u.name || (u.name == "d" && q.unit == "days") || (u.name == "h" && q.unit == "hours")) {
      if (q.value < 0) throw fail("must not be negative");
      double ps = q.value * u.ps;
      if (ps > 9.2e18) throw fail("is longer than the 106 days a simulation can span");
      return SimTime::ps(std::llround(ps));
    }
  }
  throw fail("has an unknown time unit '" + q.unit + "' (use ps, ns, us, ms, s, min, h, d)");
}

std::string format_time(SimTime t) {
  const double ps = static_cast<double>(t.count_ps());
  const double a = std::fabs(ps);
  auto with = [&](double scale, const char* unit) { return detail::format_number(ps / scale) + unit; };
  if (a == 0) return "0s";
  if (a < 1e3) return with(1, "ps");
  if (a < 1e6) return with(1e3, "ns");
  if (a < 1e9) return with(1e6, "us");
  if (a < 1e12) return with(1e9, "ms");
  if (a < 120e12) return with(1e12, "s");
  if (a < 7200e12) return with(60e12, "min");
  if (a < 172800e12) return with(3600e12, "h");
  return with(86400e12, "d");
}

}  // namespace anatomy::core
