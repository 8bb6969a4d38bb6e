#pragma once
// Use case: an edge site (a scenario with an `edge:` section) on one clock:
// retraining cycles, rollouts and rollbacks, the three network tiers'
// latency, coverage of the production lines and where the accelerators'
// time goes (job/edge/edge_site.h).
//
//   const app::EdgeRun r = app::run_edge(app::load_or_default("scenarios/edge/pharma-line.yaml"));
//   r.result.coverage_gap;  // 0 with a safe rollout

#include <string>

#include "job/edge/edge_site.h"
#include "scenario/scenario.h"
#include "workload/edge_model.h"

namespace anatomy::app {

struct EdgeRun {
  job::edge::EdgeResult result;
  workload::EdgeModel model;
  std::string topology;  // the training cluster in one line
  std::string compute;   // where kernel times come from
  std::string library;   // the collective model
};

// Throws InputError naming the scenario's file, line and field.
EdgeRun run_edge(const scenario::Scenario& s);

}  // namespace anatomy::app
