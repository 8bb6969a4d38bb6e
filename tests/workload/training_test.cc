#include <gtest/gtest.h>

#include "core/error.h"
#include "workload/layout.h"
#include "workload/model.h"
#include "workload/training.h"

namespace anatomy::workload {
namespace {

// The field and message validate_plan throws, or "ok".
std::string check(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t, int gpus) {
  try {
    validate_plan(m, p, t, gpus);
    return "ok";
  } catch (const core::InputError& e) {
    return e.what();
  }
}

ParallelPlan plan_of(int tp, int pp, int dp, int cp = 1) {
  ParallelPlan p;
  p.tp = tp;
  p.pp = pp;
  p.dp = dp;
  p.cp = cp;
  return p;
}

TrainingSpec training_of(int64_t seq, int64_t global_batch, int64_t micro_batch) {
  TrainingSpec t;
  t.seq_len = seq;
  t.global_batch = global_batch;
  t.micro_batch = micro_batch;
  return t;
}

TEST(Recompute, Names) {
  EXPECT_STREQ(to_string(Recompute::kNone), "none");
  EXPECT_STREQ(to_string(Recompute::kSelective), "selective");
  EXPECT_STREQ(to_string(Recompute::kFull), "full");
}

TEST(ValidatePlan, PublishedPlansPass) {
  // Llama 3 405B, Table 4 row 2: TP 8, PP 16, DP 128 on 16,384 GPUs, 16 sequences
  // per DP rank of 8,192 tokens: global batch 2,048, 126 layers split unevenly.
  EXPECT_EQ(check(find_model("llama3-405b"), plan_of(8, 16, 128), training_of(8192, 2048, 1), 16384), "ok");
  // GPT-3 175B PTD-P (A2): TP 8 x PP 12 on 1,536 GPUs (DP 16), batch 1536.
  EXPECT_EQ(check(find_model("gpt3-175b"), plan_of(8, 12, 16), training_of(2048, 1536, 1), 1536), "ok");
  // Table 1's 1T model: TP 8 x PP 64, 3,072 GPUs, batch 3,072, interleaved by 2
  // (128 layers = 64 x 2 chunks; 3,072 / 6 = 512 micro-batches, a multiple of 64).
  ParallelPlan p = plan_of(8, 64, 6);
  p.virtual_stages = 2;
  EXPECT_EQ(check(find_model("gpt-1008b"), p, training_of(2048, 3072, 1), 3072), "ok");
}

TEST(ValidatePlan, GpuCountMustMatch) {
  EXPECT_EQ(check(find_model("llama3-70b"), plan_of(8, 4, 16), training_of(8192, 512, 1), 1024),
            "parallelism: TP 8 x PP 4 x DP 16 x CP 1 = 512, but the cluster has 1024 GPUs");
}

TEST(ValidatePlan, TensorParallelMustSplitHeads) {
  const ModelSpec& m = find_model("llama3-70b");  // 64 heads, 8 KV heads, ffn 28672
  EXPECT_EQ(check(m, plan_of(3, 1, 1), training_of(8192, 9, 3), 3), "parallelism.tp: 3 does not divide 64 attention heads");
  // GQA: TP 16 > 8 KV heads replicates each KV head on 2 ranks, which is allowed.
  EXPECT_EQ(check(m, plan_of(16, 1, 1), training_of(8192, 8, 1), 16), "ok");
  // 96 query heads, 12 KV heads (a made-up shape): TP 8 neither divides 12 nor is a multiple of it.
  ModelSpec odd = m;
  odd.heads = 96;
  odd.hidden = 96 * 128;
  odd.kv_heads = 12;
  EXPECT_NE(check(odd, plan_of(8, 1, 1), training_of(8192, 8, 1), 8).find("parallelism.tp: 8 neither divides 12"),
            std::string::npos);
}

TEST(ValidatePlan, SizesMustBePositive) {
  const ModelSpec& m = find_model("llama3-8b");
  EXPECT_EQ(check(m, plan_of(0, 1, 1), training_of(8192, 8, 1), 0), "parallelism.tp: must be at least 1 (got 0)");
  EXPECT_EQ(check(m, plan_of(1, 1, 1), training_of(0, 8, 1), 1), "training.seq_len: must be at least 1 (got 0)");
  EXPECT_EQ(check(m, plan_of(1, 1, 1), training_of(8192, 8, 0), 1), "training.micro_batch: must be at least 1 (got 0)");
}

TEST(ValidatePlan, BatchMustSplitIntoMicroBatches) {
  // 1,536 sequences are 12 steps of micro-batch 2 x DP 64, but not of 5 x 64.
  const ModelSpec& m = find_model("gpt3-175b");
  EXPECT_EQ(check(m, plan_of(8, 2, 64), training_of(2048, 1536, 2), 1024), "ok");
  EXPECT_EQ(check(m, plan_of(8, 2, 64), training_of(2048, 1536, 5), 1024),
            "training.global_batch: 1536 is not a multiple of micro_batch 5 x DP 64");
}

TEST(ValidatePlan, PipelineLayers) {
  const ModelSpec& m = find_model("llama3-8b");  // 32 layers
  EXPECT_EQ(check(m, plan_of(1, 64, 1), training_of(8192, 64, 1), 64),
            "parallelism.pp: 64 stages for 32 layers leaves a stage without a layer");
  // Uneven without interleaving is allowed (32 on PP 6: 5, 6, 6, 5... see layers_per_stage).
  EXPECT_EQ(check(m, plan_of(1, 6, 1), training_of(8192, 12, 1), 6), "ok");
  // Interleaved chunks may differ by a layer (8 layers per stage in 3
  // chunks: 3, 3, 2), but each needs one: 9 chunks of an 8-layer stage do not fit.
  ParallelPlan p = plan_of(1, 4, 1);
  p.virtual_stages = 3;
  EXPECT_EQ(check(m, p, training_of(8192, 8, 1), 4), "ok");
  p.virtual_stages = 9;
  EXPECT_EQ(check(m, p, training_of(8192, 8, 1), 4),
            "parallelism.virtual_stages: a pipeline stage with 8 layers cannot hold 9 model chunks");
  // ... and micro-batches a multiple of PP (Megatron-LM's rule): 4 x 2 = 8 chunks of 4 layers, 6 micro-batches.
  p.virtual_stages = 2;
  EXPECT_EQ(check(m, p, training_of(8192, 6, 1), 4),
            "parallelism.virtual_stages: interleaved 1F1B needs the micro-batches per iteration (6) to be a multiple "
            "of PP 4 (or parallelism.microbatch_group set so that they divide into groups of it)");
  EXPECT_EQ(check(m, p, training_of(8192, 8, 1), 4), "ok");
  // Megatron-Core's groups of N micro-batches a chunk lift that rule: N from
  // PP to M, the last group whole or at least PP. 6 in one group of 6, or 10
  // as 6 + 4, run; 9 as 6 + 3 leaves a group shorter than PP 4.
  p.microbatch_group = 6;
  EXPECT_EQ(check(m, p, training_of(8192, 6, 1), 4), "ok");
  EXPECT_EQ(check(m, p, training_of(8192, 10, 1), 4), "ok");
  EXPECT_EQ(check(m, p, training_of(8192, 9, 1), 4),
            "parallelism.microbatch_group: leaves a last group of 3 of the 9 micro-batches, fewer than PP 4 "
            "(Megatron-Core refuses it: the group would wait on its own chunks)");
  p.microbatch_group = 3;
  EXPECT_EQ(check(m, p, training_of(8192, 6, 1), 4),
            "parallelism.microbatch_group: 3 is not between PP 4 and the 6 micro-batches per iteration");
  p.virtual_stages = 1;
  EXPECT_EQ(check(m, p, training_of(8192, 6, 1), 4),
            "parallelism.microbatch_group: groups the micro-batches of interleaved 1F1B; virtual_stages is 1");
}

TEST(ValidatePlan, ExpertLoadImbalanceWeighsTheBusiestOfSeveralExpertRanks) {
  // The busiest rank's load over the mean's: it needs experts spread over
  // EP > 1 ranks, and the busiest of EP ranks holds at most all the routed
  // tokens, EP times the mean.
  const ModelSpec& m = find_model("mixtral-8x7b");
  ParallelPlan p = plan_of(1, 1, 8);
  p.ep = 4;
  TrainingSpec t = training_of(4096, 8, 1);
  t.expert_load_imbalance = 1.3;
  EXPECT_EQ(check(m, p, t, 8), "ok");
  t.expert_load_imbalance = 4.5;
  EXPECT_EQ(check(m, p, t, 8),
            "training.expert_load_imbalance: 4.5 is more than ep (4): the busiest rank receives at most every routed "
            "token");
  t.expert_load_imbalance = 1.3;
  p.ep = 1;
  EXPECT_EQ(check(m, p, t, 8),
            "training.expert_load_imbalance: 1.3 weighs the busiest of the expert-parallel ranks; it needs a MoE "
            "model and ep > 1 (ep is 1)");
}

TEST(ValidatePlan, ContextAndExpertParallel) {
  const ModelSpec& m = find_model("mixtral-8x7b");  // 8 experts
  ParallelPlan p = plan_of(2, 1, 8, 4);
  p.ep = 8;
  EXPECT_EQ(check(m, p, training_of(32768, 64, 1), 64), "ok");
  EXPECT_EQ(check(m, p, training_of(32766, 64, 1), 64), "parallelism.cp: 4 does not divide seq_len 32766");
  p.ep = 16;
  p.dp = 16;
  EXPECT_EQ(check(m, p, training_of(32768, 64, 1), 128), "parallelism.ep: 16 does not divide 8 experts");
  // EP folds over CP x DP, as Megatron-LM's expert groups do: EP 4 on CP 4
  // x DP 6 = 24 ranks is fine; EP 8 on CP 4 x DP 3 (x TP 2 = 24 ranks, in
  // groups of expert TP 2 x EP 8 = 16) is not.
  p.ep = 4;
  p.dp = 6;
  EXPECT_EQ(check(m, p, training_of(32768, 60, 1), 48), "ok");
  p.ep = 8;
  p.dp = 3;
  EXPECT_EQ(check(m, p, training_of(32768, 60, 1), 24),
            "parallelism.ep: 8 x expert_tp 2 does not divide TP x CP x DP = 24 (the ranks expert groups fold over)");
  p.cp = 1;
  p.dp = 6;
  EXPECT_EQ(check(m, p, training_of(32768, 60, 1), 12), "parallelism.ep: 8 does not divide DP 6");
  ParallelPlan dense = plan_of(1, 1, 8);
  dense.ep = 2;
  EXPECT_EQ(check(find_model("llama3-8b"), dense, training_of(8192, 8, 1), 8),
            "parallelism.ep: 2 needs a mixture-of-experts model; llama3-8b is dense");
}

TEST(ValidatePlan, ZeroStage) {
  ParallelPlan p = plan_of(1, 1, 8);
  p.zero_stage = 4;
  EXPECT_EQ(check(find_model("llama3-8b"), p, training_of(8192, 8, 1), 8),
            "parallelism.zero_stage: 4 is not one of 0, 1, 2, 3");
}

TEST(ValidatePlan, ShardGroup) {
  const ModelSpec& m = find_model("llama3-8b");
  ParallelPlan p = plan_of(1, 1, 16);
  p.zero_stage = 3;
  p.shard_group = 8;
  EXPECT_EQ(check(m, p, training_of(8192, 16, 1), 16), "ok");
  p.shard_group = -1;
  EXPECT_EQ(check(m, p, training_of(8192, 16, 1), 16), "parallelism.shard_group: -1 is negative");
  p.shard_group = 6;
  EXPECT_EQ(check(m, p, training_of(8192, 16, 1), 16),
            "parallelism.shard_group: 6 does not divide the DP x CP group of 16 ranks");
  p.shard_group = 8;
  p.zero_stage = 2;
  EXPECT_EQ(check(m, p, training_of(8192, 16, 1), 16),
            "parallelism.shard_group: 8 needs zero_stage 3 (the parameters sharded); zero_stage is 2");
}

TEST(ValidatePlan, RecomputeLayers) {
  const ModelSpec& m = find_model("llama3-8b");
  const ParallelPlan p = plan_of(1, 1, 8);
  TrainingSpec t = training_of(8192, 8, 1);
  t.recompute = Recompute::kFull;
  t.recompute_layers = 4;
  EXPECT_EQ(check(m, p, t, 8), "ok");
  t.recompute_layers = -1;
  EXPECT_EQ(check(m, p, t, 8), "training.recompute_layers: -1 is negative");
  t.recompute_layers = 4;
  t.recompute = Recompute::kSelective;
  EXPECT_EQ(check(m, p, t, 8),
            "training.recompute_layers: 4 needs recompute: full (whole layers recomputed); recompute is selective");
}

TEST(ValidatePlan, KeepingTheAttentionOutputNeedsAFullReplayOfAFlashKernel) {
  const ModelSpec& m = find_model("llama3-8b");
  const ParallelPlan p = plan_of(1, 1, 8);
  TrainingSpec t = training_of(8192, 8, 1);
  t.recompute = Recompute::kFull;
  t.recompute_keeps_attention = true;
  EXPECT_EQ(check(m, p, t, 8), "ok");
  t.recompute = Recompute::kSelective;
  EXPECT_EQ(check(m, p, t, 8),
            "training.recompute_keeps_attention: true keeps the attention kernel's output through a full replay; "
            "recompute is selective");
  t.recompute = Recompute::kFull;
  t.flash_attention = false;
  EXPECT_EQ(check(m, p, t, 8),
            "training.recompute_keeps_attention: true needs flash_attention: without it the backward reads the s x s "
            "scores, not the kernel's output");
}

TEST(ChunkRange, InterleavedChunksTakeTheModelsLayersInRoundRobinOrder) {
  // 16 layers, PP 2, 2 chunks per stage: model chunks of 4 in the order
  // stage 0 chunk 0 (0-3), stage 1 chunk 0 (4-7), stage 0 chunk 1 (8-11),
  // stage 1 chunk 1 (12-15), as Megatron-LM's interleaved schedule assigns them.
  ModelSpec m = find_model("llama3-8b");
  m.layers = 16;
  ParallelPlan p = plan_of(1, 2, 1);
  p.virtual_stages = 2;
  EXPECT_EQ(chunk_range(m, p, 0, 0).first, 0);
  EXPECT_EQ(chunk_range(m, p, 1, 0).first, 4);
  EXPECT_EQ(chunk_range(m, p, 0, 1).first, 8);
  EXPECT_EQ(chunk_range(m, p, 1, 1).first, 12);
  EXPECT_EQ(chunk_range(m, p, 1, 1).count, 4);
  // Without interleaving, 61 layers on PP 16 are 3, 3, 4 x 13, 3: stage 2 starts at 6.
  m.layers = 61;
  const ParallelPlan flat = plan_of(1, 16, 1);
  EXPECT_EQ(chunk_range(m, flat, 2, 0).first, 6);
  EXPECT_EQ(chunk_range(m, flat, 15, 0).first, 58);
}

// A plan with Megatron-LM's pipeline layout `text` (it must parse).
ParallelPlan with_layout(ParallelPlan p, const char* text) {
  EXPECT_EQ(parse_pipeline_layout(text, p.layout), "");
  return p;
}

TEST(ChunkRange, ALayoutGivesEachChunkItsLayersInMegatronsOrder) {
  // DeepSeek-V3 on PP 16 x VPP 2, "Et*3|(tt|)*29,m|L": virtual stage i is
  // chunk i / 16 of rank i % 16. Rank 0 chunk 0 holds layers 0-2; rank 1
  // chunk 0 is stage 1, layers 3-4; rank 0 chunk 1 is stage 16, after 3 +
  // 15 x 2 = 33 layers; rank 14 chunk 1 (stage 30) holds only the MTP
  // module, at layer 61; rank 15 chunk 1 (stage 31) only the loss.
  const ModelSpec& m = find_model("deepseek-v3");
  ParallelPlan p = plan_of(1, 16, 16);
  p.virtual_stages = 2;
  p = with_layout(p, "Et*3|(tt|)*29,m|L");
  EXPECT_EQ(chunk_range(m, p, 0, 0).first, 0);
  EXPECT_EQ(chunk_range(m, p, 0, 0).count, 3);
  EXPECT_EQ(chunk_range(m, p, 1, 0).first, 3);
  EXPECT_EQ(chunk_range(m, p, 1, 0).count, 2);
  EXPECT_EQ(chunk_range(m, p, 0, 1).first, 33);
  EXPECT_EQ(chunk_range(m, p, 14, 1).count, 0);
  EXPECT_EQ(chunk_range(m, p, 15, 1).first, 61);
  EXPECT_EQ(chunk_range(m, p, 15, 1).count, 0);
  // Ranks 0 and 15: 3 + 2 and 2 + 0 layers; the others 4, but rank 14: 2.
  std::vector<int64_t> expect(16, 4);
  expect[0] = 5;
  expect[14] = 2;
  expect[15] = 2;
  EXPECT_EQ(layers_per_stage(m, p), expect);
  // The MTP module runs where the layout puts it, not beside the loss.
  EXPECT_TRUE(holds_mtp(m, p, 14, 1));
  EXPECT_FALSE(holds_mtp(m, p, 15, 1));
  // Without a layout, on the last chunk of the last rank.
  EXPECT_TRUE(holds_mtp(m, plan_of(1, 16, 16), 15, 0));
  EXPECT_FALSE(holds_mtp(find_model("llama3-8b"), plan_of(1, 2, 1), 1, 0));
}

TEST(ValidatePlan, PipelineLayoutMustMatchThePlanAndTheModel) {
  const ModelSpec& m = find_model("deepseek-v3");
  const TrainingSpec t = training_of(4096, 1024, 1);
  ParallelPlan p = with_layout(plan_of(1, 16, 16), "Et*3|(tt|)*29,m|L");
  EXPECT_EQ(check(m, p, t, 256),
            "parallelism.pipeline_layout: lists 32 stages, but pp 16 x virtual_stages 1 = 16 (set virtual_stages: 2)");
  p.virtual_stages = 2;
  EXPECT_EQ(check(m, p, t, 256), "ok");
  p.pp = 8;
  p.dp = 32;
  p.virtual_stages = 5;
  EXPECT_EQ(check(m, p, t, 256),
            "parallelism.pipeline_layout: lists 32 stages, but pp 8 x virtual_stages 5 = 40 (set virtual_stages: 4)");
  // 60 layers listed for a 61-layer model; no MTP module for one.
  EXPECT_EQ(check(m, with_layout(plan_of(1, 16, 16), "Et*3|(t*4|)*14,tmL"), t, 256),
            "parallelism.pipeline_layout: holds 60 transformer layers (t), but deepseek-v3 has 61");
  EXPECT_EQ(check(m, with_layout(plan_of(1, 16, 16), "Et*3|(t*4|)*14,t*2L"), t, 256),
            "parallelism.pipeline_layout: holds 0 MTP modules (m), but model.mtp_layers is 1");
  // Megatron-LM keeps MTP modules in the last chunk of their rank: stage 15
  // of PP 16 x VPP 2 is rank 15's first chunk.
  ParallelPlan early = with_layout(plan_of(1, 16, 16), "Et*3|(t*4|)*14,t*2m|(|)*15L");
  early.virtual_stages = 2;
  EXPECT_EQ(check(m, early, t, 256),
            "parallelism.pipeline_layout: puts MTP modules in model chunk 0 of pipeline rank 15; they must be in the "
            "rank's last chunk (1), as Megatron-LM requires");
  // A layout may leave a chunk empty: the evenly split plan could not
  // (16 x 4 chunks for 61 layers).
  // 1 + 14 + 1 + 47 + 1 = 64 stages, the last 48 but one empty.
  ParallelPlan sparse = with_layout(plan_of(1, 16, 16), "Et*3|(t*4|)*14,t*2(|)*48mL");
  sparse.virtual_stages = 4;
  EXPECT_EQ(check(m, sparse, t, 256), "ok");
  sparse.layout = {};
  EXPECT_EQ(check(m, sparse, t, 256),
            "parallelism.virtual_stages: a pipeline stage with 3 layers cannot hold 4 model chunks");
}

TEST(ChunkRange, MegatronsUnevenFirstAndLastStages) {
  // --decoder-first/last-pipeline-num-layers 6 on Llama 3 8B's 32 layers
  // over PP 4: the two middle ranks share 32 - 12 = 20, 10 each.
  const ModelSpec& m = find_model("llama3-8b");
  ParallelPlan p = plan_of(1, 4, 1);
  p.first_stage_layers = 6;
  p.last_stage_layers = 6;
  EXPECT_EQ(layers_per_stage(m, p), (std::vector<int64_t>{6, 10, 10, 6}));
  EXPECT_EQ(chunk_range(m, p, 3, 0).first, 26);
  // The first rank alone at 8 with 2 chunks: 24 left for 3 ranks, 8 each,
  // 4 a chunk; rank 1's second chunk (virtual stage 5) starts at 5 x 4.
  p.first_stage_layers = 8;
  p.last_stage_layers = 0;
  p.virtual_stages = 2;
  EXPECT_EQ(layers_per_stage(m, p), (std::vector<int64_t>(4, 8)));
  EXPECT_EQ(chunk_range(m, p, 1, 1).first, 20);
}

TEST(ChunkRange, MegatronCountsTheEmbeddingAndLossAsLayers) {
  // --account-for-embedding/loss-in-pipeline-split on Llama 3 405B over PP 8
  // x VPP 8 (Megatron-LM's get_num_layers_to_build): 126 + 2 = 128 layers, 16 a rank,
  // 2 a chunk, but rank 0's first chunk holds 1 (beside the embedding) and
  // rank 7's last chunk 1 (beside the loss). Rank 0's second chunk is
  // virtual stage 8, after 1 + 7 x 2 = 15 layers.
  const ModelSpec& m = find_model("llama3-405b");
  ParallelPlan p = plan_of(8, 8, 4);
  p.virtual_stages = 8;
  p.embedding_in_split = true;
  p.loss_in_split = true;
  EXPECT_EQ(chunk_range(m, p, 0, 0).count, 1);
  EXPECT_EQ(chunk_range(m, p, 0, 1).first, 15);
  EXPECT_EQ(chunk_range(m, p, 0, 1).count, 2);
  EXPECT_EQ(chunk_range(m, p, 7, 7).first, 125);
  EXPECT_EQ(chunk_range(m, p, 7, 7).count, 1);
  std::vector<int64_t> expect(8, 16);
  expect.front() = expect.back() = 15;
  EXPECT_EQ(layers_per_stage(m, p), expect);
}

TEST(ValidatePlan, MegatronsUnevenSplitsSayWhyTheyDoNotFit) {
  const ModelSpec& m = find_model("llama3-8b");  // 32 layers
  const TrainingSpec t = training_of(4096, 32, 1);
  ParallelPlan p = plan_of(1, 4, 4);
  p.first_stage_layers = 10;
  EXPECT_EQ(check(m, p, t, 16),
            "parallelism.first_stage_layers: the other 3 pipeline ranks cannot share the 22 layers left equally");
  p.first_stage_layers = 16;
  p.last_stage_layers = 16;
  EXPECT_EQ(check(m, p, t, 16),
            "parallelism.first_stage_layers: 16 layers on the first and 16 on the last pipeline rank leave 0 of "
            "llama3-8b's 32 for the other 2");
  p.first_stage_layers = 20;
  p.last_stage_layers = 20;
  EXPECT_EQ(check(m, p, t, 16),
            "parallelism.first_stage_layers: 20 layers on the first and 20 on the last pipeline rank leave -8 of "
            "llama3-8b's 32 for the other 2");
  p.first_stage_layers = 0;
  p.last_stage_layers = 8;
  p.loss_in_split = true;
  EXPECT_EQ(check(m, p, t, 16),
            "parallelism.last_stage_layers: cannot be combined with embedding_in_split or loss_in_split (Megatron-LM: "
            "\"Does not support standalone embedding stage and standalone loss stage with uneven pp\")");
  p.last_stage_layers = 0;
  EXPECT_EQ(check(m, p, t, 16),
            "parallelism.loss_in_split: 33 layers, the loss counted, do not divide over 4 pipeline ranks");
  p.embedding_in_split = true;
  p.virtual_stages = 4;  // 34 does not divide by 4 either
  p.pp = 2;
  p.dp = 8;
  EXPECT_EQ(check(m, p, t, 16),
            "parallelism.embedding_in_split: a pipeline rank's 17 layers do not divide into 4 equal model chunks");
  p.virtual_stages = 1;
  EXPECT_EQ(check(m, p, t, 16), "ok");
  EXPECT_EQ(layers_per_stage(m, p), (std::vector<int64_t>{16, 16}));
  ASSERT_EQ(parse_pipeline_layout("Et*16|t*16L", p.layout), "");
  EXPECT_EQ(check(m, p, t, 16),
            "parallelism.pipeline_layout: gives every chunk's layers; leave first_stage_layers, last_stage_layers, "
            "embedding_in_split and loss_in_split unset");
}

TEST(RecomputeModules, MegatronsNamesParseAndPrintBack) {
  uint32_t bits = 0;
  EXPECT_EQ(parse_recompute_modules("mla_up_proj, moe_act layernorm", bits), "");
  EXPECT_EQ(bits, uint32_t{kRecomputeMlaUpProj | kRecomputeMoeAct | kRecomputeLayernorm});
  EXPECT_EQ(recompute_modules_text(bits), "layernorm,moe_act,mla_up_proj");
  EXPECT_EQ(parse_recompute_modules("", bits), "");
  EXPECT_EQ(bits, 0u);
  EXPECT_EQ(parse_recompute_modules("core_attn,moe_ac", bits),
            "unknown module 'moe_ac' (known: core_attn, layernorm, moe_act, mla_up_proj, mlp, moe, shared_experts)");
  // Selective without modules is Megatron's default, the attention core;
  // other recomputation replays no module.
  TrainingSpec t;
  t.recompute = Recompute::kSelective;
  EXPECT_EQ(selective_modules(t), uint32_t{kRecomputeCoreAttn});
  EXPECT_EQ(recompute_text(t), "selective");
  t.recompute_modules = kRecomputeMoeAct | kRecomputeLayernorm;
  EXPECT_EQ(selective_modules(t), uint32_t{kRecomputeMoeAct | kRecomputeLayernorm});
  EXPECT_EQ(recompute_text(t), "selective (layernorm moe_act)");
  t.recompute = Recompute::kFull;
  EXPECT_EQ(selective_modules(t), 0u);
}

TEST(ValidatePlan, RecomputeModulesNeedSelectiveAndSomethingToReplay) {
  const TrainingSpec base = training_of(4096, 8, 1);
  TrainingSpec t = base;
  t.recompute_modules = kRecomputeMoeAct;
  const ModelSpec& mixtral = find_model("mixtral-8x7b");  // every layer MoE, no MLA, no shared experts
  const ParallelPlan p = plan_of(1, 1, 8);
  EXPECT_EQ(check(mixtral, p, t, 8), "training.recompute_modules: moe_act needs recompute: selective; recompute is none");
  t.recompute = Recompute::kSelective;
  EXPECT_EQ(check(mixtral, p, t, 8), "ok");
  t.recompute_modules = kRecomputeMlaUpProj;
  EXPECT_EQ(check(mixtral, p, t, 8), "training.recompute_modules: mla_up_proj needs multi-head latent attention "
                                     "(model.kv_lora_rank); mixtral-8x7b has none");
  t.recompute_modules = kRecomputeMlp;
  EXPECT_EQ(check(mixtral, p, t, 8),
            "training.recompute_modules: mlp needs a layer with a dense MLP; mixtral-8x7b has none");
  t.recompute_modules = kRecomputeSharedExperts;
  EXPECT_EQ(check(mixtral, p, t, 8), "training.recompute_modules: shared_experts needs shared experts; mixtral-8x7b "
                                     "has none");
  t.recompute_modules = kRecomputeMoe;
  EXPECT_EQ(check(find_model("llama3-8b"), p, t, 8),
            "training.recompute_modules: moe needs experts; llama3-8b has none");
  t.recompute_modules = kRecomputeLayernorm;
  EXPECT_EQ(check(find_model("llama3-8b"), p, t, 8),
            "training.recompute_modules: layernorm needs a norm of its own: MLA's input norm or a MoE layer's "
            "pre-MLP norm (Megatron-LM's Transformer Engine layers fuse the others into the GEMM after them); "
            "llama3-8b has none");
  EXPECT_EQ(check(mixtral, p, t, 8), "ok");
  // A class's model keeps only the modules it has something for.
  EXPECT_EQ(applicable_modules(find_model("llama3-8b"), kRecomputeLayernorm | kRecomputeMoeAct | kRecomputeMlp),
            uint32_t{kRecomputeMlp});
  EXPECT_EQ(applicable_modules(find_model("deepseek-v3"), 127u), 127u);
}

TEST(ValidatePlan, MixtureOfExpertsLayout) {
  ModelSpec m = find_model("llama3-8b");
  const ParallelPlan p = plan_of(1, 1, 8);
  const TrainingSpec t = training_of(8192, 8, 1);
  m.dense_layers = 2;
  EXPECT_EQ(check(m, p, t, 8),
            "model.dense_layers: 2 describes a mixture of experts; this model is dense (experts: 1)");
  m.experts = 8;
  EXPECT_EQ(check(m, p, t, 8), "ok");
  m.dense_layers = 32;  // every one of the 32 layers dense
  EXPECT_EQ(check(m, p, t, 8),
            "model.dense_layers: 32 dense layers and moe_layer_step 1 leave none of 32 layers with experts");
  m.dense_layers = 0;
  m.moe_layer_step = 0;
  EXPECT_EQ(check(m, p, t, 8), "model.moe_layer_step: must be at least 1 (got 0)");
}

TEST(ValidatePlan, ExpertCommOverlapNeedsExpertsAndInterleavingUnderPipelining) {
  const ModelSpec& m = find_model("mixtral-8x7b");
  ParallelPlan p = plan_of(1, 2, 8);
  p.ep = 8;
  p.ep_comm_overlap = true;
  const TrainingSpec t = training_of(4096, 16, 1);
  EXPECT_EQ(check(m, p, t, 16),
            "parallelism.ep_comm_overlap: with pp 2 Megatron-LM's combined 1F1B needs interleaving (virtual_stages > 1)");
  p.virtual_stages = 2;
  EXPECT_EQ(check(m, p, t, 16), "ok");
  // Megatron-LM refuses full recomputation, and replaying whole MoE layers, beside it.
  TrainingSpec full = t;
  full.recompute = Recompute::kFull;
  EXPECT_EQ(check(m, p, full, 16),
            "parallelism.ep_comm_overlap: with recompute: full is refused by Megatron-LM (\"disable full "
            "recomputation when enabling overlap_moe_expert_parallel_comm\"); use selective recomputation");
  full.recompute = Recompute::kSelective;
  full.recompute_modules = kRecomputeMoe;
  EXPECT_EQ(check(m, p, full, 16),
            "parallelism.ep_comm_overlap: with the moe recompute module is refused by Megatron-LM (\"disable moe "
            "in recompute_modules when enabling overlap_moe_expert_parallel_comm\")");
  p.ep = 1;
  EXPECT_EQ(check(m, p, t, 16),
            "parallelism.ep_comm_overlap: needs expert parallelism (ep > 1): there are no all-to-alls to overlap");
}

TEST(ValidatePlan, GroupLimitedRoutingAndTheFlexDispatcher) {
  // Megatron-LM's checks on --moe-router-num-groups / --moe-router-group-topk,
  // and a group must be able to hold its share of a token's experts.
  ModelSpec m = find_model("mixtral-8x7b");
  ParallelPlan p = plan_of(1, 1, 8);
  p.ep = 8;
  const TrainingSpec t = training_of(4096, 8, 1);
  m.expert_groups = 4;
  EXPECT_EQ(check(m, p, t, 8),
            "model.group_top_k: group-limited routing needs both expert_groups and group_top_k (Megatron-LM "
            "--moe-router-num-groups and --moe-router-group-topk)");
  m.group_top_k = 2;
  EXPECT_EQ(check(m, p, t, 8), "ok");
  m.expert_groups = 3;
  EXPECT_EQ(check(m, p, t, 8), "model.expert_groups: 3 does not divide 8 experts");
  m.expert_groups = 8;
  m.group_top_k = 1;  // one group of one expert cannot hold top-2
  EXPECT_EQ(check(m, p, t, 8), "model.group_top_k: 1 groups of 1 experts hold fewer than a token's 2 experts");
  m.expert_groups = 4;
  m.group_top_k = 3;  // top-2 cannot reach 3 groups
  EXPECT_EQ(check(m, p, t, 8),
            "model.group_top_k: 3 groups need a token's top_k of 2 experts to be 3 at least, one in each (Megatron-LM "
            "scores a group by its best top_k / group_top_k)");
  ModelSpec dense = find_model("llama3-8b");
  dense.group_top_k = 2;
  EXPECT_EQ(check(dense, plan_of(1, 1, 8), t, 8),
            "model.group_top_k: 2 describes a mixture of experts; this model is dense (experts: 1)");
  m.expert_groups = m.group_top_k = 0;
  p.moe_dispatcher = MoeDispatcher::kFlex;
  EXPECT_EQ(check(m, p, t, 8), "ok");
  p.tp = 2;
  p.dp = 4;
  p.ep = 4;  // experts split over TP (expert_tp = tp by default)
  EXPECT_EQ(check(m, p, t, 8),
            "parallelism.moe_dispatcher: flex with expert_tp 2 is not modelled (Megatron-LM dispatches over the TP x "
            "EP group then); set expert_tp: 1");
  p.expert_tp = 1;
  EXPECT_EQ(check(m, p, t, 8), "ok");
  p.ep = 1;
  EXPECT_EQ(check(m, p, t, 8),
            "parallelism.moe_dispatcher: flex dispatches a mixture of experts' tokens over its EP group: it needs "
            "experts > 1 and ep > 1");
}

TEST(Layout, FoldedExpertGroupsRunOverTensorParallelRanksFirst) {
  // TP 2 x DP 4 with EP 4 and expert TP 1: a stage's 8 ranks i = tp + 2 dp
  // are expert-TP rank 0, EP rank i % 4, expert-DP rank i / 4, so rank 0's
  // EP group is ranks 0-3 (both TP ranks of DP 0 and 1) and rank 5's 4-7.
  // With expert TP = TP (the default) it is 4 consecutive DP ranks of one
  // TP rank: 0, 2, 4, 6.
  ParallelPlan p = plan_of(2, 1, 4);
  p.ep = 4;
  EXPECT_EQ(Layout(p).ep_group({0, 0, 0, 0}), (std::vector<uint32_t>{0, 2, 4, 6}));
  // With CP 2 (TP 2 x CP 2 x DP 2, EP 4) the group folds over CP x DP:
  // TP rank 0 of every (cp, dp): 0, 2, 4, 6.
  ParallelPlan cp = plan_of(2, 1, 2, 2);
  cp.ep = 4;
  EXPECT_EQ(Layout(cp).ep_group({0, 1, 1, 0}), (std::vector<uint32_t>{0, 2, 4, 6}));
  EXPECT_EQ(Layout(cp).expert_dp_group({1, 0, 0, 0}), (std::vector<uint32_t>{1}));
  p.expert_tp = 1;
  EXPECT_EQ(Layout(p).ep_group({0, 0, 0, 0}), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(Layout(p).ep_group({1, 0, 2, 0}), (std::vector<uint32_t>{4, 5, 6, 7}));
  // On pipeline stage 1 the same groups, 8 ranks on.
  p.pp = 2;
  EXPECT_EQ(Layout(p).ep_group({1, 0, 2, 1}), (std::vector<uint32_t>{12, 13, 14, 15}));
}

// Under tp-cp-pp-dp (Megatron-LM's --use-tp-pp-dp-mapping) a pipeline is a
// block of neighbouring ranks and DP the slowest dimension: with TP 2, PP 4,
// DP 2, rank = tp + 2 (pp + 4 dp), so DP rank 0's pipeline is ranks 0-7
// (its stages 0, 2, 4, 6 for TP rank 0), its DP group {0, 8}, and rank 13
// is TP 1, stage 2, DP 1 (13 = 1 + 2 (2 + 4)), which the default order
// numbers 1 + 2 (1 + 2 x 2) = 11.
TEST(Layout, TpPpDpOrderKeepsAPipelineContiguous) {
  ParallelPlan p = plan_of(2, 4, 2);
  p.rank_order = RankOrder::kTpCpPpDp;
  const Layout l(p);
  for (int s = 0; s < 4; ++s) EXPECT_EQ(l.rank({0, 0, 0, s}), static_cast<uint32_t>(2 * s));
  EXPECT_EQ(l.dp_group({0, 0, 0, 0}), (std::vector<uint32_t>{0, 8}));
  const RankCoord c = l.coord(13);
  EXPECT_EQ(c.tp, 1);
  EXPECT_EQ(c.pp, 2);
  EXPECT_EQ(c.dp, 1);
  for (uint32_t r = 0; r < 16; ++r) EXPECT_EQ(l.rank(l.coord(r)), r);
  ParallelPlan d = p;
  d.rank_order = RankOrder::kTpCpDpPp;
  EXPECT_EQ(Layout(d).rank(c), 11u);
}

// Expert groups fold over one stage's TP x DP ranks in either order: with
// TP 2, PP 2, DP 2, EP 2 and expert TP 1, stage 1's ranks under tp-cp-pp-dp
// are 2, 3 (DP 0) and 6, 7 (DP 1); the stage's index i = tp + 2 dp puts
// TP ranks 0 and 1 of DP 0 in one EP group, {2, 3}, and rank 2's expert-DP
// partner at i = 2, rank 6.
TEST(Layout, ExpertGroupsFoldInsideTheStageInEitherOrder) {
  ParallelPlan p = plan_of(2, 2, 2);
  p.ep = 2;
  p.expert_tp = 1;
  p.rank_order = RankOrder::kTpCpPpDp;
  EXPECT_EQ(Layout(p).ep_group({0, 0, 0, 1}), (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(Layout(p).expert_dp_group({0, 0, 0, 1}), (std::vector<uint32_t>{2, 6}));
  p.rank_order = RankOrder::kTpCpDpPp;  // stage 1 is ranks 4-7
  EXPECT_EQ(Layout(p).ep_group({0, 0, 0, 1}), (std::vector<uint32_t>{4, 5}));
  EXPECT_EQ(Layout(p).expert_dp_group({0, 0, 0, 1}), (std::vector<uint32_t>{4, 6}));
}

TEST(Layout, ExpertDataParallelGroupsHoldTheSameExperts) {
  // DP 8 with EP 4: DP rank 1 holds the same experts as DP rank 5 (the
  // second rank of the next EP group). Folded, TP 2 x DP 4 with EP 4 and
  // expert TP 1 has 2 expert-DP ranks: stage rank 1 and rank 5.
  ParallelPlan p = plan_of(1, 1, 8);
  p.ep = 4;
  EXPECT_EQ(Layout(p).expert_dp_group({0, 0, 1, 0}), (std::vector<uint32_t>{1, 5}));
  p = plan_of(2, 1, 4);
  p.ep = 4;
  p.expert_tp = 1;
  EXPECT_EQ(p.expert_dp(), 2);
  EXPECT_EQ(Layout(p).expert_dp_group({1, 0, 0, 0}), (std::vector<uint32_t>{1, 5}));
}

TEST(ValidatePlan, ExpertTensorParallelismFoldsEpOverTensorParallelRanks) {
  // Qwen3-235B-A22B on 256 H100 as Megatron-MoE-ModelZoo runs it: TP 2,
  // PP 8, DP 16 and EP 32 > DP, possible because expert TP 1 folds the
  // expert groups over TP x DP = 32 ranks.
  const ModelSpec& m = find_model("qwen3-235b-a22b");
  ParallelPlan p = plan_of(2, 8, 16);
  p.ep = 32;
  const TrainingSpec t = training_of(4096, 2048, 1);
  // The message names the way out: 2 x 16 = 32 ranks to fold over.
  EXPECT_EQ(check(m, p, t, 256),
            "parallelism.ep: 32 does not divide DP 16 (with expert_tp: 1 the expert groups fold over TP x DP = 32)");
  p.expert_tp = 1;
  EXPECT_EQ(check(m, p, t, 256), "ok");
  p.sequence_parallel = false;
  EXPECT_EQ(check(m, p, t, 256),
            "parallelism.expert_tp: 1 below TP 2 needs sequence_parallel (the MoE layers take each TP rank's own "
            "tokens)");
  p.sequence_parallel = true;
  p.ep = 64;
  EXPECT_EQ(check(m, p, t, 256),
            "parallelism.ep: 64 x expert_tp 1 does not divide TP x CP x DP = 32 (the ranks expert groups fold over)");
  p.ep = 32;
  p.expert_tp = 3;
  EXPECT_EQ(check(m, p, t, 256),
            "parallelism.expert_tp: 3 is neither 1 nor TP 2: experts split over part of the TP group (an all-gather "
            "over expert TP after the dispatch) are not modelled");
}

TEST(ValidatePlan, LatentAttentionWidthsComeTogether) {
  ModelSpec m = find_model("deepseek-v3");
  m.layers = 8;
  const ParallelPlan p = plan_of(1, 1, 8);
  const TrainingSpec t = training_of(4096, 8, 1);
  EXPECT_EQ(check(m, p, t, 8), "ok");
  m.head_dim_override = 128;
  EXPECT_EQ(check(m, p, t, 8),
            "model.head_dim: multi-head latent attention sizes its heads with qk_nope_head_dim, qk_rope_head_dim "
            "and v_head_dim; leave head_dim out");
  m.head_dim_override = 0;
  m.v_head_dim = 0;
  EXPECT_EQ(check(m, p, t, 8), "model.v_head_dim: must be at least 1 (got 0)");
  m.kv_lora_rank = 0;
  EXPECT_EQ(check(m, p, t, 8),
            "model.q_lora_rank: 1536 is a multi-head latent attention width; set model.kv_lora_rank too");
}

TEST(RecomputedLayers, FirstLayersOfEachChunkUpToTheChunk) {
  // 30 layers over 4 chunks are 8, 8, 7, 7; recomputing 7 of each chunk is
  // 7 of the 8 and all of the 7; 0 is every layer; without full
  // recomputation none.
  TrainingSpec t;
  t.recompute = Recompute::kFull;
  EXPECT_EQ(chunk_layers(30, 4, 0), 8);
  EXPECT_EQ(chunk_layers(30, 4, 3), 7);
  EXPECT_EQ(recomputed_layers(t, 8), 8);
  t.recompute_layers = 7;
  EXPECT_EQ(recomputed_layers(t, 8), 7);
  EXPECT_EQ(recomputed_layers(t, 7), 7);
  EXPECT_EQ(recompute_text(t), "full (first 7 layers of each chunk)");
  t.recompute = Recompute::kSelective;
  EXPECT_EQ(recomputed_layers(t, 8), 0);
}

TEST(LayersPerStage, UnevenLayersComeOffTheEnds) {
  // 126 layers on PP 16: ceil = 8, 16 x 8 - 126 = 2 missing, one from each end (Llama 3 405B).
  std::vector<int64_t> expect(16, 8);
  expect.front() = expect.back() = 7;
  EXPECT_EQ(layers_per_stage(find_model("llama3-405b"), plan_of(8, 16, 128)), expect);
  // 105 layers on PP 35: 3 each.
  EXPECT_EQ(layers_per_stage(find_model("gpt-529.6b"), plan_of(8, 35, 9)), std::vector<int64_t>(35, 3));
  // 32 layers on PP 6: ceil 6, 4 missing: ranks 0, 5, 1, 4 lose one.
  EXPECT_EQ(layers_per_stage(find_model("llama3-8b"), plan_of(1, 6, 1)), (std::vector<int64_t>{5, 5, 6, 6, 5, 5}));
}

TEST(ValidatePlan, LeavingOutMasterWeightsNeedsSixteenBitParameters) {
  // fp32 parameters are their own master copy: there is nothing to leave
  // out, so master_weights: false is an error naming the field; bf16 is fine.
  TrainingSpec t = training_of(2048, 64, 1);
  t.master_weights = false;
  t.precision = hw::Precision::kFp32;
  EXPECT_NE(check(find_model("gpt-1.7b"), plan_of(1, 1, 8), t, 8).find("training.master_weights"), std::string::npos);
  t.precision = hw::Precision::kBf16;
  EXPECT_EQ(check(find_model("gpt-1.7b"), plan_of(1, 1, 8), t, 8), "ok");
}

TEST(ValidatePlan, Fp8ParameterGatherNeedsAnFp8Recipe) {
  // Megatron-LM keeps the parameters in FP8 only under an FP8 recipe; in
  // bf16 there is nothing to gather in FP8, an error naming the field.
  TrainingSpec t = training_of(2048, 64, 1);
  ParallelPlan p = plan_of(1, 1, 8);
  p.fp8_param_gather = true;
  t.precision = hw::Precision::kFp8;
  EXPECT_EQ(check(find_model("gpt-1.7b"), p, t, 8), "ok");
  t.precision = hw::Precision::kBf16;
  EXPECT_EQ(check(find_model("gpt-1.7b"), p, t, 8),
            "parallelism.fp8_param_gather: true needs precision: fp8 (the parameters kept in FP8); precision is bf16");
  t.precision = hw::Precision::kFp4;  // Megatron's FP4 recipes gather 16-bit weights
  EXPECT_EQ(check(find_model("gpt-1.7b"), p, t, 8),
            "parallelism.fp8_param_gather: true needs precision: fp8 (the parameters kept in FP8); precision is fp4");
  p.fp8_param_gather = false;
  p.device_max_connections = 0;
  EXPECT_EQ(check(find_model("gpt-1.7b"), p, t, 8),
            "parallelism.device_max_connections: must be 1 to 32, as CUDA takes it (got 0)");
  p.device_max_connections = 33;
  EXPECT_EQ(check(find_model("gpt-1.7b"), p, t, 8),
            "parallelism.device_max_connections: must be 1 to 32, as CUDA takes it (got 33)");
  p.device_max_connections = 32;
  EXPECT_EQ(check(find_model("gpt-1.7b"), p, t, 8), "ok");
}

TEST(ValidatePlan, Bf16MomentsNeedMasterWeightsAndMegatronsOptimizer) {
  TrainingSpec t = training_of(2048, 64, 1);
  t.bf16_moments = true;
  ParallelPlan p = plan_of(1, 1, 8);
  EXPECT_EQ(check(find_model("gpt-1.7b"), p, t, 8), "ok");
  t.master_weights = false;
  EXPECT_EQ(check(find_model("gpt-1.7b"), p, t, 8),
            "training.optimizer_moments: bf16 with master_weights: false: without master weights the moments are "
            "16-bit already");
  t.master_weights = true;
  t.precision = hw::Precision::kFp16;
  EXPECT_EQ(check(find_model("gpt-1.7b"), p, t, 8),
            "training.optimizer_moments: bf16 beside fp16 training is not modelled (bf16, FP8 and FP4 training "
            "only)");
  t.precision = hw::Precision::kBf16;
  p.zero_stage = 0;
  EXPECT_EQ(check(find_model("gpt-1.7b"), p, t, 8),
            "training.optimizer_moments: bf16 needs Megatron-LM's distributed optimizer (zero_stage: 1), not "
            "zero_stage 0");
  p.zero_stage = 1;
  p.framework = ShardingFramework::kDeepSpeed;
  EXPECT_EQ(check(find_model("gpt-1.7b"), p, t, 8),
            "training.optimizer_moments: bf16 is Megatron-LM's precision-aware optimizer; framework: deepspeed keeps "
            "its own optimizer state");
}

TEST(KernelsText, NamesTheKernelsThatAreNotTheDefaults) {
  // Reports end the plan line with the attention kernel and the AdamW
  // implementation where a scenario changed them, and say nothing otherwise.
  TrainingSpec t = training_of(2048, 64, 1);
  EXPECT_EQ(kernels_text(t), "");
  t.attention_kernel = hw::AttentionKernel::kFlash2;
  t.optimizer_impl = hw::OptimizerImpl::kForLoop;
  EXPECT_EQ(kernels_text(t), ", FlashAttention-2 attention, for-loop AdamW");
  t.optimizer_impl = hw::OptimizerImpl::kForeach;
  t.flash_attention = false;  // no flash kernel runs at all
  EXPECT_EQ(kernels_text(t), ", foreach AdamW");
  // An FP8 recipe other than delayed scaling, and only under FP8.
  t.fp8_recipe = Fp8Recipe::kTensorwise;
  EXPECT_EQ(kernels_text(t), ", foreach AdamW");
  t.precision = hw::Precision::kFp8;
  EXPECT_EQ(kernels_text(t), ", foreach AdamW, tensorwise scaling");
  t.fp8_recipe = Fp8Recipe::kMxfp8;
  t.te_activation = true;
  EXPECT_EQ(kernels_text(t), ", foreach AdamW, mxfp8 scaling, Transformer Engine activation");
}

TEST(ValidatePlan, AnUnfusedOptimizerKeepsFp32Moments) {
  // Megatron-LM's precision-aware optimizer (bf16 moments) is Transformer
  // Engine's fused Adam: it has no unfused form to cost.
  TrainingSpec t = training_of(2048, 64, 1);
  t.optimizer_impl = hw::OptimizerImpl::kForeach;
  const ParallelPlan p = plan_of(1, 1, 8);
  EXPECT_EQ(check(find_model("gpt-1.7b"), p, t, 8), "ok");
  t.bf16_moments = true;
  EXPECT_EQ(check(find_model("gpt-1.7b"), p, t, 8),
            "training.optimizer_impl: with optimizer_moments: bf16 it is fused: the precision-aware optimizer is "
            "Transformer Engine's fused Adam");
}

TEST(HybridModel, ThePatternNamesOneKnownKindPerLayer) {
  ModelSpec m = find_model("nemotronh-8b");
  const ParallelPlan p = plan_of(1, 1, 8);
  const TrainingSpec t = training_of(8192, 8, 1);
  EXPECT_EQ(check(m, p, t, 8), "ok");
  m.hybrid_pattern[3] = 'X';
  EXPECT_NE(check(m, p, t, 8).find("'X' at position 4 is not a layer kind"), std::string::npos);
  m.hybrid_pattern[3] = 'E';  // a MoE block, in a model without experts
  EXPECT_NE(check(m, p, t, 8).find("MoE blocks (E) need experts > 1"), std::string::npos);
  m = find_model("nemotron3-nano");
  m.hybrid_pattern = std::string(52, 'M');  // experts, but no block to hold them
  EXPECT_NE(check(m, p, t, 8).find("has no MoE block (E) for model.experts' 128 experts"), std::string::npos);
  m = find_model("nemotronh-8b");
  m.layers = 50;
  EXPECT_NE(check(m, p, t, 8).find("has 52 characters, one per layer, but model.layers is 50"), std::string::npos);
}

TEST(HybridModel, TensorParallelismSplitsMambaHeadsAndGroups) {
  // Nemotron-H 8B has 128 Mamba-2 heads in 8 groups: TP 16 would split a
  // group (and its 32 attention heads are fine on 16).
  const ModelSpec& m = find_model("nemotronh-8b");
  EXPECT_NE(check(m, plan_of(16, 1, 1), training_of(8192, 1, 1), 16).find("16 does not divide 8 Mamba-2 groups"),
            std::string::npos);
  EXPECT_EQ(check(m, plan_of(8, 1, 2), training_of(8192, 2, 1), 16), "ok");
}

TEST(HybridModel, ContextParallelismGivesEachRankWholeHeadsAndWholeOrRepeatedGroups) {
  // Megatron-Core's MambaContextParallel: a TP rank's Mamba-2 heads split
  // over CP, its groups too, or each CP rank takes one group repeated.
  // Nemotron-H 8B on TP 8 holds 16 heads in 1 group a rank: CP 16 gives
  // each rank a head and the group; CP 32 would split a head.
  ModelSpec m = find_model("nemotronh-8b");
  EXPECT_EQ(check(m, plan_of(2, 1, 2, 2), training_of(8192, 2, 1), 8), "ok");
  EXPECT_EQ(check(m, plan_of(8, 1, 1, 16), training_of(8192, 1, 1), 128), "ok");
  EXPECT_NE(check(m, plan_of(8, 1, 1, 32), training_of(8192, 1, 1), 256)
                .find("32 does not divide the 16 Mamba-2 heads of a TP rank (128 / tp 8)"),
            std::string::npos);
  // 96 heads in 6 groups over CP 4: whole heads, but neither 4 | 6 nor 6 | 4.
  m.mamba_heads = 96;
  m.mamba_groups = 6;
  EXPECT_NE(check(m, plan_of(1, 1, 2, 4), training_of(8192, 2, 1), 8)
                .find("4 and the 6 Mamba-2 groups of a TP rank (6 / tp 1) do not divide one another"),
            std::string::npos);
}

}  // namespace
}  // namespace anatomy::workload
