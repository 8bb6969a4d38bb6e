#pragma once
// Use case: many jobs on one cluster (a scenario with a `fleet:` section):
// the job stream, the scheduler's queue, placement, contention between
// jobs on shared links, checkpoints, failures and preemptions on one
// clock (fleet/fleet_sim.h). A training class's step comes from the
// iteration model, run once per class and job size on the scenario's
// system and fabric.
//
//   const app::FleetRun r = app::run_fleet(app::load_or_default("scenarios/cluster/shared-spine.yaml"));
//   r.result.jobs[0].slowdown;

#include <string>

#include "fleet/fleet_sim.h"
#include "scenario/scenario.h"

namespace anatomy::app {

struct FleetRun {
  fleet::FleetResult result;
  std::string topology;  // the cluster in one line
};

// Throws InputError naming the scenario's file, line and field. `phases`:
// keep every job's phases for a trace (fleet::JobOutcome::phases).
FleetRun run_fleet(const scenario::Scenario& s, bool phases = false);

}  // namespace anatomy::app
