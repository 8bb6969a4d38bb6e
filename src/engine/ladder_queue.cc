#include "engine/ladder_queue.h"

#include <algorithm>
#include <bit>

namespace anatomy::engine {

namespace {

// Smallest k with 2^k >= x, for x >= 1.
int ceil_log2(uint64_t x) { return x <= 1 ? 0 : static_cast<int>(std::bit_width(x - 1)); }

// Buckets for `n` events at `fill` per bucket: a power of two in [2, kMaxBuckets].
size_t bucket_target(size_t n, size_t fill) {
  const size_t want = std::max<size_t>(n / fill, 2);
  return std::min(std::bit_floor(want), LadderQueue::kMaxBuckets);
}

// Stable: equal times keep their order, which is insertion order.
void insertion_sort(QueuedEvent* a, size_t n) {
  for (size_t i = 1; i < n; ++i) {
    const QueuedEvent x = a[i];
    size_t j = i;
    for (; j > 0 && a[j - 1].time_ps > x.time_ps; --j) a[j] = a[j - 1];
    a[j] = x;
  }
}

// keys[i] = (offset of event i's time from start_ps, i): distinct, and in
// the order the events must run.
template <typename Key>
void fill_rank_keys(BlockPool& pool, const BlockList& list, uint64_t start_ps, Key* keys) {
  size_t i = 0;
  for (BlockPool::Id b = list.head; i < list.size; b = pool.next(b)) {
    const QueuedEvent* ev = pool.events(b);
    const size_t m = std::min<size_t>(list.size - i, BlockPool::kEvents);
    for (size_t k = 0; k < m; ++k, ++i)
      keys[i] = static_cast<Key>(((ev[k].time_ps - start_ps) << LadderQueue::kRankBits) | i);
  }
}

template <typename Key>
void rank_keys(const Key* keys, size_t n, uint8_t* rank) {
  for (size_t i = 0; i < n; ++i) {
    unsigned r = 0;
    for (size_t j = 0; j < n; ++j) r += keys[j] < keys[i];
    rank[i] = static_cast<uint8_t>(r);
  }
}

}  // namespace

LadderQueue::~LadderQueue() {
  auto destroy = [](const QueuedEvent& e) {
    Callback::Raw cb = e.cb;
    cb.destroy();
  };
  top_.drain(pool_, destroy);
  for (size_t r = 0; r < depth_; ++r)
    for (BlockList& b : rungs_[r].buckets) b.drain(pool_, destroy);
  for (const QueuedEvent& e : bottom_) destroy(e);
}

LadderQueue::Rung& LadderQueue::add_rung(uint64_t start_ps, int width_log2, size_t count) {
  if (depth_ == rungs_.size()) rungs_.emplace_back();
  Rung& g = rungs_[depth_++];
  g.start_ps = start_ps;
  g.current_start_ps = start_ps;
  g.width_log2 = width_log2;
  g.current = 0;
  g.buckets.assign(count, BlockList{});  // keeps the vector's capacity
  return g;
}

void LadderQueue::load_bottom(BlockList& list, uint64_t start_ps, int width_log2) {
  const size_t n = list.size;
  QueuedEvent* out = bottom_.reset(n);
  if (width_log2 == 0 || n <= 1) {
    // A bucket one picosecond wide holds a single time: already in order.
    list.drain(pool_, [&](const QueuedEvent& e) { *out++ = e; });
    return;
  }
  if (n > kSortMax || width_log2 > 64 - kRankBits) {
    list.drain(pool_, [&](const QueuedEvent& e) { *out++ = e; });
    insertion_sort(bottom_.reset(n), n);
    return;
  }
  // Small bucket: rank each event by counting the events before it in
  // (time, position) order, then write it straight to its place. The
  // comparisons are branch-free, unlike an insertion sort's, whose
  // mispredictions cost more than the n^2 compares for n <= kSortMax; with
  // 32-bit keys (the usual case: buckets narrower than 2^26 ps) the
  // compiler does them four at a time.
  uint8_t rank[kSortMax];
  if (width_log2 <= 32 - kRankBits) {
    uint32_t keys[kSortMax];
    fill_rank_keys(pool_, list, start_ps, keys);
    rank_keys(keys, n, rank);
  } else {
    uint64_t keys[kSortMax];
    fill_rank_keys(pool_, list, start_ps, keys);
    rank_keys(keys, n, rank);
  }
  size_t i = 0;
  list.drain(pool_, [&](const QueuedEvent& e) { out[rank[i++]] = e; });
}

void LadderQueue::split_top() {
  const uint64_t lo = top_min_ps_, hi = top_max_ps_;
  const size_t n = top_.size;
  top_min_ps_ = UINT64_MAX;
  top_max_ps_ = 0;
  if (n <= kSortMax || lo == hi) {
    // Times are at most 2^63 - 1, so hi + 1 cannot wrap.
    top_start_ps_ = hi + 1;
    load_bottom(top_, lo, lo == hi ? 0 : ceil_log2(hi - lo + 1));
    return;
  }
  // Cover [lo, hi] with power-of-two-wide buckets, so bucket indices are
  // shifts rather than divisions.
  const uint64_t span = hi - lo + 1;
  const uint64_t target = bucket_target(n, kTopFill);
  const int width_log2 = ceil_log2((span + target - 1) / target);
  const size_t count = static_cast<size_t>(((span - 1) >> width_log2) + 1);
  Rung& g = add_rung(lo, width_log2, count);
  top_start_ps_ = lo + (static_cast<uint64_t>(count) << width_log2);
  top_.drain(pool_, [&](const QueuedEvent& e) {
    g.buckets[(e.time_ps - lo) >> width_log2].append(pool_, e);
  });
}

bool LadderQueue::refill() {
  bottom_.clear();
  for (;;) {
    if (depth_ == 0) {
      if (top_.empty()) return false;
      split_top();
      if (!bottom_.empty()) return true;
      continue;
    }
    Rung& g = rungs_[depth_ - 1];
    while (g.current < g.buckets.size() && g.buckets[g.current].empty()) ++g.current;
    if (g.current == g.buckets.size()) {
      --depth_;  // used up; its range now belongs to the bottom
      continue;
    }
    const int width_log2 = g.width_log2;
    const uint64_t start_ps = g.start_ps + (static_cast<uint64_t>(g.current) << width_log2);
    BlockList list = g.buckets[g.current];
    g.buckets[g.current] = BlockList{};
    ++g.current;
    g.current_start_ps = g.start_ps + (static_cast<uint64_t>(g.current) << width_log2);
    if (list.size <= kSortMax || width_log2 == 0) {
      load_bottom(list, start_ps, width_log2);
      return true;
    }
    const int split_log2 = std::min(std::countr_zero(bucket_target(list.size, kChildFill)), width_log2);
    const int child_log2 = width_log2 - split_log2;
    Rung& child = add_rung(start_ps, child_log2, size_t{1} << split_log2);  // invalidates g
    list.drain(pool_, [&](const QueuedEvent& e) {
      child.buckets[(e.time_ps - start_ps) >> child_log2].append(pool_, e);
    });
  }
}

QueuedEvent* LadderQueue::place_in_bottom(uint64_t time_ps) {
  if (QueuedEvent* e = bottom_.insert(time_ps, kSortMax)) return e;
  // Events keep landing inside a large bottom: spread it over a rung
  // instead of shifting it on every insert.
  split_bottom();
  return place(time_ps);
}

void LadderQueue::split_bottom() {
  const uint64_t end_ps = depth_ > 0 ? rungs_[depth_ - 1].current_start_ps : top_start_ps_;
  const uint64_t lo = bottom_.front().time_ps;
  const uint64_t span = end_ps - lo;
  const uint64_t target = bucket_target(bottom_.size(), kChildFill);
  const int width_log2 = ceil_log2((span + target - 1) / target);
  const size_t count = static_cast<size_t>(((span - 1) >> width_log2) + 1);
  Rung& g = add_rung(lo, width_log2, count);
  for (const QueuedEvent& e : bottom_) g.buckets[(e.time_ps - lo) >> width_log2].append(pool_, e);
  bottom_.clear();
}

}  // namespace anatomy::engine
