#include <gtest/gtest.h>

#include "workload/flops.h"

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
  EXPECT_DOUBLE_EQ(F, expect);
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
    const double hfu = hardware_flops(m, training(2048, batch, Recompute::kFull, false));
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
  EXPECT_DOUBLE_EQ(hardware_flops(m, t), (57'912'852'480.0 + 2'147'483'648.0) * 8192);
  // Selective adds the attention core's forward (4,294,967,296) on top.
  t.recompute = Recompute::kSelective;
  EXPECT_DOUBLE_EQ(hardware_flops(m, t), (57'912'852'480.0 + 2'147'483'648.0 + 4'294'967'296.0) * 8192);
  // Full re-runs GEMMs and attention of every layer, not the logits.
  t.recompute = Recompute::kFull;
  EXPECT_DOUBLE_EQ(hardware_flops(m, t),
                   (57'912'852'480.0 + 2'147'483'648.0 + 13'958'643'712.0 + 4'294'967'296.0) * 8192);
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

}  // namespace
}  // namespace anatomy::workload
