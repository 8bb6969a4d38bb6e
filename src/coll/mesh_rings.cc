#include "coll/mesh_rings.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <numeric>

namespace anatomy::coll {
namespace {

using Cycles = std::vector<std::vector<int>>;

// Backtracking for `want` directed Hamiltonian cycles that use each directed
// link at most `fold` times, built one after another, each from vertex 0.
// Requiring the cycles' first steps not to decrease (to increase, when each
// link is used once) removes the orderings of the same set. Gives up after
// `budget` extensions.
class Search {
 public:
  Search(int n, int want, long budget, int fold = 1)
      : n_(n),
        want_(want),
        fold_(fold),
        budget_(budget),
        used_(static_cast<size_t>(n) * n, 0),
        on_path_(n, 0) {}

  bool run() { return next_cycle(1); }
  Cycles take() { return std::move(found_); }

 private:
  uint8_t& used(int a, int b) { return used_[static_cast<size_t>(a) * n_ + b]; }

  bool full(int a, int b) { return used(a, b) >= fold_; }

  bool next_cycle(int first_step_min) {
    if (static_cast<int>(found_.size()) == want_) return true;
    for (int x = first_step_min; x < n_; ++x) {
      if (full(0, x)) continue;
      ++used(0, x);
      path_ = {0, x};
      on_path_.assign(n_, 0);
      on_path_[0] = on_path_[x] = 1;
      const bool ok = extend();
      --used(0, x);
      if (ok) return true;
      if (budget_ < 0) return false;
    }
    return false;
  }

  bool extend() {
    if (--budget_ < 0) return false;
    const int last = path_.back();
    if (static_cast<int>(path_.size()) == n_) {
      if (full(last, 0)) return false;
      ++used(last, 0);
      found_.push_back(path_);
      const std::vector<int> mine = path_;
      const std::vector<uint8_t> mine_on = on_path_;
      if (next_cycle(fold_ == 1 ? mine[1] + 1 : mine[1])) return true;
      found_.pop_back();
      path_ = mine;
      on_path_ = mine_on;
      --used(last, 0);
      return false;
    }
    for (int v = 1; v < n_; ++v) {
      if (on_path_[v] || full(last, v)) continue;
      ++used(last, v);
      on_path_[v] = 1;
      path_.push_back(v);
      if (extend()) return true;
      path_.pop_back();
      on_path_[v] = 0;
      --used(last, v);
      if (budget_ < 0) return false;
    }
    return false;
  }

  int n_, want_, fold_;
  long budget_;
  std::vector<uint8_t> used_, on_path_;
  std::vector<int> path_;
  Cycles found_;
};

// i -> i + s (mod n) is a Hamiltonian cycle when s is coprime to n, and
// different strides use different directed links.
Cycles stride_cycles(int n) {
  Cycles c;
  for (int s = 1; s < n; ++s) {
    if (std::gcd(s, n) != 1) continue;
    std::vector<int> cyc(n);
    for (int i = 0; i < n; ++i) cyc[i] = static_cast<int>((static_cast<long>(i) * s) % n);
    c.push_back(std::move(cyc));
  }
  return c;
}

Cycles make_rings(int n) {
  if (n < 3) return {};
  const Cycles strides = stride_cycles(n);
  // Every link once: n - 1 cycles (the strides, when n is prime).
  if (static_cast<int>(strides.size()) == n - 1) return strides;
  if (Search s(n, n - 1, 2'000'000); s.run()) return s.take();
  // Where that search fails (it does for n = 4 and 6, which have no such
  // set), every link twice: 2(n - 1)
  // cycles, each link carrying two of them at half its rate, so a GPU
  // still sends on all n - 1 links. NCCL's ring search does the same
  // arithmetic: a channel takes a share of each link it crosses, and
  // channels may share a link (the 6 directed Hamiltonian cycles of 4 GPUs
  // cross each link exactly twice).
  if (Search s(n, 2 * (n - 1), 2'000'000, 2); s.run()) return s.take();
  // Else one cycle fewer at a time, down to what strides give.
  for (int want = n - 2; want > static_cast<int>(strides.size()); --want) {
    Search s(n, want, 2'000'000);
    if (s.run()) return s.take();
  }
  return strides;
}

Cycles make_paths(int n) {
  if (n < 2 || n % 2 != 0) return {};
  Cycles forward;
  for (int i = 0; i < n / 2; ++i) {
    std::vector<int> p(n);
    for (int k = 0; k < n; ++k) {
      const int off = k % 2 == 1 ? (k + 1) / 2 : -(k / 2);
      p[k] = ((i + off) % n + n) % n;
    }
    forward.push_back(std::move(p));
  }
  Cycles all = forward;
  for (const auto& p : forward) all.emplace_back(p.rbegin(), p.rend());
  return all;
}

}  // namespace

const std::vector<std::vector<int>>& mesh_paths(int n) {
  static std::mutex mu;
  static std::map<int, Cycles> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(n);
  if (it == cache.end()) it = cache.emplace(n, make_paths(n)).first;
  return it->second;
}

const std::vector<std::vector<int>>& mesh_rings(int n) {
  static std::mutex mu;
  static std::map<int, Cycles> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(n);
  if (it == cache.end()) it = cache.emplace(n, make_rings(n)).first;
  return it->second;
}

}  // namespace anatomy::coll
