#pragma once
// Named, seeded random streams.
//
// Every random draw in anatomy comes from a stream named for what it models
// ("failures.gpu", "ecmp.salt"), derived from the run's seed and the name
// alone. Adding a new stream, or drawing more from one, never shifts the
// numbers another stream produces, so a change in one model does not
// perturb the rest of a run. The generator (xoshiro256**) and every
// distribution are written out here rather than taken from <random>, whose
// distributions differ between standard libraries: same seed, same bits,
// on any machine.
//
//   RngStreams streams(42);
//   Rng gpu = streams.stream("failures.gpu");
//   double hours = gpu.exponential(1.0 / mtbf_hours);

#include <cstdint>
#include <string_view>

namespace anatomy::core {

class Rng {
 public:
  explicit Rng(uint64_t seed);

  uint64_t next_u64();
  // Uniform in [0, 1) with 53 random bits.
  double uniform01();
  // Uniform integer in [0, n), unbiased; n > 0.
  uint64_t uniform_index(uint64_t n);
  // Exponential with the given rate (events per unit); mean 1/rate.
  double exponential(double rate);
  // Standard normal (Box-Muller, one value per call).
  double normal(double mean, double stddev);
  bool bernoulli(double p);

 private:
  uint64_t s_[4];
};

class RngStreams {
 public:
  explicit RngStreams(uint64_t seed) : seed_(seed) {}
  uint64_t seed() const { return seed_; }
  // A fresh generator for `name`; the same (seed, name) always gives the same stream.
  Rng stream(std::string_view name) const;
  // Indexed sub-stream, e.g. one per GPU: stream("failures.gpu", rank).
  Rng stream(std::string_view name, uint64_t index) const;

 private:
  uint64_t seed_;
};

// 64-bit FNV-1a of a string: stable hash for names (not for security).
uint64_t stable_hash(std::string_view s);
// SplitMix64 finalizer: a stateless 64-bit mixer, used for flow hashing too.
uint64_t mix64(uint64_t x);

}  // namespace anatomy::core
