#include "engine/simulator.h"

#include <limits>

#include "core/error.h"

namespace anatomy::engine {

// The queue destroys the callbacks of events still pending.
Simulator::Simulator() = default;
Simulator::~Simulator() = default;

void Simulator::schedule_at(SimTime at, Callback cb) {
  ANATOMY_CHECK(at >= now_, "an event was scheduled in the past");
  ANATOMY_CHECK(static_cast<bool>(cb), "an event needs a callback");
  enqueue(at, QueuedEvent::kNoSlot, 0, std::move(cb));
}

void Simulator::scheduled_in_the_past() {
  core::check_failed("at >= now_", __FILE__, __LINE__, "an event was scheduled in the past");
}

EventHandle Simulator::schedule_cancellable_at(SimTime at, Callback cb) {
  ANATOMY_CHECK(at >= now_, "an event was scheduled in the past");
  ANATOMY_CHECK(static_cast<bool>(cb), "an event needs a callback");
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(generation_.size());
    generation_.push_back(0);
  }
  const uint32_t gen = generation_[slot];
  enqueue(at, slot, gen, std::move(cb));
  return EventHandle{slot, gen};
}

bool Simulator::is_pending(EventHandle h) const {
  // Running or cancelling an event bumps its slot's generation, so a
  // handle whose generation still matches names a queued event.
  return h.valid() && h.slot < generation_.size() && generation_[h.slot] == h.generation;
}

bool Simulator::cancel(EventHandle h) {
  if (!is_pending(h)) return false;
  ++generation_[h.slot];
  free_slots_.push_back(h.slot);
  --live_;
  return true;
}

bool Simulator::pop_and_run(uint64_t limit_ps) {
  for (;;) {
    // Looking at the front may sort the next bucket but never moves time,
    // so scheduling at or after now() stays legal when this returns false.
    QueuedEvent* front = queue_.front();
    if (front == nullptr || front->time_ps > limit_ps) return false;
    // Copy the event out before running it: its callback may schedule
    // events, which can move the queue's storage.
    QueuedEvent e = *front;
    queue_.pop_front();
    if (hints_) hint_ahead();
    if (e.slot != QueuedEvent::kNoSlot) {
      if (generation_[e.slot] != e.generation) {
        e.cb.destroy();  // cancelled: its slot was already freed
        continue;
      }
      ++generation_[e.slot];
      free_slots_.push_back(e.slot);
    }
    --live_;
    now_ = SimTime::ps(static_cast<int64_t>(e.time_ps));
    ++processed_;
    e.cb.invoke();
    return true;
  }
}

void Simulator::hint_ahead() {
  // The event after next: far hints (addresses it can compute from its own
  // capture); the next one: near hints, which may read what its far hints
  // fetched one event ago.
  if (QueuedEvent* far = queue_.sorted_ahead(1); far && far->slot == QueuedEvent::kNoSlot && far->generation)
    far->cb.prefetch_far();
  if (QueuedEvent* near = queue_.sorted_ahead(0); near && near->slot == QueuedEvent::kNoSlot && near->generation)
    near->cb.prefetch_near();
}

SimTime Simulator::next_time() {
  const QueuedEvent* front = queue_.front();
  return front ? SimTime::ps(static_cast<int64_t>(front->time_ps)) : SimTime::max();
}

bool Simulator::step() { return pop_and_run(std::numeric_limits<uint64_t>::max()); }

void Simulator::run() {
  stop_requested_ = false;
  while (!stop_requested_ && pop_and_run(std::numeric_limits<uint64_t>::max())) {
  }
}

void Simulator::run_until(SimTime limit) {
  stop_requested_ = false;
  const uint64_t lim = static_cast<uint64_t>(limit.count_ps());
  while (!stop_requested_ && pop_and_run(lim)) {
  }
  if (!stop_requested_ && limit > now_) now_ = limit;
}

}  // namespace anatomy::engine
