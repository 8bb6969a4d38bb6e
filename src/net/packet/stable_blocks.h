#pragma once
// StableBlocks<T>: a growing array whose elements never move, in blocks of
// 2^kBlockBits, indexed like a vector.
//
// The packet network keeps its ports and flows in one: a reference to one
// stays valid while more are added (ports are created on first use, while
// another port's reference is held), as std::deque guarantees too, but an
// index costs a shift, a mask and a read of a short table of blocks that
// stays in cache, where libstdc++'s deque of 512-byte blocks keeps a map of
// thousands of entries for a large fabric's ports.
//
//   StableBlocks<Port> ports;
//   ports.emplace_back();
//   Port& p = ports[0];

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace anatomy::net::packet {

template <typename T, unsigned kBlockBits = 10>
class StableBlocks {
 public:
  static constexpr size_t kBlock = size_t{1} << kBlockBits;

  StableBlocks() = default;
  StableBlocks(const StableBlocks&) = delete;
  StableBlocks& operator=(const StableBlocks&) = delete;
  StableBlocks(StableBlocks&& o) noexcept : blocks_(std::move(o.blocks_)), size_(std::exchange(o.size_, 0)) {}
  StableBlocks& operator=(StableBlocks&& o) noexcept {
    if (this != &o) {
      destroy();
      blocks_ = std::move(o.blocks_);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  ~StableBlocks() { destroy(); }

  T& operator[](size_t i) { return blocks_[i >> kBlockBits].get()[i & (kBlock - 1)]; }
  const T& operator[](size_t i) const { return blocks_[i >> kBlockBits].get()[i & (kBlock - 1)]; }
  size_t size() const { return size_; }
  size_t capacity() const { return blocks_.size() * kBlock; }  // allocated, made or not
  bool empty() const { return size_ == 0; }
  T& back() { return (*this)[size_ - 1]; }

  // A block is raw memory until its elements are made, one at a time: the
  // pages of a block no element reached are never touched (a small run's
  // fault-in cost; one part's 1,024 flows would otherwise fault in whole).
  T& emplace_back() {
    if (size_ == blocks_.size() * kBlock)
      blocks_.emplace_back(static_cast<T*>(::operator new(kBlock * sizeof(T), std::align_val_t{alignof(T)})));
    T* t = ::new (static_cast<void*>(blocks_[size_ >> kBlockBits].get() + (size_ & (kBlock - 1)))) T{};
    ++size_;
    return *t;
  }
  void push_back(T&& v) { emplace_back() = std::move(v); }

  template <typename F>
  void for_each(F&& f) const {
    for (size_t i = 0; i < size_; ++i) f((*this)[i]);
  }

 private:
  struct Free {
    void operator()(T* p) const { ::operator delete(p, std::align_val_t{alignof(T)}); }
  };
  void destroy() {
    for (size_t i = size_; i-- > 0;) (*this)[i].~T();
    size_ = 0;
    blocks_.clear();
  }

  std::vector<std::unique_ptr<T, Free>> blocks_;
  size_t size_ = 0;
};

}  // namespace anatomy::net::packet
