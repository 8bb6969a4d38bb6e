#pragma once
// Executor: runs any Schedule on any Network.
//
// Phases run in order; a repetition starts all of the phase's sends at
// once and ends when the last has drained (send completion); after a
// phase's last repetition the executor waits its latency_after. The
// schedule's base latency is paid first.
//
// Fast-forwarding: when the caller says the network is its own
// (`exclusive`), a repetition that ran on an otherwise idle network took a
// time that depends only on the phase, so the remaining repetitions of that
// phase are advanced in one step instead of being simulated again. This is
// what keeps a 1,024-rank step-by-step ring at a few thousand flows instead
// of millions. Without `exclusive` every repetition is simulated.
//
// Telemetry: with Options::done set, each schedule run to its end emits
// (communicator, start, end) on it: the collective's duration per
// communicator, as NCCL's profiler plugin sees it; a tuner or a report
// subscribes.

#include <functional>

#include <string>

#include "coll/schedule.h"
#include "core/signal.h"
#include "net/network.h"

namespace anatomy::coll {

// (communicator, start, end) of a collective that has finished.
using CollectiveSignal = core::Signal<const std::string&, SimTime, SimTime>;

struct ExecutionStats {
  SimTime start, end;
  int64_t repetitions_simulated = 0;
  int64_t repetitions_fast_forwarded = 0;
  int64_t sends_issued = 0;
};

class Executor {
 public:
  struct Options {
    bool exclusive = false;
    const CollectiveSignal* done = nullptr;   // emitted on at each end (null: nobody listens)
    const std::string* communicator = nullptr;  // its name in those signals; must outlive the executor
    net::TrafficClass traffic = net::TrafficClass::kUnlabelled;  // every send's label
  };

  Executor(net::Network& net, Options options) : net_(net), options_(options) {}

  // Starts the schedule now; `on_done` runs when it has finished. The
  // schedule must outlive the run.
  void start(const Schedule& s, engine::Callback on_done);
  const ExecutionStats& stats() const { return stats_; }

 private:
  void begin_phase();
  void begin_repetition();
  void repetition_done();
  void repetition_finished();
  void finish_phase();

  net::Network& net_;
  Options options_;
  const Schedule* schedule_ = nullptr;
  engine::Callback on_done_;
  size_t phase_ = 0;
  int64_t rep_ = 0;
  int64_t outstanding_ = 0;
  SimTime rep_start_;
  uint64_t started_before_ = 0;
  bool rep_was_alone_ = false;
  ExecutionStats stats_;
};

}  // namespace anatomy::coll
