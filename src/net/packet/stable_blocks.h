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

#include <cstdint>
#include <memory>
#include <vector>

namespace anatomy::net::packet {

template <typename T, unsigned kBlockBits = 10>
class StableBlocks {
 public:
  static constexpr size_t kBlock = size_t{1} << kBlockBits;

  T& operator[](size_t i) { return blocks_[i >> kBlockBits][i & (kBlock - 1)]; }
  const T& operator[](size_t i) const { return blocks_[i >> kBlockBits][i & (kBlock - 1)]; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& back() { return (*this)[size_ - 1]; }

  T& emplace_back() {
    if (size_ == blocks_.size() * kBlock) blocks_.push_back(std::make_unique<T[]>(kBlock));
    T& t = (*this)[size_++];
    t = T{};
    return t;
  }
  void push_back(T&& v) { emplace_back() = std::move(v); }

  template <typename F>
  void for_each(F&& f) const {
    for (size_t i = 0; i < size_; ++i) f((*this)[i]);
  }

 private:
  std::vector<std::unique_ptr<T[]>> blocks_;
  size_t size_ = 0;
};

}  // namespace anatomy::net::packet
