#pragma once
// Use case: one training iteration of a scenario, as `anatomy run` and
// `anatomy compare` simulate it: where every GPU-second goes, tokens/s,
// TFLOP/s per GPU and MFU, on the cluster the scenario builds.
//
//   const app::IterationRun r = app::run_iteration(app::load_or_default(""));
//   r.result.iteration;  // 1.309 s for the built-in default

#include <string>
#include <vector>

#include "scenario/scenario.h"
#include "workload/iteration.h"

namespace anatomy::app {

struct IterationRun {
  workload::IterationResult result;
  std::string topology;  // the built cluster in one line (and where the job was placed)
};

// link_samples > 0 also samples the busiest links through the iteration
// (for reports and traces; IterationInputs::link_samples). Throws
// InputError naming the scenario's file, line and field.
IterationRun run_iteration(const scenario::Scenario& s, int link_samples = 0);

// The built-in default scenario, as YAML (what `anatomy run --show-default` prints).
const char* default_scenario_yaml();
// The scenario in `file`, or the built-in default when `file` is empty,
// with the command line's overrides (--set, --seed) applied.
scenario::Scenario load_or_default(const std::string& file, const std::vector<scenario::Override>& overrides = {});

}  // namespace anatomy::app
