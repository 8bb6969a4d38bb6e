#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "workload/flops.h"
#include "hybrid_fixture.h"

namespace anatomy::workload {
namespace {

TrainingSpec training(int64_t seq, int64_t global_batch, Recompute r, bool flash) {
  TrainingSpec t;
  t.seq_len = seq;
  t.global_batch = global_batch;
  t.recompute = r;
  t.flash_attention = flash;
  return t;
}

TEST(Flops, MegatronEq3ByHand) {
  // GPT-3 175B, B = 1536, s = 2048, l = 96, h = 12288, V = 51200:
  //   96 B s l h^2 = 96 * 1536 * 2048 * 96 * 12288^2 = 4.3775e18
  //   (1 + s/(6h) + V/(16 l h)) = 1 + 0.027778 + 0.0027127 = 1.0304905
  //   F = 4.5110e18 FLOPs per iteration (31.5 s at A3's 140 TFLOP/s on 1,024 GPUs).
  const double F = megatron_flops(find_model("gpt3-175b"), 1536, 2048);
  const double expect =
      96.0 * 1536 * 2048 * 96 * 12288.0 * 12288 * (1 + 2048 / (6 * 12288.0) + 51200 / (16 * 96 * 12288.0));
  EXPECT_NEAR(F / expect, 1.0, 1e-12);  // the same sum, added in another order
  EXPECT_NEAR(F / 4.5110e18, 1.0, 1e-4);
}

TEST(Flops, FullRecomputeReproducesEq3ForEveryTable1Row) {
  // Eq. 3 counts four passes of every layer (forward, recomputed forward,
  // backward = 2 forwards) and three of the logits. A Megatron GPT layer's
  // GEMMs are 24 h^2 FLOPs per token forward (QKV 6h^2, output 2h^2, MLP
  // 16h^2) and attention 4 s h: 4 x l (24 h^2 + 4 s h) + 3 x 2 h V per token =
  // 96 l h^2 (1 + s/(6h)) + 6 h V = eq. 3 / (B s). SC'21 ran without
  // FlashAttention, so its backward did not recompute Q K^T.
  const std::pair<const char*, int64_t> rows[] = {
      {"gpt-1.7b", 512},    {"gpt-3.6b", 512},    {"gpt-7.5b", 512},     {"gpt-18.4b", 1024},  {"gpt-39.1b", 1536},
      {"gpt-76.1b", 1792},  {"gpt-145.6b", 2304}, {"gpt-310.1b", 2160},  {"gpt-529.6b", 2520}, {"gpt-1008b", 3072}};
  for (const auto& [name, batch] : rows) {
    const ModelSpec& m = find_model(name);
    const double eq3 = megatron_flops(m, batch, 2048);
    const double hfu = hardware_flops(m, ParallelPlan{}, training(2048, batch, Recompute::kFull, false));
    EXPECT_NEAR(hfu / eq3, 1.0, 0.01) << name;
    EXPECT_NEAR(hfu / eq3, 1.0, 1e-9) << name;  // in fact exact: same shapes, same dropped terms
    // Without recompute: eq. 3 less one forward of the layers.
    const double mfu = model_flops(m, training(2048, batch, Recompute::kNone, false));
    const double l = static_cast<double>(m.layers), h = static_cast<double>(m.hidden);
    EXPECT_NEAR(mfu, eq3 - batch * 2048.0 * l * (24 * h * h + 4 * 2048 * h), eq3 * 1e-12) << name;
  }
}

TEST(Flops, Llama3With8kSequencesByHand) {
  // Llama 3 8B, per token forward:
  //   GEMMs per layer 4096 (4096 + 2*1024) + 4096^2 + 3 * 4096 * 14336 = 218,103,808 MACs,
  //     x 32 layers x 2 = 13,958,643,712 FLOPs
  //   attention 4 * 8192 * 4096 * 32 = 4,294,967,296
  //   logits 2 * 4096 * 128256 = 1,050,673,152
  //   forward 19,304,284,160; model FLOPs per token 3 x = 57,912,852,480.
  const ModelSpec& m = find_model("llama3-8b");
  TrainingSpec t = training(8192, 1, Recompute::kNone, true);
  EXPECT_DOUBLE_EQ(model_flops(m, t), 57'912'852'480.0 * 8192);
  // FlashAttention's backward recomputes Q K^T: + 2 s h l = 2,147,483,648 per token.
  EXPECT_DOUBLE_EQ(hardware_flops(m, ParallelPlan{}, t), (57'912'852'480.0 + 2'147'483'648.0) * 8192);
  // Selective adds the attention core's forward (4,294,967,296) on top.
  t.recompute = Recompute::kSelective;
  EXPECT_DOUBLE_EQ(hardware_flops(m, ParallelPlan{}, t), (57'912'852'480.0 + 2'147'483'648.0 + 4'294'967'296.0) * 8192);
  // Full re-runs GEMMs and attention of every layer, not the logits.
  t.recompute = Recompute::kFull;
  EXPECT_DOUBLE_EQ(hardware_flops(m, ParallelPlan{}, t),
                   (57'912'852'480.0 + 2'147'483'648.0 + 13'958'643'712.0 + 4'294'967'296.0) * 8192);
}

TEST(Flops, CausalCountHalvesOnlyTheAttentionCore) {
  // Llama 3 405B at 131,072 tokens (the Llama 3 paper's long-context row),
  // per token forward: attention core 4 s h l = 4 * 131072 * 16384 * 126 =
  // 1,082,331,758,592 FLOPs; the causal count takes half of it off each of
  // the three passes: 3 * 541,165,879,296 = 1,623,497,637,888 per token less.
  const ModelSpec& m = find_model("llama3-405b");
  const TrainingSpec t = training(131072, 1, Recompute::kNone, true);
  const double tokens = 131072.0;
  EXPECT_DOUBLE_EQ(model_flops(m, t) - model_flops_causal(m, t), 1'623'497'637'888.0 * tokens);
  // The weight GEMMs and logits are 6 N-like, about 2.43e12 per token, so the
  // causal count is about 4.05e12 against 5.67e12: 0.71 of the full one.
  EXPECT_NEAR(model_flops_causal(m, t) / model_flops(m, t), 0.714, 0.005);
  // At 8,192 tokens the square is a small share: 0.96.
  const TrainingSpec short_seq = training(8192, 1, Recompute::kNone, true);
  EXPECT_NEAR(model_flops_causal(m, short_seq) / model_flops(m, short_seq), 0.96, 0.005);
}

TEST(Flops, MixtureOfExpertsCountsOnlyTheVisitedExperts) {
  // Mixtral: each token runs 2 of 8 SwiGLU experts, plus the router (4096 x 8).
  // GEMM MACs per layer: 4096 * 6144 + 4096^2 + 2 * 3 * 4096 * 14336 + 4096 * 8
  //   = 25,165,824 + 16,777,216 + 352,321,536 + 32,768 = 394,297,344.
  const ModelSpec& m = find_model("mixtral-8x7b");
  const TrainingSpec t = training(4096, 1, Recompute::kNone, false);
  const double per_token = 2.0 * 32 * 394'297'344 + 4.0 * 4096 * 4096 * 32 + 2.0 * 4096 * 32000;
  EXPECT_DOUBLE_EQ(model_flops(m, t), 3 * per_token * 4096);
}

TEST(Flops, MatchesLlmFoundryModelFlopsForMpt70b) {
  // llm-foundry counts 2 x NumParams per token plus n_layers * 2 * 2 * d * s^2
  // per sequence, x 3; its H100 row for MPT-70B (64 GPUs, seq 2048, 66,523
  // tokens/s) prints 4.212583e14 model FLOP/s per GPU. Our GEMM-shape count
  // leaves out the position table, biases and norms (0.04% of 2 x NumParams).
  const ModelSpec& m = find_model("mpt-70b");
  const double per_token = model_flops(m, training(2048, 1, Recompute::kNone, true)) / 2048;
  EXPECT_NEAR(per_token * 66523 / 64 / 4.212583e14, 1.0, 0.002);
}

// A tiny model whose FLOPs are counted by hand below: 2 layers, h = 64,
// 4 heads, V = 1000, 4 sequences of s = 128 (512 tokens).
ModelSpec tiny(int64_t kv_heads, bool gated, int64_t ffn, int64_t experts, int64_t top_k) {
  ModelSpec m;
  m.name = "tiny";
  m.layers = 2;
  m.hidden = 64;
  m.heads = 4;
  m.kv_heads = kv_heads;
  m.ffn_hidden = ffn;
  m.vocab = 1000;
  m.gated_mlp = gated;
  m.experts = experts;
  m.top_k = top_k;
  return m;
}

// Megatron's count charges full recomputation: 4 passes of every layer, 3 of
TEST(Flops, RecomputingSomeLayersAddsTheirShareOfTheRecomputedForward) {
  // Full recomputation adds every layer's forward (GEMMs and attention
  // core) once. With recompute_layers it adds the recomputed layers' share,
  // counted chunk by chunk: 16 layers on PP 2 x 2 chunks are chunks of 4;
  // 2 of each chunk is 8 of 16 layers, half the extra FLOPs; 6 of a chunk
  // of 4 recomputes all 4, as full recomputation does.
  const ModelSpec m = [] {
    ModelSpec x = find_model("gpt-1.7b");
    x.layers = 16;
    return x;
  }();
  ParallelPlan p;
  p.pp = 2;
  p.virtual_stages = 2;
  TrainingSpec t = training(2048, 8, Recompute::kFull, false);
  const double full = hardware_flops(m, p, t) - model_flops(m, t);
  t.recompute_layers = 2;
  EXPECT_DOUBLE_EQ(hardware_flops(m, p, t) - model_flops(m, t), full / 2);
  t.recompute_layers = 6;
  EXPECT_DOUBLE_EQ(hardware_flops(m, p, t) - model_flops(m, t), full);
  EXPECT_GT(full, 0);
}

TEST(Flops, AFullReplayKeepingTheAttentionOutputCountsEverythingButTheCoreAgain) {
  // Llama 3 8B at 4,096 tokens, 8 sequences, FlashAttention: keeping the
  // kernel's output takes the attention core's forward out of the full
  // replay, 32 x 2 x 4096 x (4096 + 4096) FLOPs a token, which is what
  // selective core_attn adds.
  const ModelSpec& m = find_model("llama3-8b");
  const ParallelPlan p;
  TrainingSpec full = training(4096, 8, Recompute::kFull, true);
  TrainingSpec kept = full;
  kept.recompute_keeps_attention = true;
  const double core = 32.0 * 2 * 4096 * (4096 + 4096) * 8 * 4096;
  EXPECT_NEAR(hardware_flops(m, p, full) - hardware_flops(m, p, kept), core, core * 1e-9);
  const TrainingSpec none = training(4096, 8, Recompute::kNone, true);
  const TrainingSpec selective = training(4096, 8, Recompute::kSelective, true);
  EXPECT_NEAR(hardware_flops(m, p, selective) - hardware_flops(m, p, none), core, core * 1e-9);
}

TEST(Flops, SelectiveRecomputationCountsTheReplayedModulesGemms) {
  // Llama 3 8B at 4,096 tokens, 8 sequences, no FlashAttention (no extra
  // Q K^T): replaying "mlp" adds each of the 32 dense MLPs' forward, 2 x
  // 3 x 4096 x 14336 FLOPs a token; "layernorm" adds nothing (no GEMM);
  // "core_attn" alone is the attention core, 32 x 2 x 4096 x (4096 + 4096)
  // a token.
  const ModelSpec& m = find_model("llama3-8b");
  const ParallelPlan p;
  TrainingSpec t = training(4096, 8, Recompute::kSelective, false);
  const double tokens = 8.0 * 4096;
  EXPECT_DOUBLE_EQ(hardware_flops(m, p, t) - model_flops(m, t), 32.0 * 2 * 4096 * 8192 * tokens);
  t.recompute_modules = kRecomputeMlp | kRecomputeLayernorm;
  EXPECT_DOUBLE_EQ(hardware_flops(m, p, t) - model_flops(m, t), 32.0 * 2 * 3 * 4096 * 14336 * tokens);
  // DeepSeek-V3's MLA up projections in all 61 layers: Q from its 1,536
  // latent to 128 heads x 192, K and V from the 512 latent to 128 x (128 +
  // 128).
  const ModelSpec& d = find_model("deepseek-v3");
  t.recompute_modules = kRecomputeMlaUpProj;
  EXPECT_DOUBLE_EQ(hardware_flops(d, p, t) - model_flops(d, t),
                   61.0 * 2 * (1536.0 * 128 * 192 + 512.0 * 128 * 256) * tokens);
}

TEST(Flops, SlidingLayersCountTheKeysTheirQueriesSee) {
  // GPT-OSS 120B at 4,096 tokens: its 18 sliding layers count twice the
  // keys a query sees on average, (128 x 129 / 2 + 3968 x 128) x 2 / 4096
  // = 252.03125, instead of 4,096. Model FLOPs drop by 3 x 2 x 18 x
  // (4096 - 252.03125) x (4096 + 4096) per token.
  const ModelSpec& m = find_model("gpt-oss-120b");
  ModelSpec full = m;
  full.sliding_window = 0;
  full.full_attention_step = 0;
  const TrainingSpec t = training(4096, 8, Recompute::kNone, true);
  EXPECT_DOUBLE_EQ(model_flops(full, t) - model_flops(m, t), 3.0 * 2 * 18 * (4096 - 252.03125) * 8192 * 8 * 4096);
}

TEST(Flops, WiderHeadsWidenQTheOutputAndTheAttentionCore) {
  // h 4096, 32 heads (and 32 KV heads) of 256 instead of 128: Q, K, V and
  // the attention output are 8,192 wide, 4,096 more. A token's forward
  // through one layer gains 4096 x 4096 MACs in each of the four
  // projections, 2 x 4 x 4096^2 = 134,217,728 FLOPs, and 4 s x 4096 =
  // 33,554,432 in the attention core at s 2048; three passes, 2 layers,
  // 8 x 2048 tokens.
  ModelSpec m;
  m.layers = 2, m.hidden = 4096, m.heads = 32, m.kv_heads = 32, m.ffn_hidden = 16384, m.vocab = 1000;
  const TrainingSpec t = training(2048, 8, Recompute::kNone, true);
  const double narrow = model_flops(m, t);
  m.head_dim_override = 256;
  EXPECT_DOUBLE_EQ(model_flops(m, t) - narrow, 3.0 * 2 * (134'217'728.0 + 33'554'432.0) * 8 * 2048);
}

TEST(Flops, DeepSeekV3ForwardIsTwiceItsActiveWeightsPlusTheAttentionCore) {
  // Every weight a token touches is one MAC of its forward but the input
  // embedding (a lookup) and the norms: 37,552,282,624 active - 926,679,040
  // (129280 x 7168) - norms 61 x (2 x 7168 + 1536 + 512) + 7168 = 1,006,592
  // = 36,624,596,992 MACs. The attention core is 2 s (q + o) per layer per
  // token with Q/K heads of 192 and V heads of 128: 61 x 2 x 4096 x (24576 +
  // 16384) = 20,468,203,520 FLOPs at s 4096. Three passes, one sequence.
  ModelSpec m = find_model("deepseek-v3");
  m.mtp_layers = 0;
  const TrainingSpec t = training(4096, 1, Recompute::kNone, true);
  const double main_model = model_flops(m, t);
  EXPECT_DOUBLE_EQ(main_model, 3.0 * (2 * 36'624'596'992.0 + 20'468'203'520.0) * 4096);
  // The MTP module adds, per token: its projection 2 h^2 = 102,760,448 MACs,
  // a MoE layer's 187,105,280 (attention) + 9 x 44,040,192 (8 experts and the
  // shared one) + 1,835,008 (router) = 585,302,016 MACs, the output layer
  // again, 926,679,040 MACs; 3,229,483,008 FLOPs, and an attention core of
  // 2 x 4096 x 40960 = 335,544,320.
  m.mtp_layers = 1;
  EXPECT_DOUBLE_EQ(model_flops(m, t) - main_model, 3.0 * (3'229'483'008.0 + 335'544'320.0) * 4096);
}

// the logits; it is hardware_flops() with full recompute and no FlashAttention.
void expect_megatron_is_full_recompute(const ModelSpec& m) {
  EXPECT_DOUBLE_EQ(megatron_flops(m, 4, 128), hardware_flops(m, ParallelPlan{}, training(128, 4, Recompute::kFull, false)));
}

TEST(Flops, DenseTinyModelByHand) {
  // A dense GPT layer is 12 h^2 MACs per token: QKV 64 (64 + 2*64) = 12,288,
  // output 64^2 = 4,096, MLP 2 * 64 * 256 = 32,768; 49,152 MACs = 98,304 FLOPs,
  // x 2 layers = 196,608. Attention 4 s h l = 4 * 128 * 64 * 2 = 65,536.
  // Logits 2 h V = 128,000. Forward per token 390,144.
  //   model FLOPs    3 x 390,144                          = 1,170,432 per token
  //   Megatron       4 x (196,608 + 65,536) + 3 x 128,000 = 1,432,576 per token
  // which is eq. 3: 96 l h^2 (1 + s/(6h) + V/(16 l h)) = 786,432 x 1.8216146 = 1,432,576.
  const ModelSpec m = tiny(4, false, 256, 1, 1);
  EXPECT_DOUBLE_EQ(model_flops(m, training(128, 4, Recompute::kNone, false)), 1'170'432.0 * 512);
  EXPECT_DOUBLE_EQ(megatron_flops(m, 4, 128), 1'432'576.0 * 512);
  EXPECT_NEAR(megatron_flops(m, 4, 128) / (96.0 * 512 * 2 * 64 * 64 * (1 + 128 / 384.0 + 1000 / 2048.0)), 1.0, 1e-12);
  expect_megatron_is_full_recompute(m);
}

TEST(Flops, GroupedQueryAttentionCountsNarrowKeysAndValues) {
  // One KV head of hd = 16 and a SwiGLU MLP of 192: per layer per token
  // QKV 64 (64 + 2*16) = 6,144, output 4,096, MLP 3 * 64 * 192 = 36,864 MACs;
  // 47,104 MACs = 94,208 FLOPs, x 2 layers = 188,416. Attention 65,536 and
  // logits 128,000 as in the dense model. Forward per token 381,952.
  //   model FLOPs    3 x 381,952                          = 1,145,856 per token
  //   Megatron       4 x (188,416 + 65,536) + 3 x 128,000 = 1,399,808 per token
  // Eq. 3 (the dense formula) would say 1,432,576: K and V at full width.
  const ModelSpec m = tiny(1, true, 192, 1, 1);
  EXPECT_DOUBLE_EQ(model_flops(m, training(128, 4, Recompute::kNone, false)), 1'145'856.0 * 512);
  EXPECT_DOUBLE_EQ(megatron_flops(m, 4, 128), 1'399'808.0 * 512);
  expect_megatron_is_full_recompute(m);
}

TEST(Flops, MixtureOfExpertsMegatronCountIsAboveModelFlops) {
  // 4 experts of 256 (ungated), top-2: per layer per token QKV 12,288,
  // output 4,096, two experts' MLPs 2 * 2 * 64 * 256 = 65,536, router
  // 64 * 4 = 256 MACs; 82,176 MACs = 164,352 FLOPs, x 2 layers = 328,704.
  // Attention 65,536, logits 128,000. Forward per token 522,240.
  //   model FLOPs    3 x 522,240                          = 1,566,720 per token
  //   Megatron       4 x (328,704 + 65,536) + 3 x 128,000 = 1,960,960 per token
  // Eq. 3 would say 1,432,576, below the model FLOPs: it counts one MLP.
  const ModelSpec m = tiny(4, false, 256, 4, 2);
  const double model = model_flops(m, training(128, 4, Recompute::kNone, false));
  EXPECT_DOUBLE_EQ(model, 1'566'720.0 * 512);
  EXPECT_DOUBLE_EQ(megatron_flops(m, 4, 128), 1'960'960.0 * 512);
  EXPECT_GT(megatron_flops(m, 4, 128), model);
  expect_megatron_is_full_recompute(m);
}

TEST(Flops, HybridBlocksOfAttentionAndMlpCountAsTheTransformerTheySpell) {
  // A transformer layer is an attention block and an MLP block: the same
  // GEMMs and attention core, whether counted by layer or by block, for a
  // dense MLP (Llama 3 8B) or experts (Mixtral 8x7B).
  for (const auto& [name, mlp] : {std::pair{"llama3-8b", '-'}, std::pair{"mixtral-8x7b", 'E'}}) {
    const ModelSpec& model = find_model(name);
    const ModelSpec blocks = testing::spelled_as_blocks(model, mlp);
    const TrainingSpec t = training(8192, 4, Recompute::kNone, true);
    EXPECT_DOUBLE_EQ(model_flops(blocks, t), model_flops(model, t)) << name;
    EXPECT_DOUBLE_EQ(megatron_flops(blocks, 4, 8192), megatron_flops(model, 4, 8192)) << name;
    ParallelPlan p;
    const TrainingSpec full = training(8192, 4, Recompute::kFull, true);
    EXPECT_DOUBLE_EQ(hardware_flops(blocks, p, full), hardware_flops(model, p, full)) << name;
  }
}

TEST(Flops, NemotronH56bCountsItsMambaMixersSsdAndAttentionBlocks) {
  // Forward per token, sequence 8,192 (d 16,384, N 256, P 64, H 256, G 8,
  // chunks of Q = 128):
  //   Mamba-2  in_proj 2 x 8192 x 37120 + out_proj 2 x 16384 x 8192
  //            + SSD 2QNG 524,288 + 2QPH 4,194,304 + 4NPH 16,777,216
  //            = 898,105,344
  //   attention 2 x 150,994,944 + core 2 x 8192 x (8192 + 8192) = 570,425,344
  //   MLP      2 x 2 x 8192 x 32768 = 1,073,741,824
  //   logits   2 x 8192 x 131072 = 2,147,483,648
  // 54 x 898,105,344 + 10 x 570,425,344 + 54 x 1,073,741,824 + 2,147,483,648
  // = 114,331,484,160; x 3 passes x 8,192 tokens = 2.8098e15.
  const TrainingSpec t = training(8192, 1, Recompute::kNone, true);
  EXPECT_DOUBLE_EQ(model_flops(find_model("nemotronh-56b"), t), 3.0 * 114'331'484'160.0 * 8192);
}

TEST(ModelFlops, LoraCountsTheFrozenWeightsTwiceAndTheAdaptersThreeTimes) {
  // With W the weight GEMMs' forward FLOPs and C the attention core's, full
  // training counts 3 (W + C), and with the core causal 3 (W + C / 2): the
  // two differ by 1.5 C. LoRA counts 2 W + 3 C + 3 A, A the adapters'
  // forward: on Llama 3 8B at rank 16, 32 layers x 2 x 16 x (4096 + 4096 +
  // 1024 + 1024 + 4096 + 4096) = 18,874,368 FLOPs a token.
  const ModelSpec& m = find_model("llama3-8b");
  TrainingSpec t;
  t.seq_len = 8192;
  t.global_batch = 2;
  const double tokens = 2.0 * 8192;
  const double full = model_flops(m, t), full_causal = model_flops_causal(m, t);
  const double C = (full - full_causal) / 1.5 / tokens, W = full / 3 / tokens - C;
  t.lora_rank = 16;
  const double A = 18'874'368;
  EXPECT_NEAR(model_flops(m, t) / tokens, 2 * W + 3 * C + 3 * A, 1e-6 * full / tokens);
  EXPECT_NEAR(model_flops_causal(m, t) / tokens, 2 * W + 1.5 * C + 3 * A, 1e-6 * full / tokens);
}

}  // namespace
}  // namespace anatomy::workload
