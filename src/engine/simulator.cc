#include "engine/simulator.h"

#include <bit>
#include <limits>

#include "core/error.h"

namespace anatomy::engine {

Simulator::Simulator() : buckets_(kBuckets) {}

Simulator::~Simulator() {
  for (size_t i = head_; i < current_.size(); ++i) current_[i].cb.destroy();
  for (auto& b : buckets_)
    for (auto& e : b) e.cb.destroy();
}

int Simulator::bucket_of(uint64_t key) const {
  const uint64_t d = key ^ last_;
  if (d == 0) return kCurrent;
  const unsigned level = (static_cast<unsigned>(std::bit_width(d)) - 1) / kDigitBits;
  return static_cast<int>(level * kDigits + ((key >> (kDigitBits * level)) & (kDigits - 1)));
}

void Simulator::mark(int bucket) {
  const unsigned b = static_cast<unsigned>(bucket);
  const unsigned level = b / kDigits, word = (b % kDigits) >> 6;
  digit_bits_[level][word] |= uint64_t{1} << (b & 63);
  word_bits_[level] |= uint64_t{1} << word;
  level_bits_ |= 1u << level;
}

void Simulator::unmark(int bucket) {
  const unsigned b = static_cast<unsigned>(bucket);
  const unsigned level = b / kDigits, word = (b % kDigits) >> 6;
  digit_bits_[level][word] &= ~(uint64_t{1} << (b & 63));
  if (digit_bits_[level][word] == 0) {
    word_bits_[level] &= ~(uint64_t{1} << word);
    if (word_bits_[level] == 0) level_bits_ &= ~(1u << level);
  }
}

void Simulator::push(const Entry& e) {
  const int b = bucket_of(e.key);
  if (b == kCurrent) {
    current_.push_back(e);
    return;
  }
  if (buckets_[b].empty()) mark(b);
  buckets_[b].push_back(e);
}

void Simulator::schedule_at(SimTime at, Callback cb) {
  ANATOMY_CHECK(at >= now_, "an event was scheduled in the past");
  ANATOMY_CHECK(static_cast<bool>(cb), "an event needs a callback");
  push(Entry{static_cast<uint64_t>(at.count_ps()), kNoSlot, 0, std::move(cb).release()});
  ++live_;
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
  push(Entry{static_cast<uint64_t>(at.count_ps()), slot, gen, std::move(cb).release()});
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
  if (head_ < current_.size()) return true;
  current_.clear();
  head_ = 0;
  if (level_bits_ == 0) return false;
  const int level = std::countr_zero(level_bits_);
  const int word = std::countr_zero(word_bits_[level]);
  const int b = level * kDigits + word * 64 + std::countr_zero(digit_bits_[level][word]);
  auto& src = buckets_[b];
  if (level == 0) {
    // Every event here has the same time: adopt the bucket as the FIFO.
    const uint64_t key = src.front().key;
    if (key > limit) return false;
    last_ = key;
    std::swap(current_, src);
    unmark(b);
    return true;
  }
  uint64_t min_key = std::numeric_limits<uint64_t>::max();
  for (const auto& e : src) min_key = e.key < min_key ? e.key : min_key;
  if (min_key > limit) return false;
  // Relative to the new minimum, every entry of this bucket belongs to a
  // lower level, all of which are empty, so appending keeps tie order.
  last_ = min_key;
  unmark(b);
  for (const auto& e : src) push(e);
  src.clear();
  return true;
}

bool Simulator::pop_and_run(uint64_t limit) {
  for (;;) {
    if (!settle(limit)) return false;
    if (last_ > limit) return false;
    Entry& e = current_[head_++];
    if (e.slot != kNoSlot) {
      if (generation_[e.slot] != e.generation) {
        e.cb.destroy();  // cancelled: its slot was already freed
        continue;
      }
      ++generation_[e.slot];
      free_slots_.push_back(e.slot);
    }
    // Copy the callback out before running it: it may schedule events,
    // which can reallocate the bucket it lives in.
    Callback::Raw cb = e.cb;
    --live_;
    now_ = SimTime::ps(static_cast<int64_t>(last_));
    ++processed_;
    cb.invoke();
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
