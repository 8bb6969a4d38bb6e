#pragma once
// ModelSpec: a decoder-only transformer's dimensions, and the presets
// anatomy ships (GPT-3 175B, the Megatron-LM paper and README table models,
// Llama 3 8B/70B/405B with grouped-query attention, MPT models, and the
// Mixtral-8x7B mixture of experts).
//
// Parameter count (exact for the shapes below; kv = kv_heads, hd = head_dim):
//   per layer: attention  h*(h + 2*kv*hd) [Q, K, V] + h*h [out]
//              MLP        (gated ? 3 : 2) * h * ffn * experts, + h*experts router (MoE only)
//              norms      2 x (h weight, + h bias for LayerNorm)
//              biases     GPT-style models (`layernorm`) also have a bias on
//                         every linear layer: (h + 2*kv*hd) + h in attention,
//                         ((gated ? 2 : 1) * ffn + h) per expert in the MLP
//   embeddings V*h (+ V*h again when the output layer is not tied), + s*h when
//   learned positions are used; one final norm before the output layer.
// For Megatron's GPT (LayerNorm, 4h MLP, tied, learned positions) this is
// Narayanan et al. SC'21 eq. 2, 12 l h^2 + 13 l h + (V + s) h, plus the 2h
// of the final LayerNorm that eq. 2 leaves out.
//
//   const ModelSpec& m = find_model("llama3-70b");
//   m.params();  // 70.55e9

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace anatomy::workload {

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
  // Width of one attention head when it is not hidden / heads (Qwen3,
  // Gemma, GPT-OSS: Q and the attention output are heads x head_dim wide,
  // the residual stream `hidden`). 0: hidden / heads.
  int64_t head_dim_override = 0;

  int64_t head_dim() const { return head_dim_override > 0 ? head_dim_override : hidden / heads; }
  int64_t q_width() const { return heads * head_dim(); }  // Q and attention-output width
  int64_t params() const;           // all parameters
  int64_t active_params() const;    // parameters a token touches (MoE: top_k experts)
  int64_t params_per_layer() const;
  int64_t embedding_params() const;
  // The MoE experts' share of params_per_layer() (what EP shards); 0 for a
  // dense model, whose MLP is not sharded over EP.
  int64_t expert_params_per_layer() const;
  int64_t norm_params() const;  // one norm: h, or 2h for LayerNorm with bias
};

const std::vector<ModelSpec>& model_presets();
// Throws InputError (field "model") listing the known names.
const ModelSpec& find_model(std::string_view name);

}  // namespace anatomy::workload
