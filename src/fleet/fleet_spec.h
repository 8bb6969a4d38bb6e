#pragma once
// FleetSpec: many jobs on one cluster — where they come from (a list, a
// generator or a public trace), what each one is (a job class: a training
// job anatomy simulates, or a light job given by its step and traffic), how
// a scheduler orders and places them, and what a GPU-hour costs.
//
// Times of the fleet's clock are core::JobTime (a month is 2.6e18 ps);
// a job's work is measured in seconds of running alone on an idle fabric.
//
//   fleet:
//     duration: 30d
//     scheduler: {policy: backfill, placement: packed, preemption: true}
//     classes:
//       - {name: small, step: 1s, all_reduce: 2GiB, checkpoint_interval: 1h, checkpoint_bytes: 2GB}
//       - {name: llm, model: llama3-8b, tp: 8, pp: 1}
//     jobs: [{class: small, gpus: 64, arrival: 0s, duration: 2h}]
//     generator: {jobs: 100, interarrival: 5min, sizes: "8:4,64:2,512:1", duration_median: 2h}
//     trace: {format: philly, file: jobs.json}

#include <cstdint>
#include <string>
#include <vector>

#include "core/time.h"
#include "core/units.h"
#include "job/placement.h"

namespace anatomy::fleet {

using core::Bytes;
using core::JobTime;

// What a job is. With `model` set it is a training job: its step time,
// exposed communication and bubble come from anatomy's iteration model on
// `gpus` GPUs with this tp x pp x ep (dp = the rest), its traffic across
// hosts (gradients, pipeline activations, expert all-to-alls, TP rings
// that span hosts) from the model and plan; without, a light job: `step` of compute
// then an all-reduce of `all_reduce` bytes over its GPUs, not overlapped.
// Checkpoints are blocking: training waits while every host writes its
// GPUs' shards to the storage servers.
struct JobClass {
  std::string name;
  std::string model;  // "" = light job
  int tp = 1, pp = 1, ep = 1;  // training: the plan (dp = the rest; ep divides dp, a MoE model's)
  JobTime step = JobTime::sec(1);
  Bytes all_reduce;                 // light jobs: bytes all-reduced per step
  JobTime checkpoint_interval;      // 0 = no checkpoints
  Bytes checkpoint_bytes;           // per GPU; 0 for a training job = its shard of weights and optimizer state
  int priority = 0;                 // higher runs first under the priority policy
  double weight = 1;                // generator: share of the jobs drawn from this class
  int min_gpus = 0, max_gpus = 0;   // trace mapping: jobs of this many GPUs take this class (0: any)
};

// One job as it arrives.
struct JobRequest {
  std::string id;
  int job_class = 0;  // index into FleetSpec::classes
  int gpus = 8;
  JobTime arrival;
  JobTime duration;   // running alone (0: from `iterations`)
  int64_t iterations = 0;
  int priority = 0;   // the class's unless given
  int source_line = 0;  // where it came from (a trace row), 0 = none
};

enum class Policy { kFifo, kBackfill, kGang, kPriority };
const char* to_string(Policy p);

struct SchedulerSpec {
  Policy policy = Policy::kFifo;
  job::PlacementSpec placement;  // packed/spread/balanced, racks, power, fault-domain rule
  bool preemption = true;        // priority policy: a higher-priority job may preempt lower ones
  JobTime restart = JobTime::sec(300);  // a preempted job's restart (launch, init, checkpoint load)
  JobTime startup = JobTime::sec(120);  // every start: image, launch, NCCL init
  bool contention = true;        // false: every job runs as if alone
  // true: a training job's iteration is run again on the cluster, with what
  // the jobs on its links leave it, whenever that changes (fleet_sim.h);
  // false: its footprint's slowest link alone, fully exposed, as a light job's.
  bool resimulate = true;
  // ... when the cuts would cost at least this share of a step fully
  // exposed (the footprint's figure); below, that figure stands.
  double resimulate_above = 0.01;
};

struct GeneratorSpec {
  int jobs = 0;                          // 0 = no generated jobs
  JobTime interarrival = JobTime::sec(300);  // mean (Poisson arrivals)
  std::vector<std::pair<int, double>> sizes;  // GPUs and relative weight; empty: all of 8 GPUs
  JobTime duration_median = JobTime::sec(3600);          // lognormal running time alone
  double duration_sigma = 1.0;
  JobTime duration_max = JobTime::sec(7 * 86400);
};

enum class TraceFormat { kAlibabaPai, kPhilly, kHelios };
const char* to_string(TraceFormat f);

struct TraceSpec {
  bool enabled = false;
  TraceFormat format = TraceFormat::kPhilly;
  std::string file;       // Philly: cluster_job_log (JSON); Helios: cluster_log.csv; PAI: pai_task_table.csv
  std::string jobs_file;  // PAI only: pai_job_table.csv (submission times; optional)
  int max_jobs = 0;       // 0 = all
  double time_scale = 1;  // arrivals and durations are multiplied by this
  int max_gpus = 0;       // larger jobs are clamped to the cluster (0: the cluster's GPUs)
};

struct FailureRate {
  double per_gpu_day = 0;                   // job interruptions per GPU per day
  JobTime recovery = JobTime::sec(600);     // detection, teardown, restart, checkpoint load
};

struct FleetSpec {
  JobTime duration = JobTime::sec(30 * 86400);
  SchedulerSpec scheduler;
  std::vector<JobClass> classes;
  std::vector<JobRequest> jobs;
  GeneratorSpec generator;
  TraceSpec trace;
  FailureRate failures;
  double dollars_per_gpu_hour = 0;
  int heat_bins = 48;  // time bins of the utilization series and the link heat map
  uint64_t seed = 1;
  // Not a scenario key: whoever writes the trace asks for every job's
  // phases (JobOutcome::phases), split where its slowdown moved 10% or more.
  bool record_phases = false;
};

}  // namespace anatomy::fleet
