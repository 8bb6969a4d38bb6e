#pragma once
// Typed quantities: Bytes (exact int64 count) and Bandwidth (bits per second).
//
// Sizes are exact integers so chunking a buffer into pieces never loses a
// byte; rates are doubles because fair shares of a link are fractions. The
// only place a size meets a rate is transfer_time(), which rounds up to the
// next picosecond so a non-empty transfer never takes zero time.
//
//   Bytes s = parse_bytes("8GiB");                  // 8 * 2^30
//   Bandwidth b = parse_bandwidth("400Gbps");       // 4e11 bit/s
//   SimTime t = transfer_time(s, b);                // 171.8ms
//   format_bandwidth(Bandwidth::bytes_per_s(900e9)) // "7.2Tbps"
//   format_bytes_rate(Bandwidth::bytes_per_s(900e9))// "900GB/s"
//
// Size suffixes: B, KB/MB/GB/TB/PB (powers of 1000), KiB/MiB/GiB/TiB (powers
// of 1024), and bare K/M/G/T as nccl-tests reads them (powers of 1024).
// Rate suffixes: bps, Kbps, Mbps, Gbps, Tbps (also "Gb/s"), and B/s, KB/s,
// MB/s, GB/s, TB/s (also "GBps"), GiB/s.

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/time.h"

namespace anatomy::core {

class Bytes {
 public:
  constexpr Bytes() = default;
  constexpr explicit Bytes(int64_t n) : n_(n) {}
  static constexpr Bytes KiB(int64_t n) { return Bytes(n << 10); }
  static constexpr Bytes MiB(int64_t n) { return Bytes(n << 20); }
  static constexpr Bytes GiB(int64_t n) { return Bytes(n << 30); }

  constexpr int64_t count() const { return n_; }
  constexpr double as_double() const { return static_cast<double>(n_); }

  constexpr Bytes operator+(Bytes o) const { return Bytes(n_ + o.n_); }
  constexpr Bytes operator-(Bytes o) const { return Bytes(n_ - o.n_); }
  constexpr Bytes& operator+=(Bytes o) { n_ += o.n_; return *this; }
  constexpr Bytes& operator-=(Bytes o) { n_ -= o.n_; return *this; }
  constexpr Bytes operator*(int64_t k) const { return Bytes(n_ * k); }
  constexpr Bytes operator/(int64_t k) const { return Bytes(n_ / k); }
  constexpr auto operator<=>(const Bytes&) const = default;

 private:
  int64_t n_ = 0;
};

class Bandwidth {
 public:
  constexpr Bandwidth() = default;
  static constexpr Bandwidth bits_per_s(double v) { return Bandwidth(v); }
  static constexpr Bandwidth bytes_per_s(double v) { return Bandwidth(v * 8.0); }
  static constexpr Bandwidth gbps(double v) { return Bandwidth(v * 1e9); }
  static constexpr Bandwidth gigabytes_per_s(double v) { return Bandwidth(v * 8e9); }

  constexpr double bps() const { return bps_; }
  constexpr double bytes_per_second() const { return bps_ / 8.0; }
  constexpr double gigabytes_per_second() const { return bps_ / 8e9; }

  constexpr Bandwidth operator+(Bandwidth o) const { return Bandwidth(bps_ + o.bps_); }
  constexpr Bandwidth operator-(Bandwidth o) const { return Bandwidth(bps_ - o.bps_); }
  constexpr Bandwidth operator*(double k) const { return Bandwidth(bps_ * k); }
  constexpr Bandwidth operator/(double k) const { return Bandwidth(bps_ / k); }
  constexpr double operator/(Bandwidth o) const { return bps_ / o.bps_; }
  constexpr auto operator<=>(const Bandwidth&) const = default;

 private:
  constexpr explicit Bandwidth(double v) : bps_(v) {}
  double bps_ = 0.0;
};

// Time to push `size` through `rate`, rounded up to the next picosecond.
SimTime transfer_time(Bytes size, Bandwidth rate);
// Average rate of `size` moved in `t` (t > 0).
Bandwidth rate_of(Bytes size, SimTime t);

// Parsers throw InputError naming `what` (a field or flag) on bad text,
// negative values, or (for bandwidth) zero.
Bytes parse_bytes(std::string_view text, std::string_view what = "size");
Bandwidth parse_bandwidth(std::string_view text, std::string_view what = "bandwidth");

// "140GB", "8GiB", "1.5MB", "512B": binary units when the largest binary
// unit that fits divides the size exactly, otherwise decimal, 4 digits.
std::string format_bytes(Bytes b);
// "800Gbps", "1.6Tbps".
std::string format_bandwidth(Bandwidth b);
// A count with a decimal suffix: one decimal from 10 up ("70.6B",
// "405.9B"), two below ("8.03B", "2.09M"), and "950" under a thousand.
std::string format_count(double n);
// "900GB/s", "50GB/s".
std::string format_bytes_rate(Bandwidth b);

}  // namespace anatomy::core
