#include "workload/grad_buckets.h"

#include <algorithm>

#include "core/error.h"
#include "workload/params.h"

namespace anatomy::workload {
namespace {

// One layer's dense tensors at full size (work = parameters for a GEMM's
// weight, none for a norm), in backward order. The routed experts are not
// among them (backward_tensors adds them).
std::vector<GradTensor> layer_tensors(const ModelSpec& m, LayerKind k) {
  const int64_t h = m.hidden, norm = m.norm_params();
  std::vector<GradTensor> out;
  auto gemm = [&](int64_t params) { out.push_back({params, params, true, false}); };
  auto other = [&](int64_t params, int64_t work) { out.push_back({params, work, false, false}); };
  // An MLP of inner size ffn, `copies` of it: down projection (with its
  // bias when the model has biases), then up (and gate) projection.
  auto mlp = [&](int64_t ffn, int64_t copies) {
    if (copies == 0) return;
    const int64_t up = m.gated_mlp ? 2 : 1;
    gemm(copies * (h * ffn + (m.layernorm ? h : 0)));
    gemm(copies * (up * h * ffn + (m.layernorm ? up * ffn : 0)));
  };
  auto attention = [&] {
    const int64_t proj = m.out_width() * h + (m.layernorm ? h : 0);
    gemm(proj);
    gemm(m.attention_params() - proj);  // QKV (MLA: its down and up projections, and the latents' norms)
    other(norm, 0);
  };
  auto moe_mlp = [&] {
    mlp(m.ffn_hidden, m.shared_experts);
    other(h * m.experts, h * m.experts);  // the router, a small GEMM
    other(norm, 0);
  };
  switch (k) {
    case LayerKind::kDense:
      mlp(m.dense_ffn(), 1);
      if (!m.parallel_layer(k)) other(norm, 0);  // a parallel block's one norm is attention()'s
      attention();
      break;
    case LayerKind::kMoe:
      moe_mlp();
      attention();
      break;
    case LayerKind::kMlp:
      mlp(m.dense_ffn(), 1);
      other(norm, 0);
      break;
    case LayerKind::kMoeMlp: moe_mlp(); break;
    case LayerKind::kAttention: attention(); break;
    case LayerKind::kMamba: {
      const int64_t out_proj = m.mamba_inner() * h;
      gemm(out_proj);
      gemm(m.mamba_layer_params() - out_proj);  // in projection, convolution, A, D, dt
      other(norm, 0);
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
  // Megatron-Core's distributed optimizer gives a tied embedding shared
  // between the first and last stages a bucket of its own.
  const bool shared_embedding =
      m.tied_embeddings && p.pp > 1 && p.zero_stage >= 1 && p.framework == ShardingFramework::kMegatron;

  std::vector<GradTensor> out;
  if (last) {
    if (!m.tied_embeddings || p.pp > 1) out.push_back({V * h / tp, V * h / tp, false, shared_embedding});
    out.push_back({m.norm_params(), 0, false, false});
  }
  for (int64_t i = range.first + range.count; i-- > range.first;) {
    const LayerKind k = m.layer_kind(i);
    // The routed experts' grouped GEMMs first: a token's top_k experts on
    // one GPU are top_k experts' worth of work over expert TP, whatever
    // the GPU holds.
    const int64_t experts = has_experts(k) ? m.expert_params_per_layer() : 0;
    if (experts > 0) {
      const int64_t held = with_experts ? experts / expert_shards : 0;
      out.push_back({held, m.top_k * (experts / m.experts) / p.etp(), true, false});
    }
    // The rest at full size, scaled to what one GPU holds of it
    // (chunk_params' split), its work with it.
    std::vector<GradTensor> layer = layer_tensors(m, k);
    const int64_t full = m.layer_params(k) - experts;
    const int64_t on_gpu = (full - whole) / tp + whole;
    int64_t left = on_gpu;
    GradTensor* biggest = nullptr;
    // In floating point: a trillion-parameter layer times itself overflows
    // 64 bits; the remainder below makes the sum exact.
    const double scale = full > 0 ? static_cast<double>(on_gpu) / static_cast<double>(full) : 0.0;
    for (GradTensor& t : layer) {
      t.params = static_cast<int64_t>(static_cast<double>(t.params) * scale);
      t.work = static_cast<int64_t>(static_cast<double>(t.work) * scale);
      left -= t.params;
      if (biggest == nullptr || t.params > biggest->params) biggest = &t;
    }
    if (biggest != nullptr) biggest->params += left;  // the integer division's remainder
    out.insert(out.end(), layer.begin(), layer.end());
  }
  if (first) out.push_back({(V + m.max_seq) * h / tp, 0, false, shared_embedding});
  // The multi-token-prediction modules and their copy of the embedding,
  // where the chunk holds them, as one tensor the backward reaches first.
  int64_t listed = 0;
  for (const GradTensor& t : out) listed += t.params;
  if (holds_mtp(m, p, stage, chunk) && listed < total) {
    out.insert(out.begin(), GradTensor{total - listed, total - listed, true, false});
    listed = total;
  }
  ANATOMY_CHECK(listed == total, "a chunk's gradient tensors do not add up to its parameters");
  return out;
}

std::vector<GradBucket> form_buckets(const std::vector<GradTensor>& tensors, int64_t bucket_params, BucketRule rule,
                                     bool split_fp8) {
  std::vector<GradBucket> out;
  int64_t done = 0, filling = 0, others = 0;
  auto close = [&](int64_t ready) {
    if (filling > 0) out.push_back({filling, ready});
    filling = 0;
  };
  for (const GradTensor& t : tensors) {
    done += t.work;
    if (t.params == 0) continue;
    if (split_fp8 && !t.gemm_weight) {
      others += t.params;
      continue;
    }
    // A tensor of its own closes what came before it, full before it is;
    // DeepSpeed reduces its bucket when the tensor that would pass it is ready.
    if (t.own_bucket)
      close(done - t.work);
    else if (rule == BucketRule::kCloseBefore && filling + t.params > bucket_params)
      close(done);
    filling += t.params;
    if (t.own_bucket || (rule == BucketRule::kCloseAfter && filling >= bucket_params)) close(done);
  }
  close(done);
  // The other buffer's buckets join the last group, which waits for them.
  if (others > 0) {
    if (out.empty()) out.push_back({0, done});
    out.back().params += others;
    out.back().ready = done;
  }
  return out;
}

std::vector<GradBucket> merge_buckets(const std::vector<GradBucket>& buckets, int most) {
  ANATOMY_CHECK(most >= 1, "buckets merge into at least one");
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
