#include "report/stages.h"

#include <fmt/format.h>

#include "workload/layout.h"

namespace anatomy::report {

std::vector<uint32_t> representative_gpus(const workload::ParallelPlan& plan) {
  const workload::Layout layout(plan);
  std::vector<uint32_t> out;
  for (int s = 0; s < plan.pp; ++s) out.push_back(layout.rank({0, 0, 0, s}));
  return out;
}

std::string stage_label(size_t stage, uint32_t gpu) { return fmt::format("stage {} · GPU {}", stage, gpu); }

}  // namespace anatomy::report
