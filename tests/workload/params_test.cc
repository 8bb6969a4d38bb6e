#include <gtest/gtest.h>

#include "hw/catalog.h"
#include "hw/compute_model.h"
#include "workload/memory.h"
#include "workload/model.h"
#include "workload/params.h"
#include "workload/step_cost.h"

namespace anatomy::workload {
namespace {

TEST(Params, OneGpuWithoutParallelismHoldsTheWholeModel) {
  // TP = PP = 1: the one stage holds every layer, the embedding, the
  // output layer and the final norm, exactly ModelSpec::params().
  const ModelSpec m = find_model("llama3-8b");
  ParallelPlan p;
  EXPECT_EQ(stage_params(m, p, 0).total(), m.params());
}

TEST(Params, StagesSplitTheModelAndTheTiedEmbeddingIsCopied) {
  // GPT-3 175B (tied embeddings, learned positions) on PP 4, TP 2: the stages together,
  // times TP, hold every parameter once, plus a second copy of the V x h
  // tied embedding on the last stage, less what TP rounding drops, plus the
  // final norm that every TP rank keeps whole (2h with LayerNorm biases).
  const ModelSpec m = find_model("gpt3-175b");
  ParallelPlan p;
  p.tp = 2;
  p.pp = 4;
  int64_t sum = 0;
  for (int s = 0; s < p.pp; ++s) sum += stage_params(m, p, s).total() * p.tp;
  const int64_t expected = m.params() + m.vocab * m.hidden + m.norm_params();
  EXPECT_NEAR(static_cast<double>(sum), static_cast<double>(expected), 64.0);
}

TEST(Params, ExpertTensorParallelismSplitsTheExpertsOverItsOwnRanks) {
  // Mixtral 8x7B with TP 2 and EP 4: a layer's 1,409,286,144 expert
  // parameters over TP x EP = 8 GPUs are 176,160,768 each; with expert TP 1
  // over 4, 352,321,536. The rest of the layer stays split over TP.
  const ModelSpec& m = find_model("mixtral-8x7b");
  ParallelPlan p;
  p.tp = 2;
  p.ep = 4;
  const GpuParams split = chunk_params(m, p, {0, 1}, false, false, false);
  EXPECT_EQ(split.experts, 176'160'768);
  p.expert_tp = 1;
  const GpuParams whole = chunk_params(m, p, {0, 1}, false, false, false);
  EXPECT_EQ(whole.experts, 352'321'536);
  EXPECT_EQ(whole.dense, split.dense);
}

TEST(Params, DeepSeekV3StagesHoldTheirOwnKindsOfLayer) {
  // 61 layers on PP 16 are 3, 3, 4, ...: stage 0 holds the 3 dense layers
  // and no experts, stage 1 three MoE layers with 256 / 64 = 4 of each
  // layer's experts per GPU (EP 64). With TP 2 a dense layer is
  // (583,483,392 - 15,140,864) / 2 + 15,140,864 = 299,312,128 per GPU: MLA's
  // down projections and latent norms stay whole.
  const ModelSpec& m = find_model("deepseek-v3");
  ParallelPlan p;
  p.pp = 16;
  p.ep = 64;
  EXPECT_EQ(stage_params(m, p, 0).experts, 0);
  EXPECT_EQ(stage_params(m, p, 1).experts, 3 * m.expert_params_per_layer() / 64);
  p.tp = 2;
  EXPECT_EQ(chunk_params(m, p, {0, 1}, false, false, false).dense, 299'312'128);
}

// DeepSeek-V3's plan for the layouts below: PP 16 x VPP 2, DP 16 = EP 16.
ParallelPlan deepseek_v3_pp16_vpp2() {
  ParallelPlan p;
  p.pp = 16;
  p.dp = 16;
  p.ep = 16;
  p.virtual_stages = 2;
  return p;
}

TEST(Params, AStandaloneMtpModuleTakesItsLayerAndAnEmbeddingCopyToItsStage) {
  // DeepSeek-V3 on PP 16 x VPP 2 with Megatron's "Et*3|(tt|)*29,m|L": rank
  // 14's second chunk holds the MTP module alone: its MoE layer, its 2h x h
  // projection and three norms, and a copy of the embedding (V x h,
  // untied) for its lookups; rank 15's second chunk the output layer
  // (V x h) and the final norm, and no MTP module. Over the whole model the
  // ranks hold what the evenly split plan holds: there, too, the MTP module
  // needs its own embedding copy, the untied output layer being no copy.
  const ModelSpec& m = find_model("deepseek-v3");
  ParallelPlan p = deepseek_v3_pp16_vpp2();
  ASSERT_EQ(parse_pipeline_layout("Et*3|(tt|)*29,m|L", p.layout), "");
  const int64_t h = m.hidden, V = m.vocab, experts = m.expert_params_per_layer();
  const GpuParams mtp = chunk_params(m, p, 14, 1);
  EXPECT_EQ(mtp.dense, m.moe_layer_params() - experts + 2 * h * h + 3 * m.norm_params() + V * h);
  EXPECT_EQ(mtp.experts, experts / 16);
  const GpuParams loss = chunk_params(m, p, 15, 1);
  EXPECT_EQ(loss.dense, V * h + m.norm_params());
  EXPECT_EQ(loss.experts, 0);
  ParallelPlan even = p;
  even.layout = {};
  even.virtual_stages = 1;
  int64_t laid_out = 0, split = 0;
  for (int s = 0; s < 16; ++s) {
    laid_out += stage_params(m, p, s).total();
    split += stage_params(m, even, s).total();
  }
  EXPECT_EQ(laid_out, split);
}

TEST(Params, ExpertsSplitOverTensorAndExpertParallel) {
  // An MoE layer's experts go over TP x EP, the rest over TP only.
  ModelSpec m = find_model("llama3-8b");
  m.experts = 8;
  m.top_k = 2;
  ParallelPlan p;
  p.tp = 2;
  p.ep = 4;
  const GpuParams g = chunk_params(m, p, {0, 1}, false, false, false);
  EXPECT_EQ(g.experts, m.expert_params_per_layer() / 8);
  EXPECT_EQ(g.dense, (m.moe_layer_params() - m.expert_params_per_layer()) / 2);
}

TEST(Params, StepCostsCountWhatTheStagesHold) {
  // The step cost model's per-chunk parameters (what gradients reduce and
  // the optimizer steps) add up to stage_params, chunk by chunk.
  const ModelSpec m = find_model("llama3-70b");
  ParallelPlan p;
  p.tp = 4;
  p.pp = 4;
  p.virtual_stages = 5;
  p.dp = 2;
  TrainingSpec t;
  t.seq_len = 2048;
  t.global_batch = 16;
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  const StepCostModel cost(m, p, t, cm, [](Communicator, coll::Op, core::Bytes, const std::vector<uint32_t>&) {
    return core::SimTime::zero();
  });
  for (int s = 0; s < p.pp; ++s) EXPECT_EQ(cost.stage(s).params(), stage_params(m, p, s).total()) << "stage " << s;
}

TEST(Params, AStandaloneMtpModuleMovesItsWorkNotItsLoss) {
  // The same DeepSeek-V3 plan with the MTP module beside the loss
  // ("...,|mL": rank 14's second chunk empty) and on its own ("...,m|L").
  // Standalone, rank 14's chunk runs the module (a lookup, a projection, a
  // MoE layer, its all-to-alls) and rank 15's chunk only the output layer
  // and loss, twice (the model's and the module's, which Megatron-LM
  // computes in the output layer's stage); the two chunks together cost
  // the same either way.
  const ModelSpec& m = find_model("deepseek-v3");
  ParallelPlan p = deepseek_v3_pp16_vpp2();
  TrainingSpec t;
  t.seq_len = 4096;
  t.global_batch = 1024;
  t.precision = hw::Precision::kFp8;
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H200"), nullptr);
  const auto costs = [&](const char* layout) {
    ParallelPlan q = p;
    EXPECT_EQ(parse_pipeline_layout(layout, q.layout), "");
    const StepCostModel cost(m, q, t, cm, [](Communicator, coll::Op, core::Bytes, const std::vector<uint32_t>&) {
      return core::SimTime::zero();
    });
    return std::pair{cost.stage(14), cost.stage(15)};
  };
  const auto [beside14, beside15] = costs("Et*3|(tt|)*29,|mL");
  const auto [alone14, alone15] = costs("Et*3|(tt|)*29,m|L");
  EXPECT_EQ(beside14.forward[1].compute, core::SimTime::zero());
  EXPECT_EQ(beside14.forward[1].ep_all_to_alls, 0);
  EXPECT_GT(alone14.forward[1].compute, core::SimTime::zero());
  EXPECT_EQ(alone14.forward[1].ep_all_to_alls, beside15.forward[1].ep_all_to_alls);
  EXPECT_EQ(alone14.forward[1].compute + alone15.forward[1].compute, beside15.forward[1].compute);
  EXPECT_EQ(alone14.backward[1].compute + alone15.backward[1].compute, beside15.backward[1].compute);
  EXPECT_EQ(alone14.chunk_params[1] + alone15.chunk_params[1], beside15.chunk_params[1]);
}

TrainingSpec trained(hw::Precision p, bool master_weights = true) {
  TrainingSpec t;
  t.precision = p;
  t.master_weights = master_weights;
  return t;
}

TEST(Params, CheckpointStateIsWeightsAndOptimizerAtThePrecision) {
  // Mixed precision: 2 B weights + 12 B fp32 master, m and v; fp32: 4 + 8.
  EXPECT_EQ(checkpoint_bytes_per_param(trained(hw::Precision::kBf16)), 14);
  EXPECT_EQ(checkpoint_bytes_per_param(trained(hw::Precision::kFp8)), 14);
  EXPECT_EQ(checkpoint_bytes_per_param(trained(hw::Precision::kFp32)), 12);
}

TEST(Params, WithoutMasterWeightsEverythingStoredIsSixteenBit) {
  // A model cast to bf16 and stepped by torch.optim.AdamW: the bf16 weights
  // are the only copy and AdamW keeps m and v in their dtype, so a
  // checkpoint holds 2 + 2 + 2 = 6 B a parameter (not 14), the GPU 2 B of
  // weights, 2 B of gradient and 4 B of moments, and the step is the
  // 16-bit one.
  const TrainingSpec t = trained(hw::Precision::kBf16, false);
  EXPECT_EQ(checkpoint_bytes_per_param(t), 6);
  const StateBytes s = state_bytes_per_param(t, ParallelPlan{});
  EXPECT_EQ(s.weights, 2);
  EXPECT_EQ(s.gradients, 2);
  EXPECT_EQ(s.optimizer, 4);
  EXPECT_EQ(optimizer_state(t), hw::ComputeModel::OptimizerState::kBf16);
  EXPECT_EQ(optimizer_state(trained(hw::Precision::kBf16)), hw::ComputeModel::OptimizerState::kFp32);
}

TEST(Params, Bf16MomentsHalveAdamsStateAndTheMasterWeightShrinksInBf16Training) {
  // Megatron-LM's precision-aware optimizer with bf16 moments: in bf16 (and
  // FP4) training Transformer Engine keeps the master weight as the bf16
  // weight plus a 16-bit remainder, so 2 + 2 + 2 = 6 B of optimizer state;
  // FP8 recipes keep Megatron's fp32 master copy: 4 + 2 + 2 = 8 B.
  // Megatron's default checkpoint casts TE's moments to fp32 beside the
  // remainder, 2 + 2 + 4 + 4 = 12 B, and saves its own state raw,
  // 2 + 4 + 2 + 2 = 10 B.
  TrainingSpec t = trained(hw::Precision::kBf16);
  t.bf16_moments = true;
  EXPECT_EQ(state_bytes_per_param(t, ParallelPlan{}).optimizer, 6);
  EXPECT_EQ(checkpoint_bytes_per_param(t), 12);
  EXPECT_EQ(optimizer_state(t), hw::ComputeModel::OptimizerState::kBf16Moments);
  t.precision = hw::Precision::kFp4;
  EXPECT_EQ(state_bytes_per_param(t, ParallelPlan{}).optimizer, 6);
  t.precision = hw::Precision::kFp8;
  EXPECT_EQ(state_bytes_per_param(t, ParallelPlan{}).optimizer, 8);
  EXPECT_EQ(checkpoint_bytes_per_param(t), 10);
}

TEST(Params, MegatronsGradientBufferHoldsTheDtypeItReducesIn) {
  // Megatron-Core's DDP allocates one gradient buffer per dtype pair, the
  // gradients as torch.float under grad_reduce_in_fp32 and in the
  // parameter's dtype otherwise (param_and_grad_buffer.py), and the
  // distributed optimizer (ZeRO-1) keeps that buffer whole: 4 B a
  // parameter with fp32 reduction, 2 B with bf16 (the MLPerf recipes'
  // grad_reduce_in_fp32=False). Sharded state (ZeRO-3, FSDP) keeps its
  // gradient shard in fp32, 4 B.
  TrainingSpec t = trained(hw::Precision::kFp8);
  ParallelPlan p;
  p.zero_stage = 1;
  EXPECT_EQ(state_bytes_per_param(t, p).gradients, 2);
  p.grad_reduce_in_fp32 = true;
  EXPECT_EQ(state_bytes_per_param(t, p).gradients, 4);
  p.grad_reduce_in_fp32 = false;
  p.zero_stage = 3;
  EXPECT_EQ(state_bytes_per_param(t, p).gradients, 4);
  p.zero_stage = 0;
  p.framework = ShardingFramework::kDeepSpeed;
  EXPECT_EQ(state_bytes_per_param(t, p).gradients, 4);
  t.precision = hw::Precision::kBf16;
  p.framework = ShardingFramework::kMegatron;
  EXPECT_EQ(state_bytes_per_param(t, p).gradients, 2);
  EXPECT_EQ(state_bytes_per_param(t, p).weights, 2);
  EXPECT_EQ(state_bytes_per_param(t, p).optimizer, 12);
}

TEST(Params, DataParallelCollectivesMoveTheDtypeTheyHold) {
  // Gathered weights are in the training dtype: 4 B in fp32, 2 B in bf16 and
  // in FP8 recipes (their master-weight copy is bf16), 1 B where an FP8
  // recipe keeps them in FP8 (--fp8-param-gather). Reduced gradients are
  // 4 B in fp32 or when reduced in fp32 (Megatron's main_grad), else 2 B.
  ParallelPlan p;
  EXPECT_EQ(gathered_param_bytes(trained(hw::Precision::kFp32), p), 4);
  EXPECT_EQ(gathered_param_bytes(trained(hw::Precision::kBf16), p), 2);
  EXPECT_EQ(gathered_param_bytes(trained(hw::Precision::kFp8), p), 2);
  p.fp8_param_gather = true;
  EXPECT_EQ(gathered_param_bytes(trained(hw::Precision::kFp8), p), 1);
  p.fp8_param_gather = false;
  EXPECT_EQ(reduced_grad_bytes(trained(hw::Precision::kFp32), p), 4);
  EXPECT_EQ(reduced_grad_bytes(trained(hw::Precision::kBf16), p), 2);
  p.grad_reduce_in_fp32 = true;
  EXPECT_EQ(reduced_grad_bytes(trained(hw::Precision::kBf16), p), 4);
}

TEST(LoraParams, AdaptersBesideQkvAndTheOutputProjectionOfEveryAttentionLayer) {
  // Llama 3 8B: h 4096, 32 heads and 8 KV heads of 128: q 4096, k = v 1024,
  // o 4096. Rank 16: 16 (4096 + 4096 + 1024 + 1024) + 16 (4096 + 4096) =
  // 163,840 + 131,072 = 294,912 a layer; 32 layers 9,437,184; over TP 2,
  // 4,718,592 a GPU.
  const ModelSpec& m = find_model("llama3-8b");
  ParallelPlan p;
  p.tp = 2;
  EXPECT_EQ(lora_params(m, p, LayerRange{0, 32}, 16), 4'718'592);
  EXPECT_EQ(lora_params(m, p, LayerRange{0, 8}, 16), 4'718'592 / 4);
  // Trained under LoRA: the adapters alone; otherwise all the chunk holds.
  TrainingSpec t;
  EXPECT_EQ(trained_chunk_params(m, p, t, 0, 0).total(), chunk_params(m, p, 0, 0).total());
  t.lora_rank = 16;
  EXPECT_EQ(trained_chunk_params(m, p, t, 0, 0).total(), 4'718'592);
  EXPECT_EQ(trained_chunk_params(m, p, t, 0, 0).experts, 0);
}

}  // namespace
}  // namespace anatomy::workload
