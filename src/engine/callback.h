#pragma once
// Callback: a move-only `void()` callable that the event queue can relocate
// with memcpy.
//
// The event queue moves every pending event several times (see
// simulator.h), so the callback must be cheap to move and must not allocate
// for the common case of a lambda capturing a pointer and a few integers.
// A callable that is trivially copyable and fits in 16 bytes (a pointer and an index or two) is stored
// inline; any other callable is stored on the heap and only its pointer is
// kept inline. Either way the object itself is trivially relocatable.
//
// A callable may also say what memory it will touch when it runs: one with
// prefetch_far() and prefetch_near() members (PrefetchHinted below), when
// the simulator is handed it as such, gets those called on the events two
// and one places ahead of the one it runs, so their first cache misses
// overlap the current event instead of stalling their own (see
// Simulator::pop_and_run). Far may only issue prefetches of addresses it
// can compute without touching cold memory; near runs one event later and
// may read what far prefetched. Whether a callable hints is known from its
// type, so the Callback carries no flag and plain callables' dispatchers
// never see the hint ops (engine_bench HoldModel: a runtime flag here cost
// every event about 9%).
//
//   Callback cb([this, id] { on_done(id); });
//   cb();

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace anatomy::engine {

class Callback {
 public:
  static constexpr size_t kInlineBytes = 16;
  // kRun calls and then destroys, so running a queued event costs one
  // indirect call rather than two.
  // kPrefetchFar/kPrefetchNear call the callable's hints (never it).
  enum class Op { kCall, kDestroy, kRun, kPrefetchFar, kPrefetchNear };

  // The callable as plain bytes, for containers that move it with memcpy
  // (the event queue). Exactly one of invoke() or destroy() must follow.
  struct Raw {
    void (*fn)(Op, void*) = nullptr;
    alignas(8) unsigned char buf[kInlineBytes];
    void invoke() { fn(Op::kRun, buf); }
    void destroy() { fn(Op::kDestroy, buf); }
    void prefetch_far() { fn(Op::kPrefetchFar, buf); }
    void prefetch_near() { fn(Op::kPrefetchNear, buf); }
  };
  Raw release() && {
    Raw r;
    r.fn = fn_;
    // Word by word: a callable usually fills only the first word, just
    // before this runs, and a 16-byte load over that 8-byte store would
    // stall instead of forwarding.
    // (The empty asm keeps the compiler from merging the two loads again.)
    static_assert(kInlineBytes == 16);
    uint64_t w0, w1;
    std::memcpy(&w0, buf_, 8);
    std::memcpy(&w1, buf_ + 8, 8);
    asm("" : "+r"(w0), "+r"(w1));
    std::memcpy(r.buf, &w0, 8);
    std::memcpy(r.buf + 8, &w1, 8);
    fn_ = nullptr;
    return r;
  }
  Callback() = default;

  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Callback>>>
  Callback(F&& f) {  // NOLINT(google-explicit-constructor): lambdas convert implicitly
    using Fn = std::decay_t<F>;
    if constexpr (sizeof(Fn) <= kInlineBytes && alignof(Fn) <= 8 &&
                  std::is_trivially_copyable_v<Fn> && std::is_trivially_destructible_v<Fn>) {
      ::new (static_cast<void*>(buf_)) Fn(std::forward<F>(f));
      if constexpr (kHints<Fn>) {
        fn_ = [](Op op, void* buf) {
          const Fn& g = *std::launder(reinterpret_cast<Fn*>(buf));
          if (op == Op::kPrefetchFar) g.prefetch_far();
          else if (op == Op::kPrefetchNear) g.prefetch_near();
          else if (op != Op::kDestroy) (*std::launder(reinterpret_cast<Fn*>(buf)))();
        };
      } else {
        fn_ = [](Op op, void* buf) {
          if (op != Op::kDestroy) (*std::launder(reinterpret_cast<Fn*>(buf)))();
        };  // trivially destructible: destroying is a no-op
      }
    } else {
      Fn* heap = new Fn(std::forward<F>(f));
      std::memcpy(buf_, &heap, sizeof(heap));
      fn_ = [](Op op, void* buf) {
        Fn* p;
        std::memcpy(&p, buf, sizeof(p));
        // Never sent here (only PrefetchHinted callables are asked for
        // hints); a stray one must not run the event and free it.
        if (op == Op::kPrefetchFar || op == Op::kPrefetchNear) return;
        if (op != Op::kDestroy) (*p)();
        if (op != Op::kCall) delete p;
      };
    }
  }

  Callback(Callback&& o) noexcept { steal(o); }
  Callback& operator=(Callback&& o) noexcept {
    if (this != &o) {
      reset();
      steal(o);
    }
    return *this;
  }
  Callback(const Callback&) = delete;
  Callback& operator=(const Callback&) = delete;
  ~Callback() { reset(); }

  explicit operator bool() const { return fn_ != nullptr; }
  void operator()() { fn_(Op::kCall, buf_); }

  void reset() {
    if (fn_) fn_(Op::kDestroy, buf_);
    fn_ = nullptr;
  }

 private:
  void steal(Callback& o) {
    std::memcpy(buf_, o.buf_, kInlineBytes);
    fn_ = o.fn_;
    o.fn_ = nullptr;
  }

  alignas(8) unsigned char buf_[kInlineBytes];
  void (*fn_)(Op, void*) = nullptr;

 public:
  // Callables stored inline that have both hints: the only ones the
  // simulator may send kPrefetchFar/kPrefetchNear (every other dispatcher
  // takes any op but kDestroy as a call).
  template <typename Fn>
  static constexpr bool kHints = sizeof(Fn) <= kInlineBytes && alignof(Fn) <= 8 &&
                                 std::is_trivially_copyable_v<Fn> && std::is_trivially_destructible_v<Fn> &&
                                 requires(const Fn& g) {
                                   g.prefetch_far();
                                   g.prefetch_near();
                                 };
};

// A callable the simulator will ask for prefetch hints (see the top).
template <typename F>
concept PrefetchHinted = Callback::kHints<std::decay_t<F>>;

}  // namespace anatomy::engine
