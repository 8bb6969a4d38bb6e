#pragma once
// ModelSpec: a decoder-only transformer's dimensions, and the presets
// anatomy ships (GPT-3 175B, the Megatron-LM paper and README table models,
// Llama 3 8B/70B/405B with grouped-query attention, MPT models, Nemotron-4
// 15B/340B, and the mixtures of experts Mixtral 8x7B / 8x22B, Grok-1,
// DeepSeek-V3, Kimi K2, Qwen3 MoE, Llama 4 and GPT-OSS, whose even layers attend
// through a sliding window; and the hybrid Mamba-2/attention models
// Nemotron-H and Nemotron 3 Nano).
//
// Hybrid models (hybrid_pattern, Megatron-LM's hybrid_override_pattern):
// each layer is one block with its own pre-norm and residual, of the kind
// its character names: 'M' a Mamba-2 mixer, '*' attention, '-' a dense MLP
// (dense_ffn wide), 'E' a mixture of experts (router, experts and shared
// experts, as a MoE layer's MLP; the pattern, not dense_layers and
// moe_layer_step, places them). Without a pattern every layer is a
// transformer layer: attention, then a dense MLP or experts. A Mamba-2
// mixer (Dao & Gu 2024, arXiv 2405.21060; Megatron-LM's MambaMixer) of
// d = mamba_heads x mamba_head_dim inner channels, N = mamba_state,
// G = mamba_groups:
//   in_proj   h -> 2d + 2GN + heads  (z, x, B, C, dt), no bias
//   conv1d    depthwise over x, B, C (d + 2GN channels), mamba_conv taps
//             and a bias each
//   A, D, dt bias  one per head
//   norm      gated RMSNorm over d (its weight)
//   out_proj  d -> h, no bias
// TP splits it by heads and groups as it splits attention: in_proj by
// columns, out_proj by rows, one all-reduce (or all-gather before and
// reduce-scatter after) per block.
//
// Layers need not all be alike. In a mixture of experts, layer i (from 0)
// has experts when i >= dense_layers and (i - dense_layers) is one less
// than a multiple of moe_layer_step (DeepSeek-V3: the first 3 dense, then
// all MoE; Llama 4 Maverick: every second layer); the others have one
// dense MLP, dense_ffn_hidden wide. A MoE layer's routed experts are what
// expert parallelism shards; its shared experts (DeepSeek, Llama 4), each
// ffn_hidden wide, see every token and split over TP like a dense MLP.
//
// Parameter count (exact for the shapes below; kv = kv_heads, hd = head_dim,
// q = heads x hd, o = heads x v_head_dim, = q without MLA):
//   per layer: attention  h*(q + 2*kv*hd) [Q, K, V] + o*h [out]; with
//                         multi-head latent attention (kv_lora_rank > 0):
//                         h*ql + ql*q [Q down, up; h*q when q_lora_rank is 0]
//                         + h*(kl + rope) + kl*heads*(nope + v) [KV down, up]
//                         + o*h + ql + kl [the latents' norms]
//              MLP        (gated ? 3 : 2) * h * ffn * (experts + shared),
//                         + h*experts router (MoE layers); dense layers
//                         (gated ? 3 : 2) * h * dense_ffn
//              norms      2 x (h weight, + h bias for LayerNorm)
//   per hybrid block  its mixer's or MLP's parameters above, + one norm
//              Mamba-2    h (2d + 2GN + heads) + (d + 2GN) (taps + 1)
//                         + 3 heads + d + d h
//              biases     GPT-style models (`layernorm`) also have a bias on
//                         every linear layer: (h + 2*kv*hd) + h in attention,
//                         ((gated ? 2 : 1) * ffn + h) per expert in the MLP
//   embeddings V*h (+ V*h again when the output layer is not tied), + s*h when
//   learned positions are used; one final norm before the output layer;
//   per MTP module a layer of the last kind + 2h*h + 3 norms (mtp_params).
// For Megatron's GPT (LayerNorm, 4h MLP, tied, learned positions) this is
// Narayanan et al. SC'21 eq. 2, 12 l h^2 + 13 l h + (V + s) h, plus the 2h
// of the final LayerNorm that eq. 2 leaves out.
//
//   const ModelSpec& m = find_model("llama3-70b");
//   m.params();  // 70.55e9

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace anatomy::workload {

// What one layer is: a transformer layer with a dense MLP or with experts,
// or one block of a hybrid model.
enum class LayerKind { kDense, kMoe, kMamba, kAttention, kMlp, kMoeMlp };
inline constexpr std::array<LayerKind, 6> kAllLayerKinds = {LayerKind::kDense, LayerKind::kMoe,
                                                            LayerKind::kMamba, LayerKind::kAttention,
                                                            LayerKind::kMlp,   LayerKind::kMoeMlp};
// What a layer of a kind holds: attention (a transformer layer or an
// attention block), an MLP (a transformer layer, an MLP or a MoE block),
// routed experts (a MoE layer or block).
constexpr bool has_attention(LayerKind k) {
  return k == LayerKind::kDense || k == LayerKind::kMoe || k == LayerKind::kAttention;
}
constexpr bool has_mlp(LayerKind k) {
  return k == LayerKind::kDense || k == LayerKind::kMoe || k == LayerKind::kMlp || k == LayerKind::kMoeMlp;
}
constexpr bool has_experts(LayerKind k) { return k == LayerKind::kMoe || k == LayerKind::kMoeMlp; }
// Residual blocks in a layer of a kind: two in a transformer layer
// (attention, then its MLP), one in a hybrid block. Each has a pre-norm of
// its own but in a parallel block (ModelSpec::layer_norms).
constexpr int residual_blocks(LayerKind k) {
  return (has_attention(k) ? 1 : 0) + (has_mlp(k) ? 1 : 0) + (k == LayerKind::kMamba ? 1 : 0);
}

// One value for each layer kind.
template <typename T>
struct PerLayerKind {
  std::array<T, kAllLayerKinds.size()> v{};
  T& operator[](LayerKind k) { return v[static_cast<size_t>(k)]; }
  const T& operator[](LayerKind k) const { return v[static_cast<size_t>(k)]; }
};

// Layers of each kind in a run of layers.
struct LayerCounts : PerLayerKind<int64_t> {
  // Layers with attention: transformer layers and attention blocks.
  int64_t attention() const { return count_if(has_attention); }
  // Layers with a dense MLP: dense transformer layers and MLP blocks.
  int64_t dense_mlp() const { return count_if([](LayerKind k) { return has_mlp(k) && !has_experts(k); }); }
  // Layers with routed experts: MoE layers and MoE blocks.
  int64_t experts() const { return count_if(has_experts); }

 private:
  template <typename Pred>
  int64_t count_if(Pred holds) const {
    int64_t n = 0;
    for (LayerKind k : kAllLayerKinds)
      if (holds(k)) n += (*this)[k];
    return n;
  }
};

struct ModelSpec {
  std::string name;
  std::string description;   // one line with its source
  int64_t layers = 0;
  int64_t hidden = 0;        // h
  int64_t heads = 0;         // attention heads
  int64_t kv_heads = 0;      // = heads without GQA
  int64_t ffn_hidden = 0;    // per expert
  int64_t vocab = 0;
  int64_t max_seq = 0;       // for learned position embeddings (0 = rotary, none)
  bool gated_mlp = false;    // SwiGLU: gate, up and down projections
  bool tied_embeddings = false;
  bool layernorm = true;     // GPT-style: LayerNorm with bias and biases on the linear layers;
                             // false: RMSNorm and no biases (Llama)
  int64_t experts = 1;       // MoE experts per layer (1 = dense)
  int64_t top_k = 1;         // experts each token visits
  bool dropout = true;       // on attention scores, attention and MLP outputs (GPT);
                             // Llama, Mixtral and MPT train without
  // Attention and the MLP side by side on one norm's output, both added to
  // the residual: y = x + Attention(LN(x)) + MLP(LN(x)) (GPT-J, GPT-NeoX's
  // gpt_j_residual, PaLM, Falcon; MegaScale's parallel transformer block).
  // One norm a layer, and under tensor parallelism one gather of its
  // output for both branches' first GEMMs and one reduce-scatter of their
  // summed outputs (one all-reduce without sequence parallelism), in each
  // direction. Dense attention layers only (validate_model).
  bool parallel_block = false;
  // Width of one attention head when it is not hidden / heads (Qwen3,
  // Gemma, GPT-OSS: Q and the attention output are heads x head_dim wide,
  // the residual stream `hidden`). 0: hidden / heads.
  int64_t head_dim_override = 0;

  // Mixture-of-experts layout (see the top of this file).
  int64_t dense_layers = 0;      // the first layers have a dense MLP (first_k_dense_replace)
  int64_t moe_layer_step = 1;    // then every step-th layer has experts (interleave_moe_layer_step)
  int64_t dense_ffn_hidden = 0;  // the dense layers' MLP inner size; 0: ffn_hidden
  int64_t shared_experts = 0;    // per MoE layer, ffn_hidden wide, visited by every token
  // Group-limited routing (DeepSeek-V3: config.json n_group 8, topk_group
  // 4; Megatron-LM --moe-router-num-groups, --moe-router-group-topk): the
  // experts in expert_groups equal groups, consecutive, and a token's
  // top_k experts chosen from the group_top_k groups it scores highest.
  // 0: no groups. Only where a token's experts live depends on it (the
  // flex dispatcher's traffic, workload/moe_routing.h).
  int64_t expert_groups = 0;
  int64_t group_top_k = 0;
  // Multi-head latent attention (DeepSeek-V2/V3) when kv_lora_rank > 0: K
  // and V are projected up from a kv_lora_rank latent (plus a shared
  // rotary key of qk_rope_head_dim), Q from a q_lora_rank one (0: from h
  // directly); a Q/K head is qk_nope_head_dim + qk_rope_head_dim wide, a V
  // head v_head_dim. Names as in the models' config.json.
  int64_t kv_lora_rank = 0;
  int64_t q_lora_rank = 0;
  int64_t qk_nope_head_dim = 0;
  int64_t qk_rope_head_dim = 0;
  int64_t v_head_dim = 0;
  // Multi-token prediction (DeepSeek-V3: 1, num_nextn_predict_layers): each
  // module predicts one token further from the last layer's output and the
  // next token's embedding — two norms, a 2h x h projection, one layer of
  // the model's last kind and a final norm — sharing the input embedding
  // and the output layer with the model, after its last layer.
  int64_t mtp_layers = 0;
  // Sliding-window attention (Mistral, Gemma, GPT-OSS): a layer's queries
  // see themselves and the sliding_window - 1 tokens before them, not the
  // whole sequence; every full_attention_step-th layer (i + 1 a multiple of
  // it: GPT-OSS 2, the odd layers; Gemma 3 6) attends to all of it, and 0
  // makes every layer slide. sliding_window 0: no window anywhere.
  int64_t sliding_window = 0;
  int64_t full_attention_step = 0;
  // Hybrid models (see the top of this file); empty: a transformer.
  std::string hybrid_pattern;
  int64_t mamba_heads = 0;      // mamba_num_heads
  int64_t mamba_head_dim = 64;  // P
  int64_t mamba_state = 128;    // N, ssm_state_size
  int64_t mamba_groups = 8;     // G, n_groups (B and C shared by heads / G heads)
  int64_t mamba_conv = 4;       // conv1d taps
  int64_t mamba_chunk = 128;    // the SSD kernels' chunk of tokens

  bool hybrid() const { return !hybrid_pattern.empty(); }
  // A layer of kind k runs attention and its MLP as one parallel block.
  bool parallel_layer(LayerKind k) const { return parallel_block && k == LayerKind::kDense; }
  // Pre-norms in a layer of kind k: one a residual block, one for both
  // branches of a parallel block.
  int layer_norms(LayerKind k) const { return parallel_layer(k) ? 1 : residual_blocks(k); }
  LayerKind layer_kind(int64_t i) const;
  // Kinds of layers first .. first + count - 1.
  LayerCounts layer_counts(int64_t first, int64_t count) const;
  // One layer of a kind: its parameters (a MoE layer's routed experts included).
  int64_t layer_params(LayerKind k) const;
  int64_t mamba_inner() const { return mamba_heads * mamba_head_dim; }  // d
  int64_t mamba_conv_channels() const { return mamba_inner() + 2 * mamba_groups * mamba_state; }
  int64_t mamba_in_proj_width() const { return mamba_inner() + mamba_conv_channels() + mamba_heads; }
  int64_t mamba_layer_params() const;

  bool mla() const { return kv_lora_rank > 0; }
  // Sliding-window layers among layers first .. first + count - 1.
  int64_t sliding_layers_in(int64_t first, int64_t count) const;
  // Width of one Q (and K) head.
  int64_t head_dim() const {
    if (mla()) return qk_nope_head_dim + qk_rope_head_dim;
    return head_dim_override > 0 ? head_dim_override : hidden / heads;
  }
  int64_t value_head_dim() const { return mla() ? v_head_dim : head_dim(); }
  int64_t q_width() const { return heads * head_dim(); }        // Q's width (and K's under MLA)
  int64_t out_width() const { return heads * value_head_dim(); }  // attention output, input of its projection
  // K's and V's widths after projection: kv_heads heads (GQA), or every head under MLA.
  int64_t k_width() const { return mla() ? q_width() : kv_heads * head_dim(); }
  int64_t v_width() const { return mla() ? out_width() : kv_heads * head_dim(); }
  // MLA's down projections' output: the Q and KV latents and the rotary key.
  int64_t latent_width() const { return mla() ? q_lora_rank + kv_lora_rank + qk_rope_head_dim : 0; }

  bool moe() const { return experts > 1; }
  bool moe_layer(int64_t i) const {
    if (hybrid()) return has_experts(layer_kind(i));
    return moe() && i >= dense_layers && (i - dense_layers) % moe_layer_step == moe_layer_step - 1;
  }
  // MoE layers among layers first .. first + count - 1.
  int64_t moe_layers_in(int64_t first, int64_t count) const;
  int64_t moe_layers() const { return moe_layers_in(0, layers); }
  int64_t dense_ffn() const { return moe() && dense_ffn_hidden > 0 ? dense_ffn_hidden : ffn_hidden; }

  int64_t params() const;           // all parameters
  int64_t active_params() const;    // parameters a token touches (MoE: top_k experts)
  int64_t embedding_params() const;
  int64_t norm_params() const;  // one norm: h, or 2h for LayerNorm with bias
  // A layer's attention GEMM weights (one MAC each per token), without
  // biases or norms.
  int64_t attention_weights() const;
  // One layer, by kind: attention, its MLP, norms.
  int64_t attention_params() const;
  int64_t dense_layer_params() const;
  int64_t moe_layer_params() const;
  // The multi-token-prediction modules' own parameters; their layer's kind.
  int64_t mtp_params() const;
  bool mtp_moe() const { return moe_layer(layers - 1); }
  // A MoE layer's routed experts (what EP shards); 0 for a dense model.
  int64_t expert_params_per_layer() const;
  // Of a layer's parameters, those every TP rank holds whole: MLA's down
  // projections and latent norms (Megatron-LM keeps them duplicated).
  int64_t tp_replicated_params_per_layer() const;
};

const std::vector<ModelSpec>& model_presets();
// Throws InputError (field "model") listing the known names.
const ModelSpec& find_model(std::string_view name);

}  // namespace anatomy::workload
