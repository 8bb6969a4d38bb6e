#include "workload/edge_model.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "workload/cp_passes.h"
#include "workload/flops.h"
#include "workload/model.h"

namespace anatomy::workload {
namespace {

using core::SimTime;
using K = hw::ComputeModel::Kernel;

ModelOp gemm(std::string name, int64_t m, int64_t n, int64_t k, int64_t repeat, int64_t params) {
  ModelOp op;
  op.name = std::move(name);
  op.m = m, op.n = n, op.k = k, op.repeat = repeat, op.params = params;
  return op;
}

// A convolution as its implicit GEMM, with its batch norm's scale and shift.
ModelOp conv(std::string name, int64_t cin, int64_t cout, int64_t kernel, int64_t out_hw) {
  ModelOp op = gemm(std::move(name), out_hw * out_hw, cout, cin * kernel * kernel, 1, cin * cout * kernel * kernel + 2 * cout);
  op.passes = {{K::kNorm, 2}, {K::kStream, 2}};  // batch norm and ReLU, each a read and a write
  return op;
}

ModelOp with_passes(ModelOp op, std::vector<ModelOp::Passes> passes) {
  op.passes = std::move(passes);
  return op;
}

EdgeModel resnet50() {
  EdgeModel m;
  m.name = "resnet-50";
  m.description = "ResNet-50 v1.5 at 224x224 (He et al. 2015, Table 1; stride on the 3x3 convolution as torchvision)";
  m.sample = "224x224 image";
  m.ops.push_back(conv("stem 7x7/2", 3, 64, 7, 112));
  int64_t hw = 56, cin = 64;
  const int64_t widths[] = {64, 128, 256, 512}, blocks[] = {3, 4, 6, 3}, strides[] = {1, 2, 2, 2};
  for (int s = 0; s < 4; ++s) {
    for (int64_t b = 0; b < blocks[s]; ++b) {
      const int64_t out = b == 0 ? hw / strides[s] : hw, w = widths[s];
      const std::string at = fmt::format("stage {} block {}", s + 1, b + 1);
      m.ops.push_back(conv(at + " 1x1 reduce", cin, w, 1, hw));
      m.ops.push_back(conv(at + " 3x3", w, w, 3, out));
      m.ops.push_back(conv(at + " 1x1 expand", w, 4 * w, 1, out));
      if (b == 0) m.ops.push_back(conv(at + " downsample", cin, 4 * w, 1, out));
      cin = 4 * w;
      hw = out;
    }
  }
  ModelOp fc = gemm("classifier", 1, 1000, 2048, 1, 2048 * 1000 + 1000);
  fc.head = true;
  m.ops.push_back(fc);
  return m;
}

EdgeModel vit_b16() {
  EdgeModel m;
  m.name = "vit-b16";
  m.description = "ViT-B/16 at 224x224 (Dosovitskiy et al. 2020, Table 1: 12 layers, hidden 768, MLP 3072, 12 heads)";
  m.sample = "224x224 image";
  const int64_t h = 768, ffn = 3072, tokens = 197, layers = 12, heads = 12;
  m.ops.push_back(gemm("patch embedding 16x16", 196, h, 3 * 16 * 16, 1, 3 * 16 * 16 * h + h));
  m.extra_params = h + tokens * h + 2 * h;  // class token, position table, final LayerNorm
  ModelOp qkv = gemm("qkv", tokens, 3 * h, h, layers, h * 3 * h + 3 * h + 2 * h);  // with the layer's first LayerNorm
  qkv.adaptable = true;
  qkv.passes = {{K::kNorm, 1}};  // the LayerNorm before it (over h of the 3h columns' rows)
  ModelOp out = gemm("attention out", tokens, h, h, layers, h * h + h);
  out.adaptable = true;
  out.passes = {{K::kResidualAdd, 3}};  // two reads, one write
  ModelOp attn;
  attn.kind = ModelOp::kAttention;
  attn.name = "attention core";
  attn.m = tokens, attn.heads = heads, attn.head_dim = h / heads, attn.repeat = layers;
  attn.qkv_width = 3 * h, attn.out_width = h;
  attn.q_width = h, attn.k_width = h, attn.kv_heads = heads;
  m.ops.push_back(qkv);
  m.ops.push_back(attn);
  m.ops.push_back(out);
  // GELU, and the second LayerNorm; then the residual add.
  m.ops.push_back(with_passes(gemm("mlp up", tokens, ffn, h, layers, h * ffn + ffn + 2 * h), {{K::kGelu, 2}, {K::kNorm, 1}}));
  m.ops.push_back(with_passes(gemm("mlp down", tokens, h, ffn, layers, ffn * h + h), {{K::kResidualAdd, 3}}));
  ModelOp head = gemm("classifier", 1, 1000, h, 1, h * 1000 + 1000);
  head.head = true;
  m.ops.push_back(head);
  return m;
}

}  // namespace

// A decoder-only transformer (model.h) on sequences of `seq` tokens: the
// shapes workload/flops.h counts, LoRA on the attention projections.
EdgeModel from_transformer(const ModelSpec& t, int64_t seq) {
  EdgeModel m;
  m.name = t.name;
  m.description = t.description;
  m.sample = fmt::format("{} tokens", seq);
  m.seq = seq;
  const int64_t h = t.hidden, q = t.q_width(), o = t.out_width();
  const int64_t l = t.layers, l_moe = t.moe_layers();
  if (!t.mla()) {
    const int64_t qkv_w = q + t.k_width() + t.v_width();
    ModelOp qkv = gemm("qkv", seq, qkv_w, h, l, h * qkv_w);
    qkv.adaptable = true;
    m.ops.push_back(qkv);
  } else {
    // Down to the latents (and Q from h when it has none), then up.
    const int64_t ql = t.q_lora_rank, kl = t.kv_lora_rank, latent = t.latent_width();
    m.ops.push_back(gemm("qkv down", seq, latent, h, l, h * latent));
    ModelOp q_up = gemm(ql > 0 ? "q up" : "q", seq, q, ql > 0 ? ql : h, l, (ql > 0 ? ql : h) * q);
    const int64_t kv_w = t.heads * (t.qk_nope_head_dim + t.v_head_dim);
    ModelOp kv_up = gemm("kv up", seq, kv_w, kl, l, kl * kv_w);
    q_up.adaptable = kv_up.adaptable = true;
    m.ops.push_back(q_up);
    m.ops.push_back(kv_up);
  }
  ModelOp attn;
  attn.kind = ModelOp::kAttention;
  attn.name = "attention core";
  // One head width (hd + v_hd) / 2 counts Q K^T and P V's FLOPs exactly (hd without MLA).
  attn.m = seq, attn.heads = t.heads, attn.head_dim = (t.head_dim() + t.value_head_dim()) / 2, attn.causal = true;
  attn.qkv_width = q + t.k_width() + t.v_width(), attn.out_width = o;
  attn.q_width = q, attn.k_width = t.k_width(), attn.kv_heads = t.mla() ? t.heads : t.kv_heads;
  attn.repeat = l;
  // Sliding-window layers (GPT-OSS's even ones) run their own, windowed kernel.
  const int64_t sliding = t.sliding_layers_in(0, l);
  if (sliding < l) {
    attn.repeat = l - sliding;
    m.ops.push_back(attn);
  }
  if (sliding > 0) {
    attn.name = "attention core (sliding window)";
    attn.window = t.sliding_window;
    attn.repeat = sliding;
    m.ops.push_back(attn);
  }
  ModelOp out = gemm("attention out", seq, h, o, l, o * h);
  out.adaptable = true;
  out.passes = {{K::kResidualAdd, 3}, {K::kNorm, 2}};  // residual add, and the norm before the MLP
  m.ops.push_back(out);
  // The gated activation reads both halves and writes one; the residual add and the next layer's norm.
  // `ffn` wide as a token's rows see it; `stored_ffn`, when given, the
  // width of the weights behind it (every expert), which a step casts.
  auto mlp = [&](const char* up_name, const char* down_name, int64_t ffn, int64_t layers, int64_t stored_ffn = 0) {
    const int64_t gate = t.gated_mlp ? 2 : 1, up = gate * ffn;
    ModelOp up_op = with_passes(gemm(up_name, seq, up, h, layers, h * up),
                                {{t.gated_mlp ? K::kSiluMul : K::kGelu, t.gated_mlp ? 2 : 3}});
    ModelOp down_op =
        with_passes(gemm(down_name, seq, h, ffn, layers, ffn * h), {{K::kResidualAdd, 3}, {K::kNorm, 2}});
    if (stored_ffn > 0) up_op.weight_elems = h * gate * stored_ffn, down_op.weight_elems = stored_ffn * h;
    m.ops.push_back(up_op);
    m.ops.push_back(down_op);
  };
  if (l > l_moe) mlp("mlp up", "mlp down", t.dense_ffn(), l - l_moe);
  if (l_moe > 0) {  // the router, then the top_k and shared experts a token visits
    m.ops.push_back(gemm("router", seq, t.experts, h, l_moe, h * t.experts));
    mlp("experts up", "experts down", t.ffn_hidden * (t.top_k + t.shared_experts), l_moe,
        t.ffn_hidden * (t.experts + t.shared_experts));
  }
  ModelOp logits = gemm("logits", seq, t.vocab, h, 1, 0);
  logits.head = true;
  m.ops.push_back(logits);
  int64_t counted = 0;
  for (const ModelOp& op : m.ops) counted += op.params * op.repeat;
  m.extra_params = t.params() - counted;  // embeddings (and the output layer), norms, MoE experts not visited
  return m;
}

namespace {

// Llama 2 70B (Touvron et al. 2023; the released config: 80 layers, hidden
// 8192, 64 heads, 8 KV heads, SwiGLU 28672, vocabulary 32000, untied), the
// model MLPerf Training's LoRA benchmark fine-tunes; the transformer presets
// (model.h) have Llama 3 70B, whose vocabulary is four times larger.
ModelSpec llama2_70b() {
  ModelSpec m;
  m.name = "llama2-70b";
  m.description = "Llama 2 70B (Touvron et al. 2023, the released configuration)";
  m.layers = 80, m.hidden = 8192, m.heads = 64, m.kv_heads = 8, m.ffn_hidden = 28672, m.vocab = 32000;
  m.gated_mlp = true, m.layernorm = false, m.dropout = false;
  return m;
}

double op_flops(const ModelOp& op) {
  if (op.kind == ModelOp::kAttention) {
    // Counted as workload/flops.h counts a layer's attention core; a ring
    // shares it evenly among its accelerators.
    return 4.0 * static_cast<double>(op.m) * attended_keys(op.m, op.window) * op.heads * op.head_dim * op.repeat /
           static_cast<double>(op.ring);
  }
  return 2.0 * op.m * op.n * op.k * op.repeat;
}

double adapter_flops(const ModelOp& op, int rank) {  // forward x A, (x A) B; backward twice that
  return 3.0 * 2.0 * op.m * rank * (op.k + op.n) * op.repeat;
}

SimTime passes_time(const ModelOp& op, int64_t batch, const hw::ComputeModel& c) {
  SimTime t;
  for (const ModelOp::Passes& p : op.passes)
    if (p.passes > 0) t += c.elementwise(p.kernel, core::Bytes(op.m * batch * op.n * 2 * p.passes));
  return t * op.repeat;
}

// The cast of a product's `width`-wide operand (X: k, dY: n) before it.
SimTime cast_time(const ModelOp& op, int64_t width, int64_t batch, const hw::ComputeModel& c, hw::Precision p) {
  return c.cast_from_16bit(static_cast<double>(op.m * batch) * static_cast<double>(width), 1, p) * op.repeat;
}

// A training step's cast of a product's weights (W[k,n], or every expert
// behind it), once a step (Transformer Engine casts on a step's first
// micro-batch, frozen weights as well: nothing tells it they do not
// change). Where the backward reads W transposed (dX, `transposed`), both
// layouts unless the part's FP8 GEMMs take either (workload/step_cost.cc);
// NVFP4's block scales run along k, so it then always writes both.
SimTime weight_cast_time(const ModelOp& op, const hw::ComputeModel& c, hw::Precision p, bool transposed) {
  if (op.kind != ModelOp::kGemm) return SimTime::zero();
  const bool one_layout = !transposed || (p == hw::Precision::kFp8 && c.accelerator().arch.fp8_gemm_any_layout);
  const double elems =
      op.weight_elems > 0 ? static_cast<double>(op.weight_elems) : static_cast<double>(op.k) * static_cast<double>(op.n);
  return c.cast_from_16bit(elems, one_layout ? 1 : 2, p) * op.repeat;
}

// An attention op's kernels, forward or backward: one over the sequence,
// or under context parallelism the ring's (split_sequence). At FP8 each
// accelerator first casts its seq / ring tokens' Q, K and V (forward) or
// output gradient (backward): a 2-byte read and a 1-byte write an element.
SimTime attention_time(const ModelOp& op, int64_t batch, const hw::ComputeModel& c, bool backward,
                       hw::Precision attn) {
  const auto kernel = [&](int64_t seq, bool causal, int64_t window) {
    const hw::AttentionKernel k = hw::AttentionKernel::kFlash;
    return backward ? c.attention_bwd(batch, seq, op.heads, op.head_dim, causal, window, k, attn)
                    : c.attention_fwd(batch, seq, op.heads, op.head_dim, causal, window, k, attn);
  };
  const int64_t width = backward ? op.out_width : op.qkv_width;
  SimTime t = c.cast_from_16bit(static_cast<double>(op.m / op.ring * batch * width), 1, attn);
  // All-to-all context parallelism lays each exchanged tensor out and
  // reorders it (cp_passes.h).
  const bool fp8 = attn == hw::Precision::kFp8;
  if (op.a2a > 1) {
    const CpPasses passes = a2a_layout_passes(c, op.m * batch * op.qkv_width, op.m * batch * op.out_width,
                                              cp_exchange_bytes(fp8, kEdgeAttentionRecipe));
    t += backward ? passes.backward : passes.forward;
  }
  if (op.ring <= 1) return (t + kernel(op.m, op.causal, op.window)) * op.repeat;
  const int64_t block = op.m / op.ring;
  // The steps merged outside the kernels (cp_passes.h).
  const int64_t tokens = block * batch;
  const CpPasses merges = ring_merges(c, {.out_elems = tokens * op.out_width,
                                            .q_elems = tokens * op.q_width,
                                            .k_elems = tokens * op.k_width,
                                            .v_elems = tokens * (op.qkv_width - op.q_width - op.k_width),
                                            .cp = op.ring,
                                            .causal = op.causal,
                                            .out_bytes = fp8 ? 4 : 2,
                                            .grads = grad_merge(fp8, kEdgeAttentionRecipe)});
  const SimTime merge = backward ? merges.backward : merges.forward;
  // Without a mask nothing needs balancing: each of the ring's steps is a
  // block against another block, all of it computed.
  if (!op.causal) return (t + merge + kernel(block, false, 0) * op.ring) * op.repeat;
  return (t + merge + kernel(block, true, 0) + kernel(block, false, 0) * (op.ring - 1) / 2) * op.repeat;
}

SimTime op_forward(const ModelOp& op, int64_t batch, const hw::ComputeModel& c, hw::Precision p,
                   hw::Precision attn = hw::Precision::kBf16) {
  if (op.kind == ModelOp::kAttention) return attention_time(op, batch, c, false, attn);
  return c.gemm(op.m * batch, op.n, op.k, p) * op.repeat + passes_time(op, batch, c) + cast_time(op, op.k, batch, c, p);
}

}  // namespace

const char* to_string(FineTune f) {
  switch (f) {
    case FineTune::kFull: return "full";
    case FineTune::kFrozenBackbone: return "frozen_backbone";
    case FineTune::kLora: return "lora";
  }
  return "?";
}

int64_t EdgeModel::params() const {
  int64_t n = extra_params;
  for (const ModelOp& op : ops) n += op.params * op.repeat;
  return n;
}

double EdgeModel::forward_flops() const {
  double f = 0;
  for (const ModelOp& op : ops) f += op_flops(op);
  return f;
}

double EdgeModel::train_flops(FineTune mode, int lora_rank) const {
  double f = forward_flops();
  for (const ModelOp& op : ops) {
    switch (mode) {
      case FineTune::kFull: f += 2 * op_flops(op); break;
      case FineTune::kFrozenBackbone: f += op.head ? op_flops(op) : 0; break;  // its weight gradient only
      case FineTune::kLora:
        // Activation gradients through every product; attention's backward
        // is its whole backward (dQ, dK, dV), twice its forward, as in
        // workload/flops.h.
        f += op.kind == ModelOp::kAttention ? 2 * op_flops(op) : op_flops(op);
        if (op.adaptable) f += adapter_flops(op, lora_rank);
        break;
    }
  }
  return f;
}

int64_t EdgeModel::trainable_params(FineTune mode, int lora_rank) const {
  int64_t n = 0;
  for (const ModelOp& op : ops) {
    if (mode == FineTune::kFull) n += op.params * op.repeat;
    else if (mode == FineTune::kFrozenBackbone && op.head) n += op.params * op.repeat;
    else if (mode == FineTune::kLora && op.adaptable) n += int64_t{lora_rank} * (op.k + op.n) * op.repeat;
  }
  return mode == FineTune::kFull ? n + extra_params : n;
}

const std::vector<EdgeModel>& edge_model_presets() {
  static const std::vector<EdgeModel> presets = {resnet50(), vit_b16()};
  return presets;
}

EdgeModel find_edge_model(std::string_view name, int64_t seq_len) {
  for (const EdgeModel& m : edge_model_presets())
    if (m.name == name) return m;
  if (name == "llama2-70b") return from_transformer(llama2_70b(), seq_len);
  for (const ModelSpec& t : model_presets()) {
    if (t.name != name) continue;
    // Its layers are not all attention and an MLP (model.h).
    if (t.hybrid())
      throw core::InputError({"", 0, "model"},
                             fmt::format("{} is a hybrid Mamba-2/attention model; an edge site runs transformers "
                                         "and the vision presets only",
                                         name));
    return from_transformer(t, seq_len);
  }
  std::string names;
  for (const EdgeModel& m : edge_model_presets()) names += (names.empty() ? "" : ", ") + m.name;
  names += ", llama2-70b";
  for (const ModelSpec& t : model_presets()) names += ", " + t.name;
  throw core::InputError({"", 0, "model"}, fmt::format("unknown model '{}' (known: {})", name, names));
}

const char* to_string(CpComm c) { return c == CpComm::kAllToAll ? "all_to_all" : "ring"; }

std::vector<core::Bytes> cp_all_to_all_bytes(const ModelOp& op, int64_t batch, int64_t element_bytes) {
  if (op.kind != ModelOp::kAttention || op.a2a <= 1) return {};
  // This accelerator's share of the heads over the whole sequence, which is
  // what it held of every head over its own tokens.
  const auto bytes = [&](int64_t width) { return core::Bytes(op.m * batch * width * element_bytes); };
  return {bytes(op.q_width), bytes(op.k_width), bytes(op.qkv_width - op.q_width - op.k_width), bytes(op.out_width)};
}

EdgeModel split_sequence(const EdgeModel& m, int cp, CpComm comm) {
  if (cp == 1) return m;
  const auto fail = [](const std::string& why) {
    throw core::InputError({"", 0, "edge.retrain.context_parallel"}, why);
  };
  if (cp < 1) fail(fmt::format("must be at least 1 (got {})", cp));
  if (m.seq == 0) fail(fmt::format("{} is not a sequence model; context parallelism splits a transformer's tokens", m.name));
  if (m.seq % (2 * cp) != 0)
    fail(fmt::format("{} splits the {} tokens of a sample into {} chunks (two an accelerator); they do not divide",
                     cp, m.seq, 2 * cp));
  EdgeModel out = m;
  out.sample = fmt::format("{} tokens of {} (context parallel {}{})", m.seq / cp, m.seq, cp,
                           comm == CpComm::kAllToAll ? ", all-to-all" : "");
  for (ModelOp& op : out.ops) {
    if (op.kind == ModelOp::kGemm) {
      op.m /= cp;  // every product of a transformer is one row a token
    } else if (comm == CpComm::kAllToAll) {
      if (op.heads % cp != 0 || op.kv_heads % cp != 0)
        fail(fmt::format("{} splits {}'s {} heads ({} KV heads) over all-to-all context parallelism; they do not "
                         "divide",
                         cp, m.name, op.heads, op.kv_heads));
      op.heads /= cp;
      op.kv_heads /= cp;
      op.qkv_width /= cp;
      op.out_width /= cp;
      op.q_width /= cp;
      op.k_width /= cp;
      op.a2a = cp;
    } else {
      if (op.window > 0)
        fail(fmt::format("{} has sliding-window attention, which Transformer Engine's ring attention does not run",
                         m.name));
      op.ring = cp;
    }
  }
  return out;
}

SimTime inference_time(const EdgeModel& m, int64_t batch, const hw::ComputeModel& c, hw::Precision p) {
  SimTime t;
  for (const ModelOp& op : m.ops) t += op_forward(op, batch, c, p);
  return t;
}

bool backward_through_inputs(FineTune f) { return f == FineTune::kFull || f == FineTune::kLora; }

int64_t recomputed_repeats(const ModelOp& op, int64_t recompute_layers) {
  return recompute_layers > 0 && op.repeat > 1 ? std::min(recompute_layers, op.repeat) : 0;
}

SimTime train_step_time(const EdgeModel& m, FineTune mode, int lora_rank, int64_t batch, const hw::ComputeModel& c,
                        hw::Precision p, const TrainStepOptions& options) {
  const hw::Precision attn = options.fp8_attention ? hw::Precision::kFp8 : hw::Precision::kBf16;
  const int64_t recompute_layers = options.recompute_layers;
  // Only the full and LoRA modes take dX through the frozen or trained
  // weights; a recomputed forward reuses the step's cast weights.
  const bool dx = backward_through_inputs(mode);
  SimTime t;
  for (const ModelOp& op : m.ops)
    t += (options.quantized_weights ? SimTime::zero() : weight_cast_time(op, c, p, dx)) +
         op_forward(op, batch, c, p, attn);
  for (const ModelOp& op : m.ops) {
    if (const int64_t replayed = recomputed_repeats(op, recompute_layers))
      t += op_forward(op, batch, c, p, attn) * replayed / op.repeat;
    const bool weights = mode == FineTune::kFull || (mode == FineTune::kFrozenBackbone && op.head);
    const bool inputs = dx;
    if (op.kind == ModelOp::kAttention) {
      if (inputs) t += attention_time(op, batch, c, true, attn);
      continue;
    }
    if (inputs || weights) t += cast_time(op, op.n, batch, c, p);  // dY, once for both products
    if (inputs) t += c.gemm(op.m * batch, op.k, op.n, p) * op.repeat + passes_time(op, batch, c) * 2;  // dX = dY W^T
    if (weights) t += c.gemm(op.k, op.n, op.m * batch, p) * op.repeat;  // dW = X^T dY
    if (mode == FineTune::kLora && op.adaptable) {
      // The adapters' thin products run in 16 bits (NeMo's adapters are not
      // FP8 modules), their backward twice their forward.
      constexpr hw::Precision kAdapter = hw::Precision::kBf16;
      t += (c.gemm(op.m * batch, lora_rank, op.k, kAdapter) + c.gemm(op.m * batch, op.n, lora_rank, kAdapter)) *
           (3 * op.repeat);
      if (options.lora_dropout) {  // forward and backward, one pass each
        const core::Bytes bytes(op.m * batch * op.k * hw::ComputeModel::kDropoutBytesPerElement);
        t += c.elementwise(hw::ComputeModel::Kernel::kDropout, bytes) * (2 * op.repeat);
      }
    }
  }
  return t + c.optimizer_step(m.trainable_params(mode, lora_rank));
}

}  // namespace anatomy::workload
