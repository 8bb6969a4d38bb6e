#include "workload/training.h"

#include <algorithm>

#include <fmt/format.h>

#include "coll/library_model.h"
#include "core/error.h"

namespace anatomy::workload {

int ctas_for(const CommunicatorCtas& ctas, Communicator c) {
  switch (c) {
    case Communicator::kTp: return ctas.tp;
    case Communicator::kCp: return ctas.cp;
    case Communicator::kDp: return ctas.dp;
    case Communicator::kEp: return ctas.ep;
    case Communicator::kTpUserbuffers:
    case Communicator::kExpertDp: return 0;
  }
  return 0;
}

const char* to_string(CrossEntropy c) {
  switch (c) {
    case CrossEntropy::kMegatron: return "megatron";
    case CrossEntropy::kMegatronFused: return "megatron_fused";
    case CrossEntropy::kFused: return "fused";
  }
  return "?";
}

const char* to_string(RankOrder o) { return o == RankOrder::kTpCpPpDp ? "tp-cp-pp-dp" : "tp-cp-dp-pp"; }

const char* to_string(Fp8Recipe r) {
  switch (r) {
    case Fp8Recipe::kDelayed: return "delayed";
    case Fp8Recipe::kTensorwise: return "tensorwise";
    case Fp8Recipe::kMxfp8: return "mxfp8";
    case Fp8Recipe::kBlockwise: return "blockwise";
  }
  return "?";
}

CrossEntropyBytes cross_entropy_bytes(CrossEntropy c) {
  switch (c) {
    case CrossEntropy::kMegatron: return {2 + 4 + 4 + 8 + 8 + 4 + 8, 8 + 6};
    case CrossEntropy::kMegatronFused: return {6 + 8 + 8, 10};
    case CrossEntropy::kFused: return {2, 4};
  }
  return {0, 0};
}

const char* to_string(Recompute r) {
  switch (r) {
    case Recompute::kNone: return "none";
    case Recompute::kSelective: return "selective";
    case Recompute::kFull: return "full";
  }
  return "?";
}

const std::vector<std::pair<RecomputeModule, const char*>>& recompute_module_names() {
  static const std::vector<std::pair<RecomputeModule, const char*>> names = {
      {kRecomputeCoreAttn, "core_attn"},           {kRecomputeLayernorm, "layernorm"},
      {kRecomputeMoeAct, "moe_act"},               {kRecomputeMlaUpProj, "mla_up_proj"},
      {kRecomputeMlp, "mlp"},                      {kRecomputeMoe, "moe"},
      {kRecomputeSharedExperts, "shared_experts"},
  };
  return names;
}

std::string parse_recompute_modules(std::string_view text, uint32_t& out) {
  out = 0;
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = text.find_first_of(", \t", at);
    const std::string_view word = text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    at = end == std::string_view::npos ? text.size() : end + 1;
    if (word.empty()) continue;
    uint32_t bit = 0;
    for (const auto& [b, name] : recompute_module_names())
      if (word == name) bit = b;
    if (bit == 0) {
      std::string known;
      for (const auto& [b, name] : recompute_module_names()) known += (known.empty() ? "" : ", ") + std::string(name);
      return fmt::format("unknown module '{}' (known: {})", word, known);
    }
    out |= bit;
  }
  return {};
}

std::string recompute_modules_text(uint32_t modules) {
  std::string out;
  for (const auto& [bit, name] : recompute_module_names())
    if (modules & bit) {
      if (!out.empty()) out += ',';
      out += name;
    }
  return out;
}

int standalone_norms(const ModelSpec& m, bool moe_layer) { return (m.mla() ? 1 : 0) + (moe_layer ? 1 : 0); }

std::string flex_refusal(const ModelSpec& m, const ParallelPlan& p) {
  if (!m.moe() || p.ep == 1)
    return "flex dispatches a mixture of experts' tokens over its EP group: it needs experts > 1 and ep > 1";
  // Megatron's flex dispatcher runs over the TP x EP group, sending a token
  // to every expert-TP rank of its experts; that is not modelled.
  if (p.etp() > 1)
    return fmt::format("flex with expert_tp {} is not modelled (Megatron-LM dispatches over the TP x EP group then); "
                       "set expert_tp: 1",
                       p.etp());
  return {};
}

namespace {

// What each module needs of the model to have something to replay.
struct ModuleNeed {
  RecomputeModule module;
  bool (*present)(const ModelSpec&);
  const char* what;
};
const ModuleNeed kModuleNeeds[] = {
    {kRecomputeMlaUpProj, [](const ModelSpec& m) { return m.mla(); }, "multi-head latent attention (model.kv_lora_rank)"},
    {kRecomputeLayernorm, [](const ModelSpec& m) { return standalone_norms(m, m.moe()) > 0; },
     "a norm of its own: MLA's input norm or a MoE layer's pre-MLP norm (Megatron-LM's Transformer Engine layers "
     "fuse the others into the GEMM after them)"},
    {kRecomputeMoeAct, [](const ModelSpec& m) { return m.moe(); }, "experts"},
    {kRecomputeMoe, [](const ModelSpec& m) { return m.moe(); }, "experts"},
    {kRecomputeSharedExperts, [](const ModelSpec& m) { return m.moe() && m.shared_experts > 0; }, "shared experts"},
    {kRecomputeMlp, [](const ModelSpec& m) { return m.layer_counts(0, m.layers).dense_mlp() > 0; },
     "a layer with a dense MLP"},
};

}  // namespace

uint32_t applicable_modules(const ModelSpec& m, uint32_t modules) {
  for (const ModuleNeed& n : kModuleNeeds)
    if (!n.present(m)) modules &= ~uint32_t{n.module};
  return modules;
}

uint32_t selective_modules(const TrainingSpec& t) {
  if (t.recompute != Recompute::kSelective) return 0;
  return t.recompute_modules != 0 ? t.recompute_modules : uint32_t{kRecomputeCoreAttn};
}

int64_t chunk_layers(int64_t stage_layers, int v, int chunk) {
  return stage_layers / v + (chunk < stage_layers % v ? 1 : 0);
}

