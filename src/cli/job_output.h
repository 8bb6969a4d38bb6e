#pragma once
// `anatomy run` on a scenario with a `job:` section: the whole training
// run — startup, checkpoints, failures, goodput and what the idle time costs.

#include <string>

#include <optional>

#include "job/cascade.h"
#include "job/lifecycle.h"
#include "scenario/scenario.h"

namespace anatomy::cli {

struct JobRun {
  job::JobResult result;
  std::optional<job::CascadeResult> cascade;  // when the scenario traces a congestion event
  std::string topology;
};

// link_samples as simulate_scenario's, for the steady iteration.
JobRun simulate_job(const scenario::Scenario& s, int link_samples = 0);
int print_job(const scenario::Scenario& s, const JobRun& run, const std::string& format);

}  // namespace anatomy::cli
