#include <gtest/gtest.h>

#include <utility>

#include "core/error.h"
#include "workload/memory.h"
#include "hybrid_fixture.h"

namespace anatomy::workload {
namespace {

using core::Bytes;

const Bytes k80GB{80'000'000'000};

ParallelPlan plan(int tp, int pp, int dp, int zero_stage) {
  ParallelPlan p;
  p.tp = tp;
  p.pp = pp;
  p.dp = dp;
  p.zero_stage = zero_stage;
  return p;
}

TrainingSpec training(int64_t seq, int64_t global_batch, int64_t micro_batch, Recompute r = Recompute::kNone,
                      bool flash = true) {
  TrainingSpec t;
  t.seq_len = seq;
  t.global_batch = global_batch;
  t.micro_batch = micro_batch;
  t.recompute = r;
  t.flash_attention = flash;
  return t;
}

// The message check_memory_fits throws, or "fits".
std::string fit(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t, Bytes capacity) {
  try {
    check_memory_fits(m, p, t, capacity, "H100");
    return "fits";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().field, "parallelism");
    return e.message();
  }
}

TEST(Memory, Llama3_405bOn16kH100sFits) {
  // Table 4: TP 8, PP 16, DP 128, seq 8192, micro-batch 1, 16 micro-batches
  // per DP rank; bf16; FSDP-style sharding of gradients and optimizer (ZeRO-2);
  // no activation checkpointing (FlashAttention). 126 layers: ranks 0 and 15
  // hold 7, the others 8. Rank 1 needs the most: 8 layers and 15 micro-batches in flight.
  //   params/GPU   8 x 3,187,703,808 / 8 = 3,187,703,808 -> weights x 2 B = 6,375,407,616
  //   gradients    shard 3,187,703,808 / 128 = 24,903,936, + 2 layers in flight
  //                2 x 398,462,976 = 821,829,888 x 4 B = 3,287,319,552
  //   optimizer    24,903,936 x 12 B = 298,847,232
  //   activations  per token per layer: norm/QKV/MLP inputs 4 x 2 x 16384 = 131,072;
  //                Q 32,768, K+V 4,096, attention out 32,768, gate+up 4 x 53,248 = 212,992,
  //                SwiGLU out 106,496, log-sum-exp 4 x 128 = 512 -> 520,704 / TP 8 = 65,088;
  //                x 8192 tokens = 533,200,896 per layer; x 8 layers x 15 = 63,984,107,520
  //   workspace    3,000,000,000          total 76,945,681,920 B = 76.9 GB < 80 GB.
  const ModelSpec& m = find_model("llama3-405b");
  const ParallelPlan p = plan(8, 16, 128, 2);
  const TrainingSpec t = training(8192, 16 * 128, 1);
  validate_plan(m, p, t, 16384);
  const MemoryBreakdown b = estimate_memory(m, p, t);
  EXPECT_EQ(b.stage, 1);
  EXPECT_EQ(b.weights.count(), 6'375'407'616);
  EXPECT_EQ(b.gradients.count(), 3'287'319'552);
  EXPECT_EQ(b.optimizer.count(), 298'847'232);
  EXPECT_EQ(b.activations.count(), 63'984'107'520);
  EXPECT_EQ(b.total().count(), 76'945'681'920);
  EXPECT_EQ(fit(m, p, t, k80GB), "fits");
}

TEST(Memory, Gpt3WithoutModelParallelismDoesNotFit) {
  // 174.6B parameters x 18 B (bf16 weights, fp32 gradients, Adam) = 3.1 TB on one GPU.
  const std::string msg = fit(find_model("gpt3-175b"), plan(1, 1, 1, 1), training(2048, 8, 1), k80GB);
  EXPECT_NE(msg.find("per GPU but each H100 has 80 GB ("), std::string::npos) << msg;
  EXPECT_NE(msg.find(" over) on pipeline rank 0 of 1: weights 349.2 GB"), std::string::npos) << msg;
  EXPECT_NE(msg.find("nothing tried fits"), std::string::npos) << msg;
}

TEST(Memory, SuggestsOneChangeThatFits) {
  // GPT-3 175B as in A2 (TP 8 x PP 12 x DP 16), micro-batch 4, without
  // FlashAttention or recompute: the s^2 scores dominate. Selective
  // recompute alone drops them.
  const ModelSpec& m = find_model("gpt3-175b");
  const ParallelPlan p = plan(8, 12, 16, 0);
  const std::string msg = fit(m, p, training(2048, 1536, 4, Recompute::kNone, false), k80GB);
  EXPECT_NE(msg.find("; fits with recompute: selective ("), std::string::npos) << msg;
  EXPECT_LE(estimate_memory(m, p, training(2048, 1536, 4, Recompute::kSelective, false)).total(), k80GB);
}

TEST(Memory, SuggestsChangesPiledUp) {
  // Llama 3 70B replicated on 64 GPUs without ZeRO: 70.6B x 18 B = 1.27 TB of
  // model state per GPU; no single change fits, full recompute + ZeRO-3 does
  // (sharded over 64, plus two layers' weights and gradients in flight).
  const ModelSpec& m = find_model("llama3-70b");
  const std::string msg = fit(m, plan(1, 1, 64, 0), training(8192, 64, 1), k80GB);
  EXPECT_NE(msg.find("; fits with recompute: full, zero_stage: 3 ("), std::string::npos) << msg;
  ParallelPlan z3 = plan(1, 1, 64, 3);
  EXPECT_LE(estimate_memory(m, z3, training(8192, 64, 1, Recompute::kFull)).total(), k80GB);
}

TEST(Memory, EachZeroStageShardsOverDataParallel) {
  // Llama 3 8B, TP 1, PP 1: 8,030,261,248 parameters on every GPU.
  //   optimizer: 12 B each = 96,363,134,976; sharded over DP 64 = 1,505,673,984 (stages 1-3)
  //   gradients: stages 0-1, Megatron's buffer in bf16 (no grad_reduce_in_fp32), 2 B each =
  //              16,060,522,496; stage 2+: fp32, shard 125,472,832 + 2 x the embedding
  //              (1,050,677,248, larger than a layer) in flight = 2,226,827,328 x 4 = 8,907,309,312
  //   weights:   2 B each = 16,060,522,496; stage 3: the same 2,226,827,328 x 2 = 4,453,654,656
  const ModelSpec& m = find_model("llama3-8b");
  const TrainingSpec t = training(8192, 64, 1);
  for (int z = 0; z <= 3; ++z) {
    const MemoryBreakdown one = estimate_memory(m, plan(1, 1, 1, z), t);
    const MemoryBreakdown b = estimate_memory(m, plan(1, 1, 64, z), t);
    EXPECT_EQ(one.optimizer.count(), 96'363'134'976) << "ZeRO-" << z;
    EXPECT_EQ(b.optimizer.count(), z == 0 ? 96'363'134'976 : 1'505'673'984) << "ZeRO-" << z;
    EXPECT_EQ(b.gradients.count(), z >= 2 ? 8'907'309'312 : 16'060'522'496) << "ZeRO-" << z;
    EXPECT_EQ(b.weights.count(), z >= 3 ? 4'453'654'656 : 16'060'522'496) << "ZeRO-" << z;
  }
  // Megatron's distributed optimizer shards over DP x CP: DP 32 x CP 2 is DP 64's shard.
  ParallelPlan cp = plan(1, 1, 32, 1);
  cp.cp = 2;
  EXPECT_EQ(estimate_memory(m, cp, t).optimizer.count(), 1'505'673'984);
}

TEST(Memory, HybridShardSplitsTheStateOverItsShardGroupOnly) {
  // FSDP HYBRID_SHARD with shard groups of 8 on DP 64 keeps one copy of the
  // sharded state per group: Llama 3 8B's 96,363,134,976 optimizer bytes
  // (12 B x 8,030,261,248) over 8 ranks = 12,045,391,872, 8x the full
  // shard over 64 (1,505,673,984). A group of all 64 is FULL_SHARD.
  const ModelSpec& m = find_model("llama3-8b");
  const TrainingSpec t = training(8192, 64, 1);
  ParallelPlan p = plan(1, 1, 64, 3);
  p.shard_group = 8;
  EXPECT_EQ(estimate_memory(m, p, t).optimizer.count(), 12'045'391'872);
  p.shard_group = 64;
  EXPECT_EQ(estimate_memory(m, p, t).optimizer.count(), 1'505'673'984);
  EXPECT_EQ(estimate_memory(m, p, t).total(), estimate_memory(m, plan(1, 1, 64, 3), t).total());
}

TEST(Memory, AParallelBlockKeepsOneNormsInputAndOutputALayer) {
  // Llama 3 8B, bf16, no recomputation, one micro-batch of 8,192 tokens in
  // flight on one stage: a sequential layer keeps both norms' inputs and
  // outputs (the QKV and MLP GEMMs' inputs), a parallel block one of each:
  // 2 x 2 B x 4,096 = 16,384 B a token fewer, x 8,192 tokens x 32 layers.
  ModelSpec m = find_model("llama3-8b");
  const TrainingSpec t = training(8192, 8, 1);
  const ParallelPlan p = plan(1, 1, 8, 1);
  const int64_t sequential = estimate_memory(m, p, t).activations.count();
  m.parallel_block = true;
  EXPECT_EQ(sequential - estimate_memory(m, p, t).activations.count(), int64_t{16384} * 8192 * 32);
}

TEST(Memory, EachLayerNotRecomputedKeepsAllItsActivations) {
  // One stage, one micro-batch in flight: recomputing N of 32 layers keeps
  // N layers' inputs and 32 - N layers' whole activations, plus the layer
  // being recomputed. Each layer taken off the recomputed ones adds one
  // layer's whole minus its input; all 32 (or more) is full recomputation.
  // Llama 3 8B, bf16, per token: norm/QKV/MLP inputs 4 x 2 x 4096 = 32,768;
  // Q 8,192, K+V 4,096, attention out 8,192, gate+up 57,344, SwiGLU out
  // 28,672; log-sum-exp 4 x 32 = 128: whole 139,392 B, input 8,192 B.
  // x 8,192 tokens: (139,392 - 8,192) x 8,192 = 1,074,790,400 B a layer.
  const ModelSpec& m = find_model("llama3-8b");
  TrainingSpec t = training(8192, 8, 1, Recompute::kFull);
  const ParallelPlan p = plan(1, 1, 8, 1);
  const auto act = [&](int64_t n) {
    t.recompute_layers = n;
    return estimate_memory(m, p, t).activations.count();
  };
  const int64_t full = act(0);
  EXPECT_EQ(act(32), full);
  EXPECT_EQ(act(40), full);
  EXPECT_EQ(act(31) - full, 1'074'790'400);
  EXPECT_EQ(act(16) - full, 16 * int64_t{1'074'790'400});
}

TEST(Memory, SuggestsFullShardWhenAShardGroupHoldsTooMuch) {
  // Llama 3 70B on DP 64 with full recomputation: sharded over groups of
  // 8, each GPU holds 1/8 of 70.55e9 x 12 B of optimizer state (106 GB),
  // more than an H100's 80 GB; over all 64 ranks (FULL_SHARD) it fits.
  ParallelPlan p = plan(1, 1, 64, 3);
  p.shard_group = 8;
  const std::string msg = fit(find_model("llama3-70b"), p, training(8192, 64, 1, Recompute::kFull), k80GB);
  EXPECT_NE(msg.find("; fits with shard_group: 0 ("), std::string::npos) << msg;
}

TEST(Memory, DeepSpeedZero3HoldsOneSubModuleWhole) {
  // DeepSpeed gathers an nn.Linear's weight before its forward and releases
  // it after, so besides its shard a GPU holds the largest matrix (GPT-3
  // 175B: the 53,248 x 12,288 word and position embedding, larger than the
  // 4h x h MLP matrix) plus the 5e7-element prefetch bucket of fp16 weights,
  // and that matrix's gradient plus the 5e8-element reduce bucket; Megatron /
  // FSDP granularity holds two whole layers. Its fp16 Adam keeps 12 bytes per
  // parameter (fp32 master, m, v), Megatron's 16 (plus an fp32 gradient).
  const ModelSpec& m = find_model("gpt3-175b");
  ParallelPlan p = plan(1, 1, 1536, 3);
  p.param_gather_bytes = 100'000'000;
  p.bucket_bytes = 1'000'000'000;
  TrainingSpec t = training(2048, 1536, 1, Recompute::kFull, false);
  t.precision = hw::Precision::kFp16;
  const double shard = static_cast<double>(m.params()) / 1536;
  const double largest = static_cast<double>(m.embedding_params() + m.norm_params());
  const MemoryBreakdown megatron = estimate_memory(m, p, t);
  p.framework = ShardingFramework::kDeepSpeed;
  const MemoryBreakdown ds = estimate_memory(m, p, t);
  EXPECT_NEAR(ds.weights.as_double(), (shard + largest + 5e7) * 2, 2);
  EXPECT_NEAR(ds.gradients.as_double(), (shard + largest + 5e8) * 2, 2);
  EXPECT_NEAR(ds.optimizer.as_double(), shard * 12, 2);
  EXPECT_NEAR(megatron.optimizer.as_double(), shard * 16, 2);
  EXPECT_NEAR(megatron.weights.as_double(), (shard + 2 * static_cast<double>(m.dense_layer_params())) * 2, 2);
}

TEST(Memory, DeepSpeedZero3At530bFitsOn640A100sNotOn560) {
  // Narayanan et al. SC'21, Table 2: ZeRO-3 trained the 530B model at
  // micro-batch 4 (full recomputation, fp16) on 640 A100 80GB because it did
  // not fit on 560.
  const ModelSpec& m = find_model("gpt-529.6b");
  ParallelPlan p = plan(1, 1, 640, 3);
  p.framework = ShardingFramework::kDeepSpeed;
  p.param_gather_bytes = 100'000'000;
  p.bucket_bytes = 1'000'000'000;
  TrainingSpec t = training(2048, 2560, 4, Recompute::kFull, false);
  t.precision = hw::Precision::kFp16;
  EXPECT_LE(estimate_memory(m, p, t).total(), k80GB);
  p.dp = 560;
  t.global_batch = 2240;
  EXPECT_GT(estimate_memory(m, p, t).total(), k80GB);
}

TEST(Memory, ActivationsScaleWithMicroBatch) {
  // Llama 3 70B, TP 8 x PP 4 x DP 8, 256 sequences: 32 or 16 micro-batches, so
  // every rank holds PP - r of them either way, each twice as big at micro-batch 2.
  const ModelSpec& m = find_model("llama3-70b");
  const ParallelPlan p = plan(8, 4, 8, 1);
  for (bool flash : {true, false}) {
    const auto one = estimate_memory_per_stage(m, p, training(8192, 256, 1, Recompute::kNone, flash));
    const auto two = estimate_memory_per_stage(m, p, training(8192, 256, 2, Recompute::kNone, flash));
    for (size_t r = 0; r < one.size(); ++r) {
      EXPECT_NEAR(two[r].activations.as_double(), 2 * one[r].activations.as_double(), 2) << r;
      EXPECT_EQ(two[r].weights, one[r].weights);
    }
  }
}

TEST(Memory, KorthikantiPerLayerAndRecompute) {
  // GPT-3 175B, TP 8 x PP 8, seq 2048, micro-batch 1, no FlashAttention. Per
  // layer, Korthikanti et al. with sequence parallelism, s b h = 25,165,824:
  //   none       s b h (34 + 5 a s / h) / t = 25,165,824 x (34 + 80) / 8 = 358,612,992
  //   selective  34 s b h / t                                        = 106,954,752
  //   full       2 s b h / t                                         =   6,291,456
  // Rank 1 (12 layers, no embedding or logits) holds PP - 1 = 7 micro-batches;
  // with full recompute also one layer's whole activations while it is recomputed.
  const ModelSpec& m = find_model("gpt3-175b");
  const ParallelPlan p = plan(8, 8, 4, 1);
  const auto rank1 = [&](Recompute r) {
    return estimate_memory_per_stage(m, p, training(2048, 64, 1, r, false))[1].activations.count();
  };
  EXPECT_EQ(rank1(Recompute::kNone), 12 * 7 * 358'612'992LL);
  EXPECT_EQ(rank1(Recompute::kSelective), 12 * 7 * 106'954'752LL);
  EXPECT_EQ(rank1(Recompute::kFull), 12 * 7 * 6'291'456LL + 358'612'992LL);
}

TEST(Memory, AFullReplayKeepingTheAttentionOutputKeepsItAndItsStatistics) {
  // GPT-3 175B as above with FlashAttention: keeping the kernel's output
  // keeps, per token and layer, its 16-bit output and fp32 log-sum-exp per
  // head over TP 8, (2 x 12,288 + 4 x 96) / 8 = 3,120 bytes, x 2048 tokens =
  // 6,389,760 beside the layer's input, for each of rank 1's 12 layers and 7
  // micro-batches.
  const ModelSpec& m = find_model("gpt3-175b");
  const ParallelPlan p = plan(8, 8, 4, 1);
  TrainingSpec t = training(2048, 64, 1, Recompute::kFull, true);
  const int64_t full = estimate_memory_per_stage(m, p, t)[1].activations.count();
  t.recompute_keeps_attention = true;
  const int64_t kept = estimate_memory_per_stage(m, p, t)[1].activations.count();
  EXPECT_EQ(kept - full, 12 * 7 * 6'389'760LL);
}

TEST(Memory, InterleavingHoldsMoreOnTheFirstRank) {
  // Llama 3 8B, PP 4 (8 layers per rank), seq 8192, TP 1. Per token per layer:
  // inputs 4 x 2 x 4096 = 32,768; Q 8,192, K+V 4,096, attention out 8,192,
  // gate+up 57,344, SwiGLU out 28,672, log-sum-exp 128 -> 139,392; x 8192 =
  // 1,141,899,264 per layer. Rank 0 holds 4 micro-batches x 8 layers = 32 layers'
  // worth; interleaved with 2 chunks, 2 x 3 + 4 + 1 = 11 chunks of 4 layers = 44
  // = 32 x (1 + 3 / 8), Korthikanti et al.'s factor.
  const ModelSpec& m = find_model("llama3-8b");
  ParallelPlan p = plan(1, 4, 1, 1);
  const TrainingSpec t = training(8192, 8, 1);
  EXPECT_EQ(estimate_memory_per_stage(m, p, t)[0].activations.count(), 32 * 1'141'899'264LL);
  p.virtual_stages = 2;
  EXPECT_EQ(estimate_memory_per_stage(m, p, t)[0].activations.count(), 44 * 1'141'899'264LL);
}

TEST(Memory, LastRankHoldsTheLogits) {
  // Llama 3 70B, TP 4 x PP 4 x DP 64 on B200s: the last rank's 20 layers hold one
  // micro-batch, plus the final norm's and output layer's inputs (2 x 2 x 8192 / 4
  // per token) and fp32 logits (4 x 128256 / 4 per token) for 8192 tokens.
  const ModelSpec& m = find_model("llama3-70b");
  const ParallelPlan p = plan(4, 4, 64, 1);
  const TrainingSpec t = training(8192, 1024, 1);
  const std::vector<MemoryBreakdown> s = estimate_memory_per_stage(m, p, t);
  const double per_layer = s[0].activations.as_double() / (20 * 4);  // rank 0: 20 layers x 4 micro-batches
  EXPECT_NEAR(s[3].activations.as_double(), 20 * per_layer + 8192.0 * (2 * 2 * 8192 / 4 + 4 * 128256 / 4), 100);
  // The whole plan fits in a B200's 180 GB with room to spare.
  EXPECT_LT(estimate_memory(m, p, t).total(), Bytes(100'000'000'000));
  EXPECT_EQ(fit(m, p, t, Bytes(180'000'000'000)), "fits");
}

TEST(Memory, SelectiveModulesDropWhatTheyReplay) {
  // Llama 3 8B on one GPU (PP 1: one micro-batch of every layer in flight),
  // 4,096 tokens, bf16. "mlp" drops each MLP's gate and up outputs and the
  // activation's output, 2 x (2 + 1) x 14336 bytes a token: 32 x 4096 x
  // 86016.
  const ModelSpec& m = find_model("llama3-8b");
  const ParallelPlan p = plan(1, 1, 1, 1);
  TrainingSpec t = training(4096, 1, 1);
  t.recompute = Recompute::kSelective;
  const auto activations = [&](const ModelSpec& model, uint32_t modules) {
    t.recompute_modules = modules;
    return estimate_memory_per_stage(model, p, t)[0].activations.count();
  };
  EXPECT_EQ(activations(m, kRecomputeCoreAttn) - activations(m, kRecomputeCoreAttn | kRecomputeMlp),
            32LL * 4096 * 86016);
  // Mixtral 8x7B's 32 MoE layers, top 2 of 8 experts: "moe_act" drops the
  // two routed copies' activation output, 2 x 2 x 14336 bytes a token;
  // "layernorm" the pre-MLP norm's output, 2 x 4096 (its input norm is
  // fused into the QKV GEMM, which keeps it).
  const ModelSpec& x = find_model("mixtral-8x7b");
  const int64_t x_attention = activations(x, kRecomputeCoreAttn);
  EXPECT_EQ(x_attention - activations(x, kRecomputeCoreAttn | kRecomputeMoeAct), 32LL * 4096 * 57344);
  EXPECT_EQ(x_attention - activations(x, kRecomputeCoreAttn | kRecomputeLayernorm), 32LL * 4096 * 8192);
}

TEST(Memory, TheBusiestExpertRankKeepsItsExtraCopies) {
  // Mixtral 8x7B on EP 4, 4,096 tokens a GPU, bf16, top 2. Each routed copy
  // a rank keeps is its gate and up outputs (2 x 2 x 14,336 B), the
  // activation's output (2 x 14,336) and the dispatched input (2 x 4,096):
  // 94,208 B. Routing that gives the busiest rank 1.5 times the mean's
  // copies adds 0.5 x 2 = 1 copy a token in each of the 32 layers.
  const ModelSpec& m = find_model("mixtral-8x7b");
  ParallelPlan p = plan(1, 1, 4, 1);
  p.ep = 4;
  TrainingSpec t = training(4096, 4, 1);
  const auto activations = [&](double imbalance) {
    t.expert_load_imbalance = imbalance;
    return estimate_memory_per_stage(m, p, t)[0].activations.count();
  };
  EXPECT_EQ(activations(1.5) - activations(1.0), 32LL * 4096 * 94208);
}

TEST(Memory, Fp8LinearsKeepTheirInputsQuantized) {
  // Llama 3 8B on one GPU, 4,096 tokens. Transformer Engine's FP8 linears
  // keep the FP8 copy of their input for the weight gradient, so per token
  // per layer the two norms' outputs (2 x 4096) and the SwiGLU output
  // (14336) take 1 byte instead of 2, while the attention output (4096) is
  // kept twice, 2 bytes by the flash kernel and 1 by the output projection:
  // 2 x 4096 + 14336 - 4096 = 18,432 bytes less, x 32 layers x 4096 tokens.
  // MXFP8 adds a 1-byte scale a block of 32 to each quantized copy:
  // (1 - 1/32) x (8192 + 14336) - (1 + 1/32) x 4096 = 17,600.
  const ModelSpec& m = find_model("llama3-8b");
  const ParallelPlan p = plan(1, 1, 1, 1);
  TrainingSpec t = training(4096, 1, 1);
  const auto activations = [&](hw::Precision precision, Fp8Recipe recipe) {
    t.precision = precision;
    t.fp8_recipe = recipe;
    return estimate_memory_per_stage(m, p, t)[0].activations.count();
  };
  const int64_t bf16 = activations(hw::Precision::kBf16, Fp8Recipe::kDelayed);
  EXPECT_EQ(bf16 - activations(hw::Precision::kFp8, Fp8Recipe::kTensorwise), 32LL * 4096 * 18432);
  EXPECT_EQ(bf16 - activations(hw::Precision::kFp8, Fp8Recipe::kMxfp8), 32LL * 4096 * 17600);
  // FP8 attention keeps its FP8 Q, K and V instead of the 16-bit ones:
  // (4096 + 1024 + 1024) bytes a token a layer less again.
  const int64_t fp8 = activations(hw::Precision::kFp8, Fp8Recipe::kTensorwise);
  t.fp8_attention = true;
  EXPECT_EQ(fp8 - activations(hw::Precision::kFp8, Fp8Recipe::kTensorwise), 32LL * 4096 * 6144);
  // Under selective recomputation core attention is replayed: its checkpoint
  // keeps the 16-bit Q, K and V, and the FP8 copies live only inside the
  // replay, so FP8 attention saves nothing.
  t.recompute = Recompute::kSelective;
  const int64_t replayed_fp8 = activations(hw::Precision::kFp8, Fp8Recipe::kTensorwise);
  t.fp8_attention = false;
  EXPECT_EQ(replayed_fp8, activations(hw::Precision::kFp8, Fp8Recipe::kTensorwise));
}

TEST(Memory, AStandaloneMtpModuleKeepsItsActivationsOnItsOwnRank) {
  // DeepSeek-V3 on PP 16 x VPP 2, 64 micro-batches: with the MTP module
  // beside the loss ("...,|mL") rank 15 keeps its layer's activations and
  // its projection's input; standalone ("...,m|L") rank 14 does, and rank
  // 15 keeps only the module's output-layer inputs and logits. Both ranks
  // hold two layers either way. At the interleaved schedule's peak rank 15
  // has 2 x 0 + 16 + 1 = 17 forwards in flight, one of them of its second
  // chunk; rank 14 has 2 x 1 + 16 + 1 = 19, three of its second chunk
  // (chunk 0 takes micro-batches 0-15 first). So the module weighs three
  // times as much on rank 14 as it did on rank 15.
  const ModelSpec& m = find_model("deepseek-v3");
  ParallelPlan p = plan(1, 16, 16, 1);
  p.ep = 16;
  p.virtual_stages = 2;
  const TrainingSpec t = training(4096, 1024, 1);
  ASSERT_EQ(parse_pipeline_layout("Et*3|(tt|)*29,|mL", p.layout), "");
  const std::vector<MemoryBreakdown> beside = estimate_memory_per_stage(m, p, t);
  ASSERT_EQ(parse_pipeline_layout("Et*3|(tt|)*29,m|L", p.layout), "");
  const std::vector<MemoryBreakdown> alone = estimate_memory_per_stage(m, p, t);
  const double module = beside[15].activations.as_double() - alone[15].activations.as_double();
  EXPECT_GT(module, 0);
  EXPECT_NEAR(alone[14].activations.as_double() - beside[14].activations.as_double(), 3 * module, 4);
}

TEST(Memory, AMambaMixerKeepsItsProjectionsAndItsScanOutput) {
  // Two Mamba-2 blocks, h 1,024, d 32 x 64 = 2,048, G 8, N 128, on one GPU,
  // one sequence of 1,024 tokens in bf16. Per token and block: the norm's
  // input and in_proj's, 2 x 2 x 1024 = 4,096 B; in_proj's output z, x, B,
  // C, dt, 2 x (2 x 2048 + 2 x 8 x 128 + 32) = 12,352 B; the SSD's output
  // and the gated norm's, 2 x 2 x 2048 = 8,192 B: 24,640 B, x 1,024 tokens
  // x 2 blocks = 50,462,720. The last rank adds the final norm's and the
  // output layer's inputs and fp32 logits, 1024 x (2 x 2 x 1024 + 4 x
  // 32000) = 135,266,304: 185,729,024 B.
  ModelSpec m;
  m.name = "two-mixers";
  m.layers = 2;
  m.hidden = 1024;
  m.heads = 8;
  m.kv_heads = 8;
  m.ffn_hidden = 4096;
  m.vocab = 32000;
  m.layernorm = false;
  m.dropout = false;
  m.hybrid_pattern = "MM";
  m.mamba_heads = 32;
  m.mamba_head_dim = 64;
  m.mamba_state = 128;
  m.mamba_groups = 8;
  EXPECT_EQ(estimate_memory(m, plan(1, 1, 1, 1), training(1024, 1, 1)).activations, Bytes(185'729'024));
}

TEST(Memory, HybridBlocksOfAttentionAndMlpNeedWhatTheTransformerNeeds) {
  // Llama 3 8B as 64 blocks "*-" and Mixtral 8x7B as "*E" on EP 2: the
  // same tensors kept, split between the blocks, on TP 2 with sequence
  // parallelism and on PP 2.
  for (const auto& [name, mlp] : {std::pair{"llama3-8b", '-'}, std::pair{"mixtral-8x7b", 'E'}}) {
    const ModelSpec& model = find_model(name);
    const ModelSpec blocks = testing::spelled_as_blocks(model, mlp);
    ParallelPlan p = plan(2, 2, 2, 1);
    p.sequence_parallel = true;
    p.ep = 2;
    const MemoryBreakdown a = estimate_memory(model, p, training(8192, 16, 1));
    const MemoryBreakdown b = estimate_memory(blocks, p, training(8192, 16, 1));
    EXPECT_EQ(b.weights, a.weights) << name;
    EXPECT_EQ(b.optimizer, a.optimizer) << name;
    EXPECT_NEAR(b.activations.as_double(), a.activations.as_double(), 8) << name;  // sums in another order
  }
}

TEST(Memory, LoraHoldsTheFrozenWeightsWholeAndStateForTheAdaptersAlone) {
  // Llama 3 8B on TP 1, DP 8, ZeRO-1, bf16. Full training holds 2 B of
  // weights, 2 of gradients (the bf16 buffer) and 12 / 8 of optimizer
  // state a parameter. LoRA rank 16 adds 9,437,184 adapters (params_test)
  // at 2 B, and holds gradients (2 B) and the ZeRO-sharded optimizer state
  // (12 B / 8) for those alone.
  const ModelSpec& m = find_model("llama3-8b");
  const ParallelPlan p = plan(1, 1, 8, 1);
  TrainingSpec t = training(8192, 8, 1);
  const MemoryBreakdown full = estimate_memory(m, p, t);
  t.lora_rank = 16;
  const MemoryBreakdown lora = estimate_memory(m, p, t);
  const double adapters = 9'437'184;
  EXPECT_NEAR(static_cast<double>(lora.weights.count()), static_cast<double>(full.weights.count()) + 2 * adapters, 2);
  EXPECT_NEAR(static_cast<double>(lora.gradients.count()), 2 * adapters, 2);
  EXPECT_NEAR(static_cast<double>(lora.optimizer.count()), 12 * adapters / 8, 2);
  // A frozen GEMM keeps no input: per layer per token the MLP's norm output
  // (2 B x 4096), the activation's output (2 B x 14,336) go, and the
  // attention norm's output stays 16-bit as the adapter keeps it. So
  // 32 x 8192 x (8192 + 28,672) B = 9.66 GB less.
  const double saved = 32.0 * 8192 * (2 * 4096 + 2 * 14336);
  EXPECT_NEAR(static_cast<double>(full.activations.count() - lora.activations.count()), saved, 1e6);
  // The adapters' dropout keeps a 1-byte mask an element of their inputs,
  // h (QKV's, whose dropped copy replaces the norm output it kept) and o,
  // and the output projection's adapter its dropped copy too (2 B x o,
  // beside the flash kernel's attention output): 4096 + 3 x 4096 = 16,384 B
  // a token a layer.
  t.lora_dropout = 0.1;
  const MemoryBreakdown dropped = estimate_memory(m, p, t);
  EXPECT_NEAR(static_cast<double>(dropped.activations.count() - lora.activations.count()), 32.0 * 8192 * 16384,
              1e3);
}

TEST(Memory, Fp8WeightsKeepATransposedCopyOnlyWhereFp8GemmsTakeOneLayout) {
  // Llama 3 8B, TP 1, FP8 weights (fp8_param_gather): on Hopper each weight
  // is kept with its transpose, 2 B; on a part whose FP8 GEMMs take either
  // layout (Blackwell), 1 B: the weights' bytes halve, nothing else moves.
  const ModelSpec& m = find_model("llama3-8b");
  ParallelPlan p = plan(1, 1, 8, 1);
  p.fp8_param_gather = true;
  TrainingSpec t = training(8192, 8, 1);
  t.precision = hw::Precision::kFp8;
  const MemoryBreakdown hopper = estimate_memory(m, p, t);
  const MemoryBreakdown blackwell = estimate_memory(m, p, t, MemoryPart{.fp8_any_layout = true});
  EXPECT_NEAR(static_cast<double>(blackwell.weights.count()), static_cast<double>(hopper.weights.count()) / 2, 2);
  EXPECT_EQ(blackwell.activations, hopper.activations);
  EXPECT_EQ(blackwell.optimizer, hopper.optimizer);
  EXPECT_TRUE(memory_part(hw::find_accelerator("B200")).fp8_any_layout);
  EXPECT_FALSE(memory_part(hw::find_accelerator("H100")).fp8_any_layout);
}

TEST(Memory, AnFp8ActivationInputHalvesTheMlpUpProjectionsKeptOutput) {
  // Llama 3 8B, 8,192 tokens, FP8: the SwiGLU's input (gate and up, 2 x
  // 14,336 a token) kept at 1 B instead of 2 saves 32 layers x 8192 tokens
  // x 28,672 B = 7.52 GB.
  const ModelSpec& m = find_model("llama3-8b");
  const ParallelPlan p = plan(1, 1, 8, 1);
  TrainingSpec t = training(8192, 8, 1);
  t.precision = hw::Precision::kFp8;
  const MemoryBreakdown kept16 = estimate_memory(m, p, t);
  t.fp8_activation_input = true;
  const MemoryBreakdown kept8 = estimate_memory(m, p, t);
  EXPECT_NEAR(static_cast<double>(kept16.activations.count() - kept8.activations.count()), 32.0 * 8192 * 28672, 1e6);
}

}  // namespace
}  // namespace anatomy::workload
