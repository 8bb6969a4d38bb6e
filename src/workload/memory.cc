#include "workload/memory.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "workload/params.h"
#include "workload/pipeline_schedule.h"

namespace anatomy::workload {
namespace {

using core::Bytes;

const Bytes kWorkspace{3'000'000'000};
constexpr int kMaxTp = 8;  // one NVLink node: TP's all-reduces must stay on NVLink

Bytes to_bytes(double b) { return Bytes(static_cast<int64_t>(std::llround(b))); }

// Elements of a layer's largest weight matrix: the fused QKV (MLA: its
// largest projection), the MLP's (fused gate and) up projection, or its
// down projection; an expert's, a dense layer's or the shared experts'.
double largest_matrix(const ModelSpec& m) {
  const double h = static_cast<double>(m.hidden);
  double f = static_cast<double>(std::max(m.dense_ffn(), m.ffn_hidden));
  if (m.moe()) f = std::max(f, static_cast<double>(m.shared_experts * m.ffn_hidden));
  const double qkv = m.mla() ? std::max({h * static_cast<double>(m.latent_width()),
                                         static_cast<double>(m.q_lora_rank > 0 ? m.q_lora_rank : h) * m.q_width(),
                                         static_cast<double>(m.out_width()) * h})
                             : h * static_cast<double>(m.q_width() + m.k_width() + m.v_width());
  const double up = (m.gated_mlp ? 2 : 1) * h * f;
  const double in_proj = h * static_cast<double>(m.hybrid() ? m.mamba_in_proj_width() : 0);
  return std::max({qkv, up, h * f, in_proj});
}

// Activation bytes of one transformer layer for one micro-batch on one GPU.
struct LayerActivations {
  double whole;   // everything its backward needs (no recomputation of the layer)
  double stored;  // what is kept between its forward and backward under t.recompute
};

// A transformer layer has attention and an MLP: one with experts (its
// MLP's tokens are top_k copies, plus the shared experts') or a dense one.
// A hybrid block has one of them, or a Mamba-2 mixer, behind its norm.
LayerActivations layer_activations(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t, LayerKind kind) {
  const bool moe = has_experts(kind), attention = has_attention(kind), with_mlp = has_mlp(kind);
  const double blocks = residual_blocks(kind);
  const double e = static_cast<double>(element_bytes(t));
  const double h = static_cast<double>(m.hidden);
  const double k_w = static_cast<double>(m.k_width()), v_w = static_cast<double>(m.v_width());
  const double ffn = static_cast<double>(moe ? m.ffn_hidden : m.dense_ffn());
  const double a = static_cast<double>(m.heads);
  const double tp = p.tp;
  const bool sp = p.sequence_parallel && p.tp > 1;
  const double s_local = static_cast<double>(t.seq_len) / p.cp;  // tokens of a sequence on this CP rank
  const double tokens = static_cast<double>(t.micro_batch) * s_local;

  // What selective recomputation replays keeps only its input
  // (RecomputeModule): its outputs below are not kept.
  const uint32_t mods = selective_modules(t);
  const auto kept = [&](uint32_t module) { return (mods & module) ? 0.0 : 1.0; };
  // Per token: inputs of the two norms, of the QKV and first MLP GEMMs (the
  // norms' outputs), and the two dropout masks — whole on every TP rank
  // unless sequence-parallel; one of each in a hybrid block (its first
  // GEMM: QKV, the MLP's or in_proj), one norm's input and output beside
  // both masks in a parallel block. MLA adds its latents (input of the up
  // projections), whole on every TP rank.
  // Under recompute_modules layernorm, the norms that are modules of their
  // own (standalone_norms: MLA's input norm, a MoE layer's pre-MLP norm)
  // keep no output.
  // A norm's output is kept by the GEMM it feeds, quantized under FP8 and
  // FP4 (saved_gemm_input_bytes), except a MoE layer's pre-MLP norm, whose
  // output the router's own linear keeps in 16 bits.
  // Under LoRA a frozen GEMM keeps no input (Transformer Engine saves one
  // only for a weight that takes a gradient): of the norms' outputs only
  // the attention's is kept, in 16 bits, by the QKV adapter; no MLP input,
  // activation output or dispatched copy is kept.
  const bool lora = t.lora_rank > 0;
  const double q = saved_gemm_input_bytes(t);
  const double moe_norm = moe ? 1 : 0;
  const double norms = m.layer_norms(kind);
  double norm_outputs = lora ? (attention ? e : 0) : (norms - moe_norm) * q + moe_norm * e;
  if ((mods & kRecomputeLayernorm) && !lora) norm_outputs -= (m.mla() ? q : 0) + moe_norm * e;
  // LoRA's dropout keeps a 1-byte mask an element of each adapter's input:
  // the QKV adapter's (h, with the norms' outputs) and the output
  // projection's (o, with the attention output below).
  const bool lora_mask = lora && t.lora_dropout > 0 && attention;
  const double replicated = norms * e * h + norm_outputs * h + (m.dropout ? blocks * h : 0) +
                            e * static_cast<double>(m.latent_width()) + (lora_mask ? h : 0);
  // Per token, split over TP: Q, K, V, the attention output (input of the
  // output projection), the MLP's up (and gate) output and its activation
  // output (input of the down projection), and for MoE the tokens'
  // dispatched copies (input of the experts' first GEMM).
  const double q_w = static_cast<double>(m.q_width()), o_w = static_cast<double>(m.out_width());
  // FP8 attention keeps the FP8 copies of Q, K and V it cast (Transformer
  // Engine's FusedAttnFunc saves q_fp8, k_fp8, v_fp8), not the 16-bit ones,
  // unless core attention is replayed: the checkpoint then keeps its 16-bit
  // inputs and the FP8 copies live only inside the replay.
  const double qkv_bytes = t.fp8_attention && !(mods & kRecomputeCoreAttn) ? 1.0 : e;
  const double qkv = qkv_bytes * q_w + qkv_bytes * (k_w + v_w);
  // An MLP's inner activations for `copies` of each token: up (and gate),
  // then the activation's output.
  // The activation keeps its 16-bit input (up); its output is kept only by
  // the down projection, quantized under FP8 and FP4.
  // Kept in FP8 under fp8_activation_input.
  const double up = (t.fp8_activation_input ? 1.0 : e) * (m.gated_mlp ? 2 : 1) * ffn, act_out = lora ? 0 : q * ffn;
  double mlp = 0;
  if (!with_mlp) {
  } else if (!moe) {
    mlp = kept(kRecomputeMlp) * (up + act_out);
  } else {
    // The busiest rank's copies (expert_load_imbalance times the mean's).
    const double routed = static_cast<double>(m.top_k) * t.expert_load_imbalance;
    const double shared = static_cast<double>(m.shared_experts);
    // The dispatched copies: T x top_k tokens per GPU, or its own T / tp x
    // top_k when the experts are folded below TP (x etp / tp either way).
    // The shared experts' first GEMM quantizes the norm's output for itself
    // (the router keeps the 16-bit one).
    const double shared_input = shared > 0 && q < e && !lora ? q * h : 0;
    const double dispatched = lora ? 0 : q * h * routed * p.etp();
    mlp = routed * (up + kept(kRecomputeMoeAct) * act_out) +
          kept(kRecomputeSharedExperts) * (shared * (up + act_out) + shared_input) + dispatched;
    if (mods & kRecomputeMoe) mlp = 0;
  }
  // The attention output is kept by the flash kernel (its backward reads
  // it) and by the output projection: one 16-bit tensor, or under FP8 and
  // FP4 the kernel's and the projection's quantized copy.
  // Under LoRA the output projection's adapter keeps the 16-bit one.
  const double out_kept = q < e && !lora ? (t.flash_attention ? e : 0) + q : e;
  const double attention_out = attention ? (m.mla() ? kept(kRecomputeMlaUpProj) : 1.0) * qkv + out_kept * o_w : 0;
  // A Mamba-2 mixer on Megatron-LM's default path (use_mamba_mem_eff_path:
  // mamba_ssm's fused conv + SSD, which recomputes the conv's output in
  // backward) keeps in_proj's output (z, x, B, C, dt), the SSD's output
  // and the gated norm's (out_proj's input, quantized under FP8 and FP4).
  const double mamba = kind == LayerKind::kMamba ? e * static_cast<double>(m.mamba_in_proj_width() + m.mamba_inner()) +
                                                      q * static_cast<double>(m.mamba_inner())
                                                : 0;
  // The output projection's adapter keeps its dropped input (e o) and its
  // mask (o) beside the attention output the flash kernel keeps.
  const double sharded =
      attention_out + mlp + mamba + (lora_mask ? (e + 1) * static_cast<double>(m.out_width()) : 0);
  // The s x s scores: softmax output (and, with dropout, its mask and
  // output), per head, per sequence. CP ranks run FlashAttention in
  // practice; without it we count each rank's own s/cp x s/cp block.
  const bool attention_replayed = (mods & kRecomputeCoreAttn) != 0;
  const bool scores_recomputed = t.flash_attention || attention_replayed;
  const double score_bytes = e + (m.dropout ? 1 + e : 0);
  const double b = static_cast<double>(t.micro_batch);
  const double scores = scores_recomputed || !attention ? 0 : b * a * s_local * s_local * score_bytes;
  const double lse = t.flash_attention && !attention_replayed && attention ? 4 * a : 0;  // fp32, per head per token

  LayerActivations out;
  out.whole = tokens * ((sp ? replicated / tp : replicated) + (sharded + lse) / tp) + scores / tp;
  // A full replay starts from the layer's input; with the attention
  // kernel's output kept it also keeps that output (16-bit, split over TP)
  // and the kernel's softmax statistics (`lse`: a full replay runs no
  // selective module, and keeping the output needs FlashAttention).
  const double kept_attention =
      t.recompute_keeps_attention && attention ? (e * static_cast<double>(m.out_width()) + lse) / tp : 0;
  out.stored = t.recompute == Recompute::kFull ? tokens * (e * h / (sp ? tp : 1) + kept_attention) : out.whole;
  return out;
}

// Model chunks of micro-batches rank r holds at 1F1B's peak: its warm-up
// forwards and the one in steady state (pipeline_schedule.h; Megatron-LM's
// warm-up count, one more under combined 1F1B with interleaving), at most
// all of them.
int64_t chunks_in_flight(const ParallelPlan& p, const TrainingSpec& t, int r) {
  const int64_t M = std::max<int64_t>(1, t.micro_batches(p));
  const int v = p.virtual_stages;
  const int extra = p.ep_comm_overlap && v > 1 ? 1 : 0;
  return std::min<int64_t>(warmup_steps(r, p.pp, M, v, extra, p.microbatch_group) + 1, v * M);
}

// Micro-batches of each of rank r's chunks in flight at that peak: the
// first chunks_in_flight forwards of its schedule, which interleaving
// takes PP (or microbatch_group) micro-batches at a time from chunk after chunk (pipeline_order).
std::vector<int64_t> chunk_micro_batches_in_flight(const ParallelPlan& p, const TrainingSpec& t, int r) {
  const int64_t M = std::max<int64_t>(1, t.micro_batches(p));
  const int v = p.virtual_stages;
  const int extra = p.ep_comm_overlap && v > 1 ? 1 : 0;
  std::vector<int64_t> out(static_cast<size_t>(v), 0);
  int64_t left = chunks_in_flight(p, t, r);
  for (const PipelineStep& step : pipeline_order(r, p.pp, M, v, extra, p.microbatch_group)) {
    if (left == 0) break;
    if (!step.forward) continue;
    ++out[static_cast<size_t>(step.chunk)];
    --left;
  }
  return out;
}

MemoryBreakdown stage_memory(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t, int r,
                             const MemoryPart& part) {
  const bool first = r == 0, last = r == p.pp - 1;
  const double h = static_cast<double>(m.hidden), V = static_cast<double>(m.vocab);
  const double tp = p.tp;

  // Parameters on this GPU (workload/params.h).
  const GpuParams held = stage_params(m, p, r);
  // The largest layer gathered at once, of the kinds the model has: a
  // dense one, or a MoE one with its experts split over EP (and over
  // expert TP rather than TP: tp / etp times as many per GPU).
  const double expert_layer = static_cast<double>(m.expert_params_per_layer());
  const double folding = static_cast<double>(p.tp) / p.etp();
  double layer_unit = 0;
  const LayerCounts all = m.layer_counts(0, m.layers);
  for (LayerKind k : kAllLayerKinds) {
    if (all[k] == 0) continue;
    const double params = static_cast<double>(m.layer_params(k));
    layer_unit = std::max(layer_unit, has_experts(k) ? params - expert_layer + expert_layer / p.ep * folding : params);
  }
  // The embedding, position table, final norm and output layer, as the
  // largest unit gathered at once.
  double ends = 0;
  if (first) ends += V * h + static_cast<double>(m.max_seq) * h;
  if (last) ends += (m.tied_embeddings && p.pp == 1 ? 0 : V * h) + static_cast<double>(m.norm_params());
  const double dense = static_cast<double>(held.dense);
  const double experts = static_cast<double>(held.experts);
  const double full = dense + experts;
  // Under LoRA the frozen weights are held whole and only the adapters have
  // gradients and optimizer state (all dense; ZeRO-3 is refused).
  const bool lora = t.lora_rank > 0;

  // ZeRO shards over DP x CP (or a shard group); an expert is replicated
  // over its expert-data-parallel ranks, DP x CP / EP (x TP / expert TP).
  const double d = static_cast<double>(p.zero_shards());
  const double d_experts = std::max(1.0, d / p.ep * folding);
  const double shard = dense / d + experts / d_experts;
  const double unit = std::max(layer_unit / tp, ends / tp);  // gathered at once
  double weights_in_flight = std::min(full, shard + 2 * unit);
  double grads_in_flight = weights_in_flight;
  const StateBytes bpp = state_bytes_per_param(t, p);
  if (p.framework == ShardingFramework::kDeepSpeed) {
    // Whole at once: one sub-module's weight (the largest matrix) plus the
    // prefetch bucket; its gradient plus the reduce bucket.
    const double largest = std::max(largest_matrix(m) / tp, ends / tp);
    weights_in_flight = std::min(full, shard + largest + static_cast<double>(p.param_gather_bytes) / bpp.weights);
    grads_in_flight = std::min(full, shard + largest + static_cast<double>(gradient_bucket_bytes(t, p)) / bpp.gradients);
  }

  // FP8 weights without their transposed copy where the FP8 GEMMs take
  // either layout (MemoryPart).
  const double weight_bytes = fp8_weights(t, p) && part.fp8_any_layout ? 1.0 : bpp.weights;
  MemoryBreakdown b;
  b.stage = r;
  b.weights = to_bytes((p.zero_stage >= 3 ? weights_in_flight : full) * weight_bytes);
  b.gradients = to_bytes((p.zero_stage >= 2 ? grads_in_flight : full) * bpp.gradients);
  b.optimizer = to_bytes((p.zero_stage >= 1 ? shard : full) * bpp.optimizer);
  if (lora) {
    const double adapters = static_cast<double>(trained_stage_params(m, p, t, r).total());
    b.weights = to_bytes(full * weight_bytes + adapters * static_cast<double>(element_bytes(t)));
    // One bucket holds them all until the backward ends (iteration.cc), so
    // ZeRO-2 shards none of them while they are computed.
    b.gradients = to_bytes(adapters * bpp.gradients);
    b.optimizer = to_bytes((p.zero_stage >= 1 ? adapters / d : adapters) * bpp.optimizer);
  }

  // Recomputed layers keep their input only (`stored`), the others all of
  // their activations (training.recompute_layers), each of its kind.
  // Without full recomputation no layer is recomputed and `stored` is
  // `whole`.
  // Of each kind the model has (an MTP module's layer is of its last layer's).
  PerLayerKind<LayerActivations> acts;
  for (LayerKind k : kAllLayerKinds)
    if (all[k] > 0) acts[k] = layer_activations(m, p, t, k);
  // Each chunk's kept activations, times its micro-batches in flight.
  const std::vector<int64_t> in_flight = chunk_micro_batches_in_flight(p, t, r);
  double act = 0, recomputing = 0;  // the largest layer being recomputed
  for (int c = 0; c < p.virtual_stages; ++c) {
    const LayerRange range = chunk_range(m, p, r, c);
    const LayerCounts kinds = m.layer_counts(range.first, range.count);
    const LayerCounts replayed = m.layer_counts(range.first, recomputed_layers(t, range.count));
    double kept = 0;
    for (LayerKind k : kAllLayerKinds) kept += static_cast<double>(replayed[k]) * acts[k].stored;
    for (LayerKind k : kAllLayerKinds) kept += static_cast<double>(kinds[k] - replayed[k]) * acts[k].whole;
    act += kept * static_cast<double>(in_flight[static_cast<size_t>(c)]);
    for (LayerKind k : kAllLayerKinds)
      if (replayed[k] > 0) recomputing = std::max(recomputing, acts[k].whole);
  }
  act += recomputing;
  const bool sp = p.sequence_parallel && p.tp > 1;
  const double e = static_cast<double>(element_bytes(t));
  const double tokens = static_cast<double>(t.micro_batch * t.seq_len) / p.cp;
  // Rank 0: the embedding's dropout mask, per micro-batch of its first
  // chunk. Last rank, one micro-batch (its backward follows its forward):
  // the inputs of the final norm and the output layer, and fp32 logits,
  // once for the model and once for each MTP module.
  if (first && m.dropout) act += static_cast<double>(in_flight[0]) * tokens * h / (sp ? tp : 1);
  const double n_mtp = static_cast<double>(m.mtp_layers);
  if (last) act += (1 + n_mtp) * tokens * (2 * e * h / (sp ? tp : 1) + 4 * V / tp);
  // Each MTP module's layer and its projection's 2h input, per micro-batch
  // of the chunk that runs them.
  for (int c = 0; c < p.virtual_stages; ++c)
    if (holds_mtp(m, p, r, c))
      act += static_cast<double>(in_flight[static_cast<size_t>(c)]) * n_mtp *
             (acts[m.mtp_moe() ? LayerKind::kMoe : LayerKind::kDense].whole +
              tokens * 2 * e * h / (sp ? tp : 1));
  b.activations = to_bytes(act);
  b.workspace = kWorkspace;
  return b;
}

std::string gb(Bytes b) {
  std::string s = fmt::format("{:.1f}", b.as_double() / 1e9);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s + " GB";
}

bool valid(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t) {
  try {
    validate_plan(m, p, t, p.gpus());
    return true;
  } catch (const core::InputError&) {
    return false;
  }
}

// What differs between the plan the user gave and a candidate, in the
// scenario's own words.
std::string describe_change(const ParallelPlan& p0, const TrainingSpec& t0, const ParallelPlan& p,
                            const TrainingSpec& t) {
  std::vector<std::string> parts;
  if (t.recompute != t0.recompute) parts.push_back(fmt::format("recompute: {}", to_string(t.recompute)));
  if (t.recompute_layers != t0.recompute_layers)
    parts.push_back(fmt::format("recompute_layers: {}", t.recompute_layers));
  if (p.zero_stage != p0.zero_stage) parts.push_back(fmt::format("zero_stage: {}", p.zero_stage));
  if (p.shard_group != p0.shard_group) parts.push_back(fmt::format("shard_group: {}", p.shard_group));
  if (p.tp != p0.tp || p.pp != p0.pp)
    parts.push_back(fmt::format("TP {} x PP {} x DP {}", p.tp, p.pp, p.dp));
  if (t.micro_batch != t0.micro_batch) parts.push_back(fmt::format("micro_batch: {}", t.micro_batch));
  std::string out;
  for (const std::string& s : parts) out += (out.empty() ? "" : ", ") + s;
  return out;
}

struct Plan {
  ParallelPlan p;
  TrainingSpec t;
};

// The changes check_memory_fits tries, in order. Each applies itself to a
// plan, or returns false when it does not apply (already so, or out of
// limits); `repeat` ones are applied again while piling changes up.
struct Change {
  std::function<bool(Plan&)> apply;
  bool repeat = false;
};

// With DP halved, a shard group as large as the old DP x CP (or no longer
// dividing it) becomes the whole group: FULL_SHARD.
void keep_shard_group(ParallelPlan& p) {
  if (p.shard_group > 0 && (p.shard_group >= p.dp * p.cp || (p.dp * p.cp) % p.shard_group != 0)) p.shard_group = 0;
}

std::vector<Change> changes() {
  return {
      {[](Plan& x) {
         if (x.t.recompute != Recompute::kNone) return false;
         x.t.recompute = Recompute::kSelective;
         return true;
       }},
      {[](Plan& x) {
         if (x.t.recompute == Recompute::kFull && x.t.recompute_layers == 0) return false;
         x.t.recompute = Recompute::kFull;
         x.t.recompute_layers = 0;
         x.t.recompute_modules = 0;  // selective's; full replays whole layers
         return true;
       }},
      {[](Plan& x) {
         if (x.p.zero_stage >= 3) return false;
         ++x.p.zero_stage;
         return true;
       },
       true},
      {[](Plan& x) {
         if (x.p.zero_stage >= 2) return false;  // zero_stage + 1 above already reaches 3
         x.p.zero_stage = 3;
         return true;
       }},
      {[](Plan& x) {  // HYBRID_SHARD to FULL_SHARD: one copy of the state over every rank
         if (x.p.shard_group == 0) return false;
         x.p.shard_group = 0;
         return true;
       }},
      {[](Plan& x) {
         if (x.p.dp % 2 != 0) return false;
         x.p.pp *= 2;
         x.p.dp /= 2;
         keep_shard_group(x.p);
         return true;
       },
       true},
      {[](Plan& x) {
         if (x.p.dp % 2 != 0 || x.p.tp * 2 > kMaxTp) return false;
         x.p.tp *= 2;
         x.p.dp /= 2;
         keep_shard_group(x.p);
         return true;
       },
       true},
      {[](Plan& x) {
         if (x.t.micro_batch == 1) return false;
         x.t.micro_batch = 1;
         return true;
       }},
  };
}

// The first plan, by the order above, that is valid and fits: its
// description and total, or an empty description.
std::pair<std::string, Bytes> find_fit(const ModelSpec& m, const Plan& given, Bytes capacity, const MemoryPart& part) {
  const auto fits = [&](const Plan& x) {
    return valid(m, x.p, x.t) && estimate_memory(m, x.p, x.t, part).total() <= capacity;
  };
  const auto found = [&](const Plan& x) {
    return std::pair{describe_change(given.p, given.t, x.p, x.t), estimate_memory(m, x.p, x.t, part).total()};
  };
  const std::vector<Change> ladder = changes();
  for (const Change& c : ladder) {  // one change at a time
    Plan x = given;
    if (c.apply(x) && fits(x)) return found(x);
  }
  Plan x = given;  // piled up
  for (const Change& c : ladder) {
    for (Plan next = x; c.apply(next) && valid(m, next.p, next.t); next = x) {
      x = next;
      if (fits(x)) return found(x);
      if (!c.repeat) break;
    }
  }
  return {};
}

}  // namespace

MemoryPart memory_part(const hw::Accelerator& gpu) {
  return MemoryPart{.fp8_any_layout = gpu.arch.fp8_gemm_any_layout};
}

std::vector<MemoryBreakdown> estimate_memory_per_stage(const ModelSpec& m, const ParallelPlan& p,
                                                        const TrainingSpec& t, const MemoryPart& part) {
  std::vector<MemoryBreakdown> out;
  out.reserve(static_cast<size_t>(p.pp));
  for (int r = 0; r < p.pp; ++r) out.push_back(stage_memory(m, p, t, r, part));
  return out;
}

MemoryBreakdown estimate_memory(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t,
                                const MemoryPart& part) {
  const std::vector<MemoryBreakdown> stages = estimate_memory_per_stage(m, p, t, part);
  return *std::max_element(stages.begin(), stages.end(),
                           [](const MemoryBreakdown& a, const MemoryBreakdown& b) { return a.total() < b.total(); });
}

void check_memory_fits(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t, Bytes capacity,
                       std::string_view gpu, const MemoryPart& part) {
  const MemoryBreakdown b = estimate_memory(m, p, t, part);
  if (b.total() <= capacity) return;
  std::string msg = fmt::format(
      "needs {} per GPU but {} has {} ({} over) on pipeline rank {} of {}: weights {}, gradients {}, optimizer {}, "
      "activations {}, workspace {}",
      gb(b.total()), gpu.empty() ? std::string("the GPU") : fmt::format("each {}", gpu), gb(capacity),
      gb(b.total() - capacity), b.stage, p.pp, gb(b.weights), gb(b.gradients), gb(b.optimizer), gb(b.activations),
      gb(b.workspace));
  const auto [change, total] = find_fit(m, Plan{p, t}, capacity, part);
  if (!change.empty()) {
    msg += fmt::format("; fits with {} ({})", change, gb(total));
  } else {
    msg += "; nothing tried fits (recompute, ZeRO-3, more PP or TP with less DP, micro_batch 1): it needs more GPUs "
           "per model replica or GPUs with more memory";
  }
  throw core::InputError({"", 0, "parallelism"}, msg);
}

}  // namespace anatomy::workload
