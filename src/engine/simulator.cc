#include "engine/simulator.h"

#include <bit>
#include <limits>

#include "core/error.h"

namespace anatomy::engine {

Simulator::Simulator() {
  for (auto& b : buckets_) b.reserve(64);
}

int Simulator::bucket_of(uint64_t key, uint64_t last) {
  return key == last ? 0 : std::bit_width(key ^ last);
}

void Simulator::push(Entry&& e) { buckets_[bucket_of(e.key, last_)].push_back(std::move(e)); }

EventHandle Simulator::schedule_at(SimTime at, Callback cb) {
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
  push(Entry{static_cast<uint64_t>(at.count_ps()), slot, gen, std::move(cb)});
  ++live_;
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

bool Simulator::settle(uint64_t limit) {
  auto& b0 = buckets_[0];
  if (head0_ < b0.size()) return true;
  b0.clear();
  head0_ = 0;
  int i = 1;
  while (i < kBuckets && buckets_[i].empty()) ++i;
  if (i == kBuckets) return false;
  auto& src = buckets_[i];
  uint64_t min_key = std::numeric_limits<uint64_t>::max();
  for (const auto& e : src) min_key = e.key < min_key ? e.key : min_key;
  if (min_key > limit) return false;
  // Every entry of bucket i lands in a lower bucket relative to the new
  // minimum, and those are all empty, so appending keeps tie order.
  last_ = min_key;
  for (auto& e : src) buckets_[bucket_of(e.key, last_)].push_back(std::move(e));
  src.clear();
  return true;
}

bool Simulator::pop_and_run(uint64_t limit) {
  for (;;) {
    if (!settle(limit)) return false;
    auto& b0 = buckets_[0];
    if (last_ > limit) return false;
    Entry& e = b0[head0_++];
    if (generation_[e.slot] != e.generation) {
      e.cb.reset();  // cancelled: its slot was already freed
      continue;
    }
    // Move the callback out before running it: it may schedule events,
    // which can reallocate the bucket it lives in.
    Callback cb = std::move(e.cb);
    ++generation_[e.slot];
    free_slots_.push_back(e.slot);
    --live_;
    now_ = SimTime::ps(static_cast<int64_t>(last_));
    ++processed_;
    cb();
    return true;
  }
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
