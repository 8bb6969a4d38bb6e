// The palette gives bucket i and interval kind i the same color, which
// holds only while TimeBreakdown::buckets() lists the buckets in
// IntervalKind's order.

#include "report/palette.h"

#include <gtest/gtest.h>

#include <set>

namespace anatomy::report {
namespace {

TEST(Palette, BucketsAreListedInIntervalKindOrder) {
  workload::TimeBreakdown b;
  b.forward_compute = core::SimTime::ps(1);
  b.backward_compute = core::SimTime::ps(2);
  b.optimizer = core::SimTime::ps(3);
  b.tp_comm = core::SimTime::ps(4);
  b.cp_comm = core::SimTime::ps(5);
  b.ep_comm = core::SimTime::ps(6);
  b.dp_comm = core::SimTime::ps(7);
  b.pp_comm = core::SimTime::ps(8);
  b.bubble = core::SimTime::ps(9);
  b.waiting = core::SimTime::ps(10);
  const auto buckets = b.buckets();
  ASSERT_EQ(buckets.size(), static_cast<size_t>(kIntervalKinds));
  // IntervalKind k's bucket holds k + 1 ps.
  for (int k = 0; k < kIntervalKinds; ++k) EXPECT_EQ(buckets[k].second.count_ps(), k + 1) << buckets[k].first;
}

TEST(Palette, BucketAndKindSeriesShareColors) {
  const auto buckets = bucket_series();
  const auto kinds = kind_series();
  ASSERT_EQ(buckets.size(), kinds.size());
  for (size_t i = 0; i < kinds.size(); ++i) EXPECT_EQ(buckets[i].color, kinds[i].color) << kinds[i].name;
}

TEST(Palette, EveryKindHasItsOwnColor) {
  std::set<std::string> colors;
  for (const auto& s : kind_series()) colors.insert(s.color);
  EXPECT_EQ(colors.size(), static_cast<size_t>(kIntervalKinds));
}

}  // namespace
}  // namespace anatomy::report