namespace {

// Megatron's split with the first/last stage fixed or the embedding/loss
// counted, as per-rank layer counts (transformer_block.py,
// get_num_layers_to_build); "" or why the plan cannot be split so.
std::string megatron_split(const ModelSpec& m, const ParallelPlan& p, std::vector<int64_t>& per_rank) {
  const int64_t pp = p.pp;
  per_rank.assign(static_cast<size_t>(pp), 0);
  if (p.first_stage_layers > 0 || p.last_stage_layers > 0) {
    int64_t rest = m.layers, ranks = pp;
    if (p.first_stage_layers > 0) rest -= p.first_stage_layers, --ranks;
    if (p.last_stage_layers > 0) rest -= p.last_stage_layers, --ranks;
    // Megatron refuses layers left with no rank to take them, and ranks
    // left with no layers ("Mismatch: ... middle layers remaining").
    if (rest < 0 || (ranks == 0) != (rest == 0))
      return fmt::format("{} layers on the first and {} on the last pipeline rank leave {} of {}'s {} for the "
                         "other {}",
                         p.first_stage_layers, p.last_stage_layers, rest, m.name, m.layers, ranks);
    if (ranks > 0 && rest % ranks != 0)
      return fmt::format("the other {} pipeline ranks cannot share the {} layers left equally", ranks, rest);
    for (int64_t& n : per_rank) n = ranks > 0 ? rest / ranks : 0;
    if (p.first_stage_layers > 0) per_rank.front() = p.first_stage_layers;
    if (p.last_stage_layers > 0) per_rank.back() = p.last_stage_layers;
  } else {
    const int64_t counted = m.layers + (p.embedding_in_split ? 1 : 0) + (p.loss_in_split ? 1 : 0);
    if (counted % pp != 0)
      return fmt::format("{} layers, the {} counted, do not divide over {} pipeline ranks", counted,
                         p.embedding_in_split && p.loss_in_split ? "embedding and loss"
                         : p.embedding_in_split                  ? "embedding"
                                                                 : "loss",
                         pp);
    for (int64_t& n : per_rank) n = counted / pp;
  }
  for (int64_t n : per_rank)
    if (n % p.virtual_stages != 0)
      return fmt::format("a pipeline rank's {} layers do not divide into {} equal model chunks", n, p.virtual_stages);
  if ((p.embedding_in_split && per_rank.front() / p.virtual_stages < 1) ||
      (p.loss_in_split && per_rank.back() / p.virtual_stages < 1))
    return "the first or last model chunk has no layer to give up for the embedding or loss";
  return {};
}

bool megatron_uneven(const ParallelPlan& p) {
  return p.first_stage_layers > 0 || p.last_stage_layers > 0 || p.embedding_in_split || p.loss_in_split;
}

}  // namespace

std::vector<int64_t> given_chunk_layers(const ModelSpec& m, const ParallelPlan& p) {
  std::vector<int64_t> out;
  if (!p.layout.empty()) {
    for (const LayoutStage& st : p.layout.stages) out.push_back(st.decoders);
  } else if (megatron_uneven(p)) {
    std::vector<int64_t> per_rank;
    ANATOMY_CHECK(megatron_split(m, p, per_rank).empty(), "validate_plan first");
    const int v = p.virtual_stages;
    for (int c = 0; c < v; ++c)
      for (int64_t n : per_rank) out.push_back(n / v);
    if (p.embedding_in_split) --out.front();
    if (p.loss_in_split) --out.back();
  }
  return out;
}

LayerRange chunk_range(const ModelSpec& m, const ParallelPlan& p, int stage, int chunk) {
  if (const std::vector<int64_t> given = given_chunk_layers(m, p); !given.empty()) {
    const size_t at = static_cast<size_t>(chunk) * static_cast<size_t>(p.pp) + static_cast<size_t>(stage);
    LayerRange r;
    for (size_t i = 0; i < at; ++i) r.first += given[i];
    r.count = given[at];
    return r;
  }
  const std::vector<int64_t> per_stage = layers_per_stage(m, p);
  const int v = p.virtual_stages;
  LayerRange r;
  for (int c = 0; c <= chunk; ++c)
    for (int s = 0; s < p.pp; ++s) {
      const int64_t n = chunk_layers(per_stage[static_cast<size_t>(s)], v, c);
      if (c == chunk && s == stage) return {r.first, n};
      r.first += n;
    }
  return r;
}

int64_t recomputed_layers(const TrainingSpec& t, int64_t n) {
  if (t.recompute != Recompute::kFull) return 0;
  return t.recompute_layers > 0 ? std::min(n, t.recompute_layers) : n;
}

std::string recompute_text(const TrainingSpec& t) {
  if (t.recompute == Recompute::kSelective && t.recompute_modules != 0 && t.recompute_modules != kRecomputeCoreAttn) {
    std::string names = recompute_modules_text(t.recompute_modules);
    for (char& c : names)
      if (c == ',') c = ' ';
    return fmt::format("selective ({})", names);
  }
  if (t.recompute != Recompute::kFull) return to_string(t.recompute);
  std::string notes;
  if (t.recompute_layers > 0)
    notes = fmt::format("first {} layer{} of each chunk", t.recompute_layers, t.recompute_layers == 1 ? "" : "s");
  if (t.recompute_keeps_attention) notes += notes.empty() ? "attention output kept" : ", attention output kept";
  return notes.empty() ? "full" : fmt::format("full ({})", notes);
}

std::string kernels_text(const TrainingSpec& t) {
  std::string text;
  if (t.flash_attention && t.attention_kernel == hw::AttentionKernel::kFlash2) text += ", FlashAttention-2 attention";
  if (t.fp8_attention) text += ", FP8 attention";
  if (t.fp8_activation_input) text += ", activation input kept in FP8";
  if (t.expert_load_imbalance != 1.0)
    text += fmt::format(", busiest EP rank {:.3g}x the mean's routed tokens", t.expert_load_imbalance);
  if (t.lora_rank > 0)
    text += fmt::format(", LoRA rank {} (attention{})", t.lora_rank,
                        t.lora_all_to_all ? ", outputs by TP all-to-all" : "");
  if (t.optimizer_impl != hw::OptimizerImpl::kFused) text += fmt::format(", {} AdamW", hw::to_string(t.optimizer_impl));
  if (t.precision == hw::Precision::kFp8 && t.fp8_recipe != Fp8Recipe::kDelayed)
    text += fmt::format(", {} scaling", to_string(t.fp8_recipe));
  if ((t.precision == hw::Precision::kFp8 || t.precision == hw::Precision::kFp4) && t.te_activation)
    text += ", Transformer Engine activation";
  return text;
}

