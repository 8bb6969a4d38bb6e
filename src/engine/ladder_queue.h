#pragma once
// LadderQueue: the simulator's pending events, popped in (time, insertion)
// order. A ladder queue (Tang, Goh & Thng 2005) adapted to keep inserts and
// moves sequential in memory.
//
// Three tiers, each holding later times than the one below:
//   - top: one unsorted list for every event at or after top_start_ps_;
//     an insert there is an append.
//   - rungs: arrays of buckets of equal, power-of-two width. Rung 0 is cut
//     from the top when everything below is used up; a bucket that is too
//     full to sort when it becomes current is split into a finer rung below
//     it. A new event whose time falls in a rung's not-yet-current buckets
//     is appended to its bucket.
//   - bottom: the current bucket, sorted, popped from the front; an event
//     that lands below every rung is inserted into it in order.
// Each event is therefore appended once and moved a few times, always in
// bulk through short lists, and only the current bucket (tens of events) is
// ever sorted. With 10^6 events pending an insert touches one of at most
// kMaxBuckets bucket tails, which stay in cache, instead of a random line
// of a 40 MB heap.
//
// Ties stay in insertion order without a sequence number: events with equal
// times always sit in the same list, every list is filled by appends or by
// order-preserving moves, and the bottom is sorted stably.
//
//   LadderQueue q;
//   q.push(event);
//   if (QueuedEvent* e = q.front()) { QueuedEvent ev = *e; q.pop_front(); }

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/block_list.h"
#include "engine/event_run.h"
#include "engine/queued_event.h"

namespace anatomy::engine {

class LadderQueue {
 public:
  // A bucket with at most this many events is sorted into the bottom; a
  // larger one (of more than one distinct time) is split into a finer rung.
  static constexpr size_t kSortMax = 48;
  // Most buckets a rung has, so that inserts touch few distinct tails and
  // those stay in cache. On the hold model with 10^6 pending, 1,024 ran
  // about 43 ns/event against 45 for 2,048, 50 for 4,096 and 45-50 for 256
  // and 512 (fewer buckets make rung 0's buckets bigger and the split below
  // them costlier).
  static constexpr size_t kMaxBuckets = 1024;
  // Target events per bucket when cutting rung 0 from the top, and when
  // splitting a bucket (or the bottom) into a finer rung.
  static constexpr size_t kTopFill = 8;
  static constexpr size_t kChildFill = 8;
  // Bits for an event's position when small buckets are sorted by rank.
  static constexpr int kRankBits = 6;
  static_assert(kSortMax < (size_t{1} << kRankBits));

  LadderQueue() = default;
  LadderQueue(const LadderQueue&) = delete;
  LadderQueue& operator=(const LadderQueue&) = delete;
  // Destroys the callbacks of the events still queued.
  ~LadderQueue();

  // Adds an event at `time_ps`, which must not be earlier than the last
  // event popped, and returns its storage with time_ps set; the caller
  // fills in the rest before the next call. (Writing the fields in place,
  // rather than copying a finished event in, avoids reading back a
  // just-written temporary with wider loads, which stalls store forwarding.)
  QueuedEvent& push(uint64_t time_ps) {
    ++size_;
    QueuedEvent* e = place(time_ps);
    e->time_ps = time_ps;
    return *e;
  }
  void push(const QueuedEvent& e) { push(e.time_ps) = e; }

  // The earliest event, or nullptr when the queue is empty. The pointer is
  // valid until the next push() or pop_front().
  QueuedEvent* front() {
    if (!bottom_.empty() || refill()) return &bottom_.front();
    return nullptr;
  }
  // The event k places after front() if it is already sorted (in the
  // bottom), else nullptr; never refills. For prefetch hints.
  QueuedEvent* sorted_ahead(size_t k) { return k < bottom_.size() ? &bottom_.at(k) : nullptr; }
  // Removes the event front() returned.
  void pop_front() {
    bottom_.pop_front();
    --size_;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Rungs in use; for tests.
  size_t depth() const { return depth_; }

 private:
  struct Rung {
    uint64_t start_ps = 0;
    uint64_t current_start_ps = 0;  // start of the first bucket not yet taken
    int width_log2 = 0;
    size_t current = 0;  // index of that bucket
    std::vector<BlockList> buckets;
  };

  // Where an event at `time_ps` goes.
  QueuedEvent* place(uint64_t time_ps) {
    if (time_ps >= top_start_ps_) {
      top_min_ps_ = time_ps < top_min_ps_ ? time_ps : top_min_ps_;
      top_max_ps_ = time_ps > top_max_ps_ ? time_ps : top_max_ps_;
      return top_.append(pool_);
    }
    // Coarsest rung first: in steady state almost every event lands in
    // rung 0 or the top.
    for (size_t r = 0; r < depth_; ++r) {
      Rung& g = rungs_[r];
      if (time_ps >= g.current_start_ps) return g.buckets[(time_ps - g.start_ps) >> g.width_log2].append(pool_);
    }
    return place_in_bottom(time_ps);
  }
  QueuedEvent* place_in_bottom(uint64_t time_ps);
  // Loads the bottom from the lowest rung or the top; false if all empty.
  bool refill();
  void split_top();
  // Pushes an empty rung of `count` buckets starting at `start_ps` below
  // the existing ones and returns it.
  Rung& add_rung(uint64_t start_ps, int width_log2, size_t count);
  // Moves `list`, whose times lie in [start_ps, start_ps + 2^width_log2),
  // into the bottom (empty on entry), sorted.
  void load_bottom(BlockList& list, uint64_t start_ps, int width_log2);
  // Turns a bottom that has grown too large to insert into cheaply into a
  // new lowest rung.
  void split_bottom();

  BlockPool pool_;
  BlockList top_;
  uint64_t top_start_ps_ = 0;
  uint64_t top_min_ps_ = UINT64_MAX;
  uint64_t top_max_ps_ = 0;
  std::vector<Rung> rungs_;  // [0, depth_) in use, coarsest first
  size_t depth_ = 0;
  EventRun bottom_;
  size_t size_ = 0;
};

}  // namespace anatomy::engine
