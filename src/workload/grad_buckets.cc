#include "workload/grad_buckets.h"

#include <algorithm>

#include "core/error.h"
#include "workload/params.h"

namespace anatomy::workload {
namespace {

// One layer's tensors at full size, in backward order.
// The routed experts are not among them (backward_tensors adds them).
std::vector<GradTensor> layer_tensors(const ModelSpec& m, LayerKind k) {
  const int64_t h = m.hidden, norm = m.norm_params();
  std::vector<GradTensor> out;
  // An MLP of inner size ffn, `copies` of it: down projection (h bias
  // when the model has biases), then up (and gate) projection.
  auto mlp = [&](int64_t ffn, int64_t copies) {
    if (copies == 0) return;
    const int64_t up = m.gated_mlp ? 2 : 1;
    out.push_back({copies * (h * ffn + (m.layernorm ? h : 0)), true});
    out.push_back({copies * (up * h * ffn + (m.layernorm ? up * ffn : 0)), true});
  };
  auto attention = [&] {
    const int64_t proj = m.out_width() * h + (m.layernorm ? h : 0);
    out.push_back({proj, true});
    out.push_back({m.attention_params() - proj, true});  // QKV (MLA: its down and up projections)
    out.push_back({norm, false});
  };
  auto moe_mlp = [&] {
    mlp(m.ffn_hidden, m.shared_experts);
    out.push_back({h * m.experts, false});  // the router
    out.push_back({norm, false});
  };
  switch (k) {
    case LayerKind::kDense:
      mlp(m.dense_ffn(), 1);
      out.push_back({norm, false});
      attention();
      break;
    case LayerKind::kMoe:
      moe_mlp();
      attention();
      break;
    case LayerKind::kMlp:
      mlp(m.dense_ffn(), 1);
      out.push_back({norm, false});
      break;
    case LayerKind::kMoeMlp: moe_mlp(); break;
    case LayerKind::kAttention: attention(); break;
    case LayerKind::kMamba: {
      const int64_t out_proj = m.mamba_inner() * h;
      out.push_back({out_proj, true});
      out.push_back({m.mamba_layer_params() - out_proj, true});  // in projection, conv, A, D, dt
      out.push_back({norm, false});
      break;
    }
  }
  return out;
}

}  // namespace

std::vector<GradTensor> backward_tensors(const ModelSpec& m, const ParallelPlan& p, int stage, int chunk,
                                         bool with_experts) {
  const GpuParams g = chunk_params(m, p, stage, chunk);
  const int64_t total = g.dense + (with_experts ? g.experts : 0);
  const LayerRange range = chunk_range(m, p, stage, chunk);
  const bool first = stage == 0 && chunk == 0;
  const bool last = stage == p.pp - 1 && chunk == p.virtual_stages - 1;
  const int64_t h = m.hidden, V = m.vocab, tp = p.tp;
  const int64_t whole = m.tp_replicated_params_per_layer();
  const int64_t expert_shards = int64_t{p.etp()} * std::max(1, p.ep);

  std::vector<GradTensor> out;
  if (last) {
    if (!m.tied_embeddings || p.pp > 1) out.push_back({V * h / tp, false});
    out.push_back({m.norm_params(), false});
  }
  for (int64_t i = range.first + range.count; i-- > range.first;) {
    const LayerKind k = m.layer_kind(i);
    // The routed experts' weights (their grouped GEMMs), the first of a
    // MoE layer's gradients; then the rest at full size, scaled to what one
    // GPU holds of it (chunk_params' split).
    const int64_t experts = has_experts(k) ? m.expert_params_per_layer() : 0;
    if (with_experts && experts > 0) out.push_back({experts / expert_shards, true});
    std::vector<GradTensor> layer = layer_tensors(m, k);
    const int64_t full_dense = m.layer_params(k) - experts;
    const int64_t gpu_dense = (full_dense - whole) / tp + whole;
    int64_t left = gpu_dense;
    GradTensor* biggest = nullptr;
    for (GradTensor& t : layer) {
      // In floating point: a trillion-parameter layer times itself overflows
      // 64 bits; the remainder below makes the sum exact.
      t.params = full_dense > 0 ? static_cast<int64_t>(static_cast<double>(t.params) * gpu_dense / full_dense) : 0;
      left -= t.params;
      if (biggest == nullptr || t.params > biggest->params) biggest = &t;
    }
    if (biggest != nullptr) biggest->params += left;  // the integer division's remainder
    out.insert(out.end(), layer.begin(), layer.end());
  }
  if (first) out.push_back({(V + m.max_seq) * h / tp, false});
  // What the list does not itemize (the multi-token-prediction modules and
  // their copy of the embedding) is the first the backward reaches.
  int64_t listed = 0;
  for (const GradTensor& t : out) listed += t.params;
  ANATOMY_CHECK(listed <= total, "gradient tensors exceed the chunk's parameters");
  if (listed < total) out.insert(out.begin(), GradTensor{total - listed, true});
  return out;
}

std::vector<GradBucket> form_buckets(const std::vector<GradTensor>& tensors, int64_t bucket_params, bool split_fp8) {
  std::vector<GradBucket> out;
  int64_t done = 0, filling = 0, others = 0;
  for (const GradTensor& t : tensors) {
    done += t.params;
    if (split_fp8 && !t.gemm_weight) {
      others += t.params;
      continue;
    }
    filling += t.params;
    if (filling > 0 && filling >= bucket_params) {
      out.push_back({filling, done});
      filling = 0;
    }
  }
  if (filling > 0 || (out.empty() && others > 0)) out.push_back({filling, done});
  // The other buffer's buckets join the last group, which waits for them.
  if (others > 0) {
    out.back().params += others;
    out.back().ready = done;
  }
  return out;
}

std::vector<GradBucket> merge_buckets(const std::vector<GradBucket>& buckets, int most) {
  const int n = static_cast<int>(buckets.size());
  if (n <= most) return buckets;
  std::vector<GradBucket> out(static_cast<size_t>(most));
  for (int i = 0; i < n; ++i) {
    GradBucket& m = out[static_cast<size_t>(static_cast<int64_t>(i) * most / n)];
    m.params += buckets[static_cast<size_t>(i)].params;
    m.ready = buckets[static_cast<size_t>(i)].ready;
  }
  return out;
}

}  // namespace anatomy::workload