bool holds_mtp(const ModelSpec& m, const ParallelPlan& p, int stage, int chunk) {
  if (m.mtp_layers == 0) return false;
  if (p.layout.empty()) return stage == p.pp - 1 && chunk == p.virtual_stages - 1;
  return p.layout.stages[static_cast<size_t>(chunk) * static_cast<size_t>(p.pp) + static_cast<size_t>(stage)].mtp > 0;
}

std::vector<int64_t> layers_per_stage(const ModelSpec& m, const ParallelPlan& p) {
  if (const std::vector<int64_t> given = given_chunk_layers(m, p); !given.empty()) {
    std::vector<int64_t> out(static_cast<size_t>(p.pp), 0);
    for (size_t i = 0; i < given.size(); ++i) out[i % out.size()] += given[i];
    return out;
  }
  ANATOMY_CHECK(p.pp >= 1 && m.layers >= p.pp, "every pipeline rank needs a layer (validate_plan first)");
  const int64_t pp = p.pp;
  const int64_t each = (m.layers + pp - 1) / pp;
  std::vector<int64_t> out(static_cast<size_t>(pp), each);
  // Take the missing layers from the ends inwards: 0, pp-1, 1, pp-2, ...
  int64_t missing = each * pp - m.layers;  // < pp, so no rank loses more than one
  for (int64_t i = 0; missing > 0; ++i) {
    const int64_t rank = i % 2 == 0 ? i / 2 : pp - 1 - i / 2;
    --out[static_cast<size_t>(rank)];
    --missing;
  }
  return out;
}

namespace {

[[noreturn]] void fail(const std::string& field, const std::string& message) {
  throw core::InputError({"", 0, field}, message);
}

void check_positive(const char* field, int64_t v) {
  if (v < 1) fail(field, fmt::format("must be at least 1 (got {})", v));
}

// Which layers have experts, and what the others have.
void validate_moe_layout(const ModelSpec& m) {
  if (m.dense_layers < 0) fail("model.dense_layers", fmt::format("{} is negative", m.dense_layers));
  check_positive("model.moe_layer_step", m.moe_layer_step);
  if (m.shared_experts < 0) fail("model.shared_experts", fmt::format("{} is negative", m.shared_experts));
  if (m.dense_ffn_hidden < 0) fail("model.dense_ffn_hidden", fmt::format("{} is negative", m.dense_ffn_hidden));
  const auto needs_experts = [&](const char* field, int64_t value, int64_t unset) {
    if (!m.moe() && value != unset)
      fail(field, fmt::format("{} describes a mixture of experts; this model is dense (experts: 1)", value));
  };
  needs_experts("model.dense_layers", m.dense_layers, 0);
  needs_experts("model.moe_layer_step", m.moe_layer_step, 1);
  needs_experts("model.dense_ffn_hidden", m.dense_ffn_hidden, 0);
  needs_experts("model.shared_experts", m.shared_experts, 0);
  needs_experts("model.expert_groups", m.expert_groups, 0);
  needs_experts("model.group_top_k", m.group_top_k, 0);
  if (m.expert_groups < 0) fail("model.expert_groups", fmt::format("{} is negative", m.expert_groups));
  if (m.group_top_k < 0) fail("model.group_top_k", fmt::format("{} is negative", m.group_top_k));
  if ((m.expert_groups > 0) != (m.group_top_k > 0))
    fail(m.expert_groups > 0 ? "model.group_top_k" : "model.expert_groups",
         "group-limited routing needs both expert_groups and group_top_k (Megatron-LM --moe-router-num-groups and "
         "--moe-router-group-topk)");
  if (m.expert_groups > 0) {
    if (m.experts % m.expert_groups != 0)
      fail("model.expert_groups", fmt::format("{} does not divide {} experts", m.expert_groups, m.experts));
    if (m.group_top_k > m.expert_groups)
      fail("model.group_top_k", fmt::format("{} is more than the {} groups", m.group_top_k, m.expert_groups));
    if (m.top_k < m.group_top_k)
      fail("model.group_top_k", fmt::format("{} groups need a token's top_k of {} experts to be {} at least, one in "
                                            "each (Megatron-LM scores a group by its best top_k / group_top_k)",
                                            m.group_top_k, m.top_k, m.group_top_k));
    if (m.top_k > m.group_top_k * (m.experts / m.expert_groups))
      fail("model.group_top_k", fmt::format("{} groups of {} experts hold fewer than a token's {} experts",
                                            m.group_top_k, m.experts / m.expert_groups, m.top_k));
  }
  if (m.moe() && m.moe_layers() == 0)
    fail("model.dense_layers", fmt::format("{} dense layers and moe_layer_step {} leave none of {} layers with experts",
                                           m.dense_layers, m.moe_layer_step, m.layers));
}

// Multi-head latent attention's widths, all or none.
void validate_mla(const ModelSpec& m) {
  if (!m.mla()) {
    for (const auto& [field, value] : {std::pair{"model.q_lora_rank", m.q_lora_rank},
                                       std::pair{"model.qk_nope_head_dim", m.qk_nope_head_dim},
                                       std::pair{"model.qk_rope_head_dim", m.qk_rope_head_dim},
                                       std::pair{"model.v_head_dim", m.v_head_dim}})
      if (value != 0)
        fail(field, fmt::format("{} is a multi-head latent attention width; set model.kv_lora_rank too", value));
    return;
  }
  check_positive("model.qk_nope_head_dim", m.qk_nope_head_dim);
  check_positive("model.v_head_dim", m.v_head_dim);
  if (m.qk_rope_head_dim < 0) fail("model.qk_rope_head_dim", fmt::format("{} is negative", m.qk_rope_head_dim));
  if (m.q_lora_rank < 0) fail("model.q_lora_rank", fmt::format("{} is negative", m.q_lora_rank));
  if (m.head_dim_override > 0)
    fail("model.head_dim", "multi-head latent attention sizes its heads with qk_nope_head_dim, qk_rope_head_dim "
                           "and v_head_dim; leave head_dim out");
}

// A hybrid model's pattern and Mamba-2 mixer, and what is not modelled
// with one.
void validate_hybrid(const ModelSpec& m) {
  constexpr const char* kField = "model.hybrid_pattern";
  if (!m.hybrid()) return;
  const std::string& pat = m.hybrid_pattern;
  const size_t bad = pat.find_first_not_of("M*-E");
  if (bad != std::string::npos)
    fail(kField, fmt::format("'{}' at position {} is not a layer kind anatomy models (M: Mamba-2, *: attention, -: "
                             "MLP, E: mixture of experts)",
                             pat[bad], bad + 1));
  if (static_cast<int64_t>(pat.size()) != m.layers)
    fail(kField, fmt::format("has {} characters, one per layer, but model.layers is {}", pat.size(), m.layers));
  const bool mixers = pat.find('M') != std::string::npos;
  if (mixers) {
    check_positive("model.mamba_heads", m.mamba_heads);
    check_positive("model.mamba_head_dim", m.mamba_head_dim);
    check_positive("model.mamba_state", m.mamba_state);
    check_positive("model.mamba_groups", m.mamba_groups);
    check_positive("model.mamba_conv", m.mamba_conv);
    check_positive("model.mamba_chunk", m.mamba_chunk);
    if (m.mamba_heads % m.mamba_groups != 0)
      fail("model.mamba_groups",
           fmt::format("{} groups do not divide {} Mamba-2 heads", m.mamba_groups, m.mamba_heads));
  }
  const auto refuse = [&](const char* field, const char* what) {
    fail(field, fmt::format("{} with a hybrid model (model.hybrid_pattern) is not modelled", what));
  };
  // The pattern places the experts, not dense_layers and moe_layer_step.
  const bool moe_blocks = pat.find('E') != std::string::npos;
  if (moe_blocks && m.experts <= 1)
    fail("model.experts", fmt::format("the pattern's MoE blocks (E) need experts > 1 (got {})", m.experts));
  if (!moe_blocks && m.experts > 1)
    fail(kField, fmt::format("has no MoE block (E) for model.experts' {} experts", m.experts));
  if (m.dense_layers > 0 || m.moe_layer_step != 1)
    refuse("model.dense_layers", "dense_layers or moe_layer_step (the pattern's E blocks place the experts)");
  if (m.mla()) refuse("model.kv_lora_rank", "multi-head latent attention");
  if (m.sliding_window > 0) refuse("model.sliding_window", "sliding-window attention");
  if (m.mtp_layers > 0) refuse("model.mtp_layers", "multi-token prediction");
}

// The model's own shape, for models not taken from a preset.
void validate_model(const ModelSpec& m) {
  check_positive("model.layers", m.layers);
  check_positive("model.hidden", m.hidden);
  check_positive("model.heads", m.heads);
  check_positive("model.kv_heads", m.kv_heads);
  check_positive("model.ffn_hidden", m.ffn_hidden);
  check_positive("model.vocab", m.vocab);
  check_positive("model.experts", m.experts);
  check_positive("model.top_k", m.top_k);
  if (m.max_seq < 0) fail("model.max_seq", fmt::format("must be 0 (no position table) or more (got {})", m.max_seq));
  if (m.head_dim_override < 0)
    fail("model.head_dim", fmt::format("must be 0 (hidden / heads) or more (got {})", m.head_dim_override));
  if (m.head_dim_override == 0 && !m.mla() && m.hidden % m.heads != 0)
    fail("model.heads", fmt::format("{} heads do not divide hidden size {}; give model.head_dim", m.heads, m.hidden));
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)
    fail("model.kv_heads", fmt::format("{} key/value heads do not divide {} attention heads", m.kv_heads, m.heads));
  if (m.top_k > m.experts) fail("model.top_k", fmt::format("{} is more than the {} experts", m.top_k, m.experts));
  if (m.mtp_layers < 0) fail("model.mtp_layers", fmt::format("{} is negative", m.mtp_layers));
  validate_hybrid(m);
  validate_moe_layout(m);
  if (m.sliding_window < 0) fail("model.sliding_window", fmt::format("{} is negative", m.sliding_window));
  if (m.full_attention_step < 0)
    fail("model.full_attention_step", fmt::format("{} is negative", m.full_attention_step));
  if (m.full_attention_step > 0 && m.sliding_window == 0)
    fail("model.full_attention_step",
         fmt::format("{} says which layers attend to the whole sequence; set model.sliding_window for the others",
                     m.full_attention_step));
  validate_mla(m);
  if (m.parallel_block) {
    const auto refuse = [](const char* what) {
      fail("model.parallel_block", fmt::format("a parallel block with {} is not modelled (dense attention layers only)", what));
    };
    if (m.hybrid()) refuse("a hybrid model's blocks (model.hybrid_pattern)");
    if (m.moe()) refuse("experts (model.experts)");
    if (m.mla()) refuse("multi-head latent attention (model.kv_lora_rank)");
  }
}

