#pragma once
// Use case: a scenario run as `anatomy run --format json` runs it, returning
// the document it prints: a collective case, an edge site, a whole job (one
// seed) or one iteration, whichever the scenario describes. The sweep store
// and the Python module keep exactly this, so a point's stored result is
// the CLI's output byte for byte (report::json_text of it, indented by 2).
//
//   const nlohmann::ordered_json j = app::run_json(app::load_or_default(""));
//   j["iteration_s"];  // 1.435 for the built-in default

#include <nlohmann/json.hpp>

#include "scenario/scenario.h"

namespace anatomy::app {

// Throws InputError naming the scenario's file, line and field.
nlohmann::ordered_json run_json(const scenario::Scenario& s);

}  // namespace anatomy::app
