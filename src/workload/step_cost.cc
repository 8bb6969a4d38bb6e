#include "workload/step_cost.h"

#include <algorithm>
#include <type_traits>

#include "workload/cp_passes.h"
#include "workload/moe_routing.h"
#include "workload/params.h"

namespace anatomy::workload {
namespace {

// The recipe of this run's FP8 attention. TE's fused attention runs no FP4
// or block-scaled recipe: NVFP4 training gives its attention current
// scaling (NVTE_DPA_FP8_RECIPE), and so, taken the same, does blockwise.
Fp8Recipe attention_recipe(const TrainingSpec& t, hw::Precision gemm) {
  return gemm == hw::Precision::kFp4 || t.fp8_recipe == Fp8Recipe::kBlockwise ? Fp8Recipe::kTensorwise
                                                                             : t.fp8_recipe;
}

// CP's all-to-all exchange widths (cp_passes.h), hierarchical CP's or the
// all-to-all's over every CP rank.
CpExchangeBytes cp_exchange_bytes_of(const TrainingSpec& t, const ParallelPlan& p, hw::Precision gemm) {
  const Fp8Recipe recipe = attention_recipe(t, gemm);
  return p.cp_a2a_size > 1 ? cp_hierarchical_exchange_bytes(t.fp8_attention, recipe)
                           : cp_exchange_bytes(t.fp8_attention, recipe);
}

constexpr int64_t kActivationBytes = 2;  // bf16 activations, also under fp8 GEMMs

SimTime zero_floor(SimTime t) { return t < SimTime::zero() ? SimTime::zero() : t; }

// A column-parallel GEMM's backward under sequence parallelism gathers its
// input again for the weight gradient behind its data-gradient GEMM, and
// reduce-scatters that data gradient behind the weight-gradient GEMM,
// asynchronously even without TE's userbuffers (TE v2.7 module/linear.py
// backward: gather_along_first_dim and reduce_scatter_along_first_dim with
// async_op=True; Megatron-Core's LinearWithGradAccumulationAndAsyncCommunication):
// what of the two the GEMMs leave exposed.
SimTime column_backward_exposed(SimTime gather, SimTime reduce_scatter, SimTime dgrad, SimTime wgrad) {
  return zero_floor(gather - dgrad) + zero_floor(reduce_scatter - wgrad);
}

}  // namespace

int64_t StageCost::params() const {
  int64_t total = 0;
  for (int64_t c : chunk_params) total += c;
  return total;
}

int64_t StageCost::expert_params() const {
  int64_t total = 0;
  for (int64_t c : chunk_expert_params) total += c;
  return total;
}

StepCostModel::StepCostModel(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t,
                             const hw::ComputeModel& cm, CommTimer timer)
    : m_(m), p_(p), t_(t), cm_(cm), timer_(std::move(timer)), layout_(p) {
  // The kinds the model has (an MTP module's layer is of its last
  // layer's), and a dense layer, whose attention sliding windows shorten.
  const LayerCounts all = m.layer_counts(0, m.layers);
  for (LayerKind k : kAllLayerKinds)
    if (all[k] > 0 || k == LayerKind::kDense) kinds_[k] = layer(k);
}

hw::Precision StepCostModel::gemm_precision() const {
  if ((t_.precision == hw::Precision::kFp8 || t_.precision == hw::Precision::kFp4) &&
      hw::peak_tflops(cm_.accelerator(), t_.precision) <= 0)
    return hw::Precision::kBf16;
  return t_.precision;
}

int64_t StepCostModel::at_busiest_rank(int64_t mean_rank) const {
  return std::llround(static_cast<double>(mean_rank) * t_.expert_load_imbalance);
}

Bytes StepCostModel::ep_all_to_all_bytes() const {
  if (!m_.moe() || p_.ep <= 1) return Bytes(0);
  // Under unbalanced routing every rank's exchange is priced at the busiest
  // rank's: the all-to-all is done when that rank has its tokens.
  return Bytes(at_busiest_rank(expert_tokens() * m_.top_k * m_.hidden * kActivationBytes));
}

StepCostModel::LayerCost StepCostModel::layer(LayerKind kind) const {
  const bool moe = has_experts(kind), attention = has_attention(kind), with_mlp = has_mlp(kind);
  const bool mamba = kind == LayerKind::kMamba;
  // A parallel block: one norm feeds attention and the MLP (ModelSpec::parallel_block).
  const bool parallel = m_.parallel_layer(kind);
  const hw::Precision prec = gemm_precision();
  const int64_t tp = p_.tp, cp = p_.cp;
  const int64_t T = t_.micro_batch * t_.seq_len / cp;  // tokens a GPU's GEMMs see
  const int64_t T_sp = p_.sequence_parallel ? std::max<int64_t>(1, T / tp) : T;
  const int64_t h = m_.hidden, hd = m_.head_dim(), v_hd = m_.value_head_dim();
  const int64_t f = moe ? m_.ffn_hidden : m_.dense_ffn();
  const int64_t heads_local = m_.heads / tp;
  const int64_t kv_local = m_.mla() ? heads_local : std::max<int64_t>(1, m_.kv_heads / tp);

  const Fp8Recipe recipe = prec == hw::Precision::kFp8 ? t_.fp8_recipe : Fp8Recipe::kDelayed;
  const bool blockwise = recipe == Fp8Recipe::kBlockwise;
  // A Transformer Engine linear layer's GEMM; its block scales cost the
  // Hopper CUDA cores their share (ComputeModel::gemm_fp8_blockwise).
  auto linear_gemm = [&](int64_t mm, int64_t n, int64_t k) {
    return blockwise ? cm_.gemm_fp8_blockwise(mm, n, k) : cm_.gemm(mm, n, k, prec);
  };
  // Under LoRA every weight is frozen (the adapters are costed apart).
  const bool frozen = t_.lora_rank > 0;
  auto gemm_fb = [&](int64_t mm, int64_t n, int64_t k, SimTime* fwd, SimTime* bwd) {
    const SimTime g = linear_gemm(mm, n, k);
    *fwd += g;
    // Data gradient dX[m,k] = dY[m,n] W^T, weight gradient dW[k,n] = X^T dY.
    *bwd += linear_gemm(mm, k, n) + (frozen ? SimTime::zero() : linear_gemm(k, n, mm));
    return g;
  };
  // A LoRA adapter beside a projection of X[m,k] to Y[m,n]: X A (m x r over
  // k) then (X A) B (m x n over r), added to Y; backward each product's two
  // gradients. Rank-r GEMMs are thin, so they run far below the tensor
  // cores' rate: the compute model times them by shape. They run in 16 bits
  // (NeMo's ParallelLinearAdapter is not an FP8 module).
  // With lora_dropout, X passes a dropout first: forward it is read and
  // written with a 1-byte mask, backward its gradient likewise.
  // `a_cols`: A's columns on this rank (NeMo's ParallelLinearAdapter splits
  // a column-parallel projection's A over TP, r / tp, and gathers X A).
  auto adapter = [&](int64_t mm, int64_t n, int64_t k, int64_t a_cols, SimTime* fwd, SimTime* bwd) {
    if (!frozen) return;
    constexpr hw::Precision kAdapter = hw::Precision::kBf16;
    const int64_t r = t_.lora_rank;
    *fwd += cm_.gemm(mm, a_cols, k, kAdapter) + cm_.gemm(mm, n, r, kAdapter);
    *bwd += cm_.gemm(mm, r, n, kAdapter) + cm_.gemm(r, n, mm, kAdapter) +            // through B: d(XA), dB
            cm_.gemm(mm, k, a_cols, kAdapter) + cm_.gemm(k, a_cols, mm, kAdapter);   // through A: dX, dA
    if (t_.lora_dropout > 0) {
      const SimTime drop =
          cm_.elementwise(hw::ComputeModel::Kernel::kDropout, Bytes(mm * k * hw::ComputeModel::kDropoutBytesPerElement));
      *fwd += drop;
      *bwd += drop;
    }
  };

  // FP8 and FP4 GEMMs read operands the framework quantized first
  // (Transformer Engine's cast and cast-transpose kernels, memory-bound):
  // forward, the input X[m,k] is written at the GEMM's precision, after a
  // bf16 read unless the norm or activation kernel before it already
  // produced it; backward, dY[m,n] is read in bf16 and written at the
  // GEMM's precision. Each is written in both orientations (the transposed
  // copy feeds the weight gradient) but for per-tensor FP8 on a part whose
  // FP8 GEMMs take either layout (TE's nvte_is_non_tn_fp8_gemm_supported).
  // Weights are cast once an iteration, not here (StageCost::weight_casts:
  // a layer's k x n, not its tokens). Under sequence parallelism TE casts what it gathers
  // over TP on the rank's own shard, before the FP8 all-gather: a column-
  // parallel GEMM's input, a row-parallel GEMM's output gradient. That is
  // delayed scaling; the other FP8 recipes (Fp8Recipe) read a tensor once
  // more where its scale is not known before the pass that casts it:
  // current scaling after every producer (its amax first, fused into a norm
  // or a TE activation, else a kernel of its own, then a scale kernel),
  // MXFP8 after a norm, whose TE kernel does not write it; block scaling
  // after any producer, and in two copies on every part. NVFP4 (FP4 on a
  // part that scales it so) takes its amax first too, and every one of its
  // casts pays an amax pass: its random Hadamard transform of the weight
  // gradient's inputs needs the amax after the transform, which TE finds in
  // a pass of its own (hadamard_transform_amax), so no norm or activation
  // writes it; then the rowwise cast and the transformed columnwise one
  // each read the tensor (TE v2.8 NVFP4BlockScaling,
  // NVFP4Quantizer::quantize_impl).
  const bool quantized = prec == hw::Precision::kFp8 || prec == hw::Precision::kFp4;
  const double qbytes = hw::bytes_of(prec);
  const bool tensorwise = recipe == Fp8Recipe::kTensorwise;
  const bool per_tensor = prec == hw::Precision::kFp8 && (recipe == Fp8Recipe::kDelayed || tensorwise);
  const bool nvfp4 = prec == hw::Precision::kFp4 && cm_.accelerator().arch.nvfp4;
  const bool amax_first = tensorwise || nvfp4;
  // The transposed copy feeds only a weight gradient: a frozen GEMM (LoRA)
  // writes its inputs once.
  const double copies = (per_tensor && cm_.accelerator().arch.fp8_gemm_any_layout) || frozen ? 1 : 2;
  // compute_scale_from_amax: one float in, one out; a launch, nothing to stream.
  const SimTime scale_kernel = tensorwise ? cm_.memory_bound(Bytes(8)) : SimTime::zero();
  // What wrote the GEMM's input; kShared: a parallel block's MLP reads the
  // norm's output the QKV GEMM's cast already quantized (and gathered).
  enum class Producer { kNorm, kActivation, kOther, kShared };
  // An MLP's activation: Transformer Engine's, which writes the down
  // projection's input and the up projection's output gradient at the
  // GEMM's precision itself (with their amaxes), or Megatron-Core's own
  // kernel, whose 16-bit output a cast reads again.
  const Producer activation = t_.te_activation ? Producer::kActivation : Producer::kOther;
  // One GEMM's casts: X over x_rows tokens, dY over dy_rows. `dy_fused`:
  // the kernel that wrote dY (an activation's backward in TE) also wrote
  // its amax.
  auto quantize = [&](int64_t x_rows, int64_t dy_rows, int64_t n, int64_t k, Producer in, bool dy_fused, SimTime* fwd,
                      SimTime* bwd) {
    if (!quantized) return;
    // A shared input (kShared) or output gradient (dy_rows 0) was cast for
    // the other branch's GEMM.
    const double x = in == Producer::kShared ? 0.0 : static_cast<double>(x_rows) * static_cast<double>(k);
    const double dy = static_cast<double>(dy_rows) * static_cast<double>(n);
    if (nvfp4) {  // the rowwise cast and the transformed columnwise one, each a read
      const auto cast = [&](double elems) {
        return cm_.memory_bound(Bytes(static_cast<int64_t>(elems * (kActivationBytes + qbytes))));
      };
      const double casts = frozen ? 1 : 2;  // no transformed columnwise copy without a weight gradient
      *fwd += cast(x) * casts;
      *bwd += cast(dy) * casts;
    } else {
      const bool cast_reads_input = in == Producer::kOther || tensorwise || blockwise ||
                                    (recipe == Fp8Recipe::kMxfp8 && in == Producer::kNorm);
      *fwd += cm_.memory_bound(
          Bytes(static_cast<int64_t>(x * ((cast_reads_input ? kActivationBytes : 0) + copies * qbytes))));
      *bwd += cm_.memory_bound(Bytes(static_cast<int64_t>(dy * (kActivationBytes + copies * qbytes))));
    }
    if (!amax_first) return;
    const auto amax = [&](double elems) { return cm_.memory_bound(Bytes(static_cast<int64_t>(elems * kActivationBytes))); };
    if (in != Producer::kShared) *fwd += (in == Producer::kOther || nvfp4 ? amax(x) : SimTime::zero()) + scale_kernel;
    if (dy_rows > 0) *bwd += (dy_fused && !nvfp4 ? SimTime::zero() : amax(dy)) + scale_kernel;
  };
  using In = Producer;

  LayerCost c;
  SimTime fwd, bwd;
  // The mixer's first and last GEMMs, which its TP collectives overlap
  // with: QKV and the attention output projection, or in_proj and out_proj.
  SimTime g_qkv, g_proj;
  SimTime mla_up;  // forward of MLA's up projections (and their casts)
  SimTime attn_f, attn_b;
  // CP's passes outside the kernels, in attn_f and attn_b: the ring's merges
  // of its steps and the all-to-all's layout passes (no cover for the ring).
  SimTime outside_f, outside_b;
  SimTime ring_last_b;  // the ring's last backward step's kernel (covers FP8's gradient all-to-all)
  SimTime mixer_ew;  // a Mamba-2 mixer's memory-bound kernels, forward
  // A Mamba-2 mixer's all-to-alls under CP: the widths, per token, of what
  // each exchanges (z, x, B, C, dt before the SSD, its output after).
  std::vector<int64_t> mamba_cp_widths;
  if (mamba) {
    // A Mamba-2 mixer over all T tokens, its heads and groups split over
    // TP: in_proj (after the norm, fused), the depthwise conv over x, B
    // and C with its SiLU (one read and one write), the SSD's chunked
    // matrix products, the gated RMSNorm (reads y and z, writes one) and
    // out_proj. The SSD (mamba_ssm's Triton kernels, bf16 whatever the
    // GEMMs' precision) is timed as the batched GEMMs it is made of, per
    // chunk of Q tokens (Dao & Gu 2024, Section 6): C B^T per group (Q x Q
    // over N), the chunk states B^T x per head (N x P over Q), and the
    // output, the masked scores times x and C times the incoming state, per
    // head (Q x P over Q, and over N); between them the scan passes every
    // chunk's fp32 state (H P N) once in and out. Backward: each product's
    // two gradients.
    //
    // Under CP (Megatron-Core's MambaContextParallel) in_proj and out_proj
    // run on the rank's T tokens, and the conv and the SSD on the whole
    // sequence of its heads / cp and groups / cp: five all-to-alls (z, x,
    // B, C, dt) before them and one of their output after (mamba_cp_widths
    // below). A CP rank with fewer groups than CP ranks takes one group,
    // repeated: B and C go out as cp groups' worth, not groups'.
    const int64_t in_w = m_.mamba_in_proj_width() / tp, d = m_.mamba_inner() / tp;
    const int64_t heads_l = m_.mamba_heads / tp, groups_l = m_.mamba_groups / tp;
    const int64_t Q = m_.mamba_chunk, N = m_.mamba_state, P = m_.mamba_head_dim;
    const int64_t T_ssd = T * cp, heads_ssd = heads_l / cp, groups_ssd = std::max<int64_t>(1, groups_l / cp);
    const int64_t chunks = (T_ssd + Q - 1) / Q;
    g_qkv = gemm_fb(T, in_w, h, &fwd, &bwd);
    quantize(T_sp, T, in_w, h, In::kNorm, false, &fwd, &bwd);
    auto ssd = [&](int64_t mm, int64_t n, int64_t k) {
      constexpr hw::Precision kSsd = hw::Precision::kBf16;
      fwd += cm_.gemm(mm, n, k, kSsd);
      bwd += cm_.gemm(mm, k, n, kSsd) + cm_.gemm(k, n, mm, kSsd);
    };
    ssd(T_ssd * groups_ssd, Q, N);      // C B^T
    ssd(chunks * heads_ssd * N, P, Q);  // chunk states
    ssd(T_ssd * heads_ssd, P, Q);       // scores times x
    ssd(T_ssd * heads_ssd, P, N);       // C times the state
    const SimTime scan = cm_.memory_bound(Bytes(2 * chunks * heads_ssd * P * N * 4));
    const int64_t conv_ch = d / cp + 2 * groups_ssd * N;
    mixer_ew = scan + cm_.memory_bound(Bytes(2 * T_ssd * conv_ch * kActivationBytes)) +
               cm_.elementwise(hw::ComputeModel::Kernel::kNorm, Bytes(3 * T * d * kActivationBytes));
    if (cp > 1) {
      // The exchanges' layout copies, each a read and a write: every
      // all-to-all packs its input; the five outputs are concatenated and
      // put back in sequence order (undoing attention's load balancing),
      // the output is put in that order again and unpacked after its
      // all-to-all. Backward moves the gradients through the same copies.
      const int64_t bc = std::max(groups_l, cp) * N;
      mamba_cp_widths = {d, d, bc, bc, heads_l, d};
      const int64_t in_width = 2 * d + 2 * bc + heads_l;
      const SimTime copies = cm_.memory_bound(Bytes(2 * 3 * T * in_width * kActivationBytes)) +
                             cm_.memory_bound(Bytes(2 * 2 * T * d * kActivationBytes));
      fwd += copies;
      bwd += copies;
    }
    g_proj = gemm_fb(T, h, d, &fwd, &bwd);
    quantize(T, T_sp, h, d, In::kOther, false, &fwd, &bwd);  // the gated norm's output: its own cast
  }
  if (!attention) {
  } else if (!m_.mla()) {
    g_qkv = gemm_fb(T, (heads_local + 2 * kv_local) * hd, h, &fwd, &bwd);
    quantize(T_sp, T, (heads_local + 2 * kv_local) * hd, h, In::kNorm, false, &fwd, &bwd);  // after the norm
    adapter(T, (heads_local + 2 * kv_local) * hd, h, std::max<int64_t>(1, t_.lora_rank / tp), &fwd, &bwd);
  } else {
    // MLA: the down projections to the latents, whole on every TP rank,
    // then Q's and K/V's up projections of this rank's heads; the
    // latents' norms are memory-bound passes over them.
    const int64_t latent = m_.latent_width();
    gemm_fb(T_sp, latent, h, &fwd, &bwd);  // on the sequence-parallel tokens, before any gather
    quantize(T_sp, T_sp, latent, h, In::kOther, false, &fwd, &bwd);  // after the standalone input norm
    const bool q_latent = m_.q_lora_rank > 0;  // else Q comes from h directly
    const SimTime up_start = fwd;
    g_qkv = gemm_fb(T, heads_local * hd, q_latent ? m_.q_lora_rank : h, &fwd, &bwd);
    // Q's up projection after the fused norm of its latent (or straight from
    // the standalone input norm), K/V's after their latent's fused norm.
    quantize(T, T, heads_local * hd, q_latent ? m_.q_lora_rank : h, q_latent ? In::kNorm : In::kOther, false, &fwd, &bwd);
    const int64_t kv_up = heads_local * (m_.qk_nope_head_dim + v_hd);
    g_qkv += gemm_fb(T, kv_up, m_.kv_lora_rank, &fwd, &bwd);
    quantize(T, T, kv_up, m_.kv_lora_rank, In::kNorm, false, &fwd, &bwd);
    mla_up = fwd - up_start;
    const SimTime norms = cm_.elementwise(hw::ComputeModel::Kernel::kNorm,
                                          Bytes(2 * T * (m_.q_lora_rank + m_.kv_lora_rank) * kActivationBytes));
    fwd += norms;
    bwd += norms * 2;
  }
  if (!attention) {
  } else if (t_.flash_attention) {
    // One kernel of head width (hd + v_hd) / 2: Q K^T is 2 s^2 hd and P V
    // 2 s^2 v_hd FLOPs per head, 4 s^2 x that width in all (hd without MLA).
    // With dropout the kernel also draws a random number per score element
    // (attention_dropout), in the forward and again in the backward.
    const int64_t width = (hd + v_hd) / 2;
    const hw::AttentionKernel kernel = t_.attention_kernel;
    const int64_t mb = t_.micro_batch, seq = t_.seq_len;
    const hw::Precision attn_prec = t_.fp8_attention ? hw::Precision::kFp8 : hw::Precision::kBf16;
    // All-to-all CP runs the whole sequence on heads_local / cp heads;
    // hierarchical CP (cp_a2a_size a) runs a ring over cp / a ranks, each
    // with seq / (cp / a) tokens of heads_local / a heads.
    const int64_t a2a_ways = p_.cp_a2a_ways();
    const bool a2a = a2a_ways > 1;
    const int64_t ring = cp / a2a_ways;
    const int64_t kernel_heads = heads_local / a2a_ways;
    auto flash = [&](int64_t s, bool causal, int64_t w, bool backward) {
      return backward ? cm_.attention_bwd(mb, s, kernel_heads, width, causal, w, kernel, attn_prec)
                      : cm_.attention_fwd(mb, s, kernel_heads, width, causal, w, kernel, attn_prec);
    };
    // Ring attention (the default, !cp_all_gather; Transformer Engine's
    // AttnFuncWithCPAndKVP2P) runs one kernel per ring step. Each of the
    // ring's r ranks holds two of the sequence's 2 r chunks (i and
    // 2 r - 1 - i, which balances the causal work): step 0 is its own two
    // chunks under the causal mask, a causal kernel over seq / r tokens;
    // each of the r - 1 later steps is a rectangle without a mask, seq / r
    // queries against seq / (2 r) keys or the reverse, timed here as half an
    // unmasked seq / r square (the compute model has square kernels only, so
    // half of one launch, and the H200's causal shortfall, go with it).
    // Kernels of seq / r tokens fill fewer waves than one over the whole
    // sequence, so this exceeds 1 / r of it. (TE's ring refuses a sliding
    // window, and the plan's checks with it; chunks that do not divide would
    // keep 1 / r of the whole.)
    const bool ring_steps =
        ring > 1 && !p_.cp_all_gather && m_.sliding_window == 0 && seq % (2 * ring) == 0;
    auto kernel_time = [&](int64_t w, bool backward) {
      const SimTime draws =
          m_.dropout ? cm_.attention_dropout(mb, seq, heads_local, true, w, backward) : SimTime::zero();
      if (ring_steps) {
        const int64_t block = seq / ring;
        return flash(block, true, 0, backward) + flash(block, false, 0, backward) * (ring - 1) / 2 + draws / cp;
      }
      if (a2a) return flash(seq, true, w, backward) + draws / cp;  // all-to-all over every CP rank
      return (flash(seq, true, w, backward) + draws) / cp;
    };
    attn_f = kernel_time(0, false);
    attn_b = kernel_time(0, true);
    if (ring_steps) ring_last_b = flash(seq / ring, false, 0, true) / 2;
    // A window shortens the kernel, not the casts below.
    if (m_.sliding_window > 0) {
      c.window_saving_fwd = attn_f - kernel_time(m_.sliding_window, false);
      c.window_saving_bwd = attn_b - kernel_time(m_.sliding_window, true);
    }
    if (t_.fp8_attention) {
      // Transformer Engine casts the kernel's 16-bit inputs to FP8 before it:
      // Q, K and V forward, the output gradient backward (no cast of the
      // kernels' outputs here; a ring's merges of them are cp_passes.h's,
      // GradMerge). Each cast reads the tensor and writes a byte an
      // element; current scaling, which NVFP4 training gives its attention
      // (NVTE_DPA_FP8_RECIPE), reads it once more for its amax first (taken
      // the same for MXFP4, whose attention recipe is not published).
      const bool amax_pass = tensorwise || prec == hw::Precision::kFp4;
      const double per_element = (amax_pass ? 2 : 1) * kActivationBytes + 1;
      const auto cast = [&](int64_t width_elems) {
        return cm_.memory_bound(Bytes(static_cast<int64_t>(static_cast<double>(T * width_elems) * per_element)));
      };
      const int64_t k_width = m_.mla() ? heads_local * hd : kv_local * hd;
      const int64_t v_width = m_.mla() ? heads_local * v_hd : kv_local * v_hd;
      attn_f += cast(heads_local * hd + k_width + v_width);
      attn_b += cast(heads_local * v_hd);
    }
    if (a2a) {
      // Each exchanged tensor laid out and reordered (cp_passes.h).
      const CpPasses passes = a2a_layout_passes(cm_, T * (heads_local * hd + kv_local * (hd + v_hd)),
                                                  T * heads_local * v_hd, cp_exchange_bytes_of(t_, p_, prec));
      outside_f += passes.forward;
      outside_b += passes.backward;
    }
    if (ring_steps) {
      // Its steps merged outside the kernels (cp_passes.h). After a
      // hierarchical all-to-all a rank holds seq / r tokens of heads / a
      // heads: as many elements as T tokens of all its heads.
      const CpPasses merges = ring_merges(cm_, {.out_elems = T * heads_local * v_hd,
                                                  .q_elems = T * heads_local * hd,
                                                  .k_elems = T * kv_local * hd,
                                                  .v_elems = T * kv_local * v_hd,
                                                  .cp = ring,
                                                  .causal = true,
                                                  .out_bytes = t_.fp8_attention ? 4 : 2,
                                                  .grads = grad_merge(t_.fp8_attention, attention_recipe(t_, prec))});
      outside_f += merges.forward;
      outside_b += merges.backward;
    }
    attn_f += outside_f;
    attn_b += outside_b;
  } else {
    // Unfused attention: per head, scores = Q K^T and context = P V as
    // GEMMs, with the s x s scores written, scaled-masked-softmaxed (and
    // dropped out) in memory between them. Backward: two GEMMs per forward
    // GEMM and the softmax/dropout gradients over the scores.
    const int64_t sq = t_.seq_len / cp, batches = t_.micro_batch * heads_local;
    const SimTime qk = cm_.gemm(sq, t_.seq_len, hd, prec), pv = cm_.gemm(sq, v_hd, t_.seq_len, prec);
    const int64_t score_bytes = batches * sq * t_.seq_len * kActivationBytes;
    const int64_t passes_fwd = m_.dropout ? 6 : 4;  // write; softmax read + write; dropout read + write + mask; read by P V
    using K = hw::ComputeModel::Kernel;
    const SimTime softmax = cm_.elementwise(K::kSoftmax, Bytes(score_bytes * 2)) +
                            (m_.dropout ? cm_.elementwise(K::kDropout, Bytes(score_bytes * 5 / 2)) : SimTime::zero());
    attn_f = (qk + pv) * batches + softmax + cm_.memory_bound(Bytes(score_bytes * (passes_fwd - 4)));
    attn_b = (qk + pv) * (2 * batches) + softmax * 2;
  }
  fwd += attn_f;
  bwd += attn_b;
  if (attention) {
    g_proj = gemm_fb(T, h, heads_local * v_hd, &fwd, &bwd);
    quantize(T, T_sp, h, heads_local * v_hd, In::kOther, false, &fwd, &bwd);  // attention output: its own cast
    adapter(T, h / tp, heads_local * v_hd, t_.lora_rank, &fwd, &bwd);
  }
  SimTime g_up, g_down;
  int64_t act_elems = with_mlp ? T * f : 0;  // the MLP activation's output, before TP
  // The up projection's input: the pre-MLP norm's, fused into it but in a
  // MoE layer, whose router needs the norm's output first.
  const Producer mlp_input = moe ? In::kOther : parallel ? In::kShared : In::kNorm;
  // An MLP of inner size `width` over all T tokens, split over TP: a dense
  // layer's, or the shared experts'.
  auto tp_mlp = [&](int64_t width) {
    g_up += gemm_fb(T, (m_.gated_mlp ? 2 : 1) * width / tp, h, &fwd, &bwd);
    g_down += gemm_fb(T, h, width / tp, &fwd, &bwd);
    quantize(T_sp, T, (m_.gated_mlp ? 2 : 1) * width / tp, h, mlp_input, t_.te_activation, &fwd, &bwd);
    // A parallel block's down projection takes the output gradient the
    // attention output projection's cast already quantized (and gathered).
    quantize(T, parallel ? 0 : T_sp, h, width / tp, activation, false, &fwd, &bwd);
  };
  // The forward of the MLP's GEMMs (and casts): a dense layer's, or the
  // router and routed experts', and the shared experts'.
  SimTime mlp_gemms, shared_gemms;
  const SimTime mlp_start = fwd;
  if (!with_mlp) {
  } else if (!moe) {
    tp_mlp(f);
    mlp_gemms = fwd - mlp_start;
  } else {
    // Each GPU's E/ep experts, split over expert TP, see the T_ep top_k
    // tokens it dispatches in all, balanced; the busiest rank, which sets
    // every rank's pace, expert_load_imbalance times that.
    const int64_t etp = p_.etp(), T_ep = expert_tokens();
    const int64_t own_copies = T_ep * m_.top_k;
    const int64_t received = at_busiest_rank(own_copies);
    const int64_t local_experts = std::max<int64_t>(1, m_.experts / p_.ep);
    const int64_t per_expert = std::max<int64_t>(1, received / local_experts);
    // The router's logits: Megatron-Core's RouterGatingLinearFunction calls
    // te_general_gemm on the 16-bit input and weight (an fp32 output under
    // --moe-router-dtype fp32), outside any FP8 recipe: a BF16 GEMM.
    {
      constexpr hw::Precision kRouter = hw::Precision::kBf16;
      fwd += cm_.gemm(T_ep, m_.experts, h, kRouter);
      bwd += cm_.gemm(T_ep, h, m_.experts, kRouter) +
             (frozen ? SimTime::zero() : cm_.gemm(h, m_.experts, T_ep, kRouter));
    }
    for (int64_t e = 0; e < local_experts; ++e) {
      g_up += gemm_fb(per_expert, (m_.gated_mlp ? 2 : 1) * f / etp, h, &fwd, &bwd);
      g_down += gemm_fb(per_expert, h, f / etp, &fwd, &bwd);
      // After the dispatch; the experts' activation is Megatron-Core's.
      quantize(per_expert, per_expert, (m_.gated_mlp ? 2 : 1) * f / etp, h, In::kOther, false, &fwd, &bwd);
      quantize(per_expert, per_expert, h, f / etp, In::kOther, false, &fwd, &bwd);
    }
    act_elems = at_busiest_rank(T * m_.top_k * f);
    // The dispatcher's token rearrangement (Megatron-Core
    // token_dispatcher.py), each a memory-bound kernel over 16-bit rows of
    // h. The alltoall dispatcher's "permutation 1" copies each of the T_ep
    // tokens once per expert it visits (reads T_ep rows, writes T_ep top_k)
    // and "unpermutation 1" sums them back, weighted by their probabilities
    // (the reverse); with several local experts the received rows are
    // sorted by expert before the experts and unsorted after
    // (sort_chunks_by_idxs, a read and a write of every row each). The
    // flex dispatcher receives each token once per rank holding any of its
    // experts (moe_routing.h: T_ep x ep x rank_hit rows) and permutes those
    // into one copy per local expert and back (DeepEP's manager calls
    // permute and unpermute; HybridEP's dispatch and combine run the same
    // rearrangement unless moe_permute_fusion_into_hybridep folds it into
    // the communication kernels). Their backwards move the same rows, and
    // the probabilities' gradient reads the copies once more. What a rank
    // receives is the busiest rank's (expert_load_imbalance); what the
    // alltoall dispatcher permutes before sending is its own tokens'.
    {
      const bool flex = p_.moe_dispatcher == MoeDispatcher::kFlex && p_.ep > 1 && m_.experts % p_.ep == 0;
      const int64_t rows =
          flex ? static_cast<int64_t>(std::llround(static_cast<double>(T_ep * p_.ep) *
                                                   token_spread(m_, {p_.ep}).rank_hit *
                                                   t_.expert_load_imbalance))
               : T_ep;
      const int64_t copies = flex ? received : own_copies;
      const auto pass = [&](int64_t rows_read, int64_t rows_written) {
        return cm_.memory_bound(Bytes((rows_read + rows_written) * h * kActivationBytes));
      };
      const SimTime sorts = !flex && local_experts > 1 ? pass(received, received) * 2 : SimTime::zero();
      fwd += pass(rows, copies) + pass(copies, rows) + sorts;
      bwd += pass(copies, rows) + pass(rows + copies, copies) + sorts;
    }
    mlp_gemms = fwd - mlp_start;
    if (m_.shared_experts > 0) {  // every token, one MLP of shared x ffn
      const SimTime shared_start = fwd;
      tp_mlp(m_.shared_experts * f);
      shared_gemms = fwd - shared_start;
      act_elems += T * m_.shared_experts * f;
    }
  }
  // Memory-bound kernels, each at its own measured rate: two norms (read +
  // write), two residual adds (two reads, one write), two dropouts (read,
  // write, a 1-byte mask) when the model has dropout (one of each in a
  // hybrid block), the MLP activation (SwiGLU reads gate and up, writes
  // one; GeLU reads one, writes one). A parallel block has one norm and
  // one residual add: its branches' partial outputs are summed in the
  // GEMMs (the down projection accumulating into the output projection's
  // result, or one GEMM over both), which its single reduce-scatter
  // needs, so only the residual is added after it.
  using K = hw::ComputeModel::Kernel;
  const int64_t norm_bytes = 2 * T_sp * h * kActivationBytes;
  const int64_t add_bytes = 3 * T_sp * h * kActivationBytes;
  const int64_t drop_bytes = T_sp * h * hw::ComputeModel::kDropoutBytesPerElement;
  const int64_t act_bytes = act_elems / tp * kActivationBytes * (m_.gated_mlp ? 3 : 2);
  const SimTime norm = cm_.elementwise(K::kNorm, Bytes(norm_bytes));
  const SimTime act = with_mlp ? cm_.elementwise(m_.gated_mlp ? K::kSiluMul : K::kGelu, Bytes(act_bytes))
                              : SimTime::zero();
  const int blocks = residual_blocks(kind);
  // A norm and a residual add a block; one of each in a parallel block.
  SimTime ew = (norm + cm_.elementwise(K::kResidualAdd, Bytes(add_bytes))) * m_.layer_norms(kind) + act + mixer_ew;
  if (t_.fp8_activation_input && with_mlp) {
    // The activation's input cast to FP8 as it is kept, and back before its
    // backward (TrainingSpec::fp8_activation_input).
    const SimTime store =
        cm_.memory_bound(Bytes(act_elems / tp * (m_.gated_mlp ? 2 : 1) * (kActivationBytes + 1)));
    fwd += store;
    bwd += store;
  }
  if (m_.dropout) ew += cm_.elementwise(K::kDropout, Bytes(drop_bytes)) * blocks;
  fwd += ew;
  bwd += ew * 2;

  // Model-parallel communication, timed alone on the network.
  const RankCoord rep{};
  SimTime fwd_comm, bwd_comm;
  SimTime mlp_comm;  // the MLP's share of the forward's
  const bool mixer = attention || mamba;
  const SimTime none = SimTime::zero();
  if (tp > 1) {
    const Bytes S(T * h * kActivationBytes);
    const auto group = layout_.tp_group(rep);
    // The GEMMs the mixer's gather and reduce-scatter pipeline with: a
    // parallel block's MLP GEMMs stand beside the mixer's (one gathered
    // input, one summed output).
    const SimTime first = parallel ? g_qkv + g_up : g_qkv, last = parallel ? g_proj + g_down : g_proj;
    if (p_.sequence_parallel) {
      // With tp_comm_overlap the layers' gathers and reduce-scatters run in
      // Transformer Engine's userbuffers, not NCCL's TP communicator; a
      // gather whose overlap is disabled is a plain NCCL call (below).
      const Communicator layer_comm = p_.tp_comm_overlap ? Communicator::kTpUserbuffers : Communicator::kTp;
      const SimTime ag_all = timer_(layer_comm, coll::Op::kAllGather, S, group);
      const SimTime rs_all = timer_(layer_comm, coll::Op::kReduceScatter, S, group);
      // The mixer's collectives (attention's or a Mamba-2 mixer's), if the
      // layer has one; the MLP's below.
      const SimTime ag = mixer ? ag_all : none, rs = mixer ? rs_all : none;
      // MLA projects the sequence-parallel tokens down first and gathers
      // the narrower latents (Megatron-LM's multi_latent_attention.py),
      // and the hidden states too when Q has no latent.
      const Bytes latents(T * m_.latent_width() * kActivationBytes);
      const bool hidden_too = m_.q_lora_rank == 0;
      const auto mixer_in = [&](Communicator c, coll::Op op, SimTime hidden) {
        return m_.mla() ? timer_(c, op, latents, group) + (hidden_too ? hidden : none) : hidden;
      };
      const SimTime ag_in = mixer_in(layer_comm, coll::Op::kAllGather, ag);
      const SimTime rs_in = mixer_in(layer_comm, coll::Op::kReduceScatter, rs);
      // A MoE layer whose experts are folded below TP takes each rank's own
      // tokens to the dispatch: its MLP gathers nothing, unless shared
      // experts (split over TP) need the whole sequence.
      // A parallel block's MLP reads the mixer's gathered input and adds to
      // its reduce-scatter: no collectives of its own.
      const bool mlp_gathers = with_mlp && !parallel && !(moe && p_.etp() < tp && m_.shared_experts == 0);
      const SimTime ag_mlp = mlp_gathers ? ag_all : none, rs_mlp = mlp_gathers ? rs_all : none;
      // With tp_comm_overlap each gather is pipelined with the GEMM after it,
      // but where its layer's overlap is disabled (a plain all-gather first).
      // A disabled gather is NCCL's own call, on the TP communicator.
      const auto ag_nccl = [&] { return timer_(Communicator::kTp, coll::Op::kAllGather, S, group); };
      const bool gather_disabled = p_.tp_comm_overlap_disable_qkv || (parallel && p_.tp_comm_overlap_disable_fc1);
      const SimTime ag_qkv_left = gather_disabled
                                      ? mixer_in(Communicator::kTp, coll::Op::kAllGather, mixer ? ag_nccl() : none)
                                      : zero_floor(ag_in - first);
      const SimTime ag_up_left =
          p_.tp_comm_overlap_disable_fc1 ? (mlp_gathers ? ag_nccl() : none) : zero_floor(ag_mlp - g_up);
      mlp_comm = p_.tp_comm_overlap ? ag_up_left + zero_floor(rs_mlp - g_down) : ag_mlp + rs_mlp;
      // Backward, the column-parallel GEMMs (the mixer's first, the MLP's up
      // projection) hide their collectives behind their data- and weight-
      // gradient GEMMs, each about its forward's time
      // (column_backward_exposed); a row-parallel GEMM needs its output
      // gradient gathered before its data gradient. A MoE layer's experts
      // are not such GEMMs (its dispatcher gathers, and reduce-scatters the
      // gradient, before and after them): its MLP's reduce-scatter is the
      // data gradient's, on the critical path, or behind the up projection
      // with TE's userbuffers, as before.
      // A frozen weight has no weight gradient to hide a reduce-scatter behind.
      const SimTime wgrad_qkv = frozen ? none : first, wgrad_up = frozen ? none : g_up;
      const SimTime mixer_bwd = column_backward_exposed(ag_in, rs_in, first, wgrad_qkv);
      const SimTime up_bwd = !moe ? column_backward_exposed(ag_mlp, rs_mlp, g_up, wgrad_up)
                             : p_.tp_comm_overlap ? zero_floor(rs_mlp - g_up)
                                                  : rs_mlp;
      if (p_.tp_comm_overlap) {
        fwd_comm = ag_qkv_left + zero_floor(rs - last) + ag_up_left + zero_floor(rs_mlp - g_down);
        bwd_comm = mixer_bwd + zero_floor(ag - last) + up_bwd + zero_floor(ag_mlp - g_down);
      } else {
        fwd_comm = ag_in + rs + ag_mlp + rs_mlp;
        bwd_comm = mixer_bwd + ag + up_bwd + ag_mlp;
      }
      if (amax_first) {
        // Current scaling and NVFP4: the amax of an input gathered over TP (the
        // mixer's first GEMM's, the MLP's) and, backward, of a gradient
        // gathered (the mixer's last GEMM's, the MLP's), all-reduced over
        // the group before its scale; the compute stream waits on each.
        const SimTime amax_ar = timer_(Communicator::kTp, coll::Op::kAllReduce, Bytes(4), group);
        // TE's GroupedLinear (the routed experts) reduces no amax.
        const bool mlp_te_linears = mlp_gathers && (!moe || m_.shared_experts > 0);
        const SimTime mixer_ar = mixer ? amax_ar : none, mlp_ar = mlp_te_linears ? amax_ar : none;
        fwd_comm += mixer_ar + mlp_ar;
        bwd_comm += mixer_ar + mlp_ar;
        mlp_comm += mlp_ar;
      }
    } else {
      const SimTime ar = timer_(Communicator::kTp, coll::Op::kAllReduce, S, group);
      const SimTime ar_mixer = mixer ? ar : none, ar_mlp = with_mlp && !parallel ? ar : none;
      fwd_comm = bwd_comm = p_.tp_comm_overlap ? zero_floor(ar_mixer - last) + zero_floor(ar_mlp - g_down)
                                               : ar_mixer + ar_mlp;
      mlp_comm = p_.tp_comm_overlap ? zero_floor(ar_mlp - g_down) : ar_mlp;
    }
    if (frozen && attention) {
      // NeMo's ParallelLinearAdapter (parallel_adapters.py) runs its own TP
      // collectives, plain NCCL calls the compute stream waits for, outside
      // Transformer Engine's userbuffers. The QKV adapter reads the norm
      // output TE has already gathered (TE's return_layernorm_output_gathered),
      // unless TE pipelines that gather into the QKV GEMM (tp_comm_overlap
      // without tp_comm_overlap_disable_qkv): then it gathers the norm output
      // again, and reduce-scatters its gradient. It gathers X A (A split r /
      // tp, gather_output) and, backward, all-reduces the gradient of X A
      // that B's split columns leave partial; without sequence parallelism
      // its input gradient (A's rows are whole, its columns split) is
      // all-reduced too. The output projection's adapter
      // all-reduces X A (A's rows split, row-parallel) and, backward, its
      // gradient; its B leaves T x h / tp on the rank, which goes back to the
      // base output's layout: with sequence parallelism an all-to-all to
      // T / tp x h each way under lora_all_to_all (NeMo's a2a_experimental),
      // else a gather of T x h forward and of the split gradient backward;
      // without it a gather forward, split backward.
      const Bytes R(T * t_.lora_rank * kActivationBytes);
      const SimTime ar_r = timer_(Communicator::kTp, coll::Op::kAllReduce, R, group);
      const SimTime ag_r = timer_(Communicator::kTp, coll::Op::kAllGather, R, group);
      const SimTime ag_s = timer_(Communicator::kTp, coll::Op::kAllGather, S, group);
      SimTime out_f = ag_s, out_b = p_.sequence_parallel ? ag_s : none;
      if (p_.sequence_parallel && t_.lora_all_to_all)
        out_f = out_b = timer_(Communicator::kTp, coll::Op::kAllToAll, Bytes(T * h / tp * kActivationBytes), group);
      const SimTime input_grad = p_.sequence_parallel ? none : timer_(Communicator::kTp, coll::Op::kAllReduce, S, group);
      const bool regathers = p_.sequence_parallel && p_.tp_comm_overlap && !p_.tp_comm_overlap_disable_qkv;
      const SimTime regather_f = regathers ? ag_s : none;
      const SimTime regather_b = regathers ? timer_(Communicator::kTp, coll::Op::kReduceScatter, S, group) : none;
      fwd_comm += ag_r + ar_r + out_f + regather_f;
      bwd_comm += ar_r * 2 + out_b + input_grad + regather_b;
    }
  }
  // The forward's exposed CP communication, which a replay of the attention
  // module (core-attention recomputation) runs again: TE's CP lives inside it.
  SimTime cp_forward;
  if (cp > 1 && attention) {
    // The all-to-all's ranks are consecutive CP ranks (a node's, with the
    // default order), the ring's every a2a_ways-th (Layout); the
    // representative is CP rank 0.
    const std::vector<uint32_t> a2a_group = layout_.cp_a2a_group(rep), ring_group = layout_.cp_ring_group(rep);
    const int64_t a2a_ways = p_.cp_a2a_ways(), ring = cp / a2a_ways;
    if (a2a_ways > 1) {
      // Each of Q, K, V and the output forward, and of their gradients
      // backward, is one all-to-all of what the rank holds of it.
      const CpExchangeBytes e = cp_exchange_bytes_of(t_, p_, gemm_precision());
      const auto a2a = [&](int64_t width, int64_t bytes) {
        return timer_(Communicator::kCp, coll::Op::kAllToAll, Bytes(T * width * bytes), a2a_group);
      };
      const auto qkv = [&](int64_t bytes) {
        return a2a(heads_local * hd, bytes) + a2a(kv_local * hd, bytes) + a2a(kv_local * v_hd, bytes);
      };
      cp_forward = qkv(e.qkv) + a2a(heads_local * v_hd, e.out);
      c.bwd_cp_comm = a2a(heads_local * v_hd, e.dout) + qkv(e.dqkv);
    }
    if (ring > 1) {
      // Ring attention: K and V of every ring rank (of its heads_local / a
      // heads) pass around the ring behind the attention kernels; backward
      // also returns their gradients. The all-gather is the ring's traffic,
      // in FP8 where FP8 attention quantized K and V before the ring (TE's
      // AttnFuncWithCPAndKVP2P; the all-gather of cp_all_gather in 16 bits).
      const int64_t elems = t_.micro_batch * t_.seq_len * kv_local / a2a_ways * (hd + v_hd);
      const int64_t kv_bytes = p_.cp_all_gather
                                   ? kActivationBytes
                                   : ring_exchange_bytes(t_.fp8_attention, attention_recipe(t_, gemm_precision()));
      const Bytes kv(elems * kv_bytes);
      const auto ag = [&] { return timer_(Communicator::kCp, coll::Op::kAllGather, kv, ring_group); };
      const auto rs = [&] { return timer_(Communicator::kCp, coll::Op::kReduceScatter, Bytes(elems * kActivationBytes), ring_group); };
      if (p_.cp_all_gather) {
        cp_forward += ag();
        c.bwd_cp_comm += ag() + rs();  // K/V gathered again for backward, their gradients reduce-scattered
      } else {
        // The ring's passes hide behind its kernels (not the passes outside them).
        cp_forward += zero_floor(ag() - (attn_f - outside_f));
        if (t_.fp8_attention) {
          // Under FP8 attention only K and V go around the ring backward; each
          // peer's accumulated dK and dV (FP8, a byte an element) go back in one
          // all-to-all at the last step, behind that step's kernel alone.
          const SimTime gradients = timer_(Communicator::kCp, coll::Op::kAllToAll, Bytes(elems), ring_group);
          c.bwd_cp_comm += zero_floor(ag() - (attn_b - outside_b)) + zero_floor(gradients - ring_last_b);
        } else {
          c.bwd_cp_comm += zero_floor(ag() + rs() - (attn_b - outside_b));
        }
      }
    }
    c.fwd_cp_comm = cp_forward;
  }
  if (!mamba_cp_widths.empty()) {
    // Megatron-Core runs them over the whole CP group in the compute stream:
    // nothing hides them. Backward sends their gradients the same ways.
    const std::vector<uint32_t> group = layout_.cp_group(rep);
    for (const int64_t w : mamba_cp_widths) {
      const SimTime a2a = timer_(Communicator::kCp, coll::Op::kAllToAll, Bytes(T * w * kActivationBytes), group);
      c.fwd_cp_comm += a2a;
      c.bwd_cp_comm += a2a;
    }
  }
  if (moe && p_.ep > 1) {
    c.fwd_all_to_alls = 2;  // dispatch and combine
    c.bwd_all_to_alls = 2;  // their gradients
  }
  c.fwd_compute = fwd;
  c.bwd_compute = bwd;
  c.fwd_comm = fwd_comm;
  c.bwd_comm = bwd_comm;

  // Selective recomputation's modules. The activation kernel runs once
  // over every MLP's inner activations; each module replays its share.
  const uint32_t mods = selective_modules(t_);
  const auto act_share = [&](int64_t elems) {
    return SimTime::from_seconds(act.seconds() * static_cast<double>(elems) / static_cast<double>(act_elems));
  };
  c.core_attn_fwd = attn_f;
  c.core_attn_cp_comm = cp_forward;
  if (mods & kRecomputeCoreAttn) {
    c.selective_fwd += c.core_attn_fwd;
    c.selective_cp_comm += c.core_attn_cp_comm;
  }
  // Transformer Engine fuses a norm into the GEMM after it (and keeps its
  // output) but for MLA's input norm and a MoE layer's pre-MLP norm.
  if (mods & kRecomputeLayernorm) c.selective_fwd += norm * standalone_norms(m_, moe);
  if (mods & kRecomputeMlaUpProj) c.selective_fwd += mla_up;
  if (with_mlp && !moe && (mods & kRecomputeMlp)) {
    c.selective_fwd += mlp_gemms + act;
    c.selective_comm += mlp_comm;
  }
  if (moe && (mods & kRecomputeMoe)) {
    c.selective_fwd += mlp_gemms + shared_gemms + act;
    c.selective_comm += mlp_comm;
    c.selective_all_to_alls = c.fwd_all_to_alls;
  } else if (moe) {
    if (mods & kRecomputeMoeAct) c.selective_fwd += act_share(at_busiest_rank(T * m_.top_k * f));
    if (mods & kRecomputeSharedExperts) c.selective_fwd += shared_gemms + act_share(T * m_.shared_experts * f);
  }
  return c;
}

// An unfused accumulation (TrainingSpec::fused_grad_accumulation false)
// reads the new gradient and the accumulated one and writes the sum, for
// every parameter of the chunk, after every micro-batch's backward but the
// first: autograd keeps the first gradient as it comes. Megatron's fp32
// main_grad buffer (grad_reduce_in_fp32), zeroed each iteration, takes the
// first one too. The additions are spread evenly over the m backward steps
// of the chunk. Under ZeRO-3 a micro-batch's gradients are reduce-scattered
// as they come and only a 1/DP shard is accumulated: left out.
SimTime StepCostModel::grad_accumulation(int64_t params) const {
  if (t_.fused_grad_accumulation || p_.zero_stage >= 3) return SimTime::zero();
  const int64_t m = t_.micro_batches(p_);
  const int64_t additions = p_.grad_reduce_in_fp32 ? m : m - 1;  // <= m, so m > 0 below
  if (additions <= 0) return SimTime::zero();
  // The GEMM's weight gradient is in the training dtype, even where the
  // weights are kept in FP8; the buffer it joins is the one data
  // parallelism reduces.
  const int64_t fresh = element_bytes(t_);
  const int64_t accumulated = reduced_grad_bytes(t_, p_);
  const double bytes = static_cast<double>(params) * static_cast<double>(fresh + 2 * accumulated) *
                       static_cast<double>(additions) / static_cast<double>(m);
  return cm_.elementwise(hw::ComputeModel::Kernel::kResidualAdd, Bytes(static_cast<int64_t>(bytes)));
}

StageCost StepCostModel::stage(int s) const {
  const hw::Precision prec = gemm_precision();
  const int v = p_.virtual_stages;
  const int64_t tp = p_.tp;
  const int64_t T = t_.micro_batch * t_.seq_len / p_.cp;
  const int64_t h = m_.hidden;
  StageCost out;
  out.activation_bytes = Bytes(T * h * kActivationBytes / tp);
  const bool frozen = t_.lora_rank > 0;  // LoRA: no weight gradient but the adapters'
  const RankCoord rep{};
  // The TP collectives of a vocabulary-parallel embedding lookup (a
  // reduction of its output) and of the output layer (its input gathered
  // under sequence parallelism, and backward gathered again and its
  // gradient reduce-scattered behind the output layer's GEMMs:
  // column_backward_exposed); the MTP modules run both again.
  SimTime embedding_comm, output_comm, output_rs;
  if (tp > 1) {
    const Bytes S(T * h * kActivationBytes);
    embedding_comm =
        timer_(Communicator::kTp, p_.sequence_parallel ? coll::Op::kReduceScatter : coll::Op::kAllReduce, S, layout_.tp_group(rep));
    if (p_.sequence_parallel) {
      output_comm = timer_(Communicator::kTp, coll::Op::kAllGather, S, layout_.tp_group(rep));
      output_rs = timer_(Communicator::kTp, coll::Op::kReduceScatter, S, layout_.tp_group(rep));
    }
  }
  for (int c = 0; c < v; ++c) {
    const LayerRange range = chunk_range(m_, p_, s, c);
    const int64_t n = range.count;
    const LayerCounts kinds = m_.layer_counts(range.first, n);
    // A field summed over the chunk's first layers, `c` of each kind.
    auto sum = [&](auto LayerCost::*field, const LayerCounts& c) {
      std::remove_cvref_t<decltype(kinds_[LayerKind::kDense].*field)> total{};
      for (LayerKind k : kAllLayerKinds) total += kinds_[k].*field * c[k];
      return total;
    };
    StepCost f{sum(&LayerCost::fwd_compute, kinds), SimTime::zero(), sum(&LayerCost::fwd_comm, kinds),
               sum(&LayerCost::fwd_cp_comm, kinds), sum(&LayerCost::fwd_all_to_alls, kinds)};
    StepCost b{sum(&LayerCost::bwd_compute, kinds), SimTime::zero(), sum(&LayerCost::bwd_comm, kinds),
               sum(&LayerCost::bwd_cp_comm, kinds), sum(&LayerCost::bwd_all_to_alls, kinds)};
    // Sliding-window layers' attention, the same in either kind of layer.
    const LayerCost& dense = kinds_[LayerKind::kDense];
    const SimTime window_f = dense.window_saving_fwd, window_b = dense.window_saving_bwd;
    const auto sliding = [&](int64_t count) { return m_.sliding_layers_in(range.first, count); };
    f.compute -= window_f * sliding(n);
    b.compute -= window_b * sliding(n);
    if (t_.recompute == Recompute::kFull) {
      // The first r layers of the chunk (training.recompute_layers).
      const int64_t r = recomputed_layers(t_, n);
      const LayerCounts replayed = m_.layer_counts(range.first, r);
      b.recompute = sum(&LayerCost::fwd_compute, replayed) - window_f * sliding(r);
      b.tp_comm += sum(&LayerCost::fwd_comm, replayed);
      b.cp_comm += sum(&LayerCost::fwd_cp_comm, replayed);
      if (t_.recompute_keeps_attention) {
        // The kernel, window and all, is not replayed.
        b.recompute -= sum(&LayerCost::core_attn_fwd, replayed) - window_f * sliding(r);
        b.cp_comm -= sum(&LayerCost::core_attn_cp_comm, replayed);
      }
      b.ep_all_to_alls += sum(&LayerCost::fwd_all_to_alls, replayed);
    } else if (t_.recompute == Recompute::kSelective) {
      b.recompute = sum(&LayerCost::selective_fwd, kinds) -
                    (selective_modules(t_) & kRecomputeCoreAttn ? window_f * sliding(n) : SimTime::zero());
      b.tp_comm += sum(&LayerCost::selective_comm, kinds);
      b.cp_comm += sum(&LayerCost::selective_cp_comm, kinds);
      b.ep_all_to_alls += sum(&LayerCost::selective_all_to_alls, kinds);
    }
    b.compute += b.recompute;
    const bool first = s == 0 && c == 0;
    const bool last = s == p_.pp - 1 && c == v - 1;
    const bool mtp = holds_mtp(m_, p_, s, c);
    const int64_t n_mtp = m_.mtp_layers;
    // Vocabulary-parallel embedding lookup, then a TP reduction of its output.
    const SimTime lookup = cm_.memory_bound(Bytes(2 * T * h * kActivationBytes));
    if (first) {
      f.compute += lookup;
      // A frozen table takes no gradient, nor does its output need one.
      b.compute += frozen ? SimTime::zero() : lookup * 2;
      f.tp_comm += embedding_comm;
      b.tp_comm += frozen ? SimTime::zero() : embedding_comm;
    }
    if (last) {
      // Output layer (V / tp logits per token) and the cross-entropy loss
      // over them, once for the model and once for each MTP module (here
      // even when the modules run on another stage, as Megatron-LM computes
      // their loss in the output layer's stage).
      const int64_t V = m_.vocab;
      const int64_t logits = T * (V / tp);
      const CrossEntropyBytes ce = cross_entropy_bytes(t_.cross_entropy);
      const SimTime loss_f = cm_.memory_bound(Bytes(logits * ce.forward));
      const SimTime loss_b = cm_.memory_bound(Bytes(logits * ce.backward));
      const SimTime head_f = cm_.gemm(T, V / tp, h, prec) + loss_f;
      const SimTime dgrad = cm_.gemm(T, h, V / tp, prec);
      const SimTime wgrad = frozen ? SimTime::zero() : cm_.gemm(h, V / tp, T, prec);
      const SimTime head_b = dgrad + wgrad + loss_b;
      f.compute += head_f * (1 + n_mtp);
      b.compute += head_b * (1 + n_mtp);
      f.tp_comm += output_comm * (1 + n_mtp);
      b.tp_comm += column_backward_exposed(output_comm, output_rs, dgrad, wgrad) * (1 + n_mtp);
    }
    if (mtp) {
      // Each multi-token-prediction module: the next tokens' embedding
      // lookup, a 2h -> h projection (split over TP) and one layer of the
      // model's last kind. Not recomputed.
      const LayerCost& layer = kinds_[m_.mtp_moe() ? LayerKind::kMoe : LayerKind::kDense];
      const SimTime proj_f = cm_.gemm(T, h / tp, 2 * h, prec);
      const SimTime proj_b =
          cm_.gemm(T, 2 * h, h / tp, prec) + (frozen ? SimTime::zero() : cm_.gemm(2 * h, h / tp, T, prec));
      f.compute += (lookup + proj_f + layer.fwd_compute) * n_mtp;
      b.compute += (lookup * 2 + proj_b + layer.bwd_compute) * n_mtp;
      f.tp_comm += (embedding_comm + layer.fwd_comm) * n_mtp;
      b.tp_comm += (embedding_comm + layer.bwd_comm) * n_mtp;
      f.cp_comm += layer.fwd_cp_comm * n_mtp;
      b.cp_comm += layer.bwd_cp_comm * n_mtp;
      f.ep_all_to_alls += layer.fwd_all_to_alls * n_mtp;
      b.ep_all_to_alls += layer.bwd_all_to_alls * n_mtp;
    }
    // What the chunk trains: all it holds, or under LoRA its adapters.
    const GpuParams held = trained_chunk_params(m_, p_, t_, s, c);
    b.compute += grad_accumulation(held.total());
    out.forward.push_back(f);
    out.backward.push_back(b);
    out.chunk_params.push_back(held.total());
    out.chunk_expert_params.push_back(held.experts);
    out.chunk_layers.push_back(n);
    SimTime casts;
    if (!fp8_weights(t_, p_)) {
      const double elems = static_cast<double>(chunk_params(m_, p_, range, false, false, false).total());
      const bool one_layout = prec == hw::Precision::kFp8 && cm_.accelerator().arch.fp8_gemm_any_layout;
      casts = cm_.cast_from_16bit(elems, one_layout ? 1 : 2, prec);
    }
    out.weight_casts.push_back(casts);
  }
  return out;
}

}  // namespace anatomy::workload