// A layout (Megatron-LM's validate_layer_layout, and its PP x VPP stage
// count) against the model and the plan.
void validate_layout(const ModelSpec& m, const ParallelPlan& p) {
  constexpr const char* kField = "parallelism.pipeline_layout";
  const std::vector<LayoutStage>& stages = p.layout.stages;
  const size_t pp = static_cast<size_t>(p.pp), want = pp * static_cast<size_t>(p.virtual_stages);
  if (stages.size() != want)
    fail(kField, fmt::format("lists {} stages, but pp {} x virtual_stages {} = {}{}", stages.size(), p.pp,
                             p.virtual_stages, want,
                             stages.size() % pp == 0
                                 ? fmt::format(" (set virtual_stages: {})", stages.size() / pp)
                                 : fmt::format(" ({} is not a multiple of pp)", stages.size())));
  int64_t decoders = 0, mtp = 0;
  for (size_t i = 0; i < stages.size(); ++i) {
    decoders += stages[i].decoders;
    mtp += stages[i].mtp;
    if (stages[i].mtp > 0 && i / pp != want / pp - 1)
      fail(kField, fmt::format("puts MTP modules in model chunk {} of pipeline rank {}; they must be in the rank's "
                               "last chunk ({}), as Megatron-LM requires",
                               i / pp, i % pp, p.virtual_stages - 1));
  }
  if (decoders != m.layers)
    fail(kField, fmt::format("holds {} transformer layers (t), but {} has {}", decoders, m.name, m.layers));
  if (mtp != m.mtp_layers)
    fail(kField, fmt::format("holds {} MTP modules (m), but model.mtp_layers is {}", mtp, m.mtp_layers));
}

