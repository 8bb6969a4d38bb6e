#pragma once
// SimTime: simulated time as a signed 64-bit count of picoseconds.
//
// Every clock in anatomy is integer picoseconds, so adding a million small
// intervals never drifts the way a floating-point clock does. int64 ps spans
// ±106 days, enough for multi-week training jobs. Rates are doubles
// (bits per second); the conversion to time rounds once, at the edge (see
// units.h: transfer_time).
//
//   SimTime t = SimTime::us(13) + SimTime::ns(500);
//   double s = t.seconds();            // 1.35e-05
//   std::string text = format_time(t); // "13.5us"

#include <compare>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace anatomy::core {

class SimTime {
 public:
  constexpr SimTime() = default;
  static constexpr SimTime ps(int64_t v) { return SimTime(v); }
  static constexpr SimTime ns(int64_t v) { return SimTime(v * 1000); }
  static constexpr SimTime us(int64_t v) { return SimTime(v * 1000'000); }
  static constexpr SimTime ms(int64_t v) { return SimTime(v * 1000'000'000); }
  static constexpr SimTime sec(int64_t v) { return SimTime(v * 1000'000'000'000); }
  // Rounds to the nearest picosecond.
  static SimTime from_seconds(double s);
  static constexpr SimTime zero() { return SimTime(0); }
  static constexpr SimTime max() { return SimTime(std::numeric_limits<int64_t>::max()); }

  constexpr int64_t count_ps() const { return ps_; }
  constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }
  constexpr double micros() const { return static_cast<double>(ps_) * 1e-6; }
  constexpr double millis() const { return static_cast<double>(ps_) * 1e-9; }

  constexpr SimTime operator+(SimTime o) const { return SimTime(ps_ + o.ps_); }
  constexpr SimTime operator-(SimTime o) const { return SimTime(ps_ - o.ps_); }
  constexpr SimTime& operator+=(SimTime o) { ps_ += o.ps_; return *this; }
  constexpr SimTime& operator-=(SimTime o) { ps_ -= o.ps_; return *this; }
  constexpr SimTime operator*(int64_t k) const { return SimTime(ps_ * k); }
  constexpr SimTime operator/(int64_t k) const { return SimTime(ps_ / k); }
  constexpr auto operator<=>(const SimTime&) const = default;

 private:
  constexpr explicit SimTime(int64_t v) : ps_(v) {}
  int64_t ps_ = 0;
};

constexpr SimTime operator*(int64_t k, SimTime t) { return t * k; }

// Parses "13us", "1.5 ms", "15min", "2h", "3d", "250ps", "10s".
// Throws InputError (core/error.h) naming `what` on a malformed or negative value.
SimTime parse_time(std::string_view text, std::string_view what = "time");

// Shortest readable form with up to 4 significant digits: "13.5us", "2.25s", "15min".
std::string format_time(SimTime t);

}  // namespace anatomy::core
