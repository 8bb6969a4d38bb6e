#pragma once
// An edge site's run as `anatomy run` prints it for a scenario with an
// `edge:` section: what the site is and which models give each number, the
// retraining cycles phase by phase, coverage of the production lines,
// latency per network tier against the budget, deadline misses, where the
// accelerators' time went, and the model registry; or the same as JSON,
// whose `edge` object carries cycles, coverage_gap_s, deadline_misses,
// tiers {sensor, training, coordination} and accelerator_s.

#include <nlohmann/json.hpp>
#include <string>

#include "job/edge/edge_site.h"
#include "scenario/scenario.h"
#include "workload/edge_model.h"

namespace anatomy::report {

// What the text and JSON name as the run's inputs besides the scenario.
struct EdgeContext {
  const workload::EdgeModel* model = nullptr;
  std::string topology;
  std::string compute;
  std::string library;
};

// How the site's retraining step computes, as the reports name it:
// "fp8", "fp8 with FP8 attention, weights kept in fp8".
std::string retrain_precision(const scenario::Scenario& s);

std::string edge_text(const scenario::Scenario& s, const job::edge::EdgeResult& r, const EdgeContext& c);
nlohmann::ordered_json edge_json(const scenario::Scenario& s, const job::edge::EdgeResult& r, const EdgeContext& c);

}  // namespace anatomy::report
