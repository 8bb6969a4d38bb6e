#include "core/workers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace anatomy::core {
namespace {

// Four workers taking items from one index process each of 1,000 items
// exactly once, and the body ran on four threads (the caller's among them).
TEST(Workers, EveryItemIsTakenOnceWhateverTheWorkerCount) {
  constexpr size_t kItems = 1000;
  std::vector<std::atomic<int>> seen(kItems);
  std::atomic<size_t> next{0};
  std::atomic<int> bodies{0};
  run_on_workers(4, [&] {
    ++bodies;
    for (size_t i; (i = next.fetch_add(1)) < kItems;) ++seen[i];
  });
  EXPECT_EQ(bodies.load(), 4);
  for (size_t i = 0; i < kItems; ++i) ASSERT_EQ(seen[i].load(), 1) << i;
  EXPECT_GE(hardware_workers(), 1);
}

// An exception on the calling thread comes out after the others have
// ended, not as std::terminate on a joinable thread.
TEST(Workers, AThrowOnTheCallingThreadWaitsForTheOthers) {
  std::atomic<int> ended{0};
  const auto caller = std::this_thread::get_id();
  EXPECT_THROW(run_on_workers(3,
                              [&] {
                                if (std::this_thread::get_id() == caller) throw std::runtime_error("stop");
                                ++ended;
                              }),
               std::runtime_error);
  EXPECT_EQ(ended.load(), 2);
}

// Items 3 and 7 of 20 throw on four workers: 7's error is never the one
// reported, items past 3 may or may not start, and every item before 3 runs.
TEST(Workers, ForEachIndexReportsTheLowestFailingItem) {
  std::vector<std::atomic<int>> ran(20);
  try {
    for_each_index(20, 4, [&](size_t i) {
      ++ran[i];
      if (i == 3 || i == 7) throw std::runtime_error(std::to_string(i));
    });
    ADD_FAILURE() << "expected a throw";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "3");
  }
  for (size_t i = 0; i <= 3; ++i) EXPECT_EQ(ran[i].load(), 1) << i;
  for (size_t i = 0; i < 20; ++i) EXPECT_LE(ran[i].load(), 1) << i;
}

}  // namespace
}  // namespace anatomy::core
