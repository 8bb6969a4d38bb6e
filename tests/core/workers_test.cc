#include "core/workers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
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

}  // namespace
}  // namespace anatomy::core
