#pragma once
// Simulator: the discrete-event engine. Events run in (time, insertion
// order); time never goes backwards; an event can be cancelled by handle.
//
// The queue is a radix heap (Ahuja, Mehlhorn, Orlin & Tarjan 1990) with
// radix 256, which works because a simulator's keys are monotone: nothing
// is scheduled before the last event popped. An event whose time first
// differs from the last popped time in byte L (counting from the
// least significant) waits in bucket (L, that digit of its time); an event
// at exactly the last popped time waits in a FIFO. Level-0 buckets each hold
// one exact time, so when the lowest non-empty bucket is at level 0 it is
// adopted as the FIFO by a swap; a higher bucket is scanned for its minimum,
// which becomes the new reference, and its events move to lower levels. An
// event moves at most once per byte of the time span it crosses (twice for
// a 16 us delay in picoseconds), however many events are pending; two-level
// bitmaps find the lowest non-empty bucket. (Radix 64, 1,024 and 4,096 were
// measured too; none was faster on the hold model, see bench/README.md.)
// Events with
// equal times always share a bucket and move in order, so ties stay FIFO
// without a sequence number. Callbacks live inline in the buckets (see
// callback.h) so moves stream through memory instead of chasing pointers.
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
  ~Simulator();

  SimTime now() const { return now_; }

  // `at` must not be earlier than now().
  void schedule_at(SimTime at, Callback cb);
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
  // Asks run()/run_until() to return after the current event.
  void stop() { stop_requested_ = true; }

  size_t pending() const { return live_; }
  uint64_t events_processed() const { return processed_; }

 private:
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  // Trivially copyable, so buckets move entries as plain bytes; the
  // callback inside is destroyed exactly once, when it runs or is dropped.
  struct Entry {
    uint64_t key;
    uint32_t slot;  // kNoSlot: not cancellable
    uint32_t generation;
    Callback::Raw cb;
  };
  static constexpr int kDigitBits = 8;
  static constexpr int kDigits = 1 << kDigitBits;
  static constexpr int kLevels = (64 + kDigitBits - 1) / kDigitBits;
  static constexpr int kWords = kDigits / 64;
  static constexpr int kBuckets = kLevels * kDigits;

  // Bucket index of a key that differs from last_ (kCurrent if equal).
  int bucket_of(uint64_t key) const;
  void push(const Entry& e);
  void mark(int b);
  void unmark(int b);
  // Makes bucket 0 hold the earliest events; false if the queue is empty.
  // Does not move last_ past `limit`, so scheduling at or after now() stays legal.
  bool settle(uint64_t limit);
  bool pop_and_run(uint64_t limit);

  static constexpr int kCurrent = -1;
  std::vector<Entry> current_;  // events at exactly last_, FIFO
  size_t head_ = 0;             // next entry of current_ to pop
  std::vector<std::vector<Entry>> buckets_;
  // Per level: one bit per bucket, and a summary bit per 64-bucket word.
  uint64_t digit_bits_[kLevels][kWords] = {};
  uint64_t word_bits_[kLevels] = {};
  uint32_t level_bits_ = 0;
  uint64_t last_ = 0;
  SimTime now_;
  std::vector<uint32_t> generation_;
  std::vector<uint32_t> free_slots_;
  size_t live_ = 0;
  uint64_t processed_ = 0;
  bool stop_requested_ = false;
};

}  // namespace anatomy::engine
