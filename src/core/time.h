#pragma once
// SimTime: simulated time as a signed 64-bit count of picoseconds.
//
// Every clock in anatomy is integer picoseconds, so adding a million small
// intervals never drifts the way a floating-point clock does. int64 ps spans
// ±106 days: the clock of the engine, the networks and the iteration. A
// whole job's wall clock (months to years) is a JobTime below, the same
// picoseconds in 128 bits, into which every SimTime widens exactly. Rates
// are doubles (bits per second); the conversion to time rounds once, at
// the edge (see units.h: transfer_time).
//
//   SimTime t = SimTime::us(13) + SimTime::ns(500);
//   double s = t.seconds();            // 1.35e-05
//   std::string text = format_time(t); // "13.5us"

#include <compare>
#include <cmath>
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

// JobTime: a whole job's wall clock, as 128-bit picoseconds. The job layer
// fast-forwards iterations by multiplication (iteration time x iterations
// per checkpoint), and a year of a 10 s iteration is 3e19 ps, past int64's
// 9.2e18; 128 bits span far beyond any job (parse_long_time caps input at
// kMaxJobYears), so job arithmetic stays exact integer picoseconds and a
// job shorter than 106 days computes the very numbers SimTime would.
__extension__ using int128_ps = __int128;  // __extension__: -Wpedantic accepts the GNU type

class JobTime {
 public:
  constexpr JobTime() = default;
  constexpr JobTime(SimTime t) : ps_(t.count_ps()) {}  // widening is exact, hence implicit
  static constexpr JobTime ps(int128_ps v) { return JobTime(v, 0); }
  static constexpr JobTime sec(int64_t v) { return ps(static_cast<int128_ps>(v) * 1000'000'000'000); }
  static JobTime from_seconds(double s);
  static constexpr JobTime zero() { return JobTime(); }
  static constexpr JobTime max() { return ps(~static_cast<int128_ps>(0) ^ (static_cast<int128_ps>(1) << 127)); }

  constexpr int128_ps count_ps() const { return ps_; }
  constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }
  // The SimTime of a span that fits it (a stretch of one job phase); throws
  // std::overflow_error past SimTime::max(), a bug in the caller.
  SimTime to_sim() const;

  friend constexpr JobTime operator+(JobTime a, JobTime b) { return ps(a.ps_ + b.ps_); }
  friend constexpr JobTime operator-(JobTime a, JobTime b) { return ps(a.ps_ - b.ps_); }
  constexpr JobTime& operator+=(JobTime o) { ps_ += o.ps_; return *this; }
  constexpr JobTime& operator-=(JobTime o) { ps_ -= o.ps_; return *this; }
  friend constexpr JobTime operator*(JobTime a, int64_t k) { return ps(a.ps_ * k); }
  friend constexpr JobTime operator/(JobTime a, int64_t k) { return ps(a.ps_ / k); }
  friend constexpr bool operator==(JobTime a, JobTime b) { return a.ps_ == b.ps_; }
  friend constexpr std::strong_ordering operator<=>(JobTime a, JobTime b) {
    return a.ps_ < b.ps_ ? std::strong_ordering::less : a.ps_ > b.ps_ ? std::strong_ordering::greater
                                                                      : std::strong_ordering::equal;
  }

 private:
  constexpr JobTime(int128_ps v, int) : ps_(v) {}
  int128_ps ps_ = 0;
};

// The longest job parse_long_time accepts: far past any training run, and
// short enough that the job's checkpoint periods stay countable.
inline constexpr int64_t kMaxJobYears = 100;

// Parses "13us", "1.5 ms", "15min", "2h", "3d", "250ps", "10s".
// Throws InputError (core/error.h) naming `what` on a malformed or negative value.
SimTime parse_time(std::string_view text, std::string_view what = "time");

// The same for a job's wall clock: up to kMaxJobYears ("2y" is 730 days;
// "y", "year", "years" are 365 days).
JobTime parse_long_time(std::string_view text, std::string_view what = "time");

// Shortest readable form with up to 4 significant digits: "13.5us", "2.25s", "15min".
std::string format_time(SimTime t);
std::string format_time(JobTime t);

// x * fraction, rounded to the picosecond (half away from zero).
inline JobTime scaled(JobTime x, long double fraction) {
  return JobTime::ps(static_cast<int128_ps>(std::roundl(static_cast<long double>(x.count_ps()) * fraction)));
}

}  // namespace anatomy::core
