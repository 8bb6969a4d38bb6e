#pragma once
// Signal<Args...>: a typed, time-stamped observer point.
//
// A model declares the signals it emits (a collective finished on a
// communicator, a link's utilization sample, a checkpoint's write
// throughput, a controller's decision) and calls emit() where the thing
// happens; a report, a trace writer or a controller subscribes. Emitting
// with nobody subscribed is one test of an empty vector: no allocation, no
// call, no formatting, so a model may keep its emit() calls on the hot
// path and pay nothing when nobody listens (bench/README.md, "signals").
// Subscribers are called in subscription order, so the same run produces
// the same calls in the same order. A signal is owned by the run object
// that emits it (never global); a subscription lives as long as the signal.
//
//   core::Signal<SimTime, int, double> link_sample;   // (time, link, utilization)
//   link_sample.subscribe([&](SimTime t, int link, double u) { peak = std::max(peak, u); });
//   if (link_sample) link_sample.emit(now, id, util);   // the test is optional: emit() makes it too

#include <functional>
#include <utility>
#include <vector>

namespace anatomy::core {

template <class... Args>
class Signal {
 public:
  using Slot = std::function<void(Args...)>;

  void subscribe(Slot slot) { slots_.push_back(std::move(slot)); }
  // True when someone listens: lets an emitter skip work done only to build arguments.
  explicit operator bool() const { return !slots_.empty(); }
  size_t listeners() const { return slots_.size(); }

  template <class... A>
  void emit(A&&... args) const {
    if (slots_.empty()) return;
    for (const Slot& s : slots_) s(args...);
  }

 private:
  std::vector<Slot> slots_;
};

}  // namespace anatomy::core
