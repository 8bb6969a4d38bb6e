#include "core/time.h"

#include <array>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "core/error.h"
#include "core/quantity_text.h"

namespace anatomy::core {
namespace {

struct TimeUnit {
  std::string_view name;
  double ps;
};

constexpr double kYearPs = 365 * 86400e12;

constexpr std::array<TimeUnit, 16> kTimeUnits{{
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
    {"days", 86400e12},
    {"hours", 3600e12},
    {"y", kYearPs},
    {"year", kYearPs},
    {"years", kYearPs},
}};

// `text` in picoseconds (unrounded), no more than `limit_ps`, else an
// InputError naming `what` and `limit_text`.
long double parse_ps(std::string_view text, std::string_view what, double limit_ps, const char* limit_text) {
  auto q = detail::split_quantity(text, what);
  auto fail = [&](const std::string& why) {
    return InputError({"", 0, std::string(what)}, fmt::format("'{}' {}", std::string(text), why));
  };
  if (q.unit.empty()) throw fail("needs a unit (ps, ns, us, ms, s, min, h, d)");
  for (const auto& u : kTimeUnits) {
    if (q.unit != u.name) continue;
    if (q.value < 0) throw fail("must not be negative");
    const long double ps = static_cast<long double>(q.value) * u.ps;
    if (ps > limit_ps) throw fail(std::string("is longer than ") + limit_text);
    return ps;
  }
  throw fail("has an unknown time unit '" + q.unit + "' (use ps, ns, us, ms, s, min, h, d)");
}

// format_time's choice of unit for `ps` picoseconds.
std::string format_ps(double ps) {
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

}  // namespace

SimTime SimTime::from_seconds(double s) { return SimTime::ps(std::llround(s * 1e12)); }

SimTime parse_time(std::string_view text, std::string_view what) {
  return SimTime::ps(std::llround(parse_ps(text, what, 9.2e18, "the 106 days this field can span")));
}

JobTime parse_long_time(std::string_view text, std::string_view what) {
  static const std::string limit = fmt::format("{} years", kMaxJobYears);
  const long double ps = parse_ps(text, what, static_cast<double>(kMaxJobYears) * kYearPs, limit.c_str());
  return JobTime::ps(static_cast<int128_ps>(std::roundl(ps)));
}

// In double, as SimTime::from_seconds rounds, so both give the same picosecond.
JobTime JobTime::from_seconds(double s) { return JobTime::ps(static_cast<int128_ps>(std::round(s * 1e12))); }

SimTime JobTime::to_sim() const {
  if (ps_ > SimTime::max().count_ps() || ps_ < -SimTime::max().count_ps())
    throw std::overflow_error("a job time past the 106 days a SimTime spans");
  return SimTime::ps(static_cast<int64_t>(ps_));
}

std::string format_time(SimTime t) { return format_ps(static_cast<double>(t.count_ps())); }
std::string format_time(JobTime t) { return format_ps(static_cast<double>(t.count_ps())); }

}  // namespace anatomy::core