// Each module must be selective recomputation's and have something to
// act on in this model (Megatron-LM refuses mla_up_proj without MLA; the
// others would silently do nothing).
void validate_recompute_modules(const ModelSpec& m, const TrainingSpec& t) {
  constexpr const char* kField = "training.recompute_modules";
  const uint32_t mods = t.recompute_modules;
  if (mods == 0) return;
  if (t.recompute != Recompute::kSelective)
    fail(kField, fmt::format("{} needs recompute: selective; recompute is {}", recompute_modules_text(mods),
                             to_string(t.recompute)));
  for (const ModuleNeed& n : kModuleNeeds)
    if ((mods & n.module) && !n.present(m))
      fail(kField, fmt::format("{} needs {}; {} has none", recompute_modules_text(n.module), n.what, m.name));
  // Its replay would gather the norm's output again for the MLP alone,
  // which the parallel block shares with attention.
  if ((mods & kRecomputeMlp) && m.parallel_block)
    fail(kField, "mlp alone in a parallel block (model.parallel_block) is not modelled");
}

// Megatron-LM's uneven splits (get_num_layers_to_build's assertions).
void validate_megatron_split(const ModelSpec& m, const ParallelPlan& p) {
  if (p.first_stage_layers < 0) fail("parallelism.first_stage_layers", fmt::format("{} is negative", p.first_stage_layers));
  if (p.last_stage_layers < 0) fail("parallelism.last_stage_layers", fmt::format("{} is negative", p.last_stage_layers));
  const bool fixed = p.first_stage_layers > 0 || p.last_stage_layers > 0;
  const char* field = p.first_stage_layers > 0 ? "parallelism.first_stage_layers"
                      : p.last_stage_layers > 0 ? "parallelism.last_stage_layers"
                      : p.embedding_in_split   ? "parallelism.embedding_in_split"
                                               : "parallelism.loss_in_split";
  if (fixed && (p.embedding_in_split || p.loss_in_split))
    fail(field, "cannot be combined with embedding_in_split or loss_in_split (Megatron-LM: \"Does not support "
                "standalone embedding stage and standalone loss stage with uneven pp\")");
  if (fixed && p.pp == 1) fail(field, "needs pipeline parallelism (pp > 1)");
  std::vector<int64_t> per_rank;
  if (std::string why = megatron_split(m, p, per_rank); !why.empty()) fail(field, why);
}

}  // namespace

