#pragma once
// `anatomy run [scenario.yaml]`: one training iteration of a scenario (the
// built-in default when no file is given): iteration time, where every
// GPU-second goes, tokens/s, TFLOP/s per GPU and MFU.
// `anatomy validate [dir]`: every published case under validation/, side
// by side with what anatomy simulates.

#include <string>

#include <CLI/CLI.hpp>

#include "coll/collective.h"
#include "scenario/scenario.h"
#include "workload/iteration.h"

namespace anatomy::cli {

void add_run_command(CLI::App& app, int& exit_code);
void add_validate_command(CLI::App& app, int& exit_code);

// The built-in default scenario, as YAML (also what `anatomy run` prints with --show-default).
const char* default_scenario_yaml();

// The parallelism plan in one line: "TP4 PP4 DP64 (interleaved x5) +SP, ZeRO-1".
std::string plan_text(const scenario::Scenario& s);

// Builds the cluster and runs one iteration of `s` (shared by run and validate);
// link_samples > 0 also samples the busiest links through the iteration
// (for reports and traces; IterationInputs::link_samples).
workload::IterationResult simulate_scenario(const scenario::Scenario& s, std::string* topology_description,
                                            int link_samples = 0);

// The error for a collective case given where a training job is needed.
core::InputError not_an_iteration(const scenario::Scenario& s);

// Runs a collective case (a scenario with a `collective:` section) on its
// whole cluster (shared by run and validate).
coll::CollectiveResult simulate_collective_case(const scenario::Scenario& s, std::string* topology_description);

}  // namespace anatomy::cli
