#pragma once
// FLOP counts of a training iteration.
//
// megatron_flops(): Narayanan et al. SC'21, eq. 3, counting activation
// recomputation: F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)); the Megatron-LM
// papers report TFLOP/s per GPU as F / (GPUs x iteration time).
// model_flops(): the FLOPs the model needs without recomputation (MFU's
// numerator): 3 x forward, forward = 2 x active params per token plus
// attention's 4 s h per token per layer (causal masking not discounted,
// as the papers count it) — exact matrix shapes, GQA and MoE included.
// hardware_flops(): model_flops plus what recomputation re-runs (HFU).

#include <cstdint>

#include "workload/model.h"
#include "workload/training.h"

namespace anatomy::workload {

double megatron_flops(const ModelSpec& m, int64_t global_batch, int64_t seq_len);
double model_flops(const ModelSpec& m, const TrainingSpec& t);
double hardware_flops(const ModelSpec& m, const TrainingSpec& t);

}  // namespace anatomy::workload
