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
// A breakdown's buckets in seconds, keyed by name with '_' for spaces
// ("exposed DP comm" -> exposed_DP_comm), as every JSON writer gives them.
nlohmann::ordered_json breakdown_json(const workload::TimeBreakdown& b);
nlohmann::ordered_json iteration_json(const scenario::Scenario& s, const workload::IterationResult& r);
// How many gradient buckets the plan has and how many were simulated, with
// the latency left unpaid (IterationResult::dp_buckets); "" when every
// bucket was simulated.
std::string gradient_buckets_text(const workload::IterationResult& r);

}  // namespace anatomy::report
