#pragma once
// Memory a training plan needs on each GPU, and whether it fits.
//
// Weights, gradients and optimizer state follow mixed-precision Adam:
// 2 B/param of low-precision weights, 2 (bf16) or 4 (fp32 accumulation)
// B/param of gradients, 12 B/param of fp32 master weights + Adam m and v;
// ZeRO-1 shards the 12 over DP, ZeRO-2 also the gradients, ZeRO-3 also the
// weights. Parameters per GPU are those of its pipeline stage divided by TP
// (and experts by EP). Activations per micro-batch per layer follow
// Korthikanti et al. 2022 (with sequence parallelism: s b h (34 + 5 a s / h) / t,
// selective recompute: 34 s b h / t, full recompute: 2 s b h per layer
// boundary), times the micro-batches in flight on the first pipeline stage
// (PP for 1F1B), divided by CP.

#include <string>

#include "core/units.h"
#include "workload/model.h"
#include "workload/training.h"

namespace anatomy::workload {

struct MemoryBreakdown {
  core::Bytes weights, gradients, optimizer, activations, workspace;
  core::Bytes total() const { return weights + gradients + optimizer + activations + workspace; }
};

MemoryBreakdown estimate_memory(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t);

// Throws InputError (field "parallelism") when the total exceeds `capacity`,
// saying by how much and suggesting what would fit (more TP or PP, ZeRO,
// recomputation, a smaller micro-batch).
void check_memory_fits(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t, core::Bytes capacity);

}  // namespace anatomy::workload
