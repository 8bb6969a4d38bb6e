#include "engine/simulator.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace anatomy::engine {
namespace {

TEST(Simulator, RunsEventsInTimeOrder) {
  Simulator sim;
  std::vector<int> order;
  sim.schedule_at(SimTime::ns(30), [&] { order.push_back(3); });
  sim.schedule_at(SimTime::ns(10), [&] { order.push_back(1); });
  sim.schedule_at(SimTime::ns(20), [&] { order.push_back(2); });
  sim.run();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(sim.now(), SimTime::ns(30));
  EXPECT_EQ(sim.events_processed(), 3u);
}

TEST(Simulator, TiesRunInInsertionOrder) {
  Simulator sim;
  std::vector<int> order;
  // Interleave far and near events so ties reach bucket 0 via redistribution.
  sim.schedule_at(SimTime::us(100), [&] { order.push_back(10); });
  sim.schedule_at(SimTime::ns(1), [&] {
    order.push_back(0);
    sim.schedule_at(SimTime::us(100), [&] { order.push_back(11); });
    sim.schedule_at(SimTime::ns(1), [&] { order.push_back(1); });
  });
  sim.schedule_at(SimTime::us(100), [&] { order.push_back(12); });
  sim.run();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 10, 12, 11}));
}

TEST(Simulator, CancelledEventsDoNotRun) {
  Simulator sim;
  int ran = 0;
  auto a = sim.schedule_cancellable_at(SimTime::ns(5), [&] { ran += 1; });
  auto b = sim.schedule_cancellable_at(SimTime::ns(6), [&] { ran += 10; });
  EXPECT_EQ(sim.pending(), 2u);
  EXPECT_TRUE(sim.cancel(a));
  EXPECT_FALSE(sim.cancel(a));
  EXPECT_EQ(sim.pending(), 1u);
  sim.run();
  EXPECT_EQ(ran, 10);
  EXPECT_FALSE(sim.cancel(b));  // already ran
  EXPECT_FALSE(sim.is_pending(b));
}

TEST(Simulator, ReusedSlotDoesNotResurrectOldHandle) {
  Simulator sim;
  int ran = 0;
  auto a = sim.schedule_cancellable_at(SimTime::ns(5), [&] { ran += 1; });
  sim.cancel(a);
  auto b = sim.schedule_cancellable_at(SimTime::ns(7), [&] { ran += 2; });
  EXPECT_EQ(a.slot, b.slot);
  EXPECT_FALSE(sim.cancel(a));
  sim.run();
  EXPECT_EQ(ran, 2);
}

TEST(Simulator, RunUntilStopsAtLimitAndAdvancesClock) {
  Simulator sim;
  int ran = 0;
  sim.schedule_at(SimTime::us(1), [&] { ++ran; });
  sim.schedule_at(SimTime::us(5), [&] { ++ran; });
  sim.run_until(SimTime::us(3));
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(sim.now(), SimTime::us(3));
  // Scheduling between the limit and the next event stays legal.
  sim.schedule_at(SimTime::us(4), [&] { ran += 100; });
  sim.run_until(SimTime::us(4));
  EXPECT_EQ(ran, 101);
  sim.run();
  EXPECT_EQ(ran, 102);
}

TEST(Simulator, HeapCallbacksAreDestroyedEvenWhenCancelled) {
  auto token = std::make_shared<int>(0);
  {
    Simulator sim;
    std::string big(100, 'x');  // not trivially copyable: stored on the heap
    auto h = sim.schedule_cancellable_at(SimTime::ns(1), [token, big] { ++*token; });
    sim.schedule_cancellable_at(SimTime::ns(2), [token, big] { ++*token; });
    sim.cancel(h);
    sim.schedule_at(SimTime::ns(3), [token, big] { ++*token; });
    EXPECT_EQ(token.use_count(), 4);
    sim.run_until(SimTime::ns(2));
    EXPECT_EQ(*token, 1);
  }
  EXPECT_EQ(token.use_count(), 1);  // the queue released the pending one too
}

TEST(Simulator, ManyRandomEventsComeOutSorted) {
  Simulator sim;
  uint64_t x = 12345;
  int64_t last = -1;
  bool sorted = true;
  for (int i = 0; i < 20000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    int64_t t = static_cast<int64_t>((x >> 20) % 1'000'000);
    sim.schedule_at(SimTime::ps(t), [&, t] {
      sorted &= t >= last;
      last = t;
    });
  }
  sim.run();
  EXPECT_TRUE(sorted);
  EXPECT_EQ(sim.events_processed(), 20000u);
}

}  // namespace
}  // namespace anatomy::engine
