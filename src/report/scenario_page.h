#pragma once
// A scenario as the report shows it: its facts (one line each, under the
// title) and every input, with defaults and derived values filled in, as
// table rows, so that a report or a comparison stands on its own. The rows
// are scenario::input_rows() (walked from the field tables, so a new key
// appears with no edit here) plus the few values derived from them (the
// built topology, micro-batches per pipeline), marked derived.

#include <string>

#include "report/page_info.h"
#include "scenario/scenario.h"
#include "workload/iteration.h"

namespace anatomy::report {

// The parallelism plan in one line: "TP4 PP4 DP64 (interleaved x5) +SP, ZeRO-1".
std::string plan_text(const workload::ParallelPlan& p);

// `topology` is the built cluster's description; `result` (may be null)
// adds what the run resolved (compute model, library, gradient algorithm).
PageInfo scenario_page_info(const scenario::Scenario& s, const std::string& topology,
                                    const workload::IterationResult* result);

}  // namespace anatomy::report
