#include "workload/pipeline_schedule.h"

#include <algorithm>

namespace anatomy::workload {

std::vector<PipelineStep> pipeline_order(int stage, int stages, int64_t micro_batches, int chunks) {
  const int64_t P = stages, M = micro_batches, v = chunks;
  const int64_t total = M * v;
  auto fwd = [&](int64_t k) {
    return PipelineStep{(k / (P * v)) * P + k % P, static_cast<int>((k / P) % v), true};
  };
  auto bwd = [&](int64_t k) {
    return PipelineStep{(k / (P * v)) * P + k % P, static_cast<int>(v - 1 - (k / P) % v), false};
  };
  if (v == 1) {
    auto f1 = [](int64_t k) { return PipelineStep{k, 0, true}; };
    auto b1 = [](int64_t k) { return PipelineStep{k, 0, false}; };
    std::vector<PipelineStep> out;
    const int64_t warm = std::min<int64_t>(P - stage - 1, M);
    for (int64_t k = 0; k < warm; ++k) out.push_back(f1(k));
    for (int64_t i = 0; i < M - warm; ++i) {
      out.push_back(f1(warm + i));
      out.push_back(b1(i));
    }
    for (int64_t k = M - warm; k < M; ++k) out.push_back(b1(k));
    return out;
  }
  std::vector<PipelineStep> out;
  const int64_t warm = std::min<int64_t>((P - stage - 1) * 2 + (v - 1) * P, total);
  for (int64_t k = 0; k < warm; ++k) out.push_back(fwd(k));
  for (int64_t i = 0; i < total - warm; ++i) {
    out.push_back(fwd(warm + i));
    out.push_back(bwd(i));
  }
  for (int64_t k = total - warm; k < total; ++k) out.push_back(bwd(k));
  return out;
}

}  // namespace anatomy::workload
