#include "workload/flops.h"

#include "workload/params.h"

namespace anatomy::workload {
namespace {

// Forward FLOPs of one token, split the way recomputation re-runs them.
struct ForwardPerToken {
  PerLayerKind<double> layer;  // one layer's weight GEMMs (Mamba-2: and its SSD), by kind
  double layer_gemms;             // all layers' weight GEMMs
  double attention_core;          // all layers' Q K^T and A V
  double logits;                  // the output layer
  double qk_core;                 // all layers' Q K^T
  double full_core, sliding_core;  // one full or sliding-window layer's attention core
  // The multi-token-prediction modules: projections and layers' GEMMs,
  // attention cores, output layers.
  double mtp_layers, mtp_core, mtp_logits;
};

// Layers of each kind in `c`, times one layer's forward of that kind.
double layer_sum(const LayerCounts& c, const ForwardPerToken& f) {
  double total = 0;
  for (LayerKind k : kAllLayerKinds) total += static_cast<double>(c[k]) * f.layer[k];
  return total;
}

// A Mamba-2 block's forward per token: in_proj and out_proj, and the SSD's
// chunked matrix products (Dao & Gu 2024, Section 6) over chunks of Q
// tokens, per token: C B^T within the chunk, 2 Q N per group; those scores
// times x, 2 Q P per head; each chunk's state B^T x, 2 N P per head; and
// the state read out through C, 2 N P per head. Left out as elsewhere: the
// depthwise conv, the gated norm and the scan between chunks' states
// (2 H P N / Q per token), elementwise work under 1% of the block.
double mamba_forward_per_token(const ModelSpec& m) {
  const double h = static_cast<double>(m.hidden), d = static_cast<double>(m.mamba_inner());
  const double Q = static_cast<double>(m.mamba_chunk), N = static_cast<double>(m.mamba_state);
  const double P = static_cast<double>(m.mamba_head_dim), H = static_cast<double>(m.mamba_heads);
  const double G = static_cast<double>(m.mamba_groups);
  const double projections = 2 * h * static_cast<double>(m.mamba_in_proj_width()) + 2 * d * h;
  return projections + 2 * Q * N * G + 2 * Q * P * H + 4 * N * P * H;
}

ForwardPerToken forward_per_token(const ModelSpec& m, int64_t seq_len) {
  const double h = static_cast<double>(m.hidden);
  const double q = static_cast<double>(m.q_width()), o = static_cast<double>(m.out_width());
  const double attention_macs = static_cast<double>(m.attention_weights());
  const double mlp = (m.gated_mlp ? 3 : 2) * h;  // MACs per unit of inner size
  ForwardPerToken f;
  f.layer[LayerKind::kDense] = 2 * (attention_macs + mlp * static_cast<double>(m.dense_ffn()));
  f.layer[LayerKind::kMoe] = f.layer[LayerKind::kDense];
  if (m.moe())
    f.layer[LayerKind::kMoe] =
        2 * (attention_macs + mlp * static_cast<double>(m.ffn_hidden * (m.top_k + m.shared_experts)) +
             h * static_cast<double>(m.experts));  // and the router
  f.layer[LayerKind::kAttention] = 2 * attention_macs;
  f.layer[LayerKind::kMlp] = 2 * mlp * static_cast<double>(m.dense_ffn());
  f.layer[LayerKind::kMamba] = mamba_forward_per_token(m);
  f.layer[LayerKind::kMoeMlp] = f.layer[LayerKind::kMoe] - 2 * attention_macs;
  f.layer_gemms = layer_sum(m.layer_counts(0, m.layers), f);
  // Per sequence Q K^T is 2 s^2 q and A V 2 s^2 o (heads of s x hd by
  // hd x s, and s x s by s x v_hd; q = o = h unless the model sets
  // head_dim or uses MLA): 2 s (q + o) per token.
  // A sliding-window layer counts, in the same sense, twice the keys a
  // query sees on average, (w (w + 1) / 2 + (s - w) w) / s, instead of s.
  const double s = static_cast<double>(seq_len);
  const double sliding = static_cast<double>(m.sliding_layers_in(0, m.layers));
  const double window_keys = attended_keys(seq_len, m.sliding_window);
  const double attending = static_cast<double>(m.layer_counts(0, m.layers).attention());
  const double keys = (attending - sliding) * s + sliding * window_keys;  // over the layers
  f.attention_core = 2 * keys * (q + o);
  f.qk_core = 2 * keys * q;
  f.full_core = 2 * s * (q + o);
  f.sliding_core = 2 * window_keys * (q + o);
  f.logits = 2 * h * static_cast<double>(m.vocab);
  // Each MTP module: its 2h -> h projection, its layer and attention core,
  // and the output layer again.
  const double modules = static_cast<double>(m.mtp_layers);
  f.mtp_layers = modules * (2 * 2 * h * h + f.layer[m.mtp_moe() ? LayerKind::kMoe : LayerKind::kDense]);
  f.mtp_core = modules * 2 * static_cast<double>(seq_len) * (q + o);
  f.mtp_logits = modules * f.logits;
  return f;
}

// Forward, backward (2x) over the iteration's tokens, the attention core
// counted at `attention_share` of its full square.
// Under LoRA the frozen GEMMs' backward is the input gradient alone (2x
// forward in all, not 3x); attention's core is unchanged, and the adapters
// add their own three passes.
double model_flops_counting(const ModelSpec& m, const TrainingSpec& t, double attention_share) {
  const ForwardPerToken f = forward_per_token(m, t.seq_len);
  const double tokens = static_cast<double>(t.tokens_per_iteration());
  const double weights = f.layer_gemms + f.mtp_layers + f.logits + f.mtp_logits;
  const double core = attention_share * (f.attention_core + f.mtp_core);
  if (t.lora_rank <= 0) return 3 * (weights + core) * tokens;
  // An adapter's forward is 2 FLOPs a parameter a token (params.h, on one rank).
  const double adapters = 2 * static_cast<double>(lora_params(m, t.lora_rank));
  return (2 * weights + 3 * core + 3 * adapters) * tokens;
}

}  // namespace

double attended_keys(int64_t seq, int64_t window) {
  const double s = static_cast<double>(seq), w = static_cast<double>(window);
  return window > 0 && window < seq ? (2 * s * w - w * w + w) / s : s;
}

double megatron_flops(const ModelSpec& m, int64_t global_batch, int64_t seq_len) {
  // Megatron-LM's count (training.py, num_floating_point_operations) has no
  // term for a sliding window: every layer's attention at full width.
  ModelSpec unwindowed = m;
  unwindowed.sliding_window = 0;
  unwindowed.full_attention_step = 0;
  const ForwardPerToken f = forward_per_token(unwindowed, seq_len);
  const double tokens = static_cast<double>(global_batch) * static_cast<double>(seq_len);
  return (4 * (f.layer_gemms + f.mtp_layers + f.attention_core + f.mtp_core) + 3 * (f.logits + f.mtp_logits)) * tokens;
}

double model_flops(const ModelSpec& m, const TrainingSpec& t) { return model_flops_counting(m, t, 1.0); }

double model_flops_causal(const ModelSpec& m, const TrainingSpec& t) { return model_flops_counting(m, t, 0.5); }

double hardware_flops(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t) {
  const ForwardPerToken f = forward_per_token(m, t.seq_len);
  double extra = 0;  // per token
  switch (t.recompute) {
    case Recompute::kNone: break;
    case Recompute::kSelective: {
      // The replayed modules' GEMMs (selective_modules; norms and
      // activation functions have none).
      const uint32_t mods = selective_modules(t);
      const double h = static_cast<double>(m.hidden), mlp = (m.gated_mlp ? 3 : 2) * h;
      const double moe_layers = static_cast<double>(m.moe_layers()), layers = static_cast<double>(m.layers);
      if (mods & kRecomputeCoreAttn) extra += f.attention_core;
      if ((mods & kRecomputeMlaUpProj) && m.mla()) {
        const double q_in = static_cast<double>(m.q_lora_rank > 0 ? m.q_lora_rank : m.hidden);
        const double kv_up = static_cast<double>(m.heads * (m.qk_nope_head_dim + m.v_head_dim));
        extra += layers * 2 * (q_in * static_cast<double>(m.q_width()) + static_cast<double>(m.kv_lora_rank) * kv_up);
      }
      const double dense_mlps = static_cast<double>(m.layer_counts(0, m.layers).dense_mlp());
      if (mods & kRecomputeMlp) extra += dense_mlps * 2 * mlp * static_cast<double>(m.dense_ffn());
      if (mods & kRecomputeMoe)
        extra += moe_layers * f.layer[LayerKind::kMoeMlp];  // a MoE layer's MLP: router and experts
      else if (mods & kRecomputeSharedExperts)
        extra += moe_layers * 2 * mlp * static_cast<double>(m.ffn_hidden * m.shared_experts);
      break;
    }
    case Recompute::kFull: {
      // The first recomputed_layers of every chunk, each of its own kind.
      for (int s = 0; s < p.pp; ++s)
        for (int c = 0; c < p.virtual_stages; ++c) {
          const LayerRange range = chunk_range(m, p, s, c);
          const int64_t r = recomputed_layers(t, range.count);
          const LayerCounts kinds = m.layer_counts(range.first, r);
          const int64_t sliding = m.sliding_layers_in(range.first, r);
          extra += layer_sum(kinds, f);
          if (!t.recompute_keeps_attention)
            extra += static_cast<double>(kinds.attention() - sliding) * f.full_core +
                     static_cast<double>(sliding) * f.sliding_core;
        }
      break;
    }
  }
  if (t.flash_attention) extra += f.qk_core;  // Q K^T once more in backward
  return model_flops(m, t) + extra * static_cast<double>(t.tokens_per_iteration());
}

}  // namespace anatomy::workload
