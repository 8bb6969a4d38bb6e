#include "engine/event_run.h"

#include <algorithm>
#include <cstring>

namespace anatomy::engine {

void EventRun::reallocate(size_t capacity, size_t room) {
  const size_t n = size();
  capacity = std::max(capacity, room + n);
  auto fresh = std::make_unique_for_overwrite<QueuedEvent[]>(capacity);
  if (n > 0) std::memcpy(&fresh[room], &buf_[head_], n * sizeof(QueuedEvent));
  buf_ = std::move(fresh);
  capacity_ = capacity;
  head_ = room;
  end_ = room + n;
}

void EventRun::grow_back() {
  if (head_ > size()) {
    // Mostly consumed: slide the rest to the front rather than grow.
    std::memmove(&buf_[0], &buf_[head_], size() * sizeof(QueuedEvent));
    end_ -= head_;
    head_ = 0;
  } else {
    reallocate(2 * capacity_ + 16, 0);
  }
}

QueuedEvent* EventRun::insert(uint64_t t, size_t max_shift) {
  if (empty() || t >= buf_[end_ - 1].time_ps) {
    if (end_ == capacity_) grow_back();
    return &buf_[end_++];
  }
  QueuedEvent* first = &buf_[head_];
  QueuedEvent* last = &buf_[end_];
  QueuedEvent* pos = std::upper_bound(first, last, t, [](uint64_t v, const QueuedEvent& x) { return v < x.time_ps; });
  const size_t left = static_cast<size_t>(pos - first);
  const size_t right = static_cast<size_t>(last - pos);
  if (std::min(left, right) > max_shift) return nullptr;
  if (right <= left) {
    if (end_ == capacity_) {
      grow_back();
      return insert(t, max_shift);
    }
    std::memmove(pos + 1, pos, right * sizeof(QueuedEvent));
    ++end_;
    return pos;
  }
  if (head_ == 0) {
    // Open as much room at the front as the run holds, so repeated early
    // inserts cost O(1) amortized moves each.
    reallocate(2 * size() + 16, size() + 16);
    return insert(t, max_shift);
  }
  std::memmove(first - 1, first, left * sizeof(QueuedEvent));
  --head_;
  return &buf_[head_ + left];
}

}  // namespace anatomy::engine
