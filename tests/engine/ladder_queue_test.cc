#include "engine/ladder_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <set>
#include <vector>

namespace anatomy::engine {
namespace {

// The queue never reads the slot, so the tests use it as the event's
// insertion number and check that events come out in (time, insertion) order.
QueuedEvent event(uint64_t time_ps, uint32_t seq) {
  QueuedEvent e{};
  e.time_ps = time_ps;
  e.slot = seq;
  e.cb.fn = [](Callback::Op, void*) {};
  return e;
}

// Drives a LadderQueue and a plainly sorted reference side by side.
class Checked {
 public:
  void push(uint64_t time_ps) {
    ASSERT_GE(time_ps, now_ps_);
    q_.push(event(time_ps, seq_));
    ref_.insert({time_ps, seq_});
    ++seq_;
  }
  // Pops one event and checks it is the reference's earliest.
  void pop() {
    ASSERT_FALSE(ref_.empty());
    const auto it = ref_.begin();
    QueuedEvent* e = q_.front();
    ASSERT_NE(e, nullptr);
    ASSERT_EQ(e->time_ps, it->first) << "seq " << e->slot;
    ASSERT_EQ(e->slot, it->second);
    now_ps_ = e->time_ps;
    q_.pop_front();
    ref_.erase(it);
    ASSERT_EQ(q_.size(), ref_.size());
  }
  // Checks the earliest event without removing it.
  void peek() {
    QueuedEvent* e = q_.front();
    ASSERT_NE(e, nullptr);
    ASSERT_EQ(e->slot, ref_.begin()->second);
  }
  void drain() {
    while (!ref_.empty()) pop();
    EXPECT_EQ(q_.front(), nullptr);
  }
  uint64_t now_ps() const { return now_ps_; }
  size_t size() const { return ref_.size(); }
  const LadderQueue& queue() const { return q_; }

 private:
  LadderQueue q_;
  std::set<std::pair<uint64_t, uint32_t>> ref_;  // (time, insertion)
  uint32_t seq_ = 0;
  uint64_t now_ps_ = 0;
};

TEST(LadderQueue, EqualTimesKeepInsertionOrder) {
  Checked q;
  for (int i = 0; i < 5000; ++i) q.push(1000);  // one bucket of a single time
  for (int i = 0; i < 100; ++i) q.push(999 + static_cast<uint64_t>(i % 3));
  q.drain();
}

TEST(LadderQueue, TiesSurviveEverySplit) {
  // Many events on few distinct times, spread so that rung 0 and child
  // rungs are cut, with more equal-time events arriving after each split.
  Checked q;
  std::mt19937_64 rng(1);
  for (int i = 0; i < 20000; ++i) q.push(rng() % 64 * 1000);
  for (int round = 0; round < 2000; ++round) {
    for (int k = 0; k < 5; ++k) q.pop();
    for (int k = 0; k < 5; ++k) q.push(q.now_ps() + rng() % 4 * 1000);
  }
  q.drain();
}

TEST(LadderQueue, HoldModelMatchesReference) {
  for (uint64_t mean_ps : {1ull, 100ull, 1'000'000ull}) {
    Checked q;
    std::mt19937_64 rng(mean_ps);
    std::exponential_distribution<double> delay(1.0 / static_cast<double>(mean_ps));
    for (int i = 0; i < 3000; ++i) q.push(static_cast<uint64_t>(delay(rng)));
    for (int i = 0; i < 30000; ++i) {
      q.pop();
      q.push(q.now_ps() + static_cast<uint64_t>(delay(rng)));
    }
    q.drain();
  }
}

TEST(LadderQueue, EventsAtNowDuringADrain) {
  // Zero-delay events join the current bucket behind the ones already there.
  Checked q;
  for (int i = 0; i < 200; ++i) q.push(static_cast<uint64_t>(i) * 10);
  for (int i = 0; i < 2000; ++i) {
    q.pop();
    q.push(q.now_ps());
    if (i % 3 == 0) q.push(q.now_ps() + 5);
  }
  q.drain();
}

TEST(LadderQueue, FarFutureEvents) {
  Checked q;
  const uint64_t max_ps = INT64_MAX;
  q.push(max_ps);
  q.push(max_ps - 1);
  for (int i = 0; i < 1000; ++i) q.push(static_cast<uint64_t>(i) * 7);
  q.push(uint64_t{1} << 62);
  for (int i = 0; i < 500; ++i) q.pop();
  for (int i = 0; i < 1000; ++i) q.push(q.now_ps() + static_cast<uint64_t>(i));
  q.push(max_ps);
  q.drain();
}

TEST(LadderQueue, InsertsIntoALargeBottomSplitIt) {
  // A bucket of a single time becomes the bottom while the clock is still
  // earlier; events then land before it, among each other, and after it.
  Checked q;
  for (int i = 0; i < 1000; ++i) q.push(1'000'000);
  q.push(10);
  q.pop();
  q.peek();  // loads the bulk into the bottom
  std::mt19937_64 rng(7);
  for (int i = 0; i < 3000; ++i) q.push(10 + rng() % 1'100'000);
  EXPECT_GE(q.queue().depth(), 1u);
  q.drain();
}

TEST(LadderQueue, RandomInterleavingsMatchReference) {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 40; ++trial) {
    Checked q;
    const uint64_t spread = uint64_t{1} << (rng() % 40);
    for (int op = 0; op < 4000; ++op) {
      const uint64_t r = rng() % 10;
      if (r < 6 || q.size() == 0) {
        // Mix near, equal-to-now and far events.
        const uint64_t kind = rng() % 8;
        const uint64_t d = kind == 0 ? 0 : kind == 1 ? rng() % 4 : kind == 7 ? rng() % (spread * 64) : rng() % spread;
        q.push(q.now_ps() + d);
      } else {
        q.pop();
      }
    }
    q.drain();
  }
}

TEST(LadderQueue, DestroysPendingCallbacks) {
  static int destroyed = 0;
  destroyed = 0;
  {
    LadderQueue q;
    for (int i = 0; i < 3000; ++i) {
      QueuedEvent e = event(static_cast<uint64_t>(i % 100) * 1000, 0);
      e.cb.fn = [](Callback::Op op, void*) { destroyed += op == Callback::Op::kDestroy; };
      q.push(e);
    }
    for (int i = 0; i < 10; ++i) {
      ASSERT_NE(q.front(), nullptr);
      q.pop_front();  // popped events' callbacks belong to the caller
    }
  }
  EXPECT_EQ(destroyed, 3000 - 10);
}

}  // namespace
}  // namespace anatomy::engine
