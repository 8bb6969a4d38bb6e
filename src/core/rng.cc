#include "core/rng.h"

#include <cmath>
#include <numbers>

#include "core/error.h"

namespace anatomy::core {
namespace {

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t stable_hash(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

Rng::Rng(uint64_t seed) {
  // SplitMix64 expands one word into the four words of state, as the
  // xoshiro authors recommend; it never yields the all-zero state.
  uint64_t x = seed;
  for (auto& w : s_) {
    x += 0x9e3779b97f4a7c15ULL;
    w = mix64(x);
  }
}

uint64_t Rng::next_u64() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

uint64_t Rng::uniform_index(uint64_t n) {
  ANATOMY_CHECK(n > 0, "uniform_index needs n > 0");
  // Lemire's multiply-and-reject: unbiased without a division in the common case.
  // A GCC/Clang extension (128-bit product); __extension__ keeps -Wpedantic quiet.
  __extension__ using u128 = unsigned __int128;
  u128 m = static_cast<u128>(next_u64()) * n;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < n) {
    const uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<u128>(next_u64()) * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

double Rng::exponential(double rate) {
  ANATOMY_CHECK(rate > 0, "exponential needs a positive rate");
  // 1 - u lies in (0, 1], so the log is finite.
  return -std::log(1.0 - uniform01()) / rate;
}

double Rng::normal(double mean, double stddev) {
  const double u1 = 1.0 - uniform01();
  const double u2 = uniform01();
  return mean + stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

bool Rng::bernoulli(double p) { return uniform01() < p; }

Rng RngStreams::stream(std::string_view name) const { return Rng(mix64(seed_ ^ stable_hash(name))); }

Rng RngStreams::stream(std::string_view name, uint64_t index) const {
  return Rng(mix64(mix64(seed_ ^ stable_hash(name)) + index));
}

}  // namespace anatomy::core
