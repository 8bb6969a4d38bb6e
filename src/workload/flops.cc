#include "workload/flops.h"

namespace anatomy::workload {
namespace {

// Forward FLOPs of one token, split the way recomputation re-runs them.
struct ForwardPerToken {
  double layer_gemms;      // all layers' weight GEMMs
  double attention_core;   // all layers' Q K^T and A V
  double logits;           // the output layer
};

ForwardPerToken forward_per_token(const ModelSpec& m, int64_t seq_len) {
  const double h = static_cast<double>(m.hidden);
  const double kv_width = static_cast<double>(m.kv_heads * m.head_dim());
  const double ffn = static_cast<double>(m.ffn_hidden);
  const double l = static_cast<double>(m.layers);
  const double q = static_cast<double>(m.q_width());
  double gemm_macs = h * (q + 2 * kv_width) + q * h + (m.gated_mlp ? 3 : 2) * h * ffn * static_cast<double>(m.top_k);
  if (m.experts > 1) gemm_macs += h * static_cast<double>(m.experts);  // router
  ForwardPerToken f;
  f.layer_gemms = l * 2 * gemm_macs;
  // Per sequence Q K^T is 2 s^2 q and A V another 2 s^2 q (a heads of
  // s x hd by hd x s, and s x s by s x hd; q = a hd, h unless the model
  // sets head_dim): 4 s q per token.
  f.attention_core = l * 4 * static_cast<double>(seq_len) * q;
  f.logits = 2 * h * static_cast<double>(m.vocab);
  return f;
}

// Forward, backward (2x) over the iteration's tokens, the attention core
// counted at `attention_share` of its full square.
double model_flops_counting(const ModelSpec& m, const TrainingSpec& t, double attention_share) {
  const ForwardPerToken f = forward_per_token(m, t.seq_len);
  return 3 * (f.layer_gemms + attention_share * f.attention_core + f.logits) *
         static_cast<double>(t.tokens_per_iteration());
}

}  // namespace

double megatron_flops(const ModelSpec& m, int64_t global_batch, int64_t seq_len) {
  const ForwardPerToken f = forward_per_token(m, seq_len);
  const double tokens = static_cast<double>(global_batch) * static_cast<double>(seq_len);
  return (4 * (f.layer_gemms + f.attention_core) + 3 * f.logits) * tokens;
}

double model_flops(const ModelSpec& m, const TrainingSpec& t) { return model_flops_counting(m, t, 1.0); }

double model_flops_causal(const ModelSpec& m, const TrainingSpec& t) { return model_flops_counting(m, t, 0.5); }

double hardware_flops(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t) {
  const ForwardPerToken f = forward_per_token(m, t.seq_len);
  double extra = 0;  // per token
  switch (t.recompute) {
    case Recompute::kNone: break;
    case Recompute::kSelective: extra += f.attention_core; break;
    case Recompute::kFull: {
      int64_t recomputed = 0;
      for (const int64_t n : layers_per_stage(m, p)) recomputed += recomputed_layers_on_stage(t, n, p.virtual_stages);
      const double share = static_cast<double>(recomputed) / static_cast<double>(m.layers);
      extra += share * (f.layer_gemms + f.attention_core);
      break;
    }
  }
  if (t.flash_attention) extra += f.attention_core / 2;  // Q K^T once more in backward
  return model_flops(m, t) + extra * static_cast<double>(t.tokens_per_iteration());
}

}  // namespace anatomy::workload
