#pragma once
// Use case: a whole training run (a scenario with a `job:` section):
// startup, checkpoints, failures and restarts on one clock, goodput, what
// the idle time costs, and the congestion cascade when the scenario traces one
// (JobResult::cascade, its costs in the job's buckets).

#include <string>
#include <vector>

#include "app/progress.h"

#include "job/lifecycle.h"
#include "scenario/scenario.h"

namespace anatomy::app {

struct JobRun {
  job::JobResult result;
  std::string topology;
};

// link_samples as run_iteration's, for the steady iteration.
JobRun run_job(const scenario::Scenario& s, int link_samples = 0);

// The same job with `seeds` seeds: the scenario's seed, seed + 1, ...
// (every random stream: failures, placement); one run per seed, in order.
// on_step after each. Throws InputError (field --seeds) for a scenario
// without a job: section or seeds outside 1 .. kMaxSeeds.
inline constexpr int kMaxSeeds = 1000;
std::vector<JobRun> run_job_seeds(const scenario::Scenario& s, int seeds, int link_samples = 0,
                                  const OnStep& on_step = {});

}  // namespace anatomy::app
