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
  EXPECT_EQ(m.dense_layer_params(), 12 * 12288LL * 12288 + 13 * 12288);
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
  EXPECT_EQ(m.dense_layer_params(), 855'654'400);
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
  EXPECT_EQ(m.dense_layer_params(), 487'598'080);
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

TEST(ModelSpec, Mixtral8x22bTotalAndActive) {
  // Per layer: attention 6144 * (6144 + 2 * 1024) + 6144^2 = 88,080,384; experts
  // 8 * 3 * 6144 * 16384 = 2,415,919,104; router 49,152; norms 12,288: 2,504,060,928.
  // 56 layers 140,227,411,968 + 2 * 32768 * 6144 + 6144 = 140,630,071,296 (published 141B);
  // active: 56 * 6 * 301,989,888 = 101,468,602,368 less = 39,161,468,928 (published 39B).
  const ModelSpec& m = find_model("mixtral-8x22b");
  EXPECT_EQ(m.params(), 140'630'071'296);
  EXPECT_EQ(m.active_params(), 39'161'468'928);
}

TEST(ModelSpec, DeepSeekV3HasLatentAttentionDenseFirstLayersAndASharedExpert) {
  // MLA per layer (h 7168, 128 heads): Q down 7168 * 1536 = 11,010,048, Q up
  // 1536 * 128 * 192 = 37,748,736, KV down 7168 * (512 + 64) = 4,128,768, KV up
  // 512 * 128 * 256 = 16,777,216, output 128 * 128 * 7168 = 117,440,512, latent
  // norms 1536 + 512: 187,107,328.
  // Dense layer: + 3 * 7168 * 18432 = 396,361,728 + norms 14,336 = 583,483,392.
  // MoE layer: + (256 + 1 shared) * 3 * 7168 * 2048 = 257 * 44,040,192 =
  //   11,318,329,344 + router 7168 * 256 = 1,835,008 + 14,336 = 11,507,286,016.
  // 3 dense + 58 MoE = 1,750,450,176 + 667,422,588,928, + 2 * 129280 * 7168 =
  // 1,853,358,080 + 7168 = 671,026,404,352 (published 671B). Active: 248 routed
  // experts of 44,040,192 fewer per MoE layer, 58 * 10,921,967,616 =
  // 633,474,121,728 less = 37,552,282,624 (published 37B). Both without the
  // multi-token-prediction module, as the paper counts them.
  ModelSpec m = find_model("deepseek-v3");
  ASSERT_EQ(m.mtp_layers, 1);
  // The MTP module: a MoE layer 11,507,286,016 + projection 2 * 7168^2 =
  // 102,760,448 + 3 norms 21,504 = 11,610,067,968 (the paper: 11.5B unique).
  EXPECT_EQ(m.mtp_params(), 11'610'067'968);
  EXPECT_EQ(m.params(), 671'026'404'352 + 11'610'067'968);
  m.mtp_layers = 0;
  EXPECT_TRUE(m.mla());
  EXPECT_EQ(m.attention_params(), 187'107'328);
  EXPECT_EQ(m.dense_layer_params(), 583'483'392);
  EXPECT_EQ(m.moe_layer_params(), 11'507'286'016);
  EXPECT_EQ(m.moe_layers(), 58);
  EXPECT_FALSE(m.moe_layer(2));
  EXPECT_TRUE(m.moe_layer(3));
  EXPECT_EQ(m.params(), 671'026'404'352);
  EXPECT_EQ(m.active_params(), 37'552'282'624);
  // Q and K heads are 128 + 64 wide, V heads 128; the down projections and
  // latent norms (11,010,048 + 1,536 + 4,128,768 + 512) stay whole on TP ranks.
  EXPECT_EQ(m.q_width(), 128 * 192);
  EXPECT_EQ(m.out_width(), 128 * 128);
  EXPECT_EQ(m.tp_replicated_params_per_layer(), 15'140'864);
}

TEST(ModelSpec, Qwen3MoeMatchesItsModelCards) {
  // 30B-A3B: attention 2048 * (4096 + 2 * 512) + 4096 * 2048 = 18,874,368; experts
  // 128 * 3 * 2048 * 768 = 603,979,776; router 262,144; norms 4,096: 623,120,384 a
  // layer; 48 of them + 2 * 151936 * 2048 + 2048 = 30,532,110,336 (card: 30.5B);
  // active 48 * 120 * 4,718,592 = 27,179,089,920 less = 3,353,020,416 (3.3B).
  EXPECT_EQ(find_model("qwen3-30b-a3b").params(), 30'532'110'336);
  EXPECT_EQ(find_model("qwen3-30b-a3b").active_params(), 3'353'020'416);
  // 235B-A22B: attention 4096 * (8192 + 1024) + 8192 * 4096 = 71,303,168; experts
  // 128 * 18,874,368 = 2,415,919,104; router 524,288; norms 8,192: 2,487,754,752;
  // 94 layers + 2 * 151936 * 4096 + 4096 = 235,093,610,496 (235B); active
  // 94 * 120 * 18,874,368 = 212,902,871,040 less = 22,190,739,456 (22B).
  EXPECT_EQ(find_model("qwen3-235b-a22b").params(), 235'093'610'496);
  EXPECT_EQ(find_model("qwen3-235b-a22b").active_params(), 22'190'739'456);
}

TEST(ModelSpec, Llama4MaverickInterleavesDenseAndMoeLayers) {
  // Every second layer (1, 3, ..., 47) has 128 experts + 1 shared of 8192; the
  // others a dense MLP of 16384. Attention 5120 * (5120 + 2048) + 5120^2 =
  // 62,914,560. MoE layer: 129 * 3 * 5120 * 8192 = 16,231,956,480 + router
  // 655,360 + attention + norms 10,240 = 16,295,536,640; dense layer: 3 * 5120 *
  // 16384 = 251,658,240 + 62,914,560 + 10,240 = 314,583,040. 24 of each +
  // 2 * 202048 * 5120 + 5120 = 400,711,848,960 (published ~400B with vision).
  // Active: 127 routed experts fewer, 24 * 127 * 125,829,120 less = 17,184,691,200 (17B).
  const ModelSpec& m = find_model("llama4-maverick");
  EXPECT_FALSE(m.moe_layer(0));
  EXPECT_TRUE(m.moe_layer(1));
  EXPECT_EQ(m.moe_layers(), 24);
  EXPECT_EQ(m.moe_layers_in(0, 5), 2);  // layers 1 and 3
  EXPECT_EQ(m.moe_layers_in(5, 4), 2);  // 5 and 7
  EXPECT_EQ(m.dense_layer_params(), 314'583'040);
  EXPECT_EQ(m.moe_layer_params(), 16'295'536'640);
  EXPECT_EQ(m.params(), 400'711'848'960);
  EXPECT_EQ(m.active_params(), 17'184'691'200);
  // Scout: 16 experts + 1 shared in all 48 layers: 48 * 2,202,101,760 +
  // 2,068,976,640 = 107,769,861,120; active 48 * 314,664,960 + 2,068,976,640 =
  // 17,172,894,720 (17B).
  EXPECT_EQ(find_model("llama4-scout").moe_layers(), 48);
  EXPECT_EQ(find_model("llama4-scout").params(), 107'769'861'120);
  EXPECT_EQ(find_model("llama4-scout").active_params(), 17'172'894'720);
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

TEST(ModelSpec, Nemotron4HasAnUngatedMlpOf4hAndUntiedTables) {
  // 15B per layer (h 6144, 48 heads of 128, 8 KV heads): attention
  // 6144 * (6144 + 2048) + 6144^2 = 88,080,384, its biases 8192 + 6144 = 14,336;
  // MLP 2 * 6144 * 24576 = 301,989,888, biases 24576 + 6144 = 30,720; two
  // LayerNorms 4 * 6144 = 24,576: 390,139,904. x 32 = 12,484,476,928, + untied
  // tables 2 * 256000 * 6144 = 3,145,728,000, + final norm 12,288:
  // 15,630,217,216 ("15B").
  EXPECT_EQ(find_model("nemotron4-15b").params(), 15'630'217'216);
  // 340B (h 18432, heads of 192): attention 18432 * (18432 + 3072) + 18432^2 =
  // 736,100,352, biases 21504 + 18432 = 39,936; MLP 2 * 18432 * 73728 =
  // 2,717,908,992, biases 92,160; norms 73,728: 3,454,215,168 a layer; x 96 =
  // 331,604,656,128 + 2 * 256000 * 18432 = 9,437,184,000 + 36,864 =
  // 341,041,876,992 ("340B").
  const ModelSpec& m = find_model("nemotron4-340b");
  EXPECT_EQ(m.params(), 341'041'876'992);
  EXPECT_EQ(m.head_dim(), 192);
  EXPECT_FALSE(m.gated_mlp);
  EXPECT_EQ(m.max_seq, 0);  // rotary: no position table
}

TEST(ModelSpec, Grok1HasEightGatedExpertsTopTwoAndOneTable) {
  // Per layer: attention 6144 * (6144 + 2048) + 6144^2 = 88,080,384; experts
  // 8 * 3 * 6144 * 32768 = 4,831,838,208; router 6144 * 8 = 49,152; norms
  // 12,288: 4,919,980,032. x 64 = 314,878,722,048, + one 131072 x 6144 table
  // 805,306,368 + final norm 6144 = 315,684,034,560 ("314B").
  const ModelSpec& m = find_model("grok-1");
  EXPECT_EQ(m.params(), 315'684'034'560);
  // Active: 2 of 8 experts, 6 * 603,979,776 = 3,623,878,656 a layer fewer:
  // 315,684,034,560 - 64 * 3,623,878,656 = 83,755,800,576.
  EXPECT_EQ(m.active_params(), 83'755'800'576);
}

TEST(ModelSpec, NemotronH56bCountsEachBlockOfItsPattern) {
  // 118 blocks: 54 Mamba-2, 10 attention, 54 MLP, each with one RMSNorm of
  // 8,192. A Mamba-2 mixer of d = 256 x 64 = 16,384, G = 8, N = 256:
  //   in_proj  8192 x (2 x 16384 + 2 x 8 x 256 + 256) = 8192 x 37120 = 304,087,040
  //   conv1d   (16384 + 4096) x (4 taps + 1 bias) = 102,400
  //   A, D, dt bias 3 x 256 = 768; gated norm 16,384; out_proj 16384 x 8192 = 134,217,728
  //   block 438,424,320 + 8,192 = 438,432,512
  // Attention: Q and O 2 x 8192^2, K and V 2 x 8192 x 1024: 150,994,944
  // + 8,192 = 151,003,136. MLP: 2 x 8192 x 32768 + 8,192 = 536,879,104.
  // 54 x 438,432,512 + 10 x 151,003,136 + 54 x 536,879,104 + untied tables
  // 2 x 131072 x 8192 + final norm 8,192 = 56,324,350,464 ("56B").
  const ModelSpec& m = find_model("nemotronh-56b");
  const LayerCounts c = m.layer_counts(0, m.layers);
  EXPECT_EQ(c[LayerKind::kMamba], 54);
  EXPECT_EQ(c[LayerKind::kAttention], 10);
  EXPECT_EQ(c[LayerKind::kMlp], 54);
  EXPECT_EQ(c.attention(), 10);
  EXPECT_EQ(m.layer_kind(0), LayerKind::kMamba);
  EXPECT_EQ(m.layer_kind(1), LayerKind::kMlp);
  EXPECT_EQ(m.layer_kind(7), LayerKind::kAttention);  // "M-M-M-M*"
  EXPECT_EQ(m.layer_params(LayerKind::kMamba), 438'432'512);
  EXPECT_EQ(m.params(), 56'324'350'464);
  EXPECT_EQ(m.active_params(), m.params());
  // The 8B: d 8192, N 128, in_proj 4096 x 18560; 24 Mamba-2 blocks of
  // 109,640,064, 4 attention of 41,947,136, 24 MLP of 176,164,864 and
  // 2 x 131072 x 4096 + 4096: 8,100,852,736 ("8B").
  EXPECT_EQ(find_model("nemotronh-8b").params(), 8'100'852'736);
}

TEST(ModelSpec, Nemotron3NanoHasMixtureOfExpertsBlocks) {
  // 52 blocks: 23 Mamba-2, 23 MoE, 6 attention; h 2,688.
  //   Mamba-2 (d 4096, G 8, N 128, 64 heads): in_proj 2688 x (8192 + 2048
  //     + 64) = 27,697,152; conv (4096 + 2048) x 5 = 30,720; 3 x 64 = 192;
  //     gated norm 4,096; out_proj 4096 x 2688 = 11,010,048; + norm 2,688:
  //     38,744,896
  //   MoE: 128 experts + 2 shared (the 3,712-wide one) of 2 x 2688 x 1856
  //     = 9,977,856 each: 1,297,121,280; router 2688 x 128 = 344,064;
  //     + norm 2,688: 1,297,468,032
  //   attention (32 heads of 128, 2 KV heads): 2688 x (4096 + 2 x 256)
  //     + 4096 x 2688 = 23,396,352; + norm 2,688: 23,399,040
  // 23 x 38,744,896 + 23 x 1,297,468,032 + 6 x 23,399,040 + 2 x 131072 x
  // 2688 + 2,688 = 31,577,937,344 ("31.6B"). Active: 122 of 128 experts
  // idle in 23 blocks, 23 x 122 x 9,977,856 = 27,997,863,936 fewer:
  // 3,580,073,408 ("3.6B with the embeddings", 3.2B without the input
  // table of 352,321,536).
  const ModelSpec& m = find_model("nemotron3-nano");
  const LayerCounts c = m.layer_counts(0, m.layers);
  EXPECT_EQ(c[LayerKind::kMamba], 23);
  EXPECT_EQ(c[LayerKind::kMoeMlp], 23);
  EXPECT_EQ(c[LayerKind::kAttention], 6);
  EXPECT_EQ(m.moe_layers(), 23);
  EXPECT_TRUE(m.moe_layer(1));
  EXPECT_FALSE(m.moe_layer(0));
  EXPECT_EQ(m.layer_params(LayerKind::kMoeMlp), 1'297'468'032);
  EXPECT_EQ(m.params(), 31'577'937'344);
  EXPECT_EQ(m.active_params(), 3'580'073'408);
}

TEST(ModelSpec, KimiK2IsDeepSeekV3sLayoutWith384ExpertsAnd64Heads) {
  // MLA with 64 heads: Q down 7168 x 1536, up 1536 x 64 x 192, KV down
  // 7168 x (512 + 64), up 512 x 64 x (128 + 128), output 64 x 128 x 7168,
  // latent norms 1536 + 512: 101,124,096. One dense layer of 3 x 7168 x
  // 18432 and two norms: 497,500,160. Sixty MoE layers of 384 + 1 experts
  // of 3 x 7168 x 2048, a router of 7168 x 384 and two norms:
  // 17,059,364,864. With the untied 163840 x 7168 tables and the final norm:
  // 1,026,408,209,408 ("1T"). Active: 376 experts idle in 60 layers,
  // 60 x 376 x 44,040,192 fewer: 32,861,477,888 ("32B").
  const ModelSpec& m = find_model("kimi-k2");
  EXPECT_EQ(m.params(), 1'026'408'209'408);
  EXPECT_EQ(m.active_params(), 32'861'477'888);
  EXPECT_EQ(m.moe_layers(), 60);
}

TEST(ModelSpec, ATransformerIsOneKindOfLayerOrTwo) {
  // Without a pattern, layers are dense or MoE: Llama 4 Maverick's 48 are
  // half each (every second layer has experts).
  const LayerCounts c = find_model("llama4-maverick").layer_counts(0, 48);
  EXPECT_EQ(c[LayerKind::kDense], 24);
  EXPECT_EQ(c[LayerKind::kMoe], 24);
  EXPECT_EQ(c[LayerKind::kMamba] + c[LayerKind::kAttention] + c[LayerKind::kMlp], 0);
  EXPECT_EQ(c.attention(), 48);
}

TEST(ModelSpec, PresetsAreUniqueAndNameTheirSource) {
  std::set<std::string> names;
  for (const ModelSpec& m : model_presets()) {
    EXPECT_TRUE(names.insert(m.name).second) << m.name;
    EXPECT_FALSE(m.description.empty()) << m.name;
    EXPECT_EQ(m.hidden % m.heads, 0) << m.name;
    EXPECT_EQ(m.heads % m.kv_heads, 0) << m.name;
  }
  EXPECT_EQ(model_presets().size(), 44u);
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

TEST(Model, GptOssSlidesItsEvenLayersAndCountsItsExperts) {
  // GPT-OSS 120B: per layer Q 2880 x 4096, K and V 2880 x 512 each, out
  // 4096 x 2880 = 26,542,080; router 2880 x 128 = 368,640; 128 experts of 3
  // x 2880 x 2880 = 3,185,049,600; two norms 5,760: 3,211,966,080. 36 of
  // them + two 201,088 x 2880 tables + the final norm = 116,789,048,640
  // (published 116.83B with 40,108,032 biases and sinks, left out). Active:
  // 4 experts a layer, 126,449,280, x 36 + the tables = 5,710,443,840 (the
  // published 5.13B leaves out the input embedding, 579,133,440).
  const ModelSpec& m = find_model("gpt-oss-120b");
  EXPECT_EQ(m.moe_layer_params(), 3'211'966'080);
  EXPECT_EQ(m.params(), 116'789'048'640);
  EXPECT_EQ(m.active_params(), 5'710'443'840);
  // 20B: 24 layers of 32 experts, 822,902,400 each: 20,907,927,360 (20.91B).
  EXPECT_EQ(find_model("gpt-oss-20b").params(), 20'907'927'360);
  // Even layers slide, odd ones attend to everything: 18 of 36; of layers
  // 1-3, layer 2.
  EXPECT_EQ(m.sliding_layers_in(0, 1), 1);
  EXPECT_EQ(m.sliding_layers_in(1, 1), 0);
  EXPECT_EQ(m.sliding_layers_in(0, 36), 18);
  EXPECT_EQ(m.sliding_layers_in(1, 3), 1);
  // Every layer slides with no full_attention_step (Mistral); none without a window.
  ModelSpec all = m;
  all.full_attention_step = 0;
  EXPECT_EQ(all.sliding_layers_in(3, 5), 5);
  EXPECT_EQ(find_model("llama3-8b").sliding_layers_in(0, 32), 0);
}

}  // namespace
}  // namespace anatomy::workload
