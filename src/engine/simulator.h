#pragma once
// Simulator: the discrete-event engine. Events run in (time, insertion
// order); time never goes backwards; an event can be cancelled by handle.
//
// The queue is a radix heap (Ahuja, Mehlhorn, Orlin & Tarjan 1990), which
// works because a simulator's keys are monotone: nothing is ever scheduled
// before the last event popped. Bucket b holds events whose time differs
// from the last popped time first in bit b-1; pushing is O(1), and each
// event is redistributed at most once per bit it shares with the clock, so
// popping is amortized O(log T) in the time span T, independent of how
// many events are pending. Events with equal times always sit in the same
// bucket and move in order, so FIFO order among ties holds without storing
// a sequence number. Callbacks live inline in the buckets (see callback.h)
// so redistribution streams through memory instead of chasing pointers.
//
// Cancellation is lazy: a handle names a slot and a generation; cancel()
// bumps the generation in O(1) and the stale entry is dropped when it
// surfaces. A cancelled callback is destroyed when its entry surfaces.
//
//   Simulator sim;
//   auto h = sim.schedule_in(SimTime::us(5), [&] { ... });
//   sim.cancel(h);
//   sim.run();

#include <array>
#include <cstdint>
#include <vector>

#include "core/time.h"
#include "engine/callback.h"

namespace anatomy::engine {

using core::SimTime;

struct EventHandle {
  uint32_t slot = UINT32_MAX;
  uint32_t generation = 0;
  bool valid() const { return slot != UINT32_MAX; }
};

class Simulator {
 public:
  Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  SimTime now() const { return now_; }

  // `at` must not be earlier than now().
  EventHandle schedule_at(SimTime at, Callback cb);
  EventHandle schedule_in(SimTime delay, Callback cb) { return schedule_at(now_ + delay, std::move(cb)); }

  // Returns true if the event was pending and is now cancelled; false if it
  // already ran or was already cancelled.
  bool cancel(EventHandle h);
  bool is_pending(EventHandle h) const;

  // Runs events until none is left.
  void run();
  // Runs every event with time <= limit, then sets now() to limit (if later).
  void run_until(SimTime limit);
  // Runs exactly one event if there is one; returns false when the queue is empty.
  bool step();
  // Asks run()/run_until() to return after the current event.
  void stop() { stop_requested_ = true; }

  size_t pending() const { return live_; }
  uint64_t events_processed() const { return processed_; }

 private:
  struct Entry {
    uint64_t key;
    uint32_t slot;
    uint32_t generation;
    Callback cb;
  };
  static constexpr int kBuckets = 65;

  static int bucket_of(uint64_t key, uint64_t last);
  void push(Entry&& e);
  // Makes bucket 0 hold the earliest events; false if the queue is empty.
  // Does not move last_ past `limit`, so scheduling at or after now() stays legal.
  bool settle(uint64_t limit);
  bool pop_and_run(uint64_t limit);

  std::array<std::vector<Entry>, kBuckets> buckets_;
  size_t head0_ = 0;  // next entry of bucket 0 to pop (bucket 0 is FIFO)
  uint64_t last_ = 0;
  SimTime now_;
  std::vector<uint32_t> generation_;
  std::vector<uint32_t> free_slots_;
  size_t live_ = 0;
  uint64_t processed_ = 0;
  bool stop_requested_ = false;
};

}  // namespace anatomy::engine
