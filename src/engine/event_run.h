#pragma once
// EventRun: the ladder queue's bottom tier, a short run of events sorted by
// time (ties in insertion order) that is consumed from the front.
//
// It is a plain buffer with a head and an end rather than a std::vector, so
// that loading a bucket writes each event once into place (no zero-fill
// before a scatter) and an event inserted ahead of most of the run shifts
// the few events before it to the left instead of all the ones after it.
//
//   EventRun run;
//   QueuedEvent* slots = run.reset(n);   // then write slots[0..n) in order
//   run.insert(e);                       // keeps the order
//   const QueuedEvent& first = run.front(); run.pop_front();

#include <cstddef>
#include <cstdint>
#include <memory>

#include "engine/queued_event.h"

namespace anatomy::engine {

class EventRun {
 public:
  bool empty() const { return head_ == end_; }
  size_t size() const { return end_ - head_; }
  QueuedEvent& front() { return buf_[head_]; }
  // The event k places after the front; k < size().
  QueuedEvent& at(size_t k) { return buf_[head_ + k]; }
  void pop_front() { ++head_; }
  // Pointer arithmetic, not &buf_[i]: a run that never held an event has no
  // buffer, and indexing a null one is undefined (UBSan, a simulator
  // destroyed with its queue never used).
  const QueuedEvent* begin() const { return buf_.get() + head_; }
  const QueuedEvent* end() const { return buf_.get() + end_; }

  // Empties the run and returns room for `n` events, to be written in order.
  QueuedEvent* reset(size_t n) {
    head_ = end_ = 0;
    if (n > capacity_) reallocate(n, 0);
    end_ = n;
    return buf_.get();
  }
  void clear() { head_ = end_ = 0; }

  // Opens a slot for an event at `time_ps` after every event with a time
  // <= time_ps, shifting at most `max_shift` events, and returns it
  // unwritten; returns nullptr (and changes nothing) if it would have to
  // shift more.
  QueuedEvent* insert(uint64_t time_ps, size_t max_shift);

 private:
  // Moves the run to a buffer of `capacity` with `room` free slots before it.
  void reallocate(size_t capacity, size_t room);
  // Frees at least one slot after the run.
  void grow_back();

  std::unique_ptr<QueuedEvent[]> buf_;
  size_t capacity_ = 0;
  size_t head_ = 0;
  size_t end_ = 0;
};

}  // namespace anatomy::engine
