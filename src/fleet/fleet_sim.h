#pragma once
// Many jobs on one cluster, on one clock: arrivals, a scheduler's queue,
// placement on the cluster's hosts, each job's steps slowed by the jobs
// it shares links with, checkpoints, failures and preemptions — and where
// every GPU-hour of the cluster went.
//
// Each running job is in one phase at a time: startup (or restart),
// training, a (blocking) checkpoint write, or failure recovery. Work is
// counted in seconds of running alone; a phase progresses at 1/s of wall
// time, s >= 1 the slowdown contention imposes (contention.h: max-min
// sharing on every link of the job's footprint, footprint.h). Between
// events nothing changes, so the clock jumps from event to event (a
// month of 10,000 jobs is some 10^5 events). When a job starts or stops
// moving data (training, checkpointing, done, preempted, failed), only
// the jobs on its links see their set of sharers change: their time on
// those links alone is worked out again (each job keeps its time per
// link and the slowest), and everyone else fast-forwards untouched.
//
// How a training step slows. A light job (a step and an all-reduce, not
// overlapped) takes its footprint's slowest link: s = 1 + (t_shared -
// t_alone) / step, the extra time fully exposed. A training job (a class
// with a model) is re-simulated instead, when `iteration` is given and
// fleet.scheduler.resimulate is on: the other jobs' traffic is background
// load at the rates they offer, so on each link of its footprint the job
// keeps what max-min sharing leaves its flows (n_A x the fair level of
// contention.h: the others' collectives capped at their mean rate, their
// checkpoint writes greedy), and its iteration is run again on the
// cluster at its placement with each such link's bandwidth cut to that
// share (each connection on its own path, as the footprint routes it; the
// gradients' algorithm the one auto picks for the job alone: NCCL does not
// see other tenants); s = 1 + (T_shared - T_idle) / step, T_idle the same
// iteration on the idle cluster and step the profile's. Whatever the
// iteration hides behind compute (bucketed gradients during backward)
// stays hidden. Cuts the footprint prices under
// fleet.scheduler.resimulate_above of a step, fully exposed, keep that
// figure and run nothing.
// A job's iteration is run only when the set of jobs on its links (or
// their phase) changes, and its result is kept by what determines it: the
// class, the job's hosts and every cut link's share (to 1e-6): a job whose
// neighbour checkpoints every half hour runs its two iterations once.
//
// Time accounting (GPU-seconds of the cluster, adding up to GPUs x span):
//  idle        no job holds the GPU and none waits
//  queued      no job holds the GPU while jobs wait (fragmentation,
//              head-of-line blocking, reservations)
//  startup     image pull, launch, NCCL init at every start
//  productive  training steps: compute (step x its compute share)
//  exposed communication, pipeline bubble, waiting on others: the rest of
//              a step alone (waiting: on a slower stage or the slowest GPU)
//  contention  the extra time of steps and checkpoint writes slowed by
//              other jobs' traffic (s - 1 of every second of work)
//  checkpoint  blocking checkpoint writes, alone
//  failure recovery  detection, teardown, restart after an interruption,
//              and the work since the last checkpoint done again
//  preemption  a preempted job's restart and lost work
// A job's GPUs are whole hosts when it spans several (the rest of a
// part-used host counts to its phases too), a share of one host otherwise.

#include <functional>
#include <string>
#include <vector>

#include "fleet/fleet_spec.h"
#include "fleet/footprint.h"
#include "fleet/job_stream.h"
#include "topo/topology.h"

