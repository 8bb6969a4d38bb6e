#include "core/rng.h"

#include <gtest/gtest.h>

#include <cmath>

namespace anatomy::core {
namespace {

TEST(RngStreams, SameSeedAndNameGiveSameBits) {
  RngStreams a(42), b(42);
  auto x = a.stream("failures.gpu");
  auto y = b.stream("failures.gpu");
  for (int i = 0; i < 100; ++i) EXPECT_EQ(x.next_u64(), y.next_u64());
}

TEST(RngStreams, StreamsAreIndependentOfEachOther) {
  RngStreams s(42);
  auto gpu = s.stream("failures.gpu");
  auto nic = s.stream("failures.nic");
  EXPECT_NE(gpu.next_u64(), nic.next_u64());
  // Drawing from one stream does not shift another.
  auto nic_again = s.stream("failures.nic");
  auto nic2 = s.stream("failures.nic");
  for (int i = 0; i < 10; ++i) gpu.next_u64();
  EXPECT_EQ(nic_again.next_u64(), nic2.next_u64());
  EXPECT_NE(s.stream("x", 0).next_u64(), s.stream("x", 1).next_u64());
  EXPECT_NE(RngStreams(1).stream("x").next_u64(), RngStreams(2).stream("x").next_u64());
}

TEST(Rng, ExponentialHasMeanOneOverRate) {
  Rng r(7);
  const int n = 200'000;
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += r.exponential(4.0);
  // Standard error of the mean is (1/4)/sqrt(n) ~ 5.6e-4; allow 5 sigma.
  EXPECT_NEAR(sum / n, 0.25, 0.003);
}

TEST(Rng, UniformIndexCoversRangeEvenly) {
  Rng r(9);
  int counts[5] = {};
  for (int i = 0; i < 50'000; ++i) ++counts[r.uniform_index(5)];
  for (int c : counts) EXPECT_NEAR(c, 10'000, 500);
}

TEST(Rng, NormalHasGivenMomentsAndUniformIsInRange) {
  Rng r(11);
  const int n = 100'000;
  double s = 0, s2 = 0;
  for (int i = 0; i < n; ++i) {
    double v = r.normal(3.0, 2.0);
    s += v;
    s2 += v * v;
    double u = r.uniform01();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
  double mean = s / n;
  EXPECT_NEAR(mean, 3.0, 0.05);
  EXPECT_NEAR(std::sqrt(s2 / n - mean * mean), 2.0, 0.05);
}

}  // namespace
}  // namespace anatomy::core
