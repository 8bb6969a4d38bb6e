#pragma once
// What changes during a job and what reacts to it: the scenario's
// `job.conditions`, `job.controllers` and `job.mechanisms` (adaptation.h
// runs them).
//
// A condition is a stretch of wall time during which something in the
// cluster is not as the steady iteration assumed: another tenant's traffic
// or a degraded, flapping or erroring link on a fabric link the job uses, a
// straggling GPU, pauses (garbage collection, memory pressure), storage
// congestion. Its episodes come from a schedule (at, every, count) or from
// a seeded Poisson stream (rate_per_hour: stream "conditions", sub-stream
// the condition's index); a straggler's GPUs are drawn from stream
// "conditions.gpus", sub-stream the condition's index.
//
// A controller is one small strategy that reads the job's telemetry and
// acts: it needs its trigger to hold for `reaction_time` before it acts
// (and its release to hold as long before it undoes the action), and each
// action stops training for `decision_cost`. Both can be mis-set on
// purpose: a reaction time shorter than the condition's own rhythm makes a
// controller follow every flap (oscillation), a threshold too low makes it
// act on noise.

#include <string>
#include <vector>

#include "core/units.h"

namespace anatomy::job {

enum class ConditionKind {
  kBackgroundTraffic,  // another tenant takes `load` of a link's bandwidth
  kLinkDegradation,    // a link keeps `bandwidth_fraction` (or loses packets at `bit_error_rate`)
  kLinkFlap,           // a link goes down for `duration`, every `every`
  kStraggler,          // `gpus` GPUs compute `slowdown` slower
  kPause,              // a rank stops for `pause` (GC, memory pressure), everyone waits
  kStorageCongestion,  // checkpoint storage keeps `bandwidth_fraction` of its bandwidth
};
const char* to_string(ConditionKind k);

struct ConditionSpec {
  ConditionKind kind = ConditionKind::kBackgroundTraffic;
  core::JobTime at;                 // first episode, from the job's start
  core::SimTime duration = core::SimTime::sec(60);  // each episode
  core::JobTime every;              // repeat period (0: `count` is 1)
  int count = 1;                    // episodes on the schedule (0: until the job ends)
  // Storage congestion: instead of `at`/`every`, an episode in the storage
  // slot that follows each of this job's scheduled checkpoint writes (the
  // next tenant's write, staggered `at` after the end of our steady write):
  // a checkpoint on time misses it, one later than `at` runs into it.
  bool after_checkpoints = false;
  double rate_per_hour = 0;         // > 0: episodes from a seeded Poisson stream instead
  int link = 0;                     // which fabric link: index in the steady iteration's busiest (0: the busiest)
  double load = 0.5;                // background traffic: the tenant's share of the link
  double bandwidth_fraction = 0.1;  // degradation: what the link keeps; storage: what storage keeps
  double bit_error_rate = 0;        // degradation by bit errors instead (go-back-N, see adaptation.cc)
  double slowdown = 0.2;            // straggler: compute takes (1 + slowdown)
  double slowdown_spread = 0;       // straggler: each GPU's slowdown uniform in slowdown x [1 - s, 1 + s]
  int gpus = 1;                     // straggler: how many GPUs (drawn from stream "conditions.gpus")
  core::SimTime pause = core::SimTime::ms(100);     // pause: each stop
  core::SimTime pause_every = core::SimTime::sec(10);  // pause: one stop per this, during the episode
};

enum class ControllerKind {
  kCollectiveTuner,  // re-selects the gradient collectives' algorithm/protocol from observed times
  kCheckpoint,       // Young/Daly from observed failures and checkpoint cost; compression under storage congestion
  kBatch,            // gradient accumulation up under sustained exposed communication
  kStraggler,        // swaps a persistently slow GPU for a spare, or rebalances micro-batches
  kReroute,          // moves traffic off a degraded or congested link (adaptive routing, plane failover)
};
const char* to_string(ControllerKind k);

struct ControllerSpec {
  ControllerKind kind = ControllerKind::kReroute;
  core::SimTime reaction_time = core::SimTime::sec(5);  // the trigger (or release) must hold this long
  core::SimTime decision_cost = core::SimTime::zero();  // training stops this long per action
  double threshold = 1.10;   // trigger: observed / expected above this (iteration, collective, write time)
  double release = 1.05;     // undo: the condition gone (observed / expected below this when undone)
  int max_accumulation = 4;  // batch: largest gradient-accumulation multiple of the configured batch
  bool rebalance = false;    // straggler: rebalance micro-batches instead of swapping in a spare
  int min_failures = 1;      // checkpoint: failures seen before Young/Daly replaces the configured interval
  bool compression = true;   // checkpoint: may turn compression on when storage is congested
  double compression_ratio = 0.5;  // checkpoint: stored / raw bytes with compression on
};

// The inputs of the cascade's mechanisms (adaptation.h): the thresholds at
// which one link of the chain sets off the next.
struct MechanismSpec {
  // NCCL_IB_TIMEOUT 20 (4.096 us x 2^20) and NCCL_IB_RETRY_CNT 7, NCCL's
  // defaults: a stalled packet is resent after retry_timeout, the queue
  // pair gives up after retry_count of them.
  core::SimTime retry_timeout = core::SimTime::us(4'294'967);
  int retry_count = 7;
  // HBM free beyond the plan's fit; < 0: the GPU's HBM less the memory fit.
  core::Bytes memory_headroom = core::Bytes(-1);
  // The caching allocator's answer to an allocation it cannot serve: free
  // the cache and retry, synchronizing the device (an input; the article's
  // 100 ms, no measurement).
  core::SimTime allocator_pause = core::SimTime::ms(100);
  // Telemetry sample period (0: one steady iteration).
  core::SimTime telemetry_interval = core::SimTime::zero();
};

}  // namespace anatomy::job