namespace anatomy::fleet {

// A job's step alone, as anatomy's iteration model (training jobs) or the
// class (light jobs) gives it. Fractions of `step` add up to 1.
struct StepProfile {
  double step_s = 1;
  double compute = 1, communication = 0, bubble = 0, waiting = 0;
  PlanTraffic traffic;            // what each rank sends across hosts per step (footprint.h)
  double checkpoint_bytes_per_gpu = 0;
  std::string source;             // where the figures come from, for the report
};

// For training classes: the profile of `cls` on `gpus` GPUs (the app layer
// runs the iteration model). Throws InputError when the plan cannot run.
using ProfileFn = std::function<StepProfile(const JobClass& cls, int gpus)>;

// A training job's iteration run again on the fleet's own cluster (the app
// layer runs anatomy's iteration model): its step in seconds with rank r
// on GPU rank_to_gpu[r], the network routing each connection on its own
// path (net::connection_hash, as the footprints do), and each listed link
// keeping only that share of its bandwidth (sorted by link; empty: the
// idle cluster). Deterministic: the fleet caches what it returns.
using IterationFn = std::function<double(const JobClass& cls, const std::vector<uint32_t>& rank_to_gpu,
                                         const std::vector<std::pair<topo::LinkId, double>>& kept)>;

enum class JobState { kQueued, kRunning, kFinished, kNotArrived };
const char* to_string(JobState s);

// A stretch of one phase of a job at one pace: what the phase was, when,
// and its slowdown (wall time over the work it did, in seconds of running
// alone).
struct PhaseSpan {
  const char* phase = "";  // startup, restart, train, checkpoint, failure recovery
  double start_s = 0, end_s = 0;
  double slowdown = 1;
};

struct JobOutcome {
  std::string id;
  std::string job_class;
  int gpus = 0, gpus_allocated = 0, hosts = 0;
  int priority = 0;
  JobState state = JobState::kQueued;
  double arrival_s = 0, start_s = -1, end_s = -1;
  double queue_s = 0;     // arrival to first start (to the end of the span while queued)
  double jct_s = 0;       // arrival to finish (0 unless finished)
  double alone_s = 0;     // its running time alone: startup + steps + checkpoints
  double run_s = 0;       // wall time it held GPUs
  double slowdown = 1;    // run_s / alone_s (finished jobs)
  double contention_s = 0;  // wall time added by contention
  double peak_slowdown = 1;  // the most any stretch of its training was slowed (while a neighbour checkpointed, say)
  int preemptions = 0, failures = 0, checkpoints = 0;
  std::vector<std::string> shared_with;  // jobs it shared a link with while both were moving data
  std::string placement;                 // packed/spread summary of its (first) placement
  std::vector<PhaseSpan> phases;         // with FleetSpec::record_phases: every phase it ran, split where its pace moved >= 10%
};

struct Cause {
  const char* name;
  double gpu_hours = 0;
  double dollars = 0;
};

struct HeatRow {
  std::string link;             // topo::Topology::link_label
  std::vector<double> load;     // per time bin: offered load / capacity while two or more jobs shared it
  int jobs = 0;                 // most jobs on it at once
};

struct FleetResult {
  int gpus = 0, hosts = 0;
  double span_s = 0;
  std::vector<JobOutcome> jobs;
  std::vector<Cause> causes;        // in the order of the accounting above; add up to GPUs x span
  double gpu_utilization = 0;       // share of GPU time held by jobs
  double productive_share = 0;      // share of GPU time in productive compute
  std::vector<double> utilization_series, productive_series;  // per time bin
  double bin_s = 0;
  std::vector<HeatRow> heat;        // the most contended links, most first
  int finished = 0, running = 0, queued = 0;
  double mean_queue_s = 0, mean_slowdown = 1, worst_slowdown = 1;
  int jobs_slowed = 0;              // finished jobs slowed by >= 1% by contention
  int64_t events = 0, evaluations = 0;  // evaluations: shared links' max-min shares worked out
  int64_t iterations_run = 0;       // training jobs' iterations re-simulated under contention (and idle, as the baseline)
  int64_t iterations_cached = 0;    // ... and looked up again instead
  double dollars_per_gpu_hour = 0;
  StreamResult stream;              // trace rows, skipped and rejected (errors), jobs read
  std::string policy;
  std::vector<std::string> profiles;  // one line per training class simulated
};

// Throws InputError (field "fleet...") for a job that can never run here
// (more GPUs than the cluster, a checkpoint with no storage servers).
// `iteration` empty: every job's contention from its footprint alone.
FleetResult simulate_fleet(const FleetSpec& spec, const topo::Topology& t, double gpu_tdp_w, const ProfileFn& profile,
                           const IterationFn& iteration = {});

}  // namespace anatomy::fleet
