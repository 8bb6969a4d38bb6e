#pragma once
// One training iteration as `anatomy run` prints it: a header naming every
// input that shaped it (model, cluster, plan, compute and network models,
// memory), then iteration time, tokens/s, TFLOP/s, MFU, where each GPU's
// time goes and the per-stage table; or the same figures as JSON.

#include <nlohmann/json.hpp>
#include <string>

#include "scenario/scenario.h"
#include "workload/iteration.h"

namespace anatomy::report {

std::string iteration_text(const scenario::Scenario& s, const workload::IterationResult& r,
                           const std::string& topology);
nlohmann::ordered_json iteration_json(const scenario::Scenario& s, const workload::IterationResult& r);

}  // namespace anatomy::report
