#pragma once
// An edge site's run as a self-contained HTML report (`anatomy run
// SITE.yaml --report FILE`): the headline figures (coverage gap, deadline
// misses, tail latency against the budget), then sections for the cycles
// phase by phase, the network tiers and each sensor stream, where the
// accelerators' time went, and the model registry.

#include <string>

#include "job/edge/edge_site.h"
#include "report/edge_report.h"
#include "scenario/scenario.h"

namespace anatomy::report {

std::string edge_html(const scenario::Scenario& s, const job::edge::EdgeResult& r, const EdgeContext& c);

}  // namespace anatomy::report
