#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/error.h"
#include "workload/model.h"

namespace anatomy::workload {
namespace {

// Narayanan et al. SC'21 eq. 2, multiplied out:
//   P = 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)) = 12 l h^2 + 13 l h + (V + s) h.
int64_t megatron_eq2(int64_t l, int64_t h, int64_t V, int64_t s) { return 12 * l * h * h + 13 * l * h + (V + s) * h; }

TEST(ModelSpec, MegatronTable1ParametersAreEq2) {
  // Each Table 1 row: its name (the parameter column, in billions), heads, hidden, layers.
  struct Row {
    const char* name;
    double billions;
    int64_t heads, hidden, layers;
  };
  const Row rows[] = {{"gpt-1.7b", 1.7, 24, 2304, 24},       {"gpt-3.6b", 3.6, 32, 3072, 30},
                      {"gpt-7.5b", 7.5, 32, 4096, 36},       {"gpt-18.4b", 18.4, 48, 6144, 40},
                      {"gpt-39.1b", 39.1, 64, 8192, 48},     {"gpt-76.1b", 76.1, 80, 10240, 60},
                      {"gpt-145.6b", 145.6, 96, 12288, 80},  {"gpt-310.1b", 310.1, 128, 16384, 96},
                      {"gpt-529.6b", 529.6, 128, 20480, 105}, {"gpt-1008b", 1008.0, 160, 25600, 128}};
  for (const Row& r : rows) {
    const ModelSpec& m = find_model(r.name);
    EXPECT_EQ(m.heads, r.heads) << r.name;
    EXPECT_EQ(m.hidden, r.hidden) << r.name;
    EXPECT_EQ(m.layers, r.layers) << r.name;
    // Eq. 2 leaves out the final LayerNorm (weight and bias, 2h); everything else is equal.
    EXPECT_EQ(m.params() - m.norm_params(), megatron_eq2(r.layers, r.hidden, 51200, 2048)) << r.name;
    // ... and rounds to the table's parameter column.
    EXPECT_NEAR(static_cast<double>(m.params()) / 1e9, r.billions, 0.05) << r.name;
  }
}

TEST(ModelSpec, Gpt3Is174Point6Billion) {
  // Table 2: 174.6B. 12*96*12288^2 = 173,946,175,488; 13*96*12288 = 15,335,424;
  // (51200 + 2048) * 12288 = 654,311,424; total 174,615,822,336, + 2*12288 final norm.
  const ModelSpec& m = find_model("gpt3-175b");
  EXPECT_EQ(m.params(), 174'615'822'336 + 2 * 12288);
  EXPECT_EQ(m.params_per_layer(), 12 * 12288LL * 12288 + 13 * 12288);
}

TEST(ModelSpec, Llama3CountsWithGqaAndSwiGlu) {
  // Llama 3 70B: h 8192, 64 heads of 128, 8 KV heads (K, V are 1024 wide), ffn 28672.
  //   attention 8192 * (8192 + 2*1024) + 8192^2 = 83,886,080 + 67,108,864 = 150,994,944
  //   MLP       3 * 8192 * 28672                                        = 704,643,072
  //   norms     2 * 8192 (RMSNorm, no biases)                           =      16,384
  //   per layer                                                            855,654,400
  //   80 layers 68,452,352,000 + untied 2 * 128256 * 8192 = 2,101,346,304 + final norm 8,192
  //   = 70,553,706,496 (the header's "70.55e9").
  const ModelSpec& m = find_model("llama3-70b");
  EXPECT_EQ(m.params_per_layer(), 855'654'400);
  EXPECT_EQ(m.params(), 70'553'706'496);
  // The 8B and 405B land on their names too (8.03e9, 405.85e9).
  EXPECT_NEAR(find_model("llama3-8b").params() / 1e9, 8.03, 0.005);
  EXPECT_NEAR(find_model("llama3-405b").params() / 1e9, 405.85, 0.005);
  EXPECT_EQ(m.active_params(), m.params());
  EXPECT_EQ(m.expert_params_per_layer(), 0);
}

TEST(ModelSpec, HeadDimWiderThanHiddenOverHeads) {
  // Qwen3-32B (model card: 32.8B parameters, 31.2B without embeddings):
  // h 5120, 64 heads of 128 (Q and attention output 8,192 wide, not
  // 5,120), 8 KV heads (1,024 wide), ffn 25600, vocabulary 151,936, untied.
  //   attention 5120 * (8192 + 2*1024) + 8192 * 5120 = 52,428,800 + 41,943,040 = 94,371,840
  //   MLP       3 * 5120 * 25600                                              = 393,216,000
  //   norms     2 * 5120                                                      =      10,240
  //   per layer                                                                  487,598,080
  //   64 layers 31,206,277,120 + final norm 5,120 + untied 2 * 151,936 * 5120 = 1,555,824,640
  //   = 32,762,106,880. (Its per-head q/k norms, 256 a layer, are left out.)
  ModelSpec m;
  m.layers = 64, m.hidden = 5120, m.heads = 64, m.kv_heads = 8, m.head_dim_override = 128;
  m.ffn_hidden = 25600, m.vocab = 151936, m.gated_mlp = true, m.layernorm = false, m.dropout = false;
  EXPECT_EQ(m.q_width(), 8192);
  EXPECT_EQ(m.params_per_layer(), 487'598'080);
  EXPECT_EQ(m.params(), 32'762'106'880);
  // Without head_dim, heads would be 5120 / 64 = 80 wide.
  m.head_dim_override = 0;
  EXPECT_EQ(m.head_dim(), 80);
}

TEST(ModelSpec, MptMatchesLlmFoundryNumParams) {
  // llm-foundry's benchmarking README prints the counted parameters at seq 2048:
  // 7b 6,658,859,008; 13b 12,853,954,560; 30b 29,975,214,080; 70b 64,862,437,376.
  // MPT-70B: 12*80*8192^2 = 64,424,509,440; biases 9*8192*80 = 5,898,240; LayerNorms
  // 4*8192*80 = 2,621,440 (+ 16,384 final); tied 50368*8192 = 412,614,656; learned
  // positions 2048*8192 = 16,777,216. Without the positions and biases it would be
  // 64.84e9, which the published count rules out.
  EXPECT_EQ(find_model("mpt-7b").params(), 6'658'859'008);
  EXPECT_EQ(find_model("mpt-13b").params(), 12'853'954'560);
  EXPECT_EQ(find_model("mpt-30b").params(), 29'975'214'080);
  EXPECT_EQ(find_model("mpt-70b").params(), 64'862'437'376);
}

TEST(ModelSpec, MixtralTotalAndActive) {
  // Mixtral 8x7B: per layer attention 41,943,040 (as Llama 3 8B), experts
  // 8 * 3 * 4096 * 14336 = 1,409,286,144, router 4096 * 8 = 32,768, norms 8,192.
  // Total 32 * 1,451,270,144 + 2 * 32000 * 4096 + 4096 = 46,702,792,704 (published 46.7B);
  // active: 6 experts fewer, 32 * 6 * 176,160,768 = 33,822,867,456 less = 12,879,925,248 (12.9B).
  const ModelSpec& m = find_model("mixtral-8x7b");
  EXPECT_EQ(m.expert_params_per_layer(), 1'409'286'144);
  EXPECT_EQ(m.params(), 46'702'792'704);
  EXPECT_EQ(m.active_params(), 12'879'925'248);
}

TEST(ModelSpec, MegatronCoreReadmeModels) {
  // The README's names, with 4h MLP and an untied output layer assumed; the
  // 32B, 119B, 314B and 462B names are 0.1-1.5% above the shapes' counts.
  const std::pair<const char*, double> rows[] = {{"mcore-1.7b", 1.75}, {"mcore-7.1b", 7.13}, {"mcore-16b", 16.13},
                                                 {"mcore-32b", 31.51}, {"mcore-70b", 69.84}, {"mcore-119b", 118.50},
                                                 {"mcore-177b", 177.23}, {"mcore-314b", 313.62},
                                                 {"mcore-462b", 461.54}};
  for (const auto& [name, billions] : rows) {
    const ModelSpec& m = find_model(name);
    EXPECT_EQ(m.vocab, 131072) << name;
    EXPECT_NEAR(m.params() / 1e9, billions, 0.005) << name;
  }
}

TEST(ModelSpec, PresetsAreUniqueAndNameTheirSource) {
  std::set<std::string> names;
  for (const ModelSpec& m : model_presets()) {
    EXPECT_TRUE(names.insert(m.name).second) << m.name;
    EXPECT_FALSE(m.description.empty()) << m.name;
    EXPECT_EQ(m.hidden % m.heads, 0) << m.name;
    EXPECT_EQ(m.heads % m.kv_heads, 0) << m.name;
  }
  EXPECT_EQ(model_presets().size(), 28u);
}

TEST(ModelSpec, UnknownModelListsTheKnownOnes) {
  try {
    find_model("gpt-5");
    FAIL() << "expected InputError";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().field, "model");
    EXPECT_NE(e.message().find("unknown model 'gpt-5'"), std::string::npos);
    EXPECT_NE(e.message().find("llama3-405b"), std::string::npos);
    EXPECT_NE(e.message().find("mixtral-8x7b"), std::string::npos);
  }
}

}  // namespace
}  // namespace anatomy::workload
