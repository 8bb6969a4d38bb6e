#include "fleet/contention.h"

#include <algorithm>

namespace anatomy::fleet {

double fair_level(double capacity, int greedy_flows, std::vector<CappedGroup> capped) {
  std::sort(capped.begin(), capped.end(),
            [](const CappedGroup& a, const CappedGroup& b) { return a.cap_per_flow < b.cap_per_flow; });
  double remaining = capacity;
  int64_t active = greedy_flows;
  for (const CappedGroup& g : capped) active += g.flows;
  for (const CappedGroup& g : capped) {
    if (active <= 0) break;
    if (g.cap_per_flow * static_cast<double>(active) > remaining) break;  // this cap and the rest are above the level
    remaining -= g.cap_per_flow * g.flows;
    active -= g.flows;
  }
  if (active <= 0) return capacity;
  return std::max(0.0, remaining) / static_cast<double>(active);
}

}  // namespace anatomy::fleet