void validate_plan(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t, int gpus) {
  validate_model(m);
  check_positive("parallelism.tp", p.tp);
  check_positive("parallelism.pp", p.pp);
  check_positive("parallelism.dp", p.dp);
  check_positive("parallelism.cp", p.cp);
  check_positive("parallelism.ep", p.ep);
  check_positive("parallelism.virtual_stages", p.virtual_stages);
  check_positive("training.seq_len", t.seq_len);
  check_positive("training.micro_batch", t.micro_batch);
  check_positive("training.global_batch", t.global_batch);
  if (t.recompute_layers < 0)
    fail("training.recompute_layers", fmt::format("{} is negative", t.recompute_layers));
  if (t.recompute_layers > 0 && t.recompute != Recompute::kFull)
    fail("training.recompute_layers", fmt::format("{} needs recompute: full (whole layers recomputed); recompute is {}",
                                                  t.recompute_layers, to_string(t.recompute)));
  if (t.recompute_keeps_attention && t.recompute != Recompute::kFull)
    fail("training.recompute_keeps_attention",
         fmt::format("true keeps the attention kernel's output through a full replay; recompute is {}",
                     to_string(t.recompute)));
  if (t.recompute_keeps_attention && !t.flash_attention)
    fail("training.recompute_keeps_attention",
         "true needs flash_attention: without it the backward reads the s x s scores, not the kernel's output");
  validate_recompute_modules(m, t);
  if (t.fp8_activation_input && t.precision != hw::Precision::kFp8 && t.precision != hw::Precision::kFp4)
    fail("training.fp8_activation_input",
         fmt::format("true needs FP8 or FP4 training; training.precision is {}", hw::to_string(t.precision)));
  if (m.parallel_block && t.lora_rank > 0)
    fail("model.parallel_block", "a parallel block with LoRA (training.lora_rank) is not modelled");
  if (t.lora_dropout > 0 && t.lora_rank <= 0)
    fail("training.lora_dropout", "drops LoRA adapters' inputs; set training.lora_rank too");
  if (t.expert_load_imbalance != 1.0 && (!m.moe() || p.ep <= 1))
    fail("training.expert_load_imbalance",
         fmt::format("{} weighs the busiest of the expert-parallel ranks; it needs a MoE model and ep > 1 (ep is {})",
                     t.expert_load_imbalance, p.ep));
  if (t.expert_load_imbalance > static_cast<double>(p.ep))
    fail("training.expert_load_imbalance",
         fmt::format("{} is more than ep ({}): the busiest rank receives at most every routed token",
                     t.expert_load_imbalance, p.ep));
  for (const auto& [field, set] :
       {std::pair{"parallelism.tp_comm_overlap_disable_qkv", p.tp_comm_overlap_disable_qkv},
        std::pair{"parallelism.tp_comm_overlap_disable_fc1", p.tp_comm_overlap_disable_fc1}})
    if (set && !(p.tp > 1 && p.tp_comm_overlap && p.sequence_parallel))
      fail(field, "turns off one layer's all-gather overlap; it needs tp above 1, parallelism.tp_comm_overlap and "
                  "parallelism.sequence_parallel");
  if (t.lora_all_to_all && (t.lora_rank <= 0 || !p.sequence_parallel || p.tp == 1))
    fail("training.lora_all_to_all", "moves a LoRA adapter's output between TP layouts; it needs training.lora_rank, "
                                     "tp above 1 and parallelism.sequence_parallel");
  if (t.lora_rank > 0) {
    if (m.mla())
      fail("training.lora_rank", fmt::format("{} uses multi-head latent attention; LoRA adapters are modelled on "
                                             "plain QKV and output projections only",
                                             m.name));
    if (m.hybrid())
      fail("training.lora_rank", fmt::format("{} is a hybrid Mamba-2 model; LoRA adapters are modelled on "
                                             "attention layers of transformers only",
                                             m.name));
    if (p.zero_stage >= 3)
      fail("training.lora_rank", "LoRA with zero_stage 3 (sharded frozen weights) is not modelled; use 0 to 2");
    if (m.mtp_layers > 0)
      fail("training.lora_rank", fmt::format("{} has multi-token-prediction modules; LoRA is modelled on the "
                                             "main model's layers only",
                                             m.name));
    if (t.lora_rank > m.hidden)
      fail("training.lora_rank", fmt::format("{} is above the hidden size {}", t.lora_rank, m.hidden));
  }
  if (p.bucket_bytes < 0) fail("parallelism.bucket_size", fmt::format("must be >= 0 (got {})", p.bucket_bytes));
  if (t.bf16_moments && !t.master_weights)
    fail("training.optimizer_moments", "bf16 with master_weights: false: without master weights the moments are "
                                       "16-bit already");
  if (t.bf16_moments && p.framework == ShardingFramework::kDeepSpeed)
    fail("training.optimizer_moments", "bf16 is Megatron-LM's precision-aware optimizer; framework: deepspeed keeps "
                                       "its own optimizer state");
  if (t.bf16_moments && (t.precision == hw::Precision::kFp32 || t.precision == hw::Precision::kFp16))
    fail("training.optimizer_moments", fmt::format("bf16 beside {} training is not modelled (bf16, FP8 and FP4 "
                                                   "training only)",
                                                   hw::to_string(t.precision)));
  // Megatron-LM builds the precision-aware optimizer over its distributed
  // optimizer only (optimizer/__init__.py); Megatron-FSDP keeps an fp32
  // master of its own.
  if (t.bf16_moments && p.zero_stage != 1)
    fail("training.optimizer_moments", fmt::format("bf16 needs Megatron-LM's distributed optimizer (zero_stage: 1), "
                                                   "not zero_stage {}",
                                                   p.zero_stage));
  if (t.bf16_moments && t.optimizer_impl != hw::OptimizerImpl::kFused)
    fail("training.optimizer_impl", "with optimizer_moments: bf16 it is fused: the precision-aware optimizer is "
                                    "Transformer Engine's fused Adam");
  if (!t.master_weights && t.precision == hw::Precision::kFp32)
    fail("training.master_weights", "false needs 16-bit parameters: fp32 training has no master copy to leave out");
  // Megatron-LM keeps FP8 parameters only under an FP8 recipe (its FP4
  // recipes gather 16-bit weights, fp4_param_gather aside).
  if (p.fp8_param_gather && t.precision != hw::Precision::kFp8)
    fail("parallelism.fp8_param_gather", fmt::format("true needs precision: fp8 (the parameters kept in FP8); "
                                                     "precision is {}",
                                                     hw::to_string(t.precision)));
  // Megatron-LM's arguments.py asserts the same: the distributed optimizer
  // with overlapped gathers, and an interleaved schedule.
  if (p.overlap_param_gather_with_optimizer_step &&
      (!p.overlapped_sharded_gathers() || p.virtual_stages < 2))
    fail("parallelism.overlap_param_gather_with_optimizer_step",
         fmt::format("true needs zero_stage 1 or 2, overlap_param_gather and virtual_stages of 2 or more, as "
                     "Megatron-LM asserts (got zero_stage {}, overlap_param_gather {}, virtual_stages {})",
                     p.zero_stage, p.overlap_param_gather, p.virtual_stages));
  // The scenario field checks its range too; plans built in code meet this.
  if (p.device_max_connections < 1 || p.device_max_connections > 32)
    fail("parallelism.device_max_connections",
         fmt::format("must be 1 to 32, as CUDA takes it (got {})", p.device_max_connections));
  // NCCL takes CTA limits of 1 to MAXCHANNELS (64), a minimum no more than
  // the maximum (init.cc parseCommConfig warns and resets others).
  for (const auto& [name, c] : kLimitedCommunicators) {
    const int lo = ctas_for(p.nccl_min_ctas, c), hi = ctas_for(p.nccl_max_ctas, c);
    if (lo < 0 || lo > coll::kMaxChannels)
      fail(fmt::format("parallelism.nccl_min_ctas.{}", name),
           fmt::format("must be 0 to {} (got {})", coll::kMaxChannels, lo));
    if (hi < 0 || hi > coll::kMaxChannels)
      fail(fmt::format("parallelism.nccl_max_ctas.{}", name),
           fmt::format("must be 0 to {} (got {})", coll::kMaxChannels, hi));
    if (const std::string crossed = coll::crossed_ctas(lo, hi, fmt::format("nccl_max_ctas.{}", name)); !crossed.empty())
      fail(fmt::format("parallelism.nccl_min_ctas.{}", name), crossed);
  }

  const int64_t product = int64_t{p.tp} * p.pp * p.dp * p.cp;
  if (product != gpus)
    fail("parallelism", fmt::format("TP {} x PP {} x DP {} x CP {} = {}, but the cluster has {} GPUs", p.tp, p.pp,
                                    p.dp, p.cp, product, gpus));

  // TP splits attention by heads (each rank whole heads) and the MLP by
  // columns of ffn. K/V heads are split too, or, with fewer KV heads than
  // TP ranks (GQA), each is replicated on tp / kv_heads ranks.
  if (m.heads % p.tp != 0) fail("parallelism.tp", fmt::format("{} does not divide {} attention heads", p.tp, m.heads));
  if (m.kv_heads % p.tp != 0 && p.tp % m.kv_heads != 0)
    fail("parallelism.tp", fmt::format("{} neither divides {} key/value heads nor is a multiple of them (to replicate "
                                       "each on TP / KV ranks)",
                                       p.tp, m.kv_heads));
  if (m.ffn_hidden % p.tp != 0)
    fail("parallelism.tp", fmt::format("{} does not divide the MLP's inner size {}", p.tp, m.ffn_hidden));
  // A Mamba-2 mixer splits by heads and by groups (Megatron-LM's MambaMixer),
  // and CP (Megatron-Core's MambaContextParallel) gives each CP rank whole
  // heads of a TP rank's, and whole groups or one group repeated.
  if (m.layer_counts(0, m.layers)[LayerKind::kMamba] > 0) {
    if (m.mamba_heads % p.tp != 0)
      fail("parallelism.tp", fmt::format("{} does not divide {} Mamba-2 heads", p.tp, m.mamba_heads));
    if (m.mamba_groups % p.tp != 0)
      fail("parallelism.tp", fmt::format("{} does not divide {} Mamba-2 groups", p.tp, m.mamba_groups));
    const int64_t heads = m.mamba_heads / p.tp, groups = m.mamba_groups / p.tp;
    if (heads % p.cp != 0)
      fail("parallelism.cp", fmt::format("{} does not divide the {} Mamba-2 heads of a TP rank ({} / tp {})", p.cp,
                                         heads, m.mamba_heads, p.tp));
    if (groups < p.cp ? p.cp % groups != 0 : groups % p.cp != 0)
      fail("parallelism.cp", fmt::format("{} and the {} Mamba-2 groups of a TP rank ({} / tp {}) do not divide one "
                                         "another",
                                         p.cp, groups, m.mamba_groups, p.tp));
  }
  if (m.dense_ffn() % p.tp != 0)
    fail("parallelism.tp", fmt::format("{} does not divide the dense layers' MLP inner size {}", p.tp, m.dense_ffn()));

  // Pipeline: without interleaving, layers may split unevenly (see
  // layers_per_stage) but every rank needs one, and with interleaving
  // every chunk one. Megatron-LM's own splits (a layout, fixed first and
  // last stages, the embedding and loss counted) may leave chunks empty.
  if (p.virtual_stages > 1 && p.pp == 1)
    fail("parallelism.virtual_stages", "interleaving needs pipeline parallelism (pp > 1)");
  if (!p.layout.empty()) {
    if (megatron_uneven(p))
      fail("parallelism.pipeline_layout", "gives every chunk's layers; leave first_stage_layers, last_stage_layers, "
                                          "embedding_in_split and loss_in_split unset");
    validate_layout(m, p);
  } else if (megatron_uneven(p)) {
    validate_megatron_split(m, p);
  } else if (m.layers < p.pp) {
    fail("parallelism.pp", fmt::format("{} stages for {} layers leaves a stage without a layer", p.pp, m.layers));
  } else if (p.virtual_stages > 1) {
    // Chunks may differ by a layer (a stage's layers split as evenly as they
    // go), but every chunk needs at least one.
    const std::vector<int64_t> per_stage = layers_per_stage(m, p);
    const int64_t fewest = *std::min_element(per_stage.begin(), per_stage.end());
    if (fewest < p.virtual_stages)
      fail("parallelism.virtual_stages",
           fmt::format("a pipeline stage with {} layers cannot hold {} model chunks", fewest, p.virtual_stages));
  }

  // Experts are spread over EP ranks carved out of the DP group.
  if (p.ep > 1 && m.experts == 1)
    fail("parallelism.ep", fmt::format("{} needs a mixture-of-experts model; {} is dense", p.ep, m.name));
  if (p.expert_tp < 0) fail("parallelism.expert_tp", fmt::format("{} is negative", p.expert_tp));
  if (p.expert_tp > 0 && p.expert_tp != 1 && p.expert_tp != p.tp)
    fail("parallelism.expert_tp",
         fmt::format("{} is neither 1 nor TP {}: experts split over part of the TP group (an all-gather over expert "
                     "TP after the dispatch) are not modelled",
                     p.expert_tp, p.tp));
  if (p.expert_tp > 0 && p.etp() != p.tp && !m.moe())
    fail("parallelism.expert_tp", fmt::format("{} needs a mixture-of-experts model; {} is dense", p.expert_tp, m.name));
  if (p.etp() < p.tp && !p.sequence_parallel)
    fail("parallelism.expert_tp",
         fmt::format("{} below TP {} needs sequence_parallel (the MoE layers take each TP rank's own tokens)",
                     p.etp(), p.tp));
  if (p.etp() == p.tp && p.cp == 1 && p.dp % p.ep != 0)
    fail("parallelism.ep",
         fmt::format("{} does not divide DP {}{}", p.ep, p.dp,
                     p.tp > 1 && (p.tp * p.dp) % p.ep == 0
                         ? fmt::format(" (with expert_tp: 1 the expert groups fold over TP x DP = {})", p.tp * p.dp)
                         : ""));
  if ((p.tp * p.cp * p.dp) % (p.etp() * p.ep) != 0)
    fail("parallelism.ep", fmt::format("{} x expert_tp {} does not divide TP x CP x DP = {} (the ranks expert "
                                       "groups fold over)",
                                       p.ep, p.etp(), p.tp * p.cp * p.dp));
  if (m.ffn_hidden % p.etp() != 0)
    fail("parallelism.expert_tp", fmt::format("{} does not divide the experts' inner size {}", p.etp(), m.ffn_hidden));
  if (m.experts % p.ep != 0) fail("parallelism.ep", fmt::format("{} does not divide {} experts", p.ep, m.experts));
  if (p.moe_dispatcher == MoeDispatcher::kFlex)
    if (const std::string why = flex_refusal(m, p); !why.empty()) fail("parallelism.moe_dispatcher", why);
  if (p.ep_comm_overlap && p.ep == 1)
    fail("parallelism.ep_comm_overlap", "needs expert parallelism (ep > 1): there are no all-to-alls to overlap");
  if (p.ep_comm_overlap && p.zero_stage >= 3)
    fail("parallelism.ep_comm_overlap", "with zero_stage 3 is not modelled; set zero_stage below 3 or "
                                        "ep_comm_overlap: false");
  // Megatron-LM's combined 1F1B replays no whole layer (transformer_config.py:
  // "disable full recomputation", "disable moe in recompute_modules").
  if (p.ep_comm_overlap && t.recompute == Recompute::kFull)
    fail("parallelism.ep_comm_overlap", "with recompute: full is refused by Megatron-LM (\"disable full "
                                        "recomputation when enabling overlap_moe_expert_parallel_comm\"); use "
                                        "selective recomputation");
  if (p.ep_comm_overlap && (selective_modules(t) & kRecomputeMoe))
    fail("parallelism.ep_comm_overlap", "with the moe recompute module is refused by Megatron-LM (\"disable moe in "
                                        "recompute_modules when enabling overlap_moe_expert_parallel_comm\")");
  if (p.ep_comm_overlap && p.pp > 1 && p.virtual_stages == 1)
    fail("parallelism.ep_comm_overlap",
         fmt::format("with pp {} Megatron-LM's combined 1F1B needs interleaving (virtual_stages > 1)", p.pp));

  // CP gives each rank seq_len / cp tokens of every sequence; sequence
  // parallelism then splits those over TP.
  if (t.seq_len % p.cp != 0) fail("parallelism.cp", fmt::format("{} does not divide seq_len {}", p.cp, t.seq_len));
  if (p.cp_all_to_all && p.cp == 1)
    fail("parallelism.cp_all_to_all", "exchanges a sequence split over CP ranks; set parallelism.cp above 1");
  if (p.cp_a2a_size < 1) fail("parallelism.cp_a2a_size", fmt::format("{} is below 1", p.cp_a2a_size));
  if (p.cp_a2a_size > 1) {
    if (p.cp_all_to_all || p.cp_all_gather)
      fail("parallelism.cp_a2a_size", fmt::format("runs a ring behind the all-to-all; it does not combine with {}",
                                                  p.cp_all_to_all ? "cp_all_to_all" : "cp_all_gather"));
    if (p.cp == 1) fail("parallelism.cp_a2a_size", "groups CP ranks for its all-to-alls; set parallelism.cp above 1");
    if (p.cp_a2a_size >= p.cp || p.cp % p.cp_a2a_size != 0)
      fail("parallelism.cp_a2a_size",
           fmt::format("{} must divide cp {} and be smaller (all-to-all over every CP rank is cp_all_to_all)",
                       p.cp_a2a_size, p.cp));
  }
  // Ring attention, the default exchange and hierarchical CP's behind its
  // all-to-alls, is Transformer Engine's AttnFuncWithCPAndKVP2P, which
  // asserts that attention has no sliding window: Megatron-LM runs such a
  // model's CP by all-to-all or all-gather.
  if (p.cp > 1 && !p.cp_all_to_all && !p.cp_all_gather && m.sliding_window > 0)
    fail(p.cp_a2a_size > 1 ? "parallelism.cp_a2a_size" : "parallelism.cp",
         fmt::format("{} has sliding-window attention, which Transformer Engine's ring ({}) refuses; set "
                     "parallelism.cp_all_to_all or cp_all_gather",
                     m.name, p.cp_a2a_size > 1 ? "behind these all-to-alls" : "the default CP exchange"));
  // The all-to-all's ranks: every CP rank, or the hierarchical one's groups.
  const int64_t a2a_ways = p.cp_a2a_ways();
  const char* a2a_field = p.cp_all_to_all ? "parallelism.cp_all_to_all" : "parallelism.cp_a2a_size";
  if (a2a_ways > 1) {
    if (p.cp_all_to_all && p.cp_all_gather)
      fail(a2a_field, "and cp_all_gather are two ways of exchanging the sequence; choose one");
    if (!t.flash_attention) fail(a2a_field, "is Transformer Engine's fused attention's; set training.flash_attention");
    // After TP each rank holds heads / tp query heads and max(1, kv / tp) KV
    // heads (MLA: a K and V per query head); the all-to-all splits those.
    const int64_t q_heads = m.heads / p.tp;
    const int64_t kv_heads = m.mla() ? q_heads : std::max<int64_t>(1, m.kv_heads / p.tp);
    if (q_heads % a2a_ways != 0 || kv_heads % a2a_ways != 0)
      fail(a2a_field, fmt::format("splits the {} query and {} KV heads a TP rank holds over {} {}; they do not divide",
                                  q_heads, kv_heads, p.cp_all_to_all ? "cp" : "cp_a2a_size", a2a_ways));
    // TE reorders the sequence in 2 cp chunks around the exchanges.
    if (t.seq_len % (2 * p.cp) != 0)
      fail(a2a_field, fmt::format("reorders each sequence in {} chunks (2 x cp); seq_len {} does not split into them",
                                  2 * p.cp, t.seq_len));
  }
  if (p.sequence_parallel && p.tp > 1 && (t.seq_len / p.cp) % p.tp != 0)
    fail("training.seq_len", fmt::format("{} tokens per CP rank do not split over TP {} (sequence parallelism)",
                                         t.seq_len / p.cp, p.tp));

  if (p.zero_stage < 0 || p.zero_stage > 3)
    fail("parallelism.zero_stage", fmt::format("{} is not one of 0, 1, 2, 3", p.zero_stage));
  if (p.shard_group < 0) fail("parallelism.shard_group", fmt::format("{} is negative", p.shard_group));
  if (p.shard_group > 0 && p.zero_stage < 3)
    fail("parallelism.shard_group",
         fmt::format("{} needs zero_stage 3 (the parameters sharded); zero_stage is {}", p.shard_group, p.zero_stage));
  if (p.shard_group > 0 && (p.dp * p.cp) % p.shard_group != 0)
    fail("parallelism.shard_group",
         fmt::format("{} does not divide the DP x CP group of {} ranks", p.shard_group, p.dp * p.cp));
  if (p.shard_group > 0 && p.ep > 1)
    fail("parallelism.shard_group",
         fmt::format("{} with expert parallelism (ep {}) is not modelled; set ep: 1 or shard_group: 0", p.shard_group,
                     p.ep));

  const int64_t per_step = t.micro_batch * p.dp;
  if (t.global_batch % per_step != 0)
    fail("training.global_batch", fmt::format("{} is not a multiple of micro_batch {} x DP {}", t.global_batch,
                                              t.micro_batch, p.dp));
  if (p.microbatch_group > 0 && p.virtual_stages == 1)
    fail("parallelism.microbatch_group", "groups the micro-batches of interleaved 1F1B; virtual_stages is 1");
  const int64_t M = t.micro_batches(p);
  if (p.virtual_stages > 1 && p.microbatch_group == 0 && M % p.pp != 0)
    fail("parallelism.virtual_stages",
         fmt::format("interleaved 1F1B needs the micro-batches per iteration ({}) to be a multiple of PP {} (or "
                     "parallelism.microbatch_group set so that they divide into groups of it)",
                     M, p.pp));
  // Megatron-Core's checks (schedules.py, forward_backward_pipelining_with_
  // interleaving): a group between PP and M; a short last group of fewer
  // than PP would wait on its own chunks.
  if (p.virtual_stages > 1 && p.microbatch_group > 0) {
    if (p.microbatch_group < p.pp || p.microbatch_group > M)
      fail("parallelism.microbatch_group",
           fmt::format("{} is not between PP {} and the {} micro-batches per iteration", p.microbatch_group, p.pp, M));
    if (const int64_t last = M % p.microbatch_group; last > 0 && last < p.pp)
      fail("parallelism.microbatch_group",
           fmt::format("leaves a last group of {} of the {} micro-batches, fewer than PP {} (Megatron-Core refuses "
                       "it: the group would wait on its own chunks)",
                       last, M, p.pp));
  }
}

}  // namespace anatomy::workload
