#include "fleet/contention.h"

#include <gtest/gtest.h>

namespace anatomy::fleet {
namespace {

TEST(FairLevel, AloneAGreedyFlowTakesTheWholeLink) {
  // One greedy flow, nothing else: x = c.
  EXPECT_DOUBLE_EQ(fair_level(100, 1, {}), 100);
}

TEST(FairLevel, TwoGreedyFlowsHalveTheLink) {
  // Two greedy flows: x = c / 2.
  EXPECT_DOUBLE_EQ(fair_level(100, 2, {}), 50);
}

TEST(FairLevel, ACappedFlowUnderTheLevelKeepsItsRateAndTheRestGoesToTheGreedy) {
  // c = 100; B offers 25 (< 100 / 2), so B keeps 25 and the greedy flow gets 75.
  EXPECT_DOUBLE_EQ(fair_level(100, 1, {{25, 1}}), 75);
}

TEST(FairLevel, ACappedFlowAboveTheLevelIsCutToTheFairShare) {
  // c = 100; B offers 80 > 50: both at the level 50.
  EXPECT_DOUBLE_EQ(fair_level(100, 1, {{80, 1}}), 50);
}

TEST(FairLevel, WaterFillingSatisfiesSmallCapsFirst) {
  // c = 100; caps 10 (x2 flows) and 60 (x1), 2 greedy flows.
  // Level with all 5 active: 20 -> the 10s are satisfied (20 used, 80 left for 3).
  // Level 80/3 = 26.7 < 60 -> the 60 is cut: x = 80 / 3.
  EXPECT_NEAR(fair_level(100, 2, {{60, 1}, {10, 2}}), 80.0 / 3, 1e-12);
}

TEST(FairLevel, CapsThatFitLeaveEverythingElseToTheGreedy) {
  // c = 100; caps 10 and 20 with 2 greedy flows: 70 left, 35 each.
  EXPECT_DOUBLE_EQ(fair_level(100, 2, {{10, 1}, {20, 1}}), 35);
}

}  // namespace
}  // namespace anatomy::fleet
