#pragma once
// BlockList: a FIFO of queued events stored in fixed blocks of 16 that are
// recycled through a BlockPool.
//
// The ladder queue (ladder_queue.h) keeps thousands of buckets whose sizes
// swing between zero and tens of thousands as simulated time moves. A
// std::vector per bucket would either keep its peak capacity forever or
// free and reallocate it (page faults on every growth, which is what the
// old radix heap paid). Blocks instead go back to one LIFO free list when a
// bucket is drained, so the next append writes into memory that was just
// read and is still in cache, and the queue's memory never exceeds its peak
// number of pending events plus one partly filled block per bucket.
//
// Blocks are named by 32-bit ids and their links live in a side array, not
// in the blocks: following a list, or taking a free block, then reads a few
// cached bytes instead of the far end of a 640-byte block that is still in
// main memory, and drain() can prefetch blocks two links ahead.
//
//   BlockPool pool;
//   BlockList list;
//   list.append(pool, event);
//   list.drain(pool, [&](const QueuedEvent& e) { ... });  // list is empty after

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "engine/queued_event.h"

namespace anatomy::engine {

class BlockPool {
 public:
  using Id = uint32_t;
  static constexpr Id kNone = UINT32_MAX;
  static constexpr uint32_t kEvents = 16;  // 640 bytes, ten cache lines

  BlockPool() = default;
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;

  QueuedEvent* events(Id id) { return chunks_[id >> kChunkLog2].get()[id & (kChunk - 1)].events; }
  Id next(Id id) const { return next_[id]; }
  void link(Id from, Id to) { next_[from] = to; }

  Id take() {
    if (free_.empty()) grow();
    const Id id = free_.back();
    free_.pop_back();
    next_[id] = kNone;
    return id;
  }
  void give(Id id) { free_.push_back(id); }

  void prefetch(Id id) {
    const char* p = reinterpret_cast<const char*>(events(id));
    for (size_t off = 0; off < sizeof(Block); off += 64) __builtin_prefetch(p + off);
  }

 private:
  struct alignas(64) Block {
    QueuedEvent events[kEvents];
  };
  static constexpr int kChunkLog2 = 8;  // 256 blocks, 160 KB, per allocation
  static constexpr Id kChunk = Id{1} << kChunkLog2;
  void grow();
  // A chunk is raw memory: Block is an aggregate of trivially destructible
  // events, whose objects the allocation creates (C++20 implicit lifetime)
  // without writing them, so a page is touched only when a block on it is
  // first filled (QueuedEvent's null callback would otherwise be written
  // into all 160 KB of each chunk: a short run's page faults).
  struct Free {
    void operator()(Block* p) const { ::operator delete(p, std::align_val_t{alignof(Block)}); }
  };
  std::vector<std::unique_ptr<Block, Free>> chunks_;
  std::vector<Id> next_;  // per block: the next block of its list
  std::vector<Id> free_;  // LIFO: the most recently drained block first
};

struct BlockList {
  QueuedEvent* tail_events = nullptr;  // the tail block, to append without a lookup
  BlockPool::Id head = BlockPool::kNone;
  BlockPool::Id tail = BlockPool::kNone;
  size_t size = 0;

  bool empty() const { return size == 0; }

  void append(BlockPool& pool, const QueuedEvent& e) { *append(pool) = e; }
  // Adds an event at the end and returns its (unwritten) storage.
  QueuedEvent* append(BlockPool& pool) {
    const size_t fill = size % BlockPool::kEvents;
    if (fill == 0) {
      const BlockPool::Id b = pool.take();
      if (tail != BlockPool::kNone) pool.link(tail, b);
      else head = b;
      tail = b;
      tail_events = pool.events(b);
    }
    ++size;
    return &tail_events[fill];
  }

  // Visits every event in insertion order, returning each block to the pool
  // once it has been read; the list is empty afterwards. `f` may append to
  // other lists of the same pool.
  template <typename F>
  void drain(BlockPool& pool, F&& f) {
    BlockPool::Id b = head;
    size_t left = size;
    *this = BlockList{};
    if (b == BlockPool::kNone) return;
    pool.prefetch(b);
    BlockPool::Id ahead = pool.next(b);
    if (ahead != BlockPool::kNone) pool.prefetch(ahead);
    while (b != BlockPool::kNone) {
      // Blocks are scattered in memory: keep two in flight so a long list
      // streams instead of stalling once per block.
      if (ahead != BlockPool::kNone) {
        ahead = pool.next(ahead);
        if (ahead != BlockPool::kNone) pool.prefetch(ahead);
      }
      const BlockPool::Id next = pool.next(b);
      const QueuedEvent* ev = pool.events(b);
      const size_t n = left < BlockPool::kEvents ? left : BlockPool::kEvents;
      for (size_t i = 0; i < n; ++i) f(ev[i]);
      left -= n;
      pool.give(b);
      b = next;
    }
  }
};

}  // namespace anatomy::engine
