#include "core/stats.h"

#include <gtest/gtest.h>

namespace anatomy::core {
namespace {

TEST(Stats, TheMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo) {
  // Sorted: 1, 2, 4, 9 -> (2 + 4) / 2 = 3; an odd count's middle value.
  EXPECT_DOUBLE_EQ(median({9, 1, 4, 2}), 3.0);
  EXPECT_DOUBLE_EQ(median({5, -1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(median({7}), 7.0);
}

}  // namespace
}  // namespace anatomy::core
