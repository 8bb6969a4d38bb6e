#include "workload/pipeline_schedule.h"

#include <algorithm>

namespace anatomy::workload {

int64_t warmup_steps(int stage, int stages, int64_t micro_batches, int chunks, int extra, int64_t group) {
  const int64_t P = stages, M = micro_batches, v = chunks, N = group > 0 ? group : P;
  if (v == 1) return std::min<int64_t>(P - stage - 1, M);
  return std::min<int64_t>((P - stage - 1) * 2 + (v - 1) * N + extra, M * v);
}

namespace {

// Forward step k's micro-batch and chunk: the k-th entry of the table
// listing, group after group of N micro-batches (the last one short), each
// chunk's pass over the group (Megatron-Core's get_schedule_table).
PipelineStep table_entry(int64_t k, int64_t M, int64_t v, int64_t N) {
  const int64_t group = k / (N * v), first = group * N;
  const int64_t size = std::min(N, M - first);
  const int64_t within = k - first * v;
  return PipelineStep{first + within % size, static_cast<int>(within / size), true};
}

}  // namespace

std::vector<PipelineStep> pipeline_order(int stage, int stages, int64_t micro_batches, int chunks,
                                         int extra_warmup, int64_t group) {
  const int64_t P = stages, M = micro_batches, v = chunks, N = group > 0 ? group : P;
  const int64_t total = M * v;
  auto fwd = [&](int64_t k) { return table_entry(k, M, v, N); };
  auto bwd = [&](int64_t k) {
    PipelineStep s = table_entry(k, M, v, N);
    s.chunk = static_cast<int>(v - 1 - s.chunk);
    s.forward = false;
    return s;
  };
  // One chunk is the table's plain run of micro-batches and 1F1B's warm-up.
  std::vector<PipelineStep> out;
  const int64_t warm = warmup_steps(stage, stages, M, chunks, extra_warmup, group);
  for (int64_t k = 0; k < warm; ++k) out.push_back(fwd(k));
  for (int64_t i = 0; i < total - warm; ++i) {
    out.push_back(fwd(warm + i));
    out.push_back(bwd(i));
  }
  for (int64_t k = total - warm; k < total; ++k) out.push_back(bwd(k));
  return out;
}

std::vector<size_t> combined_pairs(int stage, int stages, int64_t micro_batches, int chunks, int64_t group) {
  std::vector<size_t> out;
  if (chunks == 1) {
    // F0 B0 F1 B1 ...: (B0, F1), (B1, F2), ..., F0 and the last B alone.
    // Pipelining without interleaving has no independent pairs.
    if (stages == 1)
      for (int64_t i = 0; i + 1 < micro_batches; ++i) out.push_back(static_cast<size_t>(2 * i + 1));
    return out;
  }
  // The steady state's (forward, backward) steps, on different micro-
  // batches once the warm-up has its one more forward.
  const int64_t warm = warmup_steps(stage, stages, micro_batches, chunks, 1, group);
  const int64_t steady = micro_batches * chunks - warm;
  for (int64_t i = 0; i < steady; ++i) out.push_back(static_cast<size_t>(warm + 2 * i));
  return out;
}

}  // namespace anatomy::workload
