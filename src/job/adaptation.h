#pragma once
// Time-varying conditions, the telemetry they produce, the controllers that
// read it, and the cascade they set off — over a whole job's timeline.
//
// The model. The job's steady timeline (lifecycle.h) is the reference: at
// every instant it trains at the steady iteration's pace. A condition
// episode changes what one iteration costs while it lasts; the iteration is
// re-simulated on the changed cluster (a link's bandwidth scaled, a stage's
// compute slowed, the gradient collectives' algorithm pinned, the batch
// grown), once per distinct state, and the job advances from change point to
// change point (an episode's start or end, a telemetry sample, a
// controller's action) at that state's pace. What an interval costs is its
// wall time less the time the steady job needs for the tokens it trained:
//   cost = dt - tokens(dt) / steady tokens per second,
// put in the bucket of the cause (a network condition: exposed
// communication; a straggler or a pause: waiting on others;
// storage: checkpoint stalls; a crash: failure recovery and lost work),
// and taken from the job's productive training. Where the timeline does not
// train (its startup, a failure's recovery, training a failure then throws
// away, a checkpoint's stall) an episode costs nothing: those hours are
// already in their buckets. The timeline runs at the steady pace, so the
// checkpoints the conditions push past the job's end are not written
// (AdaptationResult::checkpoints_unreached): their stalls go back to
// training, which the conditions were charged on.
//
// Telemetry. Every change point emits typed signals (Telemetry below): the
// iteration's time against the steady one, the gradient collectives' time
// as their communicators' executors report it (coll::CollectiveSignal)
// against the same on the healthy cluster, each degraded link's available
// capacity, each stage's compute against its steady compute, storage
// throughput, stalls, retries, failures and restarts. Controllers subscribe
// to the signals they read; the report subscribes to all of them.
//
// Stalls and the cascade. A link that carries nothing (a flap, or a
// degradation below 0.1% of its bandwidth) stops the synchronous step. The
// packets it dropped are resent when the transport's retry timer fires, so
// an outage of o costs retry_timeout x ceil(o / retry_timeout); one of
// retry_count x retry_timeout or more exhausts the queue pair and crashes
// the job (detection, teardown, restart, the work since the last
// checkpoint). Each stall then goes down the article's chain, one
// threshold per link:
//   stall -> memory pressure: the gradient buckets produced while the
//     stall lasts (gradient bytes per GPU / backward compute time x stall)
//     wait in HBM; past the headroom (HBM less the plan's fit) the caching
//     allocator frees its cache and retries: allocator_pause;
//   pause -> load imbalance: the paused stage's peers wait for it at the
//     next collective, less what it idles anyway (its steady waiting);
//   delay -> checkpoint overwhelms storage: the next checkpoint, delayed by
//     the chain so far, meets a storage-congestion episode it would have
//     missed: one under way when it starts slows all of its write; one that
//     starts during it (another tenant's write staggered after ours,
//     ConditionSpec::after_checkpoints) slows the share of its bytes left
//     when it starts, (t + W - start) / W for a write of W from t.
// Collective tuner. It reads its communicator's collective times; when they
// drift past its threshold (either way) from those it last chose on, it
// times every algorithm/protocol NCCL offers for the gradient collectives
// on the cluster as it now is and moves to the fastest if that beats the
// current choice by the threshold.
// A reroute that acts before the first retry timer fires moves the queue
// pairs' traffic without loss and ends the stall; later, it ends it at the
// next retry. The report lists every link with its time and which
// controller broke the chain.

#include <string>
#include <vector>

#include "core/signal.h"
#include "job/adaptive_spec.h"
#include "job/checkpoint.h"
#include "job/job_spec.h"
#include "workload/iteration.h"

