#pragma once
// The parameters one GPU holds, and the bytes each takes: the one place
// the step costs, the memory model, checkpoints and startup count them.
//
// A GPU of pipeline stage s holds its layers' dense parameters (attention,
// dense MLP, shared experts, router, per-layer norms) split over TP — but
// MLA's down projections, whole on every TP rank — their routed experts
// split over expert TP x EP (expert TP is TP unless the plan sets it), and
// — on the stage that has them — the input embedding and learned
// positions (first chunk), the output layer and final norm (last chunk)
// and the multi-token-prediction modules with a copy of the input
// embedding when it is on another stage (the last chunk, or where the
// pipeline layout puts them: holds_mtp). The output layer is
// a second copy of a tied embedding when the two ends are on different
// stages, as Megatron-LM keeps it; the final norm is whole on every TP
// rank. Counts are whole parameters before any ZeRO sharding over
// data-parallel ranks.
//
//   const GpuParams g = stage_params(model, plan, 0);
//   g.total();  // parameters on one GPU of stage 0

#include <cstdint>

#include "hw/compute_model.h"
#include "hw/precision.h"
#include "workload/model.h"
#include "workload/training.h"

namespace anatomy::workload {

struct GpuParams {
  int64_t dense = 0;    // split over TP (but MLA's down projections and norms, whole)
  int64_t experts = 0;  // split over expert TP x EP
  int64_t total() const { return dense + experts; }
};

// The layers of one pipeline chunk (chunk_range); `first`: the chunk has
// the input embedding, `last`: the output layer and the final norm, `mtp`:
// the multi-token-prediction modules (holds_mtp).
GpuParams chunk_params(const ModelSpec& m, const ParallelPlan& p, LayerRange layers, bool first, bool last, bool mtp);
// Chunk `chunk` of pipeline stage `stage`, all of that worked out.
GpuParams chunk_params(const ModelSpec& m, const ParallelPlan& p, int stage, int chunk);
// Every chunk of pipeline stage `stage` (0 .. pp - 1).
GpuParams stage_params(const ModelSpec& m, const ParallelPlan& p, int stage);
// LoRA adapters (TrainingSpec::lora_rank r) a GPU holds for `layers`: in
// every attention layer r (h + q + k + v) beside QKV and r (o + h) beside
// the output projection, split over TP as the projections are.
int64_t lora_params(const ModelSpec& m, const ParallelPlan& p, LayerRange layers, int64_t rank);
// Every adapter of the model, on one rank.
int64_t lora_params(const ModelSpec& m, int64_t rank);
// The parameters a chunk (stage) trains on one GPU: chunk_params (stage_params),
// or under LoRA its adapters alone, all dense.
GpuParams trained_chunk_params(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t, int stage, int chunk);
GpuParams trained_stage_params(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t, int stage);

// Bytes per parameter of the model state on a GPU at a training precision:
// the weights, their gradients, and the optimizer (Adam) state. Mixed
// precision keeps an fp32 master copy and fp32 moments (12 B); Megatron-LM
// under fp16 keeps an fp32 gradient too (16 B), DeepSpeed does not. Under
// bf16 and the FP8 and FP4 recipes Megatron's unsharded gradient buffer
// (ZeRO-0/1) holds the dtype it reduces in (reduced_grad_bytes: 4 B with
// grad_reduce_in_fp32, else 2 B); sharded state keeps fp32 gradients.
// Without master weights (TrainingSpec::master_weights false) everything
// stays 16-bit: 2 + 2 + 4 (two bf16 moments).
struct StateBytes {
  double weights = 2, gradients = 4, optimizer = 12;
};
StateBytes state_bytes_per_param(const TrainingSpec& t, const ParallelPlan& p);

// Bytes of one element of a tensor kept in the training dtype (weights,
// weight gradients, activations between kernels): 4 in fp32, 2 otherwise
// (FP8 and FP4 recipes cast to their GEMM formats inside the kernels that
// use them).
int64_t element_bytes(const TrainingSpec& t);
// Bytes a GEMM's input takes where its layer keeps it for the weight
// gradient: element_bytes, except that Transformer Engine's FP8 and FP4
// linears keep the quantized copy they made, column-wise (module/linear.py:
// update_usage(rowwise_usage=False, columnwise_usage=True); layernorm_linear.py
// and layernorm_mlp.py keep ln_out and the activation's output likewise):
// FP8 1 B, plus a 1-byte scale a block of 32 (MXFP8) or a 4-byte one a block
// of 128 (blockwise); FP4 (NVFP4) half a byte and a 1-byte scale a block of 16.
double saved_gemm_input_bytes(const TrainingSpec& t);

// Bytes per parameter that data parallelism moves and that the gradient
// buffers hold, by dtype: the parameters as gathered (ZeRO-3 forward,
// ZeRO-1/2 after the step) are in the training dtype, 4 B in fp32 and 2 B
// otherwise (FP8 and FP4 recipes keep 16-bit weights), 1 B when an FP8
// recipe keeps them in FP8 (ParallelPlan::fp8_param_gather); the gradients
// as reduced are 4 B in fp32 or when reduced in fp32 (grad_reduce_in_fp32),
// 2 B otherwise. Under LoRA the parameters gathered are the 16-bit adapters.
int64_t gathered_param_bytes(const TrainingSpec& t, const ParallelPlan& p);
// Whether an FP8 recipe keeps its GEMM weights in FP8 (fp8_param_gather).
bool fp8_weights(const TrainingSpec& t, const ParallelPlan& p);
int64_t reduced_grad_bytes(const TrainingSpec& t, const ParallelPlan& p);
// The gradient bytes a bucket gathers before it is reduced: the plan's
// bucket_size, or when it is 0 the framework's default: Megatron-Core's
// max(40M, 1M x DP) parameters (distributed_data_parallel.py, since
// 2024-04: "larger DP sizes need larger buckets to ensure collectives do
// not become latency-bound"), DeepSpeed's reduce_bucket_size of 5e8. ZeRO-3
// plans reduce-scatter in units of 40M 16-bit elements when none is set:
// Megatron-LM's fixed bucket before that change (commit 0fda386c04).
int64_t gradient_bucket_bytes(const TrainingSpec& t, const ParallelPlan& p);

// Bytes per parameter a checkpoint stores: the weights as trained and the
// optimizer state (no gradients): 2 + 12 under mixed precision (the bf16
// weights, the fp32 master copy and moments, as Megatron's dist-ckpt and
// torch DCP write them), 4 + 8 in fp32, 2 + 4 without master weights; with
// bf16 moments (TrainingSpec::bf16_moments) 12 in bf16 and FP4 training and
// 10 in FP8, as Megatron's default dp_reshardable format writes them.
double checkpoint_bytes_per_param(const TrainingSpec& t);

// What the optimizer step updates: fp32 master state, or the 16-bit
// parameters and moments themselves.
hw::ComputeModel::OptimizerState optimizer_state(const TrainingSpec& t);

}  // namespace anatomy::workload
