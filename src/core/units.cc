#include "core/units.h"

#include <array>
#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "core/quantity_text.h"

namespace anatomy::core {
namespace {

struct Unit {
  std::string_view name;
  double scale;
};

constexpr std::array<Unit, 19> kSizeUnits{{
    {"", 1},
    {"B", 1},
    {"KB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {"PB", 1e15},
    {"KiB", 1024.0},
    {"MiB", 1024.0 * 1024},
    {"GiB", 1024.0 * 1024 * 1024},
    {"TiB", 1024.0 * 1024 * 1024 * 1024},
    // nccl-tests' -b/-e read bare K/M/G as powers of 1024.
    {"K", 1024.0},
    {"M", 1024.0 * 1024},
    {"G", 1024.0 * 1024 * 1024},
    {"T", 1024.0 * 1024 * 1024 * 1024},
    {"k", 1024.0},
    {"m", 1024.0 * 1024},
    {"g", 1024.0 * 1024 * 1024},
    {"t", 1024.0 * 1024 * 1024 * 1024},
}};

// Rates in bits per second.
constexpr std::array<Unit, 22> kRateUnits{{
    {"bps", 1},         {"b/s", 1},
    {"Kbps", 1e3},      {"Kb/s", 1e3},
    {"Mbps", 1e6},      {"Mb/s", 1e6},
    {"Gbps", 1e9},      {"Gb/s", 1e9},
    {"Tbps", 1e12},     {"Tb/s", 1e12},
    {"B/s", 8},         {"Bps", 8},
    {"KB/s", 8e3},      {"KBps", 8e3},
    {"MB/s", 8e6},      {"MBps", 8e6},
    {"GB/s", 8e9},      {"GBps", 8e9},
    {"TB/s", 8e12},     {"TBps", 8e12},
    {"GiB/s", 8.0 * 1024 * 1024 * 1024},
    {"MiB/s", 8.0 * 1024 * 1024},
}};

InputError bad(std::string_view text, std::string_view what, const std::string& why) {
  return InputError({"", 0, std::string(what)}, fmt::format("'{}' {}", std::string(text), why));
}

}  // namespace

SimTime transfer_time(Bytes size, Bandwidth rate) {
  ANATOMY_CHECK(rate.bps() > 0, "transfer_time needs a positive rate");
  if (size.count() <= 0) return SimTime::zero();
  long double ps = static_cast<long double>(size.count()) * 8.0L * 1e12L / rate.bps();
  return SimTime::ps(static_cast<int64_t>(std::ceil(ps - 1e-6L)));
}

Bandwidth rate_of(Bytes size, SimTime t) {
  ANATOMY_CHECK(t > SimTime::zero(), "rate_of needs a positive time");
  return Bandwidth::bits_per_s(size.as_double() * 8.0 / t.seconds());
}

Bytes parse_bytes(std::string_view text, std::string_view what) {
  auto q = detail::split_quantity(text, what);
  for (const auto& u : kSizeUnits) {
    if (q.unit != u.name) continue;
    if (q.value < 0) throw bad(text, what, "must not be negative");
    double b = q.value * u.scale;
    if (b > 9.2e18) throw bad(text, what, "is too large");
    return Bytes(std::llround(b));
  }
  throw bad(text, what, "has an unknown size unit '" + q.unit + "' (use B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)");
}

Bandwidth parse_bandwidth(std::string_view text, std::string_view what) {
  auto q = detail::split_quantity(text, what);
  if (q.unit.empty()) throw bad(text, what, "needs a unit (Gbps, GB/s, ...)");
  for (const auto& u : kRateUnits) {
    if (q.unit != u.name) continue;
    if (q.value <= 0) throw bad(text, what, "must be greater than zero");
    return Bandwidth::bits_per_s(q.value * u.scale);
  }
  throw bad(text, what, "has an unknown rate unit '" + q.unit + "' (use bps, Mbps, Gbps, Tbps, MB/s, GB/s, TB/s)");
}

std::string format_bytes(Bytes b) {
  const int64_t n = b.count();
  if (n == 0) return "0B";
  const int64_t a = n < 0 ? -n : n;
  static constexpr std::array<std::pair<int, const char*>, 4> kBinary{
      {{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}}};
  // Binary only when the largest binary unit that fits divides exactly
  // (8GiB, 64KiB), so 140e9 prints as 140GB rather than 136718750KiB.
  for (auto [shift, name] : kBinary) {
    int64_t unit = int64_t{1} << shift;
    if (a < unit) continue;
    if (a % unit == 0) return fmt::format("{}{}", n / unit, name);
    break;
  }
  static constexpr std::array<std::pair<double, const char*>, 5> kDecimal{
      {{1e15, "PB"}, {1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "KB"}}};
  for (auto [scale, name] : kDecimal) {
    if (static_cast<double>(a) >= scale) return detail::format_number(static_cast<double>(n) / scale) + name;
  }
  return fmt::format("{}B", n);
}

std::string format_bandwidth(Bandwidth b) {
  const double v = b.bps();
  static constexpr std::array<std::pair<double, const char*>, 4> kUnits{
      {{1e12, "Tbps"}, {1e9, "Gbps"}, {1e6, "Mbps"}, {1e3, "Kbps"}}};
  for (auto [scale, name] : kUnits) {
    if (std::fabs(v) >= scale) return detail::format_number(v / scale) + name;
  }
  return detail::format_number(v) + "bps";
}

std::string format_count(double n) {
  static constexpr std::array<std::pair<double, const char*>, 4> kSuffix{
      {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}}};
  for (auto [scale, name] : kSuffix) {
    if (std::abs(n) < scale * 0.99995) continue;  // 999.97M prints as 1.00B, not 1000.0M
    const double v = n / scale;
    return std::abs(v) >= 10 ? fmt::format("{:.1f}{}", v, name) : fmt::format("{:.2f}{}", v, name);
  }
  return fmt::format("{:.4g}", n);
}

std::string format_bytes_rate(Bandwidth b) {
  const double v = b.bytes_per_second();
  static constexpr std::array<std::pair<double, const char*>, 4> kUnits{
      {{1e12, "TB/s"}, {1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "KB/s"}}};
  for (auto [scale, name] : kUnits) {
    if (std::fabs(v) >= scale) return detail::format_number(v / scale) + name;
  }
  return detail::format_number(v) + "B/s";
}

}  // namespace anatomy::core