namespace anatomy::job {

// The signals the adaptation emits, all time-stamped in job time.
struct Telemetry {
  // (t, observed iteration, steady iteration)
  core::Signal<core::JobTime, core::SimTime, core::SimTime> iteration;
  // (t, communicator, its collectives' time per iteration as their
  // executors report it, the same on the healthy cluster with the static
  // choice); emitted when a collective tuner listens
  // (coll::CollectiveSignal, workload::IterationTelemetry).
  core::Signal<core::JobTime, const std::string&, core::SimTime, core::SimTime> collective;
  // (t, exposed DP communication as a fraction of the iteration)
  core::Signal<core::JobTime, double> exposed_comm;
  // (t, link index among the busiest fabric links, available capacity fraction)
  core::Signal<core::JobTime, int, double> link;
  // (t, pipeline stage, compute / steady compute)
  core::Signal<core::JobTime, int, double> stage_compute;
  // (t, storage bandwidth available fraction)
  core::Signal<core::JobTime, double> storage;
  // (t, what): stalls, retries, crashes, restarts, failures
  core::Signal<core::JobTime, const std::string&> event;
  // The job's timeline (lifecycle.h), as a cluster's monitoring sees it:
  // (t, cause) a failure or planned restart interrupts the job, every one
  // of them (JobResult::events keeps the first 200);
  core::Signal<core::JobTime, const std::string&> failure;
  // (t) training resumes after a recovery;
  core::Signal<core::JobTime> restart;
  // (t, bytes written, how long the write held storage) per checkpoint, so
  // its write throughput is bytes / time: the timeline's checkpoints in a
  // job without conditions or controllers (folded ones too), the
  // adaptation's, slowed or not, in one with them.
  core::Signal<core::JobTime, core::Bytes, core::SimTime> checkpoint;
};

struct ControllerDecision {
  core::JobTime at;
  std::string controller;  // to_string(ControllerKind)
  std::string signal;      // what triggered it, with its value
  std::string action;
  std::string effect;      // iteration time (or cost) before -> after
};

struct ConditionEpisode {
  int condition = 0;  // index in JobSpec::conditions
  ConditionKind kind;
  core::JobTime start, end;
  std::string what;
};

struct ChainLink {
  core::JobTime at;
  std::string mechanism;  // congestion, transport timeout and retry, memory pressure, load imbalance, checkpoint overwhelms storage
  std::string what;
  core::JobTime cost;     // per GPU, in the job's buckets
};

struct AdaptationResult {
  std::vector<ConditionEpisode> episodes;
  std::vector<ControllerDecision> decisions;
  std::vector<ChainLink> chain;   // every stall's cascade, in time order
  std::string chain_broken;       // which controller stopped the chain where (empty: none did, or no stall)
  // What the conditions cost (per GPU), by the job bucket that holds it.
  core::JobTime communication, waiting, checkpoint, recovery, lost_work;
  core::JobTime decisions_cost;   // training stopped for controllers' actions (inside the above)
  int crashes = 0, retries = 0, swaps = 0;
  // The timeline's checkpoints (AdaptationInputs::checkpoint_times) that the
  // conditions push past the job's end: the slowed job does not write them.
  int64_t checkpoints_unreached = 0;
  int64_t tokens_per_iteration = 0;       // the configured batch
  int64_t max_tokens_per_iteration = 0;   // the largest a controller ran
  core::JobTime larger_batch_time;        // wall time at a larger batch
  core::JobTime total() const { return communication + waiting + checkpoint + recovery + lost_work; }
};

struct AdaptationInputs {
  const JobSpec* spec = nullptr;
  const workload::IterationInputs* iteration = nullptr;
  const workload::IterationResult* steady = nullptr;
  const CheckpointCost* checkpoint = nullptr;  // at the configured interval
  int64_t checkpoint_every = 0;
  coll::NetworkFactory bulk_network;
  core::SimTime restart;           // a restart on cached images
  core::SimTime restart_new_host;  // with a spare host
  // When each of the steady timeline's checkpoint writes begins (the
  // checkpoint signal's times, the job's final write included), to find
  // what a delayed checkpoint meets.
  std::vector<core::JobTime> checkpoint_times;
  // The timeline's spans without training, [start, end) in time order: its
  // startup, recoveries, and training whose work a failure then lost. A
  // condition costs nothing there: the job trains at no pace to slow.
  std::vector<std::pair<core::JobTime, core::JobTime>> downtime;
  Telemetry* telemetry = nullptr;  // extra subscribers (the report); may be null
};

// Runs the conditions and controllers over the job's wall time.
AdaptationResult run_adaptation(const AdaptationInputs& in);

}  // namespace anatomy::job
