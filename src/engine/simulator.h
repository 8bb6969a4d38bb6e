#pragma once
// Simulator: the discrete-event engine. Events run in (time, insertion
// order); time never goes backwards; an event can be cancelled by handle.
//
// Pending events wait in a ladder queue (ladder_queue.h): far-future
// events are appended to an unsorted list, nearer ones to time buckets, and
// only the bucket about to run is sorted, so an insert or a pop touches a
// handful of cache lines however many events are pending. Callbacks live
// inline in the queue (see callback.h) so the queue moves them as plain
// bytes. (The ladder replaced a radix-256 heap, 2.5x faster with 10^6
// events pending; see bench/README.md.)
//
// Events whose callbacks carry prefetch hints (callback.h) get them called
// two and one events before they run, once they are in the sorted bottom
// of the queue: the packet backend's events each start with a few
// dependent cache misses on records spread over tens of megabytes, and the
// hints let those overlap the events before them.
//
// Cancellation is lazy and costs only the events that can be cancelled:
// schedule_*() events carry no handle and are popped without any lookup;
// schedule_cancellable_*() events get a handle naming a slot and a
// generation, cancel() bumps the generation in O(1), and the stale entry is
// dropped (its callback destroyed) when it surfaces.
//
//   Simulator sim;
//   sim.schedule_in(SimTime::us(1), [&] { ... });
//   auto h = sim.schedule_cancellable_in(SimTime::us(5), [&] { ... });
//   sim.cancel(h);
//   sim.run();

#include <cstdint>
#include <vector>

#include "core/time.h"
#include "engine/callback.h"
#include "engine/ladder_queue.h"

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
  ~Simulator();

  SimTime now() const { return now_; }

  // `at` must not be earlier than now().
  void schedule_at(SimTime at, Callback cb);
  // An event whose callable has prefetch hints (callback.h); chosen by
  // overload for such callables, so no other event pays for looking.
  template <PrefetchHinted F>
  void schedule_at(SimTime at, F&& f) {
    if (at < now_) [[unlikely]]
      scheduled_in_the_past();
    hints_ = hints_allowed_;
    enqueue(at, QueuedEvent::kNoSlot, 1, Callback(std::forward<F>(f)));
  }
  template <PrefetchHinted F>
  void schedule_in(SimTime delay, F&& f) {
    schedule_at(now_ + delay, std::forward<F>(f));
  }
  void schedule_in(SimTime delay, Callback cb) { schedule_at(now_ + delay, std::move(cb)); }
  EventHandle schedule_cancellable_at(SimTime at, Callback cb);
  EventHandle schedule_cancellable_in(SimTime delay, Callback cb) {
    return schedule_cancellable_at(now_ + delay, std::move(cb));
  }

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
  // When the earliest pending event is due (SimTime::max() with none);
  // a cancelled event still queued counts, so this is a lower bound. The
  // partitioned packet run (net/packet/parallel_run.h) sizes its windows by it.
  SimTime next_time();
  // Asks run()/run_until() to return after the current event.
  void stop() { stop_requested_ = true; }

  // Prefetch hints on (the default) or off; off is for measuring what
  // they save (bench/packet_bench). Never changes which events run when.
  void set_prefetch_hints(bool on) {
    hints_allowed_ = on;
    hints_ = hints_ && on;
  }

  size_t pending() const { return live_; }
  uint64_t events_processed() const { return processed_; }

 private:
  // Runs the earliest event if its time is <= limit_ps.
  bool pop_and_run(uint64_t limit_ps);
  // Calls the prefetch hints of the next two events (see the top).
  void hint_ahead();
  [[noreturn]] static void scheduled_in_the_past();
  // Queues `cb` at `at`, writing the event in place (see LadderQueue::push).
  // An event without a slot has no generation to check; its generation
  // field says instead whether its callback has prefetch hints (1) or not (0).
  void enqueue(SimTime at, uint32_t slot, uint32_t generation, Callback&& cb) {
    QueuedEvent& e = queue_.push(static_cast<uint64_t>(at.count_ps()));
    e.slot = slot;
    e.generation = generation;
    e.cb = std::move(cb).release();
    ++live_;
  }

  LadderQueue queue_;
  std::vector<uint32_t> generation_;
  std::vector<uint32_t> free_slots_;
  // live_ and processed_ change together on every event; kept apart so the
  // compiler does not fuse them into one 16-byte update, whose load stalls
  // on the separate 8-byte store schedule_at() just made to live_.
  size_t live_ = 0;
  SimTime now_;
  uint64_t processed_ = 0;
  bool stop_requested_ = false;
  // Hints are looked for only once an event that has them was queued, so
  // simulations without any (every backend but the packet one) pay one
  // predictable branch per event (engine_bench HoldModel/<n>/1 against /0).
  bool hints_allowed_ = true;
  bool hints_ = false;
};

}  // namespace anatomy::engine
