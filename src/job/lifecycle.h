#pragma once
// The whole job: start, train, checkpoint, fail, recover, for its wall time.
//
// The iteration is simulated once in steady state and once with a
// checkpoint's background write sharing the network; startup and the
// checkpoint load storm are measured on the network; everything else is
// counted. Between perturbations identical iterations are fast-forwarded:
// the job advances checkpoint interval by checkpoint interval, and a
// failure splits the interval it lands in. A 54-day job is a few thousand
// steps of arithmetic on these measured times.
//
// Time accounting (GPU-seconds of the job's GPUs, adding up to GPUs x wall
// time): productive training (split as the steady iteration splits:
// compute, exposed communication, pipeline bubble and waiting), checkpoint
// stalls (and the slowdown of iterations a background write overlaps),
// startup, lost work (iterations done since the last checkpoint when a
// failure struck, and the partial one), failure recovery (detection,
// teardown, rescheduling or waiting for repair, restart, checkpoint load).
// Spares held in reserve are reported beside it as idle GPU-hours.
//
// A traced congestion event (JobSpec::trace_congestion, cascade.h) is part
// of the same timeline: it strikes at CongestionSpec::at (the first
// training at or after it), an absorbed one stretches the training it
// slows by its cost, counted as exposed communication; one that outlasts
// the transport retries crashes the job when they run out, as a failure
// does: the wait on the dead link and the restart are failure recovery,
// the work since the last checkpoint is lost work.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "job/adaptation.h"
#include "job/cascade.h"
#include "job/checkpoint.h"
#include "job/failures.h"
#include "job/job_spec.h"
#include "job/startup.h"
#include "workload/iteration.h"

namespace anatomy::job {

// Every time on the job's wall clock is a JobTime (core/time.h): a job may
// run for years; the iteration's own times stay SimTime.
struct JobEvent {
  JobTime at;
  std::string what;
};

// One stretch of the job's wall time, for its timeline: "startup",
// "training", "checkpoint" (the stall and slowed iterations of a
// checkpoint), "lost training" (work a failure undid, partial checkpoints
// included), "recovery" and "congestion" (a traced congestion event: the
// training it slows, or the wait until the transport gives up). Phases are
// in time order and do not overlap.
struct JobPhase {
  const char* kind;
  JobTime start, end;
};

struct JobBuckets {
  // waiting: on other GPUs (a slower stage, the slowest GPU's compute, a
  // condition that holds one rank up), apart from the pipeline's bubble.
  JobTime compute, communication, bubble, waiting, checkpoint, startup, lost_work, recovery;
  JobTime total() const {
    return compute + communication + bubble + waiting + checkpoint + startup + lost_work + recovery;
  }
  std::vector<std::pair<const char*, JobTime>> named() const;
};

// One cause of the job's GPU time as a planner reads it.
struct CauseCost {
  const char* name;
  JobTime per_gpu;   // of each GPU's wall time
  double gpu_hours;  // per_gpu x the job's GPUs
  double dollars;    // gpu_hours x the price; 0 without one
};

struct JobResult {
  JobTime wall;
  workload::IterationResult steady;
  CheckpointCost checkpoint;
  int64_t checkpoint_every = 0;  // iterations
  StartupCost first_start;
  StartupCost restart;           // a restart on cached images
  JobBuckets time;               // per GPU (wall time split); x GPUs for GPU-time
  int gpus = 0;
  int64_t iterations_kept = 0, iterations_lost = 0, checkpoints = 0;
  double ettr = 0;               // productive training / wall time
  int interruptions = 0;
  std::map<std::string, int> by_component, by_category;
  double spare_gpu_hours = 0;
  double mtbi_hours = 0;         // from the failure rates; 0 when none are given
  JobTime young, daly, configured_interval;
  double dollars_per_gpu_hour = 0;
  std::vector<JobEvent> events;  // the first failures and restarts, for the report
  // The timeline. Past kFoldCheckpointsAfter phases, checkpoints are folded
  // into the training around them, so a long job with short iterations
  // keeps a timeline of bounded size that still shows every failure.
  std::vector<JobPhase> phases;
  bool checkpoints_folded = false;
  // The traced congestion event, when the scenario traces one: its chain's
  // costs are in `time` above.
  std::optional<CascadeResult> cascade;
  // Time-varying conditions and controllers (JobSpec::adaptive()): what
  // they cost is in `time` above, taken from productive training.
  std::optional<AdaptationResult> adaptation;

  // What one checkpoint costs the job at its interval (CheckpointCost::cost).
  SimTime checkpoint_cost() const { return checkpoint.cost(steady.iteration, checkpoint_every); }
  // Every cause of `time` in JobBuckets' order, in GPU-hours and dollars:
  // the one place those are worked out, for every writer.
  std::vector<CauseCost> costs_by_cause() const;
  double gpu_hours() const { return hours_of(time.total()); }
  // Tokens trained over the wall time: productive training is counted in
  // steady iterations, so ETTR x the steady iteration's tokens/s.
  double tokens_per_s() const { return ettr * steady.tokens_per_s; }
  double dollars() const { return gpu_hours() * dollars_per_gpu_hour; }
  double spare_dollars() const { return spare_gpu_hours * dollars_per_gpu_hour; }
  // GPU-hours of `per_gpu` on every GPU of the job.
  double hours_of(JobTime per_gpu) const { return per_gpu.seconds() / 3600 * gpus; }
};

inline constexpr size_t kFoldCheckpointsAfter = 100000;

struct JobInputs {
  JobSpec spec;
  workload::IterationInputs iteration;  // the job's plan on its placed GPUs
  coll::NetworkFactory bulk_network;    // for checkpoint writes and loads; empty = iteration.make_network
  Units units;                          // what can fail
  // IterationInputs::link_samples for the steady iteration only (for
  // reports); the checkpoint, startup and cascade measurements never sample.
  int steady_link_samples = 0;
  int gpus_per_host = 8;
  // From (time, iterations) on, checkpoint every that many iterations (the
  // checkpoint controller's online Young/Daly); empty: the configured interval.
  std::vector<std::pair<JobTime, int64_t>> interval_changes;
  // Subscribers to the job's signals (may be null): the timeline's
  // failures, restarts and checkpoints, and an adaptive job's conditions
  // and controllers (adaptation.h, Telemetry).
  Telemetry* telemetry = nullptr;
};

JobResult run_job(const JobInputs& in);
// The job's timeline alone, conditions and controllers left out.
JobResult run_job_timeline(const JobInputs& in);
// The job's timeline, then `in`'s conditions and controllers over it:
// returns the job with what they cost and won (adaptive_job.cc).
JobResult run_adaptive_job(const JobInputs& in);

}  // namespace anatomy::job
