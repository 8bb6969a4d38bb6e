#pragma once
// A whole job run with several seeds (`anatomy run --seeds N`): for each
// figure that the failure draw moves (interruptions, effective training
// time, work lost and redone, GPU-hours per cause), the mean, the standard
// deviation (over the seeds, n - 1 in the denominator) and the range.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "job/lifecycle.h"
#include "scenario/scenario.h"

namespace anatomy::report {

struct Spread {
  double mean = 0, stdev = 0, min = 0, max = 0;
};
Spread spread_of(const std::vector<double>& values);

struct EnsembleFigure {
  std::string key;   // JSON key with its unit: "interruptions", "ettr", "lost_work_gpu_hours"
  std::string name;  // as the table shows it
  Spread spread;
};

// `first_seed` is the seed of results[0]; the rest follow it.
std::vector<EnsembleFigure> ensemble_figures(const std::vector<job::JobResult>& results);
std::string ensemble_text(const std::vector<job::JobResult>& results, uint64_t first_seed);
nlohmann::ordered_json ensemble_json(const std::vector<job::JobResult>& results, uint64_t first_seed);

// The first run in full (job_text.h), then, with `ensemble`, the spread
// over every run; the seeds are the scenario's and those after it.
std::string jobs_text(const scenario::Scenario& s, const std::vector<job::JobResult>& results,
                      const std::string& topology, bool ensemble);
nlohmann::ordered_json jobs_json(const scenario::Scenario& s, const std::vector<job::JobResult>& results,
                                 bool ensemble);

}  // namespace anatomy::report
