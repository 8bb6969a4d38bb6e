#pragma once
// Use case: several scenarios run one after another and set side by side
// (`anatomy compare`): each one's iteration (or whole job), its inputs as
// the report shows them, labelled A, B, ... in order; the first is the baseline.

#include <string>
#include <vector>

#include "app/progress.h"
#include "report/compare.h"
#include "scenario/overrides.h"

namespace anatomy::app {

// Reads and checks every file before running any; throws InputError for
// fewer than two files or a collective case.
// `overrides` (--set, --seed) apply to every file.
std::vector<report::CompareRun> compare_scenarios(const std::vector<std::string>& files,
                                                  const std::vector<scenario::Override>& overrides = {},
                                                  const OnStep& on_run = {});

// `anatomy compare --replay TRACE_DIR A.yaml ...`: one recorded job
// replayed on the machine it ran on (the baseline, A) and on each scenario's
// machine (B, C, ...), side by side (app/replay.h).
std::vector<report::CompareRun> compare_replays(const std::string& trace_dir, const std::vector<std::string>& files,
                                                const std::vector<scenario::Override>& overrides = {},
                                                const OnStep& on_run = {});

}  // namespace anatomy::app
