#pragma once
// Use case: a whole training run (a scenario with a `job:` section):
// startup, checkpoints, failures and restarts on one clock, goodput, what
// the idle time costs, and the congestion cascade when the scenario traces one
// (JobResult::cascade, its costs in the job's buckets).

#include <string>

#include "job/lifecycle.h"
#include "scenario/scenario.h"

namespace anatomy::app {

struct JobRun {
  job::JobResult result;
  std::string topology;
};

// link_samples as run_iteration's, for the steady iteration.
JobRun run_job(const scenario::Scenario& s, int link_samples = 0);

}  // namespace anatomy::app
