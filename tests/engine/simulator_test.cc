#include "engine/simulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
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


TEST(Simulator, EqualTimesKeepInsertionOrderAtScale) {
  // Enough events that the queue cuts rungs and child rungs; half of them
  // share a time with many others.
  Simulator sim;
  std::vector<std::pair<int64_t, int>> ran;
  uint64_t x = 99;
  for (int i = 0; i < 50000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const int64_t t = i % 2 == 0 ? static_cast<int64_t>((x >> 33) % 50) * 1000 : static_cast<int64_t>((x >> 20) % 50'000);
    sim.schedule_at(SimTime::ps(t), [&ran, t, i] { ran.emplace_back(t, i); });
  }
  sim.run();
  ASSERT_EQ(ran.size(), 50000u);
  EXPECT_TRUE(std::is_sorted(ran.begin(), ran.end()));  // by time, then insertion
}

TEST(Simulator, EventsAtNowRunAfterThoseAlreadyQueuedForNow) {
  Simulator sim;
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) sim.schedule_at(SimTime::ns(i), [] {});
  sim.schedule_at(SimTime::ns(5), [&] {
    order.push_back(1);
    sim.schedule_in(SimTime::zero(), [&] { order.push_back(3); });
    sim.schedule_in(SimTime::ps(1), [&] { order.push_back(5); });
    sim.schedule_at(SimTime::ns(5), [&] { order.push_back(4); });
  });
  sim.schedule_at(SimTime::ns(5), [&] { order.push_back(2); });
  sim.schedule_at(SimTime::ns(6), [&] { order.push_back(6); });
  sim.run();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4, 5, 6}));
}

TEST(Simulator, CancelNearAndFarEventsMidRun) {
  Simulator sim;
  std::vector<EventHandle> handles;
  int ran = 0;
  for (int i = 0; i < 10000; ++i)
    handles.push_back(sim.schedule_cancellable_at(SimTime::ns(i % 1000), [&] { ++ran; }));
  sim.schedule_at(SimTime::ps(500), [&] {
    // Cancels events already sorted into the current bucket and events in
    // buckets far ahead, every other one.
    int cancelled = 0;
    for (size_t i = 0; i < handles.size(); i += 2) cancelled += sim.cancel(handles[i]);
    EXPECT_EQ(cancelled, 4990);  // the 10 events at t = 0 already ran
  });
  sim.run();
  EXPECT_EQ(ran, 10000 - 4990);
  EXPECT_EQ(sim.pending(), 0u);
}

TEST(Simulator, FarFutureEventsWaitAndRunLast) {
  Simulator sim;
  std::vector<int> order;
  sim.schedule_at(SimTime::max(), [&] { order.push_back(3); });
  sim.schedule_at(SimTime::ms(1) * 1000 * 3600, [&] { order.push_back(2); });  // an hour
  for (int i = 0; i < 1000; ++i) sim.schedule_at(SimTime::ns(i), [] {});
  sim.schedule_at(SimTime::us(2), [&] { order.push_back(1); });
  sim.run_until(SimTime::sec(10));
  EXPECT_EQ(order, (std::vector<int>{1}));
  EXPECT_EQ(sim.pending(), 2u);
  sim.run();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(sim.now(), SimTime::max());
}

TEST(Simulator, RunUntilBoundaryIsInclusive) {
  Simulator sim;
  std::vector<int64_t> ran;
  for (int64_t t = 0; t < 200; ++t) sim.schedule_at(SimTime::ps(t * 10), [&ran, t] { ran.push_back(t); });
  sim.run_until(SimTime::ps(1000));  // t = 100 is exactly at the limit
  ASSERT_EQ(ran.size(), 101u);
  EXPECT_EQ(ran.back(), 100);
  EXPECT_EQ(sim.now(), SimTime::ps(1000));
  // The next event (1010 ps) has been looked at; events before it, and at
  // the limit itself, can still be scheduled and run in order.
  sim.schedule_at(SimTime::ps(1000), [&] { ran.push_back(-1); });
  sim.schedule_at(SimTime::ps(1005), [&] { ran.push_back(-2); });
  sim.run_until(SimTime::ps(1000));
  EXPECT_EQ(ran.back(), -1);
  sim.run_until(SimTime::ps(1010));
  EXPECT_EQ(ran.size(), 104u);
  EXPECT_EQ(ran[102], -2);
  EXPECT_EQ(ran[103], 101);
}

TEST(Simulator, IdenticalRunsGiveIdenticalTraces) {
  auto trace = [] {
    Simulator sim;
    uint64_t x = 7, h = 1469598103934665603ULL;
    std::function<void(int)> fire = [&](int id) {
      h = (h ^ static_cast<uint64_t>(id) ^ static_cast<uint64_t>(sim.now().count_ps())) * 1099511628211ULL;
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      if (sim.events_processed() < 200000)
        sim.schedule_in(SimTime::ps(static_cast<int64_t>((x >> 40) % 3000)), [&fire, id] { fire(id); });
    };
    for (int i = 0; i < 5000; ++i) sim.schedule_at(SimTime::ps(i % 37), [&fire, i] { fire(i); });
    sim.run();
    return h;
  };
  EXPECT_EQ(trace(), trace());
}

}  // namespace
}  // namespace anatomy::engine
