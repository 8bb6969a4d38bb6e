#include "workload/params.h"

#include <algorithm>

#include "workload/training.h"

namespace anatomy::workload {

GpuParams chunk_params(const ModelSpec& m, const ParallelPlan& p, LayerRange layers, bool first, bool last, bool mtp) {
  const int64_t tp = p.tp;
  const LayerCounts kinds = m.layer_counts(layers.first, layers.count);
  const int64_t moe = kinds.experts();
  const int64_t expert_layer = m.expert_params_per_layer();
  const int64_t whole = m.tp_replicated_params_per_layer();
  // A layer's parameters outside its routed experts, split over TP but for
  // the ones every rank holds whole.
  auto on_one_rank = [&](int64_t layer_params) { return (layer_params - whole) / tp + whole; };
  GpuParams g;
  for (LayerKind k : kAllLayerKinds)
    g.dense += kinds[k] * on_one_rank(m.layer_params(k) - (has_experts(k) ? expert_layer : 0));
  const int64_t expert_shards = int64_t{p.etp()} * std::max(1, p.ep);  // expert TP x EP
  g.experts = moe * (expert_layer / expert_shards);
  const int64_t h = m.hidden, V = m.vocab;
  if (first) g.dense += (V + m.max_seq) * h / tp;
  if (last) {
    if (!m.tied_embeddings || p.pp > 1) g.dense += V * h / tp;
    g.dense += m.norm_params();
  }
  if (mtp && m.mtp_layers > 0) {
    // The MTP modules, and a copy of the input embedding for their lookups
    // when it lives on another stage (the output layer's weight serves when
    // it is tied and here).
    const int64_t layer = m.mtp_moe() ? m.moe_layer_params() - expert_layer : m.dense_layer_params();
    g.dense += m.mtp_layers * (on_one_rank(layer) + 2 * h * h / tp + 3 * m.norm_params());
    g.experts += (m.mtp_moe() ? m.mtp_layers : 0) * (expert_layer / expert_shards);
    if (p.pp > 1 && !first && (!m.tied_embeddings || !last)) g.dense += (V + m.max_seq) * h / tp;
  }
  return g;
}

GpuParams chunk_params(const ModelSpec& m, const ParallelPlan& p, int stage, int chunk) {
  return chunk_params(m, p, chunk_range(m, p, stage, chunk), stage == 0 && chunk == 0,
                      stage == p.pp - 1 && chunk == p.virtual_stages - 1, holds_mtp(m, p, stage, chunk));
}

GpuParams stage_params(const ModelSpec& m, const ParallelPlan& p, int stage) {
  GpuParams g;
  for (int c = 0; c < p.virtual_stages; ++c) {
    const GpuParams chunk = chunk_params(m, p, stage, c);
    g.dense += chunk.dense;
    g.experts += chunk.experts;
  }
  return g;
}

int64_t lora_params(const ModelSpec& m, const ParallelPlan& p, LayerRange layers, int64_t rank) {
  const int64_t attending = m.layer_counts(layers.first, layers.count).attention();
  const int64_t per_layer =
      rank * (m.hidden + m.q_width() + m.k_width() + m.v_width()) + rank * (m.out_width() + m.hidden);
  return attending * (per_layer / p.tp);
}

int64_t lora_params(const ModelSpec& m, int64_t rank) { return lora_params(m, ParallelPlan{}, {0, m.layers}, rank); }

GpuParams trained_chunk_params(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t, int stage, int chunk) {
  if (t.lora_rank <= 0) return chunk_params(m, p, stage, chunk);
  GpuParams g;
  g.dense = lora_params(m, p, chunk_range(m, p, stage, chunk), t.lora_rank);
  return g;
}

GpuParams trained_stage_params(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t, int stage) {
  GpuParams g;
  for (int c = 0; c < p.virtual_stages; ++c) {
    const GpuParams chunk = trained_chunk_params(m, p, t, stage, c);
    g.dense += chunk.dense;
    g.experts += chunk.experts;
  }
  return g;
}

namespace {

// Trained in 16 bits without master weights: the 16-bit parameters, their
// gradients and AdamW's moments are all the state there is.
bool sixteen_bit_state(const TrainingSpec& t) { return !t.master_weights && t.precision != hw::Precision::kFp32; }

}  // namespace

// Weights kept in FP8 (ParallelPlan::fp8_param_gather) hold about as much
// where the FP8 GEMMs take one layout: Transformer Engine's FP8 weight
// carries its data and the transposed copy the backward's GEMMs read, 1 byte
// each, so the 2 bytes below stand; where they take either (Blackwell) the
// memory model counts 1 (memory.h, MemoryPart).
StateBytes state_bytes_per_param(const TrainingSpec& t, const ParallelPlan& p) {
  if (sixteen_bit_state(t)) return {2, 2, 4};
  // Megatron-Core's DDP keeps one gradient buffer, of the dtype it reduces
  // in (param_and_grad_buffer.py group_params_for_buffers: "torch.float if
  // grad_reduce_in_fp32, else param.dtype"); sharded state (FSDP, ZeRO-2
  // and 3) keeps its shard's gradient in fp32.
  const double grads = p.framework == ShardingFramework::kMegatron && p.zero_stage <= 1
                           ? static_cast<double>(reduced_grad_bytes(t, p))
                           : 4.0;
  switch (t.precision) {
    case hw::Precision::kFp32: return {4, 4, 8};
    // DeepSpeed keeps no fp32 gradient copy between steps (ShardingFramework).
    case hw::Precision::kFp16: return {2, 2, p.framework == ShardingFramework::kDeepSpeed ? 12.0 : 16.0};
    case hw::Precision::kBf16:
    case hw::Precision::kFp4: return {2, grads, t.bf16_moments ? 6.0 : 12.0};  // bf16 moments: TE's remainder master
    case hw::Precision::kFp8: return {2, grads, t.bf16_moments ? 8.0 : 12.0};  // bf16 moments: Megatron's fp32 master
  }
  return {};
}

int64_t element_bytes(const TrainingSpec& t) { return t.precision == hw::Precision::kFp32 ? 4 : 2; }

double saved_gemm_input_bytes(const TrainingSpec& t) {
  switch (t.precision) {
    case hw::Precision::kFp8:
      return t.fp8_recipe == Fp8Recipe::kMxfp8 || t.fp8_recipe == Fp8Recipe::kBlockwise ? 1 + 1.0 / 32 : 1;
    case hw::Precision::kFp4: return 0.5 + 1.0 / 16;
    default: return static_cast<double>(element_bytes(t));
  }
}

bool fp8_weights(const TrainingSpec& t, const ParallelPlan& p) {
  return p.fp8_param_gather && t.precision == hw::Precision::kFp8;
}

// Under LoRA what is gathered is the adapters, 16-bit whatever the frozen
// weights are kept in.
int64_t gathered_param_bytes(const TrainingSpec& t, const ParallelPlan& p) {
  return fp8_weights(t, p) && t.lora_rank <= 0 ? 1 : element_bytes(t);
}

int64_t reduced_grad_bytes(const TrainingSpec& t, const ParallelPlan& p) {
  return t.precision == hw::Precision::kFp32 || p.grad_reduce_in_fp32 ? 4 : 2;
}

int64_t gradient_bucket_bytes(const TrainingSpec& t, const ParallelPlan& p) {
  if (p.bucket_bytes > 0) return p.bucket_bytes;
  if (p.zero_stage >= 3) return 80'000'000;
  const int64_t params = p.framework == ShardingFramework::kDeepSpeed
                             ? 500'000'000
                             : std::max<int64_t>(40'000'000, int64_t{1'000'000} * p.dp);
  return params * reduced_grad_bytes(t, p);
}

double checkpoint_bytes_per_param(const TrainingSpec& t) {
  if (sixteen_bit_state(t)) return 2 + 4;
  // bf16 moments, Megatron's default dp_reshardable checkpoint
  // (distrib_optimizer.py get_unscaled_state): TE's state as the int16
  // remainder and moments cast to fp32; Megatron's own state (FP8) raw.
  if (t.bf16_moments) return t.precision == hw::Precision::kFp8 ? 2 + 4 + 2 + 2 : 2 + 2 + 4 + 4;
  return t.precision == hw::Precision::kFp32 ? 4 + 8 : 2 + 12;
}

hw::ComputeModel::OptimizerState optimizer_state(const TrainingSpec& t) {
  if (sixteen_bit_state(t)) return hw::ComputeModel::OptimizerState::kBf16;
  return t.bf16_moments ? hw::ComputeModel::OptimizerState::kBf16Moments : hw::ComputeModel::OptimizerState::kFp32;
}

}  // namespace anatomy::workload
