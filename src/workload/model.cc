#include "workload/model.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"

namespace anatomy::workload {

int64_t ModelSpec::norm_params() const { return layernorm ? 2 * hidden : hidden; }

int64_t ModelSpec::moe_layers_in(int64_t first, int64_t count) const {
  if (!moe()) return 0;
  if (hybrid()) return layer_counts(first, count).experts();
  // Layers from dense_layers on, numbered j = i - dense_layers: MoE when
  // j % step == step - 1, i.e. floor((j + 1) / step) of them in 0 .. j.
  auto upto = [&](int64_t end) {  // MoE layers among 0 .. end - 1
    const int64_t j = end - dense_layers;
    return j <= 0 ? 0 : j / moe_layer_step;
  };
  return upto(first + count) - upto(first);
}

LayerKind ModelSpec::layer_kind(int64_t i) const {
  if (!hybrid()) return moe_layer(i) ? LayerKind::kMoe : LayerKind::kDense;
  ANATOMY_CHECK(i >= 0 && i < static_cast<int64_t>(hybrid_pattern.size()),
                "a layer beyond model.hybrid_pattern (validate_model first)");
  switch (hybrid_pattern[static_cast<size_t>(i)]) {
    case 'M': return LayerKind::kMamba;
    case '*': return LayerKind::kAttention;
    case 'E': return LayerKind::kMoeMlp;
    default: return LayerKind::kMlp;  // '-' (validate_model refuses others)
  }
}

LayerCounts ModelSpec::layer_counts(int64_t first, int64_t count) const {
  LayerCounts c;
  if (!hybrid()) {
    c[LayerKind::kMoe] = moe_layers_in(first, count);
    c[LayerKind::kDense] = count - c[LayerKind::kMoe];
    return c;
  }
  for (int64_t i = first; i < first + count; ++i) ++c[layer_kind(i)];
  return c;
}

int64_t ModelSpec::sliding_layers_in(int64_t first, int64_t count) const {
  if (sliding_window == 0) return 0;
  if (full_attention_step == 0) return count;
  // Full when (i + 1) % step == 0: floor(end / step) of layers 0 .. end - 1.
  const auto full_upto = [&](int64_t end) { return end / full_attention_step; };
  return count - (full_upto(first + count) - full_upto(first));
}

int64_t ModelSpec::attention_weights() const {
  const int64_t h = hidden, q = q_width(), o = out_width();
  if (mla()) {  // Q down and up (or Q from h), KV down and up, output
    const int64_t q_proj = q_lora_rank > 0 ? h * q_lora_rank + q_lora_rank * q : h * q;
    const int64_t kv = h * (kv_lora_rank + qk_rope_head_dim) + kv_lora_rank * heads * (qk_nope_head_dim + v_head_dim);
    return q_proj + kv + o * h;
  }
  // Q (h x q), K and V (h x kv_width each), output (o x h).
  return h * (q + k_width() + v_width()) + o * h;
}

int64_t ModelSpec::attention_params() const {
  if (mla()) return attention_weights() + q_lora_rank + kv_lora_rank;  // and the latents' norms
  if (!layernorm) return attention_weights();
  return attention_weights() + q_width() + k_width() + v_width() + hidden;  // GPT-style biases on every linear layer
}

namespace {

// One MLP of inner size `ffn` (up, gate when gated, down), with GPT-style biases.
int64_t mlp_params(const ModelSpec& m, int64_t ffn) {
  const int64_t weights = (m.gated_mlp ? 3 : 2) * m.hidden * ffn;
  return weights + (m.layernorm ? (m.gated_mlp ? 2 : 1) * ffn + m.hidden : 0);
}

}  // namespace

int64_t ModelSpec::expert_params_per_layer() const { return moe() ? mlp_params(*this, ffn_hidden) * experts : 0; }

int64_t ModelSpec::dense_layer_params() const {
  return attention_params() + mlp_params(*this, dense_ffn()) + layer_norms(LayerKind::kDense) * norm_params();
}

int64_t ModelSpec::moe_layer_params() const {
  if (!moe()) return dense_layer_params();
  const int64_t router = hidden * experts;  // h -> one logit per expert
  return attention_params() + expert_params_per_layer() + shared_experts * mlp_params(*this, ffn_hidden) + router +
         2 * norm_params();
}

int64_t ModelSpec::mamba_layer_params() const {
  const int64_t d = mamba_inner(), conv = mamba_conv_channels();
  return hidden * mamba_in_proj_width() + conv * (mamba_conv + 1) + 3 * mamba_heads + d + d * hidden;
}

int64_t ModelSpec::layer_params(LayerKind k) const {
  switch (k) {
    case LayerKind::kDense: return dense_layer_params();
    case LayerKind::kMoe: return moe_layer_params();
    case LayerKind::kMamba: return mamba_layer_params() + norm_params();
    case LayerKind::kAttention: return attention_params() + norm_params();
    case LayerKind::kMlp: return mlp_params(*this, dense_ffn()) + norm_params();
    case LayerKind::kMoeMlp: return moe_layer_params() - attention_params() - norm_params();
  }
  return 0;
}

int64_t ModelSpec::tp_replicated_params_per_layer() const {
  if (!mla()) return 0;
  const int64_t q_down = q_lora_rank > 0 ? hidden * q_lora_rank + q_lora_rank : 0;
  return q_down + hidden * (kv_lora_rank + qk_rope_head_dim) + kv_lora_rank;
}

int64_t ModelSpec::embedding_params() const {
  int64_t e = vocab * hidden;
  if (!tied_embeddings) e += vocab * hidden;
  return e + max_seq * hidden;
}

int64_t ModelSpec::mtp_params() const {
  const int64_t layer = mtp_moe() ? moe_layer_params() : dense_layer_params();
  return mtp_layers * (layer + 2 * hidden * hidden + 3 * norm_params());
}

int64_t ModelSpec::params() const {
  const LayerCounts c = layer_counts(0, layers);
  int64_t total = 0;
  for (LayerKind k : kAllLayerKinds) total += c[k] * layer_params(k);
  return total + embedding_params() + norm_params() + mtp_params();
}

int64_t ModelSpec::active_params() const {
  if (!moe()) return params();
  // A token visits top_k of the routed experts; the router and everything else it touches in full.
  const int64_t per_expert = expert_params_per_layer() / experts;
  const int64_t moe_count = moe_layers() + (mtp_moe() ? mtp_layers : 0);
  return params() - moe_count * (experts - top_k) * per_expert;
}

namespace {

// Megatron-LM's GPT: LayerNorm with biases, 4h GeLU MLP, learned positions,
// output layer tied to the input embedding, dropout 0.1.
ModelSpec megatron_gpt(std::string name, std::string description, int64_t layers, int64_t hidden, int64_t heads,
                       int64_t vocab, int64_t seq, bool tied) {
  ModelSpec m;
  m.name = std::move(name);
  m.description = std::move(description);
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = heads;
  m.ffn_hidden = 4 * hidden;
  m.vocab = vocab;
  m.max_seq = seq;
  m.gated_mlp = false;
  m.tied_embeddings = tied;
  m.layernorm = true;
  m.dropout = true;
  return m;
}

// Llama-style: RMSNorm, SwiGLU, rotary positions, no biases, no dropout,
// untied output layer, grouped-query attention.
ModelSpec llama_style(std::string name, std::string description, int64_t layers, int64_t hidden, int64_t heads,
                      int64_t kv_heads, int64_t ffn, int64_t vocab) {
  ModelSpec m;
  m.name = std::move(name);
  m.description = std::move(description);
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = kv_heads;
  m.ffn_hidden = ffn;
  m.vocab = vocab;
  m.max_seq = 0;
  m.gated_mlp = true;
  m.tied_embeddings = false;
  m.layernorm = false;
  m.dropout = false;
  return m;
}

std::vector<ModelSpec> make_presets() {
  std::vector<ModelSpec> v;

  // Narayanan et al., SC'21, Table 1 (weak scaling on A100): V = 51,200,
  // s = 2,048. Eq. 2 counts V*h once, so the output layer is tied.
  const char* a1 = "Megatron-LM GPT, Narayanan et al. SC'21 Table 1";
  struct Row {
    const char* name;
    int64_t heads, hidden, layers;
  };
  for (const Row& r : {Row{"gpt-1.7b", 24, 2304, 24}, Row{"gpt-3.6b", 32, 3072, 30}, Row{"gpt-7.5b", 32, 4096, 36},
                       Row{"gpt-18.4b", 48, 6144, 40}, Row{"gpt-39.1b", 64, 8192, 48},
                       Row{"gpt-76.1b", 80, 10240, 60}, Row{"gpt-145.6b", 96, 12288, 80},
                       Row{"gpt-310.1b", 128, 16384, 96}, Row{"gpt-529.6b", 128, 20480, 105},
                       Row{"gpt-1008b", 160, 25600, 128}}) {
    v.push_back(megatron_gpt(r.name, fmt::format("{} ({} layers, h {}, {} heads)", a1, r.layers, r.hidden, r.heads),
                             r.layers, r.hidden, r.heads, 51200, 2048, true));
  }
  // Same paper, Table 2 / Section 5.1: GPT-3 175B (174.6B by eq. 2).
  v.push_back(megatron_gpt("gpt3-175b", "GPT-3 175B as in Megatron-LM SC'21 Table 2 (96 layers, h 12288, 96 heads)",
                           96, 12288, 96, 51200, 2048, true));

  // Megatron-LM README (Megatron-Core r0.8.0, 2024) H100 weak-scaling table:
  // V = 131,072, s = 4,096. The README gives heads, hidden and layers only.
  // Assumed: Megatron's GPT defaults otherwise (4h GeLU MLP, LayerNorm with
  // biases, learned absolute positions) and an untied output layer: tied,
  // the "1.7B" row would have 1.48B parameters; untied it has 1.75B, and
  // "177B" (the README's GPT-3 "with larger vocabulary") needs the second
  // 131,072 x 12,288 matrix.
  const char* a5 = "Megatron-LM README 2024 (Megatron-Core) H100 table; assumed 4h MLP, untied, learned positions";
  for (const Row& r : {Row{"mcore-1.7b", 16, 2048, 24}, Row{"mcore-7.1b", 32, 4096, 30},
                       Row{"mcore-16b", 48, 6144, 32}, Row{"mcore-32b", 56, 7168, 48}, Row{"mcore-70b", 64, 8192, 84},
                       Row{"mcore-119b", 80, 10240, 92}, Row{"mcore-177b", 96, 12288, 96},
                       Row{"mcore-314b", 128, 16384, 96}, Row{"mcore-462b", 144, 18432, 112}}) {
    v.push_back(megatron_gpt(r.name, fmt::format("{} ({} layers, h {}, {} heads)", a5, r.layers, r.hidden, r.heads),
                             r.layers, r.hidden, r.heads, 131072, 4096, false));
  }

  // Llama Team, "The Llama 3 Herd of Models" (arXiv 2407.21783) Table 3.
  v.push_back(llama_style("llama3-8b", "Llama 3 8B, arXiv 2407.21783 Table 3", 32, 4096, 32, 8, 14336, 128256));
  v.push_back(llama_style("llama3-70b", "Llama 3 70B, arXiv 2407.21783 Table 3", 80, 8192, 64, 8, 28672, 128256));
  v.push_back(
      llama_style("llama3-405b", "Llama 3 405B, arXiv 2407.21783 Table 3", 126, 16384, 128, 8, 53248, 128256));

  // MosaicML llm-foundry benchmark models (scripts/train/yamls/pretrain/mpt-*.yaml,
  // benchmarking/README.md). The yamls set only d_model, n_heads, n_layers,
  // expansion_ratio 4, max_seq_len and vocab_size 50,368, so MPTConfig's
  // defaults apply: learned positions (max_seq_len x d), biases
  // (no_bias = False), tied output, no dropout, and ALiBi off. With these
  // the README's NumParams column is reproduced exactly at seq 2048 (70B:
  // 64,862,437,376); the released HF MPT checkpoints (ALiBi, no biases,
  // vocab 50,432) differ slightly.
  const char* a12 = "MosaicML llm-foundry MPT benchmark yaml (learned positions 2048, biases, tied, V 50368)";
  struct Mpt {
    const char* name;
    int64_t layers, hidden, heads;
  };
  for (const Mpt& r : {Mpt{"mpt-7b", 32, 4096, 32}, Mpt{"mpt-13b", 40, 5120, 40}, Mpt{"mpt-30b", 48, 7168, 64},
                       Mpt{"mpt-70b", 80, 8192, 64}}) {
    ModelSpec m = megatron_gpt(r.name, fmt::format("{} ({} layers, d {}, {} heads)", a12, r.layers, r.hidden, r.heads),
                               r.layers, r.hidden, r.heads, 50368, 2048, true);
    m.dropout = false;
    v.push_back(m);
  }

  // Mistral AI, "Mixtral of Experts" (arXiv 2401.04088) Table 1: 8 experts,
  // top-2, SwiGLU experts of 14,336, 8 KV heads, V 32,000.
  ModelSpec mixtral = llama_style("mixtral-8x7b", "Mixtral 8x7B, arXiv 2401.04088 Table 1 (8 experts, top-2)", 32,
                                  4096, 32, 8, 14336, 32000);
  mixtral.experts = 8;
  mixtral.top_k = 2;
  v.push_back(mixtral);

  // The released config.json of each model below (names in comments are
  // its keys). Mixtral 8x22B: Mistral AI's announcement, 141B, 39B active.
  ModelSpec mixtral22 = llama_style("mixtral-8x22b", "Mixtral 8x22B, released config (8 experts, top-2, V 32768)", 56,
                                    6144, 48, 8, 16384, 32768);
  mixtral22.experts = 8;
  mixtral22.top_k = 2;
  v.push_back(mixtral22);

  // DeepSeek-V3 (arXiv 2412.19437 Section 4.2; config.json): 61 layers,
  // the first 3 dense (intermediate_size 18432), then 256 routed experts
  // of 2048 (top-8) and one shared; MLA with q_lora_rank 1536,
  // kv_lora_rank 512, Q/K heads 128 + 64 rotary, V heads 128; trained with
  // one multi-token-prediction module (depth 1). 671B and 37B active
  // without it, as the paper counts.
  ModelSpec dsv3 = llama_style("deepseek-v3", "DeepSeek-V3, arXiv 2412.19437 and its config.json (MLA, 3 dense + 58 "
                                              "MoE layers, 256 experts top-8 + 1 shared, 1 MTP module)",
                               61, 7168, 128, 128, 2048, 129280);
  dsv3.experts = 256;
  dsv3.top_k = 8;
  dsv3.shared_experts = 1;
  // Node-limited routing: a token reaches at most 4 of 8 groups (arXiv
  // 2412.19437 Sections 2.1.2 and 3.2.2; config.json n_group, topk_group).
  dsv3.expert_groups = 8;
  dsv3.group_top_k = 4;
  dsv3.dense_layers = 3;
  dsv3.dense_ffn_hidden = 18432;
  dsv3.q_lora_rank = 1536;
  dsv3.kv_lora_rank = 512;
  dsv3.qk_nope_head_dim = 128;
  dsv3.qk_rope_head_dim = 64;
  dsv3.v_head_dim = 128;
  dsv3.mtp_layers = 1;
  v.push_back(dsv3);

  // Moonshot Kimi K2 (the released config.json, DeepSeek-V3's layout):
  // 61 layers, the first dense (18,432), then 384 routed experts of 2,048
  // (top-8, no group-limited routing: n_group 1) and one shared; MLA with
  // 64 heads (the ranks and head widths of DeepSeek-V3); vocabulary
  // 163,840, untied; no multi-token prediction. 1T and 32B active
  // published.
  ModelSpec kimi = dsv3;
  kimi.name = "kimi-k2";
  kimi.description = "Kimi K2, released config (MLA with 64 heads, 1 dense + 60 MoE layers, 384 experts top-8 + 1 "
                     "shared, V 163840)";
  kimi.heads = 64;
  kimi.kv_heads = 64;
  kimi.vocab = 163840;
  kimi.experts = 384;
  kimi.expert_groups = 0;
  kimi.group_top_k = 0;
  kimi.dense_layers = 1;
  kimi.mtp_layers = 0;
  v.push_back(kimi);

  // Qwen3 MoE (model cards: 30.5B / 3.3B active, 235B / 22B active):
  // every layer MoE (decoder_sparse_step 1, no mlp_only_layers), 128
  // experts of moe_intermediate_size, top-8, no shared expert, heads of 128.
  struct Qwen {
    const char* name;
    int64_t layers, hidden, heads, kv_heads, expert_ffn;
  };
  for (const Qwen& r : {Qwen{"qwen3-30b-a3b", 48, 2048, 32, 4, 768}, Qwen{"qwen3-235b-a22b", 94, 4096, 64, 4, 1536}}) {
    ModelSpec q = llama_style(r.name, fmt::format("Qwen3 MoE, released config ({} layers, h {}, 128 experts of {}, top-8)",
                                                  r.layers, r.hidden, r.expert_ffn),
                              r.layers, r.hidden, r.heads, r.kv_heads, r.expert_ffn, 151936);
    q.head_dim_override = 128;
    q.experts = 128;
    q.top_k = 8;
    v.push_back(q);
  }

  // Llama 4 text models (config.json text_config; 17B active each): 48
  // layers, h 5120, 40 heads, 8 KV heads, experts of 8192 (intermediate_size)
  // and one shared expert of the same size in each MoE layer, top-1; Scout
  // 16 experts in every layer, Maverick 128 in every second layer
  // (interleave_moe_layer_step 2), the others a dense MLP of 16384
  // (intermediate_size_mlp). Published totals (109B, ~400B) include the
  // vision encoder, which is not modelled.
  struct Llama4 {
    const char* name;
    int64_t experts, step;
  };
  for (const Llama4& r : {Llama4{"llama4-scout", 16, 1}, Llama4{"llama4-maverick", 128, 2}}) {
    ModelSpec l4 = llama_style(r.name, fmt::format("Llama 4 text model, released config ({} experts top-1 + 1 shared, "
                                                   "in {} layer)",
                                                   r.experts, r.step == 1 ? "every" : "every second"),
                               48, 5120, 40, 8, 8192, 202048);
    l4.experts = r.experts;
    l4.top_k = 1;
    l4.shared_experts = 1;
    l4.moe_layer_step = r.step;
    l4.dense_ffn_hidden = 16384;
    v.push_back(l4);
  }

  // NVIDIA Nemotron-4 (arXiv 2402.16819, 2406.11704; NeMo's
  // Nemotron4Config15B / Nemotron4Config340B): squared-ReLU MLP of 4h (two
  // matrices, not gated), 8 KV heads, rotary positions, untied output
  // layer, vocabulary 256,000, no dropout. Its norms are LayerNorm with a
  // bias and its linear layers have none; anatomy's `layernorm` also
  // counts linear biases, under 0.01% of the parameters (15.6B and 341.0B
  // here, "15B" and "340B" published).
  struct Nemotron4 {
    const char* name;
    int64_t layers, hidden, heads;
  };
  for (const Nemotron4& r : {Nemotron4{"nemotron4-15b", 32, 6144, 48}, Nemotron4{"nemotron4-340b", 96, 18432, 96}}) {
    ModelSpec n = megatron_gpt(r.name, fmt::format("Nemotron-4, NeMo config ({} layers, h {}, {} heads, 8 KV heads, "
                                                   "squared-ReLU MLP of 4h, V 256000)",
                                                   r.layers, r.hidden, r.heads),
                               r.layers, r.hidden, r.heads, 256000, 0, false);
    n.kv_heads = 8;
    n.dropout = false;
    v.push_back(n);
  }

  // xAI Grok-1 (the released run.py's TransformerConfig): 64 layers, h
  // 6144, 48 heads of 128 with 8 KV heads, 8 experts top-2 of
  // ffn_size(6144, widening 8) = 32768 with a gated GELU (three matrices),
  // RMSNorm, vocabulary 131,072, input and output sharing one embedding
  // (InOutEmbed). 314B published.
  ModelSpec grok = llama_style("grok-1", "Grok-1, released config (64 layers, h 6144, 8 experts of 32768 top-2, tied)",
                               64, 6144, 48, 8, 32768, 131072);
  grok.experts = 8;
  grok.top_k = 2;
  grok.tied_embeddings = true;
  v.push_back(grok);

  // NVIDIA Nemotron-H (arXiv 2504.03624 and the released config.json of
  // the 8B, 47B and 56B models): hybrid
  // layers of Mamba-2 ('M'), attention ('*', heads of 128 with 8 KV heads)
  // and squared-ReLU MLPs ('-'), RMSNorm, no biases, no position
  // embedding, untied output layer, vocabulary 131,072, no dropout; Mamba-2
  // heads of 64, 8 groups, conv of 4 taps, chunks of 128.
  struct NemotronH {
    const char* name;
    const char* pattern;
    int64_t hidden, heads, ffn, mamba_heads, state;
  };
  for (const NemotronH& r :
       {NemotronH{"nemotronh-8b", "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-", 4096, 32, 21504, 128, 128},
        NemotronH{"nemotronh-47b",
                  "M-M-M-M-M-M-M-M-M*-M-M-M-M-M-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-M-M---MM---M-M*-M-M-M-M-M-",
                  8192, 64, 30720, 256, 256},
        NemotronH{"nemotronh-56b",
                  "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-"
                  "M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-",
                  8192, 64, 32768, 256, 256}}) {
    const std::string pattern = r.pattern;
    const auto count = [&](char c) { return std::count(pattern.begin(), pattern.end(), c); };
    ModelSpec n = llama_style(r.name,
                              fmt::format("Nemotron-H, released config ({} layers: {} Mamba-2, {} attention, {} MLP; "
                                          "h {}, squared-ReLU MLP of {}, V 131072)",
                                          pattern.size(), count('M'), count('*'), count('-'), r.hidden, r.ffn),
                              static_cast<int64_t>(pattern.size()), r.hidden, r.heads, 8, r.ffn, 131072);
    n.gated_mlp = false;
    n.hybrid_pattern = pattern;
    n.mamba_heads = r.mamba_heads;
    n.mamba_head_dim = 64;
    n.mamba_state = r.state;
    n.mamba_groups = 8;
    n.mamba_conv = 4;
    n.mamba_chunk = 128;
    v.push_back(n);
  }

  // NVIDIA Nemotron 3 Nano 30B-A3B (the released config.json): 52 hybrid
  // blocks, 23 Mamba-2, 23 mixtures of experts ('E': 128 squared-ReLU
  // experts of 1,856, top-6, and a shared expert of 3,712, here two of
  // 1,856, the same weights and FLOPs) and 6 attention (32 heads of 128,
  // 2 KV heads); h 2,688, Mamba-2 64 heads of 64, 8 groups, state 128;
  // vocabulary 131,072, untied. 31.6B published, 3.2B active without the
  // tables.
  ModelSpec nano = llama_style("nemotron3-nano",
                               "Nemotron 3 Nano, released config (52 layers: 23 Mamba-2, 23 MoE of 128 experts top-6 "
                               "+ shared, 6 attention; h 2688, V 131072)",
                               52, 2688, 32, 2, 1856, 131072);
  nano.gated_mlp = false;
  nano.head_dim_override = 128;
  nano.experts = 128;
  nano.top_k = 6;
  nano.shared_experts = 2;
  nano.hybrid_pattern = "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME";
  nano.mamba_heads = 64;
  nano.mamba_head_dim = 64;
  nano.mamba_state = 128;
  nano.mamba_groups = 8;
  v.push_back(nano);

  // GPT-OSS (config.json): h 2880, 64 heads of 64 with 8 KV heads, experts
  // of 2880 top-4, vocabulary 201,088, untied; even layers attend through a
  // 128-token sliding window, odd layers to everything. Left out: the
  // biases on its linear layers and router and its per-head attention
  // sinks, 1,114,112 parameters a layer (116.83B and 20.91B published).
  struct GptOss {
    const char* name;
    int64_t layers, experts;
  };
  for (const GptOss& r : {GptOss{"gpt-oss-120b", 36, 128}, GptOss{"gpt-oss-20b", 24, 32}}) {
    ModelSpec g = llama_style(r.name, fmt::format("GPT-OSS, released config ({} layers, {} experts of 2880 top-4, "
                                                  "128-token sliding window on even layers; biases and sinks left out)",
                                                  r.layers, r.experts),
                              r.layers, 2880, 64, 8, 2880, 201088);
    g.head_dim_override = 64;
    g.experts = r.experts;
    g.top_k = 4;
    g.sliding_window = 128;
    g.full_attention_step = 2;
    v.push_back(g);
  }
  return v;
}

}  // namespace

const std::vector<ModelSpec>& model_presets() {
  static const std::vector<ModelSpec> presets = make_presets();
  return presets;
}

const ModelSpec& find_model(std::string_view name) {
  for (const ModelSpec& m : model_presets())
    if (m.name == name) return m;
  std::string known;
  for (const ModelSpec& m : model_presets()) known += (known.empty() ? "" : ", ") + m.name;
  throw core::InputError({"", 0, "model"}, fmt::format("unknown model '{}' (known: {})", name, known));
}

}  // namespace anatomy::workload
