#include "workload/flops.h"

namespace anatomy::workload {
namespace {

// Forward FLOPs of one token, split the way recomputation re-runs them.
struct ForwardPerToken {
  double dense_layer, moe_layer;  // one layer's weight GEMMs, by kind
  double layer_gemms;             // all layers' weight GEMMs
  double attention_core;          // all layers' Q K^T and A V
  double logits;                  // the output layer
  double qk_core;                 // all layers' Q K^T
  double full_core, sliding_core;  // one full or sliding-window layer's attention core
  // The multi-token-prediction modules: projections and layers' GEMMs,
  // attention cores, output layers.
  double mtp_layers, mtp_core, mtp_logits;
};

ForwardPerToken forward_per_token(const ModelSpec& m, int64_t seq_len) {
  const double h = static_cast<double>(m.hidden);
  const double q = static_cast<double>(m.q_width()), o = static_cast<double>(m.out_width());
  const double attention_macs = static_cast<double>(m.attention_weights());
  const double mlp = (m.gated_mlp ? 3 : 2) * h;  // MACs per unit of inner size
  ForwardPerToken f;
  f.dense_layer = 2 * (attention_macs + mlp * static_cast<double>(m.dense_ffn()));
  f.moe_layer = f.dense_layer;
  if (m.moe())
    f.moe_layer = 2 * (attention_macs + mlp * static_cast<double>(m.ffn_hidden * (m.top_k + m.shared_experts)) +
                       h * static_cast<double>(m.experts));  // and the router
  const double moe_layers = static_cast<double>(m.moe_layers());
  f.layer_gemms = (static_cast<double>(m.layers) - moe_layers) * f.dense_layer + moe_layers * f.moe_layer;
  // Per sequence Q K^T is 2 s^2 q and A V 2 s^2 o (heads of s x hd by
  // hd x s, and s x s by s x v_hd; q = o = h unless the model sets
  // head_dim or uses MLA): 2 s (q + o) per token.
  // A sliding-window layer counts, in the same sense, twice the keys a
  // query sees on average, (w (w + 1) / 2 + (s - w) w) / s, instead of s.
  const double s = static_cast<double>(seq_len);
  const double sliding = static_cast<double>(m.sliding_layers_in(0, m.layers));
  const double window_keys = attended_keys(seq_len, m.sliding_window);
  const double keys = (static_cast<double>(m.layers) - sliding) * s + sliding * window_keys;  // over the layers
  f.attention_core = 2 * keys * (q + o);
  f.qk_core = 2 * keys * q;
  f.full_core = 2 * s * (q + o);
  f.sliding_core = 2 * window_keys * (q + o);
  f.logits = 2 * h * static_cast<double>(m.vocab);
  // Each MTP module: its 2h -> h projection, its layer and attention core,
  // and the output layer again.
  const double modules = static_cast<double>(m.mtp_layers);
  f.mtp_layers = modules * (2 * 2 * h * h + (m.mtp_moe() ? f.moe_layer : f.dense_layer));
  f.mtp_core = modules * 2 * static_cast<double>(seq_len) * (q + o);
  f.mtp_logits = modules * f.logits;
  return f;
}

// Forward, backward (2x) over the iteration's tokens, the attention core
// counted at `attention_share` of its full square.
double model_flops_counting(const ModelSpec& m, const TrainingSpec& t, double attention_share) {
  const ForwardPerToken f = forward_per_token(m, t.seq_len);
  return 3 * (f.layer_gemms + f.mtp_layers + attention_share * (f.attention_core + f.mtp_core) + f.logits +
              f.mtp_logits) *
         static_cast<double>(t.tokens_per_iteration());
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
      if (mods & kRecomputeMlp) extra += (layers - moe_layers) * 2 * mlp * static_cast<double>(m.dense_ffn());
      if (mods & kRecomputeMoe)
        extra += moe_layers * (f.moe_layer - 2 * static_cast<double>(m.attention_weights()));
      else if (mods & kRecomputeSharedExperts)
        extra += moe_layers * 2 * mlp * static_cast<double>(m.ffn_hidden * m.shared_experts);
      break;
    }
    case Recompute::kFull: {
      // The first recomputed_layers of every chunk, each of its own kind.
      for (int s = 0; s < p.pp; ++s)
        for (int c = 0; c < p.virtual_stages; ++c) {
          const LayerRange range = chunk_range(m, p, s, c);
          const int64_t r = recomputed_layers(t, range.count), k = m.moe_layers_in(range.first, r);
          const int64_t sliding = m.sliding_layers_in(range.first, r);
          extra += static_cast<double>(r - k) * f.dense_layer + static_cast<double>(k) * f.moe_layer +
                   static_cast<double>(r - sliding) * f.full_core + static_cast<double>(sliding) * f.sliding_core;
        }
      break;
    }
  }
  if (t.flash_attention) extra += f.qk_core;  // Q K^T once more in backward
  return model_flops(m, t) + extra * static_cast<double>(t.tokens_per_iteration());
}

}  // namespace anatomy::workload
