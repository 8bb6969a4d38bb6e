#include "scenario/scenario_fields.h"

#include "scenario/edge_fields.h"
#include "scenario/fleet_fields.h"
#include "scenario/hardware_fields.h"

#include <limits>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "coll/library_model.h"
#include "coll/ops.h"
#include "hw/catalog.h"
#include "hw/precision.h"
#include "scenario/job_fields.h"
#include "scenario/network_fields.h"

namespace anatomy::scenario::detail {
namespace {

using workload::ModelSpec;
using workload::ParallelPlan;
using workload::CommunicatorCtas;
using workload::TrainingSpec;

constexpr int64_t kMaxGpus = 1'048'576;  // what topo::build_cluster accepts
constexpr int64_t kMaxDim = 1'000'000'000;
// Smallest ZeRO-3 parameter gather: 1 MB (DeepSpeed's default is 100 MB).
// Gradient buckets have no such floor: they hold whole tensors.
constexpr int64_t kMinBucketBytes = 1'000'000;
constexpr int64_t kMaxSeeds = 1000;  // as --seeds

// A size whose 0 means "the default rule", shown as its default is written.
std::string show_size_or_rule(int64_t bytes) { return bytes == 0 ? "0" : show_value(core::Bytes(bytes)); }
constexpr int64_t kMaxSeed = std::numeric_limits<int64_t>::max();

// training.cross_entropy's help, its byte counts read from the table the
// step cost prices the loss with, so the two cannot disagree.
std::string_view cross_entropy_help() {
  static const std::string text = [] {
    const auto bytes = [](workload::CrossEntropy c) { return workload::cross_entropy_bytes(c); };
    const workload::CrossEntropyBytes m = bytes(workload::CrossEntropy::kMegatron),
                                      mf = bytes(workload::CrossEntropy::kMegatronFused),
                                      f = bytes(workload::CrossEntropy::kFused);
    return fmt::format(
        "how the loss runs over the logits, by the bytes its kernels stream a logit element: megatron, Megatron's "
        "vocab-parallel cross-entropy unfused, in fp32 (its default: {} B forward, {} B backward); megatron_fused, "
        "--cross-entropy-loss-fusion with the native implementation ({} B, {} B); fused, one online-softmax kernel "
        "on the 16-bit logits (Transformer Engine's, --cross-entropy-fusion-impl te; flash-attn's, llm-foundry's "
        "fused_crossentropy: {} B, {} B)",
        m.forward, m.backward, mf.forward, mf.backward, f.forward, f.backward);
  }();
  return text;
}

Check radix_check() {
  return [](const Value& v) -> std::string {
    if (v.integer == 0 || (v.integer >= 4 && v.integer <= 1024)) return {};
    return fmt::format("must be 4 to 1024 ports, or 0 for a 51.2 Tb/s switch's worth (got {})", v.integer);
  };
}

// A GEMM precision field (training.precision, kernel.precision): one
// parser, one printer and one list of choices for every section that has one.
template <typename S>
Field<S> precision_field(hw::Precision S::*member, std::string_view where, const char* help) {
  return {"precision", Kind::kEnum, by_default("bf16"), {}, help,
          [member, where = std::string(where)](S& s, const Value& v) { s.*member = hw::parse_precision(v.text, where); },
          [member](const S& s) { return std::string(hw::to_string(s.*member)); },
          {"bf16", "fp8", "fp4", "fp16", "fp32"}};
}

}  // namespace

const std::vector<Field<Scenario>>& top_fields() {
  static const std::vector<Field<Scenario>> f = {
      {"name", Kind::kString, derived("the file name without its extension"), {},
       "a name for reports", [](Scenario& s, const Value& v) { s.name = v.text; }, shows(&Scenario::name)},
      {"seed", Kind::kInt, by_default("1"), int_range(0, kMaxSeed),
       "seed of every random stream (same seed, same results)",
       [](Scenario& s, const Value& v) { s.seed = static_cast<uint64_t>(v.integer); }, shows(&Scenario::seed)},
      {"model", Kind::kSection, derived("required unless the scenario is a collective or kernel case, an edge site or a fleet"), {},
       "a model preset name, or a mapping of its dimensions", {}},
      {"cluster", Kind::kSection, required(), {}, "the system preset, GPU count, fabric and storage", {}},
      {"parallelism", Kind::kSection, derived("every key at its default"), {}, "how the GPUs split the model (TP, PP, DP, ...)", {}},
      {"training", Kind::kSection, derived("every key at its default"), {}, "sequence, batch and numerics", {}},
      {"network", Kind::kSection, derived("every key at its default"), {}, "which network model runs the communication", {}},
      {"compute", Kind::kSection, derived("every key at its default"), {}, "where kernel times come from", {}},
      {"expected", Kind::kSection, derived("none (only validation cases have one)"), {},
       "the published figure a validation case is compared with", {}},
      {"collective", Kind::kSection, derived("none: simulate a training iteration"), {},
       "time one collective instead of a training iteration", {}},
      {"kernel", Kind::kSection, derived("none: simulate a training iteration"), {},
       "time one GEMM or flash-attention kernel on one GPU of the cluster's part instead of a training iteration",
       {}},
      {"job", Kind::kSection, derived("none: one iteration"), {},
       "a whole training run: duration, startup, checkpoints, failures, cost", {}},
      {"placement", Kind::kSection, derived("none: the job is the whole cluster"), {},
       "where the job lands in a larger cluster: policy, racks, power, busy hosts", {}},
      {"edge", Kind::kSection, derived("none: a datacenter training job"), {},
       "an edge site: sensor network, serving, hourly retraining, rollout and rollback, WAN, faults", {}},
      {"fleet", Kind::kSection, derived("none: one job on the cluster"), {},
       "many jobs on the cluster: job stream (list, generator, trace), scheduler, contention, failures", {}},
  };
  return f;
}

const std::vector<Field<ModelSpec>>& model_fields() {
  using M = ModelSpec;
  static const std::vector<Field<M>> f = {
      // First: the overrides below apply on top of it.
      {"preset", Kind::kString, derived("none: the dimensions below describe the whole model"), {},
       "a model preset (anatomy list) to start from",
       [](M& m, const Value& v) { m = workload::find_model(v.text); }},
      {"name", Kind::kString, by_default("custom"), {}, "the model's name in reports",
       [](M& m, const Value& v) { m.name = v.text; }, shows(&M::name)},
      {"layers", Kind::kInt, required(), int_range(1, kMaxDim), "transformer layers",
       [](M& m, const Value& v) { m.layers = v.integer; }, shows(&M::layers)},
      {"hidden", Kind::kInt, required(), int_range(1, kMaxDim), "hidden size h",
       [](M& m, const Value& v) { m.hidden = v.integer; }, shows(&M::hidden)},
      {"heads", Kind::kInt, required(), int_range(1, kMaxDim), "attention heads",
       [](M& m, const Value& v) { m.heads = v.integer; }, shows(&M::heads)},
      {"kv_heads", Kind::kInt, derived("heads (no grouped-query attention)"), int_range(1, kMaxDim),
       "key/value heads (grouped-query attention when fewer than heads)",
       [](M& m, const Value& v) { m.kv_heads = v.integer; }, shows(&M::kv_heads)},
      {"head_dim", Kind::kInt, derived("hidden / heads"), int_range(1, kMaxDim),
       "width of one attention head, where Q and the attention output are heads x head_dim wide rather than "
       "hidden (Qwen3, Gemma, GPT-OSS)",
       [](M& m, const Value& v) { m.head_dim_override = v.integer; },
       [](const M& m) { return std::to_string(m.head_dim()); }},
      {"ffn_hidden", Kind::kInt, derived("4 x hidden"), int_range(1, kMaxDim), "MLP inner size, per expert",
       [](M& m, const Value& v) { m.ffn_hidden = v.integer; }, shows(&M::ffn_hidden)},
      {"vocab", Kind::kInt, required(), int_range(1, kMaxDim), "vocabulary size",
       [](M& m, const Value& v) { m.vocab = v.integer; }, shows(&M::vocab)},
      {"max_seq", Kind::kInt, by_default("0"), int_range(0, kMaxDim),
       "positions of a learned position embedding (0: rotary, no table)",
       [](M& m, const Value& v) { m.max_seq = v.integer; }, shows(&M::max_seq)},
      {"gated_mlp", Kind::kBool, by_default("false"), {}, "SwiGLU MLP (gate, up and down projections)",
       [](M& m, const Value& v) { m.gated_mlp = v.flag; }, shows(&M::gated_mlp)},
      {"tied_embeddings", Kind::kBool, by_default("false"), {}, "output layer shares the input embedding",
       [](M& m, const Value& v) { m.tied_embeddings = v.flag; }, shows(&M::tied_embeddings)},
      {"layernorm", Kind::kBool, by_default("true"), {}, "LayerNorm with bias (GPT); false: RMSNorm (Llama)",
       [](M& m, const Value& v) { m.layernorm = v.flag; }, shows(&M::layernorm)},
      {"dropout", Kind::kBool, by_default("true"), {}, "dropout on attention scores and layer outputs (GPT)",
       [](M& m, const Value& v) { m.dropout = v.flag; }, shows(&M::dropout)},
      {"parallel_block", Kind::kBool, by_default("false"), {},
       "attention and the MLP side by side on one norm's output, both added to the residual (GPT-J, GPT-NeoX's "
       "gpt_j_residual, PaLM, Falcon, MegaScale's parallel transformer block): one norm a layer, and under TP one "
       "gather for both branches and one reduce-scatter of their summed outputs (one all-reduce without sequence "
       "parallelism) each way; dense attention layers only",
       [](M& m, const Value& v) { m.parallel_block = v.flag; }, shows(&M::parallel_block)},
      {"experts", Kind::kInt, by_default("1"), int_range(1, 1 << 20), "MoE experts per layer (1: dense)",
       [](M& m, const Value& v) { m.experts = v.integer; }, shows(&M::experts)},
      {"top_k", Kind::kInt, by_default("1"), int_range(1, 1 << 20), "experts each token visits",
       [](M& m, const Value& v) { m.top_k = v.integer; }, shows(&M::top_k)},
      {"dense_layers", Kind::kInt, by_default("0"), int_range(0, kMaxDim),
       "MoE models: the first layers have a dense MLP instead of experts (DeepSeek-V3: 3; config.json "
       "first_k_dense_replace)",
       [](M& m, const Value& v) { m.dense_layers = v.integer; }, shows(&M::dense_layers)},
      {"moe_layer_step", Kind::kInt, by_default("1"), int_range(1, kMaxDim),
       "MoE models: after dense_layers, every step-th layer has experts, the others a dense MLP: layer i when "
       "(i - dense_layers) % step is step - 1, as Llama 4 places them (Maverick: 2; config.json "
       "interleave_moe_layer_step)",
       [](M& m, const Value& v) { m.moe_layer_step = v.integer; }, shows(&M::moe_layer_step)},
      {"dense_ffn_hidden", Kind::kInt, derived("ffn_hidden"), int_range(1, kMaxDim),
       "MoE models: MLP inner size of the layers without experts (DeepSeek-V3: 18432; config.json "
       "intermediate_size where ffn_hidden is moe_intermediate_size)",
       [](M& m, const Value& v) { m.dense_ffn_hidden = v.integer; },
       [](const M& m) { return std::to_string(m.dense_ffn()); }},
      {"shared_experts", Kind::kInt, by_default("0"), int_range(0, 1 << 20),
       "MoE models: experts of ffn_hidden in every MoE layer that every token visits, split over TP, not EP "
       "(DeepSeek-V3, Llama 4: 1)",
       [](M& m, const Value& v) { m.shared_experts = v.integer; }, shows(&M::shared_experts)},
      {"expert_groups", Kind::kInt, by_default("0"), int_range(0, 1 << 20),
       "MoE models: group-limited routing, the experts in this many equal groups (DeepSeek-V3: 8; config.json "
       "n_group, Megatron-LM --moe-router-num-groups); 0: none. Only the flex dispatcher's traffic depends on it",
       [](M& m, const Value& v) { m.expert_groups = v.integer; }, shows(&M::expert_groups)},
      {"group_top_k", Kind::kInt, by_default("0"), int_range(0, 1 << 20),
       "with expert_groups, the groups a token's experts come from (DeepSeek-V3: 4; config.json topk_group, "
       "Megatron-LM --moe-router-group-topk)",
       [](M& m, const Value& v) { m.group_top_k = v.integer; }, shows(&M::group_top_k)},
      {"kv_lora_rank", Kind::kInt, by_default("0"), int_range(0, kMaxDim),
       "multi-head latent attention (DeepSeek-V2/V3) when set: the K/V latent's width (0: ordinary attention)",
       [](M& m, const Value& v) { m.kv_lora_rank = v.integer; }, shows(&M::kv_lora_rank)},
      {"q_lora_rank", Kind::kInt, by_default("0"), int_range(0, kMaxDim),
       "MLA: the Q latent's width (0: Q projected from the hidden state directly)",
       [](M& m, const Value& v) { m.q_lora_rank = v.integer; }, shows(&M::q_lora_rank)},
      {"qk_nope_head_dim", Kind::kInt, by_default("0"), int_range(0, kMaxDim),
       "MLA: the part of a Q/K head without rotary positions",
       [](M& m, const Value& v) { m.qk_nope_head_dim = v.integer; }, shows(&M::qk_nope_head_dim)},
      {"qk_rope_head_dim", Kind::kInt, by_default("0"), int_range(0, kMaxDim),
       "MLA: the rotary part of a Q/K head (one rotary key shared by the heads)",
       [](M& m, const Value& v) { m.qk_rope_head_dim = v.integer; }, shows(&M::qk_rope_head_dim)},
      {"v_head_dim", Kind::kInt, by_default("0"), int_range(0, kMaxDim), "MLA: the width of a V head",
       [](M& m, const Value& v) { m.v_head_dim = v.integer; }, shows(&M::v_head_dim)},
      {"mtp_layers", Kind::kInt, by_default("0"), int_range(0, 64),
       "multi-token-prediction modules after the last layer, each one more layer, projection and output "
       "layer on the last pipeline stage unless pipeline_layout puts them elsewhere (DeepSeek-V3: 1; config.json "
       "num_nextn_predict_layers)",
       [](M& m, const Value& v) { m.mtp_layers = v.integer; }, shows(&M::mtp_layers)},
      {"sliding_window", Kind::kInt, by_default("0"), int_range(0, kMaxDim),
       "sliding-window attention: tokens a query sees, itself included (config.json sliding_window; GPT-OSS 128); "
       "its kernels run the window with flash_attention only (unfused attention masks the whole score matrix); 0: "
       "every layer attends to the whole sequence",
       [](M& m, const Value& v) { m.sliding_window = v.integer; }, shows(&M::sliding_window)},
      {"full_attention_step", Kind::kInt, by_default("0"), int_range(0, kMaxDim),
       "with sliding_window, every this-many-th layer attends to the whole sequence (GPT-OSS 2: layers 1, 3, ...; "
       "Gemma 3 6); 0: every layer slides",
       [](M& m, const Value& v) { m.full_attention_step = v.integer; }, shows(&M::full_attention_step)},
      {"hybrid_pattern", Kind::kString, by_default(""), {},
       "a hybrid model (Nemotron-H; Megatron-LM's hybrid_override_pattern): one character per layer, each layer one "
       "block with its own norm: M a Mamba-2 mixer, * attention, - a dense MLP, E a mixture of experts (experts, "
       "top_k, shared_experts); \"\": every layer is attention and an MLP",
       [](M& m, const Value& v) { m.hybrid_pattern = v.text; }, shows(&M::hybrid_pattern)},
      {"mamba_heads", Kind::kInt, by_default("0"), int_range(0, kMaxDim),
       "hybrid models: Mamba-2 heads per mixer (mamba_num_heads; Nemotron-H 56B: 256)",
       [](M& m, const Value& v) { m.mamba_heads = v.integer; }, shows(&M::mamba_heads)},
      {"mamba_head_dim", Kind::kInt, by_default("64"), int_range(1, kMaxDim),
       "hybrid models: channels per Mamba-2 head (mamba_head_dim)",
       [](M& m, const Value& v) { m.mamba_head_dim = v.integer; }, shows(&M::mamba_head_dim)},
      {"mamba_state", Kind::kInt, by_default("128"), int_range(1, kMaxDim),
       "hybrid models: the Mamba-2 state size N (ssm_state_size; Nemotron-H 56B: 256)",
       [](M& m, const Value& v) { m.mamba_state = v.integer; }, shows(&M::mamba_state)},
      {"mamba_groups", Kind::kInt, by_default("8"), int_range(1, kMaxDim),
       "hybrid models: Mamba-2 groups, each sharing one B and C among its heads (n_groups)",
       [](M& m, const Value& v) { m.mamba_groups = v.integer; }, shows(&M::mamba_groups)},
      {"mamba_conv", Kind::kInt, by_default("4"), int_range(1, 64),
       "hybrid models: taps of the Mamba-2 depthwise convolution (conv_kernel)",
       [](M& m, const Value& v) { m.mamba_conv = v.integer; }, shows(&M::mamba_conv)},
      {"mamba_chunk", Kind::kInt, by_default("128"), int_range(1, kMaxDim),
       "hybrid models: tokens per chunk of the SSD kernels (chunk_size)",
       [](M& m, const Value& v) { m.mamba_chunk = v.integer; }, shows(&M::mamba_chunk)},
  };
  return f;
}

const std::vector<Field<topo::ClusterSpec>>& cluster_fields() {
  using C = topo::ClusterSpec;
  static const std::vector<Field<C>> f = {
      {"system", Kind::kSection, required(), {},
       "a system preset, e.g. dgx-h100; or a mapping: a preset and overrides, or a whole definition "
       "(anatomy list --format yaml prints every preset that way)",
       {}, [](const C& c) { return c.system.name; }},
      {"gpus", Kind::kInt, required(), int_range(1, kMaxGpus), "GPUs in the job",
       [](C& c, const Value& v) { c.gpus = v.as_int(); }, shows(&C::gpus)},
      {"fabric", Kind::kSection, derived("every key at its default"), {}, "the scale-out fabric joining the hosts' NICs", {}},
      {"storage", Kind::kSection, derived("every key at its default"), {}, "storage servers and their network", {}},
  };
  return f;
}

const std::vector<Field<topo::FabricSpec>>& fabric_fields() {
  using F = topo::FabricSpec;
  static const std::vector<Field<F>> f = {
      {"switch", Kind::kSection, derived("none: the keys below describe the fabric's switches"), {},
       "the switch the fabric is built of: {radix, port_speed, buffer, latency}; radix, link_speed and "
       "switch_latency below, and network.switch_buffer, override its figures",
       {}},
      {"tiers", Kind::kInt, by_default("0"),
       detail::int_one_of({0, 2, 3}, "must be 2 or 3, or 0 for the fewest tiers that hold the cluster"),
       "switch tiers of the folded Clos (0: the fewest that hold the cluster)",
       [](F& x, const Value& v) { x.tiers = v.as_int(); }, shows(&F::tiers)},
      {"radix", Kind::kInt, by_default("0"), radix_check(),
       "ports per switch (0: a 51.2 Tb/s switch's worth at the port speed, 32 to 128)",
       [](F& x, const Value& v) { x.radix = v.as_int(); }, shows(&F::radix)},
      {"oversubscription", Kind::kDouble, by_default("1"), detail::number_at_least(1),
       "leaf down:up port ratio (1: non-blocking)", [](F& x, const Value& v) { x.oversubscription = v.number; }, shows(&F::oversubscription)},
      {"spine_oversubscription", Kind::kDouble, by_default("1"), detail::number_at_least(1),
       "spine down:up port ratio in 3-tier fabrics", [](F& x, const Value& v) { x.spine_oversubscription = v.number; }, shows(&F::spine_oversubscription)},
      {"rail_optimized", Kind::kBool, by_default("true"), {},
       "NIC r of every host goes to its unit's rail-r leaf (false: a host's NICs share a leaf)",
       [](F& x, const Value& v) { x.rail_optimized = v.flag; }, shows(&F::rail_optimized)},
      {"planes", Kind::kInt, by_default("1"), int_range(1, 8), "independent copies of the fabric each NIC splits across",
       [](F& x, const Value& v) { x.planes = v.as_int(); }, shows(&F::planes)},
      {"in_network_reduction", Kind::kBool, by_default("false"), {},
       "the switches reduce (InfiniBand SHARP, Spectrum-X): across NVLink domains NVLS all-reduce sends each head's "
       "slice up to the switches once and takes the sum back (NCCL's NVLS + CollNet) instead of a tree",
       [](F& x, const Value& v) { x.in_network_reduction = v.flag; }, shows(&F::in_network_reduction)},
      {"nic_speed", Kind::kBandwidth, derived("the system preset's NIC speed"), {}, "per NIC, e.g. 800Gbps",
       [](F& x, const Value& v) { x.nic_speed = v.rate; }, shows_unless_zero(&F::nic_speed)},
      {"link_speed", Kind::kBandwidth, derived("the NIC port speed"), {}, "switch-to-switch links",
       [](F& x, const Value& v) { x.link_speed = v.rate; }, shows_unless_zero(&F::link_speed)},
      {"switch_latency", Kind::kTime, by_default("600ns"), {}, "forwarding delay per switch",
       [](F& x, const Value& v) { x.switch_latency = v.time; }, shows(&F::switch_latency)},
      {"mtu", Kind::kInt, by_default("4096"), int_range(256, 9216),
       "payload bytes per packet on the fabric: derates its links (mtu / (mtu + packet_overhead)) and sizes the "
       "packet model's packets",
       [](F& x, const Value& v) { x.framing.mtu_bytes = v.as_int(); },
       [](const F& x) { return show_value(x.framing.mtu_bytes); }},
      {"packet_overhead", Kind::kInt, by_default("82"), int_range(0, 1024),
       "wire bytes each packet adds (RoCEv2: preamble, Ethernet, gap, IPv4, UDP, BTH, ICRC)",
       [](F& x, const Value& v) { x.framing.overhead_bytes = v.as_int(); },
       [](const F& x) { return show_value(x.framing.overhead_bytes); }},
  };
  return f;
}

const std::vector<Field<topo::StorageSpec>>& storage_fields() {
  using S = topo::StorageSpec;
  static const std::vector<Field<S>> f = {
      {"servers", Kind::kInt, by_default("0"), int_range(0, kMaxGpus), "storage servers (0: none)",
       [](S& x, const Value& v) { x.servers = v.as_int(); }, shows(&S::servers)},
      {"nics_per_server", Kind::kInt, by_default("2"), int_range(1, 64), "NICs per storage server",
       [](S& x, const Value& v) { x.nics_per_server = v.as_int(); }, shows(&S::nics_per_server)},
      {"nic_speed", Kind::kBandwidth, by_default("400Gbps"), {}, "per storage-server NIC",
       [](S& x, const Value& v) { x.nic_speed = v.rate; }, shows(&S::nic_speed)},
      {"shared_with_compute", Kind::kBool, by_default("false"), {},
       "storage on the scale-out fabric instead of a separate one",
       [](S& x, const Value& v) { x.shared_with_compute = v.flag; }, shows(&S::shared_with_compute)},
  };
  return f;
}

const std::vector<Field<ParallelPlan>>& parallelism_fields() {
  using P = ParallelPlan;
  constexpr int64_t kMaxWays = kMaxGpus;
  static const std::vector<Field<P>> f = {
      {"tp", Kind::kInt, by_default("1"), int_range(1, kMaxWays), "tensor-parallel size",
       [](P& p, const Value& v) { p.tp = v.as_int(); }, shows(&P::tp)},
      {"pp", Kind::kInt, by_default("1"), int_range(1, kMaxWays), "pipeline-parallel stages",
       [](P& p, const Value& v) { p.pp = v.as_int(); }, shows(&P::pp)},
      {"dp", Kind::kInt, derived("GPUs / (tp x pp x cp)"), int_range(1, kMaxWays), "data-parallel replicas",
       [](P& p, const Value& v) { p.dp = v.as_int(); }, shows(&P::dp)},
      {"cp", Kind::kInt, by_default("1"), int_range(1, kMaxWays),
       "context-parallel size; its exchange is Transformer Engine's K/V ring unless cp_all_gather, cp_all_to_all or "
       "cp_a2a_size says otherwise (the ring refuses sliding-window attention); a Mamba-2 mixer's is always six "
       "all-to-alls over the whole CP group (Megatron-Core's MambaContextParallel)",
       [](P& p, const Value& v) { p.cp = v.as_int(); }, shows(&P::cp)},
      {"ep", Kind::kInt, by_default("1"), int_range(1, kMaxWays), "expert-parallel size (MoE; divides dp)",
       [](P& p, const Value& v) { p.ep = v.as_int(); }, shows(&P::ep)},
      {"sequence_parallel", Kind::kBool, by_default("true"), {},
       "with TP, shard norms and dropout (all-gather + reduce-scatter instead of all-reduce)",
       [](P& p, const Value& v) { p.sequence_parallel = v.flag; }, shows(&P::sequence_parallel)},
      {"virtual_stages", Kind::kInt, by_default("1"), int_range(1, 1024),
       "model chunks per pipeline rank (interleaved 1F1B)", [](P& p, const Value& v) { p.virtual_stages = v.as_int(); }, shows(&P::virtual_stages)},
      {"microbatch_group", Kind::kInt, by_default("0"), int_range(0, kMaxDim),
       "interleaved 1F1B: micro-batches each chunk takes at a time before the next chunk (Megatron-Core's "
       "--microbatch-group-size-per-virtual-pipeline-stage), from PP to all of them; a last group left over must "
       "hold at least PP. More than PP lets the micro-batches be other than a multiple of PP and warms up (v - 1) "
       "groups. 0: PP",
       [](P& p, const Value& v) { p.microbatch_group = v.integer; }, shows(&P::microbatch_group)},
      {"pipeline_layout", Kind::kString, by_default(""),
       [](const Value& v) {
         workload::PipelineLayout parsed;
         return workload::parse_pipeline_layout(v.text, parsed);
       },
       "the layers of every model chunk, as Megatron-LM's --pipeline-model-parallel-layout: stages split by |, "
       "E embedding, t layer, m MTP module, L output layer and loss, x*N or (...)*N repeats; stage i is chunk "
       "i / pp of rank i % pp, pp x virtual_stages stages in all, e.g. \"Et*3|(tt|)*29,m|L\" for DeepSeek-V3 on "
       "pp 16, virtual_stages 2 (\"\": the layers split evenly)",
       [](P& p, const Value& v) { workload::parse_pipeline_layout(v.text, p.layout); },
       [](const P& p) { return p.layout.text; }},
      {"first_stage_layers", Kind::kInt, by_default("0"), int_range(0, kMaxDim),
       "layers of the first pipeline rank, the other ranks sharing the rest equally (Megatron-LM "
       "--decoder-first-pipeline-num-layers; 0: not set)",
       [](P& p, const Value& v) { p.first_stage_layers = v.integer; }, shows(&P::first_stage_layers)},
      {"last_stage_layers", Kind::kInt, by_default("0"), int_range(0, kMaxDim),
       "layers of the last pipeline rank, the other ranks sharing the rest equally (Megatron-LM "
       "--decoder-last-pipeline-num-layers; 0: not set)",
       [](P& p, const Value& v) { p.last_stage_layers = v.integer; }, shows(&P::last_stage_layers)},
      {"embedding_in_split", Kind::kBool, by_default("false"), {},
       "count the embedding as a layer when splitting the layers over pipeline ranks and chunks: the first chunk "
       "holds one layer fewer (Megatron-LM --account-for-embedding-in-pipeline-split)",
       [](P& p, const Value& v) { p.embedding_in_split = v.flag; }, shows(&P::embedding_in_split)},
      {"loss_in_split", Kind::kBool, by_default("false"), {},
       "count the output layer and loss as a layer when splitting: the last chunk holds one layer fewer "
       "(Megatron-LM --account-for-loss-in-pipeline-split)",
       [](P& p, const Value& v) { p.loss_in_split = v.flag; }, shows(&P::loss_in_split)},
      {"zero_stage", Kind::kInt, by_default("1"), int_range(0, 3),
       "0 none, 1 optimizer state, 2 + gradients, 3 + parameters (FSDP) sharded over DP",
       [](P& p, const Value& v) { p.zero_stage = v.as_int(); }, shows(&P::zero_stage)},
      {"overlap_grad_reduce", Kind::kBool, by_default("true"), {}, "reduce gradient buckets during backward (false: each chunk's gradients in one collective after the pipeline flush, as Megatron does without overlap)",
       [](P& p, const Value& v) { p.overlap_grad_reduce = v.flag; }, shows(&P::overlap_grad_reduce)},
      {"grad_reduce_in_fp32", Kind::kBool, by_default("false"), {},
       "reduce gradients over DP in fp32, 4 bytes a parameter (Megatron-LM's bf16 default; false: the 16-bit dtype)",
       [](P& p, const Value& v) { p.grad_reduce_in_fp32 = v.flag; }, shows(&P::grad_reduce_in_fp32)},
      {"overlap_param_gather", Kind::kBool, by_default("true"), {}, "gather sharded parameters during forward (ZeRO-1/2 false: after the optimizer step, bucket by bucket; ZeRO-3: beside each step's compute, false: before it)",
       [](P& p, const Value& v) { p.overlap_param_gather = v.flag; }, shows(&P::overlap_param_gather)},
      {"align_param_gather", Kind::kBool, by_default("true"), {},
       "interleaved 1F1B, ZeRO-1/2 with overlap_param_gather: launch the first two chunks' parameter gathers at the "
       "step's start and chunk k's a pipeline's depth of forwards before its first use, every stage at once "
       "(Megatron-LM's default; NeMo ALIGN_PARAM_GATHER); false: each chunk's at its first forward, which waits for it",
       [](P& p, const Value& v) { p.align_param_gather = v.flag; }, shows(&P::align_param_gather)},
      {"overlap_param_gather_with_optimizer_step", Kind::kBool, by_default("false"), {},
       "interleaved 1F1B, ZeRO-1/2 with overlap_param_gather: the first chunk's parameter gather beside the previous "
       "step's optimizer (taken as the step's start), and no chunk bucketed, the first stage's first neither: each "
       "chunk's gradients reduced and its parameters gathered in one collective (Megatron-LM "
       "--overlap-param-gather-with-optimizer-step; NeMo OVERLAP_PARAM_GATHER_WITH_OPTIM_STEP)",
       [](P& p, const Value& v) { p.overlap_param_gather_with_optimizer_step = v.flag; },
       shows(&P::overlap_param_gather_with_optimizer_step)},
      {"fp8_param_gather", Kind::kBool, by_default("false"), {},
       "FP8 recipes: the parameters kept in FP8 and gathered over DP in FP8, 1 byte each (Megatron-LM "
       "--fp8-param-gather, NeMo FP8_PARAM_GATHER; false: in the 16-bit dtype)",
       [](P& p, const Value& v) { p.fp8_param_gather = v.flag; }, shows(&P::fp8_param_gather)},
      {"device_max_connections", Kind::kInt, by_default("8"), int_range(1, 32),
       "hardware work queues the GPU's streams share (CUDA_DEVICE_MAX_CONNECTIONS, CUDA's default 8; every value "
       "above 1 alike); 1, as Megatron-LM requires with tp or cp > 1 before Blackwell and NeMo's recipes set: a "
       "collective holds back the compute launched after it until it ends, so DP collectives, ZeRO-3's gathers and "
       "combined 1F1B's all-to-alls overlap no compute",
       [](P& p, const Value& v) { p.device_max_connections = v.as_int(); }, shows(&P::device_max_connections)},
      {"nccl_min_ctas", Kind::kSection, derived("NCCL's own for every communicator"), {},
       "the least CTAs (channels) a communicator's collectives run, by communicator: {tp, cp, dp, ep} (NCCL's "
       "minCTAs, which Megatron-Core sets per process group from --nccl-communicator-config-path; NCCL_MIN_CTAS, "
       "which overrides that file, sets every communicator's)",
       {}},
      {"nccl_max_ctas", Kind::kSection, derived("NCCL's own for every communicator"), {},
       "the most CTAs (channels) a communicator's collectives run, by communicator: {tp, cp, dp, ep} (NCCL's "
       "maxCTAs, as Megatron-Core's --nccl-communicator-config-path file sets it; NCCL_MAX_CTAS, which overrides "
       "that file, sets every communicator's). Fewer channels carry less: a ring or tree at most one CTA's rate a "
       "channel, over NVLink and through every domain it crosses, a rank's all-to-all sends at most that many "
       "CTAs' rate, NVLS's channels copy the buffer at one CTA's rate each",
       {}},
      {"overlap_p2p_comm", Kind::kBool, by_default("false"), {},
       "pipeline sends overlap compute (false: a stage waits for its send, as Megatron-LM's blocking p2p)",
       [](P& p, const Value& v) { p.overlap_p2p_comm = v.flag; }, shows(&P::overlap_p2p_comm)},
      {"tp_comm_overlap", Kind::kBool, by_default("false"), {}, "hide TP collectives behind GEMMs",
       [](P& p, const Value& v) { p.tp_comm_overlap = v.flag; }, shows(&P::tp_comm_overlap)},
      {"tp_comm_overlap_disable_qkv", Kind::kBool, by_default("false"), {},
       "with tp_comm_overlap and sequence parallelism, the all-gather before each QKV GEMM runs exposed, not "
       "pipelined with the GEMM (Megatron-Core --tp-comm-overlap-disable-qkv; NeMo's LoRA recipes set it so the "
       "QKV adapter reads the norm output Transformer Engine gathered instead of gathering it again)",
       [](P& p, const Value& v) { p.tp_comm_overlap_disable_qkv = v.flag; }, shows(&P::tp_comm_overlap_disable_qkv)},
      {"tp_comm_overlap_disable_fc1", Kind::kBool, by_default("false"), {},
       "with tp_comm_overlap and sequence parallelism, the all-gather before each MLP up projection runs exposed, "
       "not pipelined with the GEMM (Megatron-Core --tp-comm-overlap-disable-fc1)",
       [](P& p, const Value& v) { p.tp_comm_overlap_disable_fc1 = v.flag; }, shows(&P::tp_comm_overlap_disable_fc1)},
      {"expert_tp", Kind::kInt, derived("tp"), int_range(0, 1 << 20),
       "MoE: tensor parallelism of the experts (Megatron-LM --expert-tensor-parallel-size), 1 or tp: at 1 each "
       "GPU's experts are whole and expert groups fold over the stage's TP x CP x DP ranks, so ep need only "
       "divide tp x cp x dp",
       [](P& p, const Value& v) { p.expert_tp = v.integer; }, [](const P& p) { return std::to_string(p.etp()); }},
      {"rank_order", Kind::kEnum, by_default("tp-cp-dp-pp"), {},
       "the order ranks are numbered in, fastest first: tp-cp-dp-pp, Megatron-LM's default (tp-cp-ep-dp-pp), a "
       "pipeline's stages TP x CP x DP ranks apart; tp-cp-pp-dp, Megatron-LM's --use-tp-pp-dp-mapping (NeMo's "
       "TP_PP_DP_MAPPING), a pipeline's stages neighbouring ranks, in one scale-up domain when it holds TP x CP x PP "
       "GPUs, and data parallelism the slowest (expert groups fold over a stage's TP x CP x DP ranks either way)",
       [](P& p, const Value& v) {
         p.rank_order = v.text == "tp-cp-pp-dp" ? workload::RankOrder::kTpCpPpDp : workload::RankOrder::kTpCpDpPp;
       },
       [](const P& p) { return std::string(workload::to_string(p.rank_order)); },
       {"tp-cp-dp-pp", "tp-cp-pp-dp"}},
      {"ep_comm_overlap", Kind::kBool, by_default("false"), {},
       "MoE: pair one micro-batch's forward with another's backward so that each one's EP all-to-alls run beside "
       "the other's compute (Megatron-LM --overlap-moe-expert-parallel-comm, combined 1F1B; with pp > 1 it needs "
       "virtual_stages > 1)",
       [](P& p, const Value& v) { p.ep_comm_overlap = v.flag; }, shows(&P::ep_comm_overlap)},
      {"moe_dispatcher", Kind::kEnum, by_default("alltoall"), {},
       "MoE: how tokens reach their experts (Megatron-LM --moe-token-dispatcher-type): alltoall, one copy per "
       "expert straight to its rank; flex (DeepEP on 8-GPU nodes, HybridEP on NVL72 racks), one copy per rank "
       "holding any of the token's experts and, across scale-up domains, one per domain, forwarded inside it (the "
       "SMs it takes are not modelled; expert_tp 1 only)",
       [](P& p, const Value& v) {
         p.moe_dispatcher = v.text == "flex" ? workload::MoeDispatcher::kFlex : workload::MoeDispatcher::kAllToAll;
       },
       [](const P& p) { return std::string(p.moe_dispatcher == workload::MoeDispatcher::kFlex ? "flex" : "alltoall"); },
       {"alltoall", "flex"}},
      {"bucket_size", Kind::kBytes, by_default("0"), {},
       "gradients reduced together, counted in the bytes they are reduced in; a bucket holds whole tensors (Megatron closes it after the tensor that fills it, DeepSpeed before the one that would overflow it), so a size below the smallest tensor gives one bucket a tensor. 0: the framework's default, Megatron-Core's max(40M, 1M x DP) parameters (2 B each in bf16: 80MB up to DP 40), DeepSpeed's 5e8. Megatron buckets only pipeline stage 0's first chunk (every other chunk in one collective) and with FP8 weights reduces the other tensors with the last bucket; DeepSpeed buckets every chunk",
       [](P& p, const Value& v) { p.bucket_bytes = v.bytes.count(); },
       [](const P& p) { return show_size_or_rule(p.bucket_bytes); }},
      {"param_gather_size", Kind::kBytes, by_default("0"), detail::bytes_at_least(core::Bytes(kMinBucketBytes), true),
       "ZeRO-3: parameters gathered per collective (0: one layer, as FSDP wraps blocks; DeepSpeed: 100MB)",
       [](P& p, const Value& v) { p.param_gather_bytes = v.bytes.count(); },
       [](const P& p) { return show_size_or_rule(p.param_gather_bytes); }},
      {"shard_group", Kind::kInt, by_default("0"), int_range(0, kMaxWays),
       "ZeRO-3: ranks that share one copy of the sharded state, consecutive (a node's GPUs first); the copies "
       "all-reduce each gradient shard (FSDP HYBRID_SHARD, DeepSpeed MiCS). 0: every DP x CP rank (FULL_SHARD)",
       [](P& p, const Value& v) { p.shard_group = v.as_int(); }, shows(&P::shard_group)},
      {"framework", Kind::kEnum, by_default("megatron"), {},
       "what shards the model state: megatron (distributed optimizer; FSDP per block: a layer at once) or "
       "deepspeed (ZeRO: a sub-module's parameters at once, 2+2+12 bytes per fp16 parameter)",
       [](P& p, const Value& v) {
         p.framework = v.text == "deepspeed" ? workload::ShardingFramework::kDeepSpeed
                                             : workload::ShardingFramework::kMegatron;
       },
       [](const P& p) {
         return std::string(p.framework == workload::ShardingFramework::kDeepSpeed ? "deepspeed" : "megatron");
       },
       {"megatron", "deepspeed"}},
      {"cp_all_gather", Kind::kBool, by_default("false"), {},
       "CP: all-gather K/V before attention, exposed (Llama 3); false, with cp_all_to_all false and cp_a2a_size 1 too: "
       "ring attention behind the kernels",
       [](P& p, const Value& v) { p.cp_all_gather = v.flag; }, shows(&P::cp_all_gather)},
      {"cp_all_to_all", Kind::kBool, by_default("false"), {},
       "CP: all-to-alls that hand each CP rank the whole sequence of heads / cp heads for one attention kernel, "
       "Q, K, V and the output (their gradients backward) exchanged on the critical path (Megatron-Core "
       "--cp-comm-type a2a, DeepSpeed-Ulysses); needs cp above 1, flash attention, heads and KV heads on a TP rank "
       "that divide by cp and a seq_len that splits into 2 cp chunks",
       [](P& p, const Value& v) { p.cp_all_to_all = v.flag; }, shows(&P::cp_all_to_all)},
      {"cp_a2a_size", Kind::kInt, by_default("1"), int_range(1, kMaxDim),
       "hierarchical CP (Megatron-Core --cp-comm-type a2a+p2p, --hierarchical-context-parallel-sizes a cp/a): "
       "all-to-alls among each a consecutive CP ranks hand each seq_len / (cp / a) tokens of heads / a heads, then "
       "ring attention over the cp / a ranks holding the same heads, its K/V passes behind the kernels; a must "
       "divide cp and lie between 1 and cp, needs flash attention, heads and KV heads on a TP rank that divide by a "
       "and a seq_len that splits into 2 cp chunks. 1: not hierarchical",
       [](P& p, const Value& v) { p.cp_a2a_size = static_cast<int>(v.as_int()); }, shows(&P::cp_a2a_size)},
  };
  return f;
}

const std::vector<Field<TrainingSpec>>& training_fields() {
  using T = TrainingSpec;
  static const std::vector<Field<T>> f = {
      {"seq_len", Kind::kInt, by_default("2048"), int_range(1, kMaxDim), "tokens per sequence",
       [](T& t, const Value& v) { t.seq_len = v.integer; }, shows(&T::seq_len)},
      {"global_batch", Kind::kInt, by_default("512"), int_range(1, kMaxDim), "sequences per iteration",
       [](T& t, const Value& v) { t.global_batch = v.integer; }, shows(&T::global_batch)},
      {"micro_batch", Kind::kInt, by_default("1"), int_range(1, kMaxDim), "sequences per micro-batch per DP rank",
       [](T& t, const Value& v) { t.micro_batch = v.integer; }, shows(&T::micro_batch)},
      precision_field(&T::precision, "training.precision", "GEMM precision (fp4: NVFP4 / MXFP4 block-scaled inputs)"),
      {"recompute", Kind::kEnum, by_default("none"), {},
       "activation recomputation: none, selective (recompute_modules; the attention core by default) or full (whole "
       "layers)",
       [](T& t, const Value& v) {
         t.recompute = v.text == "full"        ? workload::Recompute::kFull
                       : v.text == "selective" ? workload::Recompute::kSelective
                                               : workload::Recompute::kNone;
       },
       [](const T& t) { return std::string(workload::to_string(t.recompute)); },
       {"none", "selective", "full"}},
      {"recompute_modules", Kind::kString, by_default(""),
       [](const Value& v) {
         uint32_t bits = 0;
         return workload::parse_recompute_modules(v.text, bits);
       },
       "with recompute: selective, the parts of each layer replayed, as Megatron-LM's --recompute-modules: "
       "core_attn, layernorm, moe_act, mla_up_proj, mlp, moe, shared_experts, e.g. \"mla_up_proj,moe_act,"
       "layernorm\" (\"\": core_attn)",
       [](T& t, const Value& v) { workload::parse_recompute_modules(v.text, t.recompute_modules); },
       [](const T& t) { return workload::recompute_modules_text(t.recompute_modules); }},
      {"recompute_layers", Kind::kInt, by_default("0"), int_range(0, kMaxDim),
       "with recompute: full, the layers of each model chunk recomputed, the first ones (Megatron-LM "
       "--recompute-method block --recompute-num-layers); the others keep their activations. 0: every layer",
       [](T& t, const Value& v) { t.recompute_layers = v.integer; }, shows(&T::recompute_layers)},
      {"recompute_keeps_attention", Kind::kBool, by_default("false"), {},
       "with recompute: full, the attention kernel's output and softmax statistics kept, so each replay runs the "
       "layer's GEMMs, norms and activations but not the kernel: PyTorch selective activation checkpointing that "
       "saves only the attention kernels' outputs (torchtitan's op policy with float8 linears, whose "
       "torch._scaled_mm is not on its save list)",
       [](T& t, const Value& v) { t.recompute_keeps_attention = v.flag; }, shows(&T::recompute_keeps_attention)},
      {"flash_attention", Kind::kBool, by_default("true"), {},
       "fused attention (FlashAttention); false: attention scores materialized, as in Megatron-LM 2021",
       [](T& t, const Value& v) { t.flash_attention = v.flag; }, shows(&T::flash_attention)},
      {"master_weights", Kind::kBool, by_default("true"), {},
       "fp32 master weights and Adam moments beside the 16-bit weights (mixed precision); false: 16-bit "
       "parameters, gradients and AdamW moments only (a model cast to bf16): 8 B a parameter, 6 B checkpointed",
       [](T& t, const Value& v) { t.master_weights = v.flag; }, shows(&T::master_weights)},
      {"optimizer_moments", Kind::kEnum, by_default("fp32"), {},
       "Adam's moments beside fp32 master weights: fp32, or bf16 (Megatron-LM --use-precision-aware-optimizer "
       "--exp-avg-dtype bf16 --exp-avg-sq-dtype bf16, zero_stage 1): 6 B of optimizer state a parameter in bf16 and "
       "FP4 training (the master kept as a 16-bit remainder beside the weight), 8 B with FP8 recipes (current "
       "scaling, MXFP8, blockwise: an fp32 master), instead of 12",
       [](T& t, const Value& v) { t.bf16_moments = v.text == "bf16"; },
       [](const T& t) { return std::string(t.bf16_moments ? "bf16" : "fp32"); }, {"fp32", "bf16"}},
      {"fused_grad_accumulation", Kind::kBool, by_default("true"), {},
       "micro-batches' weight gradients accumulated by the weight-gradient GEMM itself (Megatron-Core, "
       "Transformer Engine); false: by a separate add kernel over every parameter after each micro-batch's "
       "backward (PyTorch autograd, Megatron-LM 2021)",
       [](T& t, const Value& v) { t.fused_grad_accumulation = v.flag; }, shows(&T::fused_grad_accumulation)},
      {"optimizer_impl", Kind::kEnum, by_default("fused"), {},
       "how AdamW's update runs, as PyTorch names its implementations: fused, one kernel (Megatron, Transformer "
       "Engine, apex, DeepSpeed, torch.optim.AdamW(fused=True)), 28 B a parameter with fp32 state; foreach, one "
       "multi-tensor kernel per operation (torch.optim.AdamW's default on CUDA), eight passes, 84 B; for-loop, "
       "elementwise kernels tensor by tensor (foreach=False, Composer's DecoupledAdamW), nine passes, 92 B",
       [](T& t, const Value& v) {
         t.optimizer_impl = v.text == "foreach"    ? hw::OptimizerImpl::kForeach
                            : v.text == "for-loop" ? hw::OptimizerImpl::kForLoop
                                                   : hw::OptimizerImpl::kFused;
       },
       [](const T& t) { return std::string(hw::to_string(t.optimizer_impl)); },
       {"fused", "foreach", "for-loop"}},
      {"attention_kernel", Kind::kEnum, by_default("flash"), {},
       "the flash attention kernel: flash, the part's best (its calibration table; on Hopper FlashAttention-3, "
       "cuDNN, Transformer Engine), or flash2, a kernel written for Ampere's synchronous MMA (FlashAttention-2, "
       "PyTorch's SDPA flash backend, pre-Hopper Triton kernels): on Hopper at FlashAttention-2's H100 rates "
       "(FlashAttention-3 paper, Figures 5-6), on Ampere the same as flash; not measured on other parts",
       [](T& t, const Value& v) {
         t.attention_kernel = v.text == "flash2" ? hw::AttentionKernel::kFlash2 : hw::AttentionKernel::kFlash;
       },
       [](const T& t) { return std::string(t.attention_kernel == hw::AttentionKernel::kFlash2 ? "flash2" : "flash"); },
       {"flash", "flash2"}},
      {"fp8_attention", Kind::kBool, by_default("false"), {},
       "with precision fp8 or fp4, Transformer Engine's FP8 dot-product attention (Megatron-Core "
       "--fp8-dot-product-attention, NeMo's FP8_DPA): the flash kernel's two matmuls on the FP8 tensor pipes while "
       "the softmax's exponentials keep their rate (so the gain depends on the head width), Q, K and V cast to FP8 "
       "before it and the output gradient before its backward (with an amax pass under current scaling), the "
       "output 16-bit; an edge site's retraining step likewise (its casts as delayed scaling makes them)",
       [](T& t, const Value& v) { t.fp8_attention = v.flag; }, shows(&T::fp8_attention)},
      {"fp8_activation_input", Kind::kBool, by_default("false"), {},
       "with precision fp8 or fp4, the MLP activation's input kept for its backward in FP8 (Megatron-Core "
       "--activation-func-fp8-input-store, NeMo's activation_func_fp8_input_store, MLPerf's FP8_ACT=1): half the "
       "bytes of the largest activation a layer keeps, for a cast each way",
       [](T& t, const Value& v) { t.fp8_activation_input = v.flag; }, shows(&T::fp8_activation_input)},
      {"lora_rank", Kind::kInt, by_default("0"), int_range(0, kMaxDim),
       "LoRA fine-tuning: rank of the adapters beside every attention layer's QKV and output projections (NeMo's "
       "target_modules: attention), every other weight frozen: frozen GEMMs compute only input gradients and keep "
       "no inputs for weight gradients; gradients, the optimizer and checkpoints hold the adapters alone. 0: every "
       "weight trained",
       [](T& t, const Value& v) { t.lora_rank = v.integer; }, shows(&T::lora_rank)},
      {"expert_load_imbalance", Kind::kDouble, by_default("1"), number_at_least(1),
       "MoE with ep > 1: the busiest expert-parallel rank's routed tokens over the mean rank's in each MoE layer "
       "(from a run's tokens-per-expert counts); every layer's all-to-alls and experts go at that rank's pace, so "
       "its expert GEMMs, permutes, kept copies and received bytes are priced at this many times the mean's; 1: "
       "balanced routing (or Megatron-LM's --moe-router-force-load-balancing); at most ep",
       [](T& t, const Value& v) { t.expert_load_imbalance = v.number; }, shows(&T::expert_load_imbalance)},
      {"lora_dropout", Kind::kDouble, by_default("0"), number_at_least_below(0, 1),
       "with lora_rank, the dropout probability on each adapter's input (NeMo's LoRA dropout, position pre; "
       "MLPerf's LoRA runs 0.1): a memory-bound pass over the input forward and backward and a 1-byte mask an "
       "element kept; 0: none",
       [](T& t, const Value& v) { t.lora_dropout = v.number; }, shows(&T::lora_dropout)},
      {"lora_all_to_all", Kind::kBool, by_default("false"), {},
       "with lora_rank and sequence parallelism, the output projection's adapter hands its output (split over "
       "the hidden size) back to the sequence-parallel layout by an all-to-all over TP each way (NeMo's "
       "a2a_experimental, MLPerf's LORA_A2A=1) instead of gathering the whole of it forward and backward",
       [](T& t, const Value& v) { t.lora_all_to_all = v.flag; }, shows(&T::lora_all_to_all)},
      {"cross_entropy", Kind::kEnum, by_default("megatron"), {}, cross_entropy_help(),
       [](T& t, const Value& v) {
         t.cross_entropy = v.text == "fused"            ? workload::CrossEntropy::kFused
                           : v.text == "megatron_fused" ? workload::CrossEntropy::kMegatronFused
                                                        : workload::CrossEntropy::kMegatron;
       },
       [](const T& t) { return std::string(workload::to_string(t.cross_entropy)); },
       {"megatron", "megatron_fused", "fused"}},
      {"fp8_recipe", Kind::kEnum, by_default("delayed"), {},
       "with precision fp8, how each GEMM input is scaled (Megatron-Core --fp8-recipe): delayed, by earlier "
       "iterations' amaxes, the cast fused into the norm or activation before it; tensorwise, Transformer Engine's "
       "current scaling: each tensor's own amax, which costs another pass over it in 16 bits, a scale kernel, and "
       "under sequence parallelism an amax all-reduce over TP; mxfp8, a scale per 32 elements, the cast after a "
       "norm a kernel of its own; blockwise, DeepSeek-V3's scale per 128 values (per 128 x 128 of a weight): every "
       "cast a kernel of its own writing two copies, and on Hopper the scales applied on the CUDA cores every 128 of "
       "the GEMM's k (Blackwell runs it as MXFP8)",
       [](T& t, const Value& v) {
         t.fp8_recipe = v.text == "tensorwise"  ? workload::Fp8Recipe::kTensorwise
                        : v.text == "mxfp8"     ? workload::Fp8Recipe::kMxfp8
                        : v.text == "blockwise" ? workload::Fp8Recipe::kBlockwise
                                                : workload::Fp8Recipe::kDelayed;
       },
       [](const T& t) { return std::string(workload::to_string(t.fp8_recipe)); },
       {"delayed", "tensorwise", "mxfp8", "blockwise"}},
      {"te_activation", Kind::kBool, by_default("false"), {},
       "with precision fp8 or fp4, the MLP's activation runs in Transformer Engine (its op fuser, NeMo's USE_TE_OPS) "
       "and writes the next GEMM's quantized input itself; false: Megatron-Core's own activation kernel, 16-bit out, "
       "cast again",
       [](T& t, const Value& v) { t.te_activation = v.flag; }, shows(&T::te_activation)},
  };
  return f;
}

const std::vector<Field<Scenario>>& compute_fields() {
  static const std::vector<Field<Scenario>> f = {
      {"calibration", Kind::kPath, derived("none: the system's own table, if one ships"), {},
       "a calibration table (JSON); relative to the scenario file's folder",
       [](Scenario& s, const Value& v) { s.calibration = v.text; }, shows_unless_zero(&Scenario::calibration)},
      {"memory_check", Kind::kEnum, by_default("error"), {},
       "a plan that does not fit in GPU memory: error, or warn and simulate anyway",
       [](Scenario& s, const Value& v) { s.memory_check_is_error = v.text == "error"; },
       [](const Scenario& s) { return std::string(s.memory_check_is_error ? "error" : "warn"); }, {"error", "warn"}},
      {"gpu_rate_spread", Kind::kBool, by_default("true"), {},
       "a training job's GEMM and attention kernels at the pace of its slowest GPU, from the part's measured "
       "spread of sustained rates when the node is busy (none measured: one GPU's rate); false: every GPU at "
       "the rate of one alone",
       [](Scenario& s, const Value& v) { s.gpu_rate_spread = v.flag; }, shows(&Scenario::gpu_rate_spread)},
  };
  return f;
}

const std::vector<Field<Expected>>& expected_fields() {
  using E = Expected;
  static const std::vector<Field<E>> f = {
      {"case", Kind::kString, required(), detail::not_empty(), "the validation case id, e.g. A1-175B",
       [](E& e, const Value& v) { e.case_id = v.text; }, shows(&E::case_id)},
      {"metric", Kind::kEnum, required(), {}, "what the published figure measures",
       [](E& e, const Value& v) { e.metric = v.text; }, shows(&E::metric), {"tflops_per_gpu", "megatron_tflops_per_gpu", "mfu", "tokens_per_s", "tokens_per_s_per_gpu", "iteration_s",
                                                          "busbw_GBps", "algbw_GBps", "time_us", "interruptions", "ettr",
                                                          "samples_per_s", "tflops", "GBps"}},
      {"value", Kind::kDouble, required(), detail::number_positive(), "the published figure",
       [](E& e, const Value& v) { e.value = v.number; }, shows(&E::value)},
      {"source", Kind::kString, by_default(""), {}, "where the figure was published",
       [](E& e, const Value& v) { e.source = v.text; }, shows(&E::source)},
      {"bound", Kind::kEnum, by_default("equal"), {}, "equal, or a published bound: at_least / at_most",
       [](E& e, const Value& v) { e.bound = v.text; }, shows(&E::bound), {"equal", "at_least", "at_most"}},
      {"seeds", Kind::kInt, by_default("1"), int_range(1, kMaxSeeds),
       "a whole job is run with this many seeds (seed, seed + 1, ...) and their mean compared: one seed's "
       "failures are one draw",
       [](E& e, const Value& v) { e.seeds = v.as_int(); }, shows(&E::seeds)},
      {"series", Kind::kString, by_default(""), {},
       "training runs of one plan at several scales (only the GPU count and the global batch differ) share a "
       "name: validate fits each series' steps, published and simulated, to a fixed part plus a part per "
       "micro-batch of a pipeline, which says which part of a step the model misses",
       [](E& e, const Value& v) { e.series = v.text; }, shows(&E::series)},
  };
  return f;
}

const std::vector<Field<CollectiveCase>>& collective_fields() {
  using C = CollectiveCase;
  static const std::vector<Field<C>> f = {
      {"op", Kind::kEnum, by_default("all_reduce"), {}, "the collective",
       [](C& c, const Value& v) { c.op = coll::parse_op(v.text, "collective.op"); },
       [](const C& c) { return std::string(coll::to_string(c.op)); },
       {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "all_to_all", "send_recv"}},
      {"bytes", Kind::kBytes, required(), {}, "message size, nccl-tests' convention",
       [](C& c, const Value& v) { c.bytes = v.bytes; }, shows(&C::bytes)},
      {"algorithm", Kind::kString, by_default("auto"), {}, "ring, tree, nvls, hierarchical, direct or auto",
       [](C& c, const Value& v) { c.algorithm = v.text; }, shows(&C::algorithm)},
      {"min_ctas", Kind::kInt, by_default("0"), int_range(0, coll::kMaxChannels),
       "the least CTAs (channels) NCCL runs, as NCCL_MIN_CTAS sets it; 0: NCCL's own",
       [](C& c, const Value& v) { c.min_ctas = v.as_int(); }, shows(&C::min_ctas)},
      {"max_ctas", Kind::kInt, by_default("0"), int_range(0, coll::kMaxChannels),
       "the most CTAs (channels) NCCL runs, as NCCL_MAX_CTAS sets it: a ring or tree at most one CTA's rate a "
       "channel, a rank's all-to-all sends at most that many CTAs' rate, NVLS's channels copy at one CTA's rate "
       "each; 0: NCCL's own",
       [](C& c, const Value& v) { c.max_ctas = v.as_int(); }, shows(&C::max_ctas)},
  };
  return f;
}

const std::vector<Field<KernelCase>>& kernel_fields() {
  using K = KernelCase;
  static const std::vector<Field<K>> f = {
      {"op", Kind::kEnum, by_default("gemm"), {}, "the kernel",
       [](K& c, const Value& v) { c.op = v.text; }, shows(&K::op),
       {"gemm", "attention_forward", "attention_backward", "stream"}},
      {"m", Kind::kInt, derived("required for gemm"), int_range(1, kMaxDim), "gemm: rows of A and C",
       [](K& c, const Value& v) { c.m = v.integer; }, shows(&K::m)},
      {"n", Kind::kInt, derived("required for gemm"), int_range(1, kMaxDim), "gemm: columns of B and C",
       [](K& c, const Value& v) { c.n = v.integer; }, shows(&K::n)},
      {"k", Kind::kInt, derived("required for gemm"), int_range(1, kMaxDim), "gemm: the inner dimension",
       [](K& c, const Value& v) { c.k = v.integer; }, shows(&K::k)},
      precision_field(&K::precision, "kernel.precision", "gemm: input precision (fp4: NVFP4 / MXFP4 block-scaled)"),
      {"scaling", Kind::kEnum, by_default("tensor"), {},
       "gemm at fp8: tensor, one scale per operand; block, a scale per 128 values of k (DeepSeek-V3's, Transformer "
       "Engine's Float8BlockScaling), which Hopper applies on its CUDA cores every 128 of k",
       [](K& c, const Value& v) { c.block_scaled = v.text == "block"; },
       [](const K& c) { return std::string(c.block_scaled ? "block" : "tensor"); }, {"tensor", "block"}},
      {"batch", Kind::kInt, by_default("1"), int_range(1, kMaxDim), "attention: sequences",
       [](K& c, const Value& v) { c.batch = v.integer; }, shows(&K::batch)},
      {"seq", Kind::kInt, derived("required for attention"), int_range(1, kMaxDim), "attention: tokens per sequence",
       [](K& c, const Value& v) { c.seq = v.integer; }, shows(&K::seq)},
      {"heads", Kind::kInt, derived("required for attention"), int_range(1, kMaxDim), "attention: query heads",
       [](K& c, const Value& v) { c.heads = v.integer; }, shows(&K::heads)},
      {"head_dim", Kind::kInt, by_default("128"), int_range(1, kMaxDim), "attention: dimension of a head",
       [](K& c, const Value& v) { c.head_dim = v.integer; }, shows(&K::head_dim)},
      {"causal", Kind::kBool, by_default("true"), {}, "attention: causal mask (FLOPs counted at half)",
       [](K& c, const Value& v) { c.causal = v.flag; }, shows(&K::causal)},
      {"bytes", Kind::kBytes, derived("required for stream"), detail::bytes_at_least(core::Bytes(1), false),
       "stream: bytes the kernel reads plus writes (a copy of N bytes moves 2N), as STREAM and BabelStream count "
       "them; timed at the part's streaming rate",
       [](K& c, const Value& v) { c.bytes = v.bytes; }, shows(&K::bytes)},
  };
  return f;
}

namespace {

// The packet options say nothing about a flow run: its rows stop at the model.
Section network_section() {
  Section s = section<net::NetworkSpec>("network", network_fields(), [](const Scenario& x) { return &x.network; });
  s.rows = [](const Scenario& x, std::vector<InputValue>& out) {
    const auto& all = network_fields();
    const bool packet = x.network.model == net::NetworkModel::kPacket;
    add_rows(out, "network", std::vector<Field<net::NetworkSpec>>(all.begin(), packet ? all.end() : all.begin() + 1),
             x.network);
  };
  return s;
}

// A collective, kernel or edge scenario trains nothing: its plan and training
// sections are not its own to show.
bool trains(const Scenario& x) { return !(x.collective || x.kernel || x.edge); }

}  // namespace

const std::vector<Field<CommunicatorCtas>>& communicator_ctas_fields() {
  using C = CommunicatorCtas;
  static const std::vector<Field<C>> f = {
      {"tp", Kind::kInt, by_default("0"), int_range(0, coll::kMaxChannels),
       "the TP collectives (Megatron-Core's tp); 0: NCCL's own",
       [](C& c, const Value& v) { c.tp = v.as_int(); }, shows(&C::tp)},
      {"cp", Kind::kInt, by_default("0"), int_range(0, coll::kMaxChannels),
       "the CP exchange, ring or all-to-all (Megatron-Core's cp); 0: NCCL's own",
       [](C& c, const Value& v) { c.cp = v.as_int(); }, shows(&C::cp)},
      {"dp", Kind::kInt, by_default("0"), int_range(0, coll::kMaxChannels),
       "the gradient and parameter collectives over DP x CP, ZeRO-3's gathers too (Megatron-Core's dp_cp); the "
       "experts' own data-parallel groups keep NCCL's; 0: NCCL's own",
       [](C& c, const Value& v) { c.dp = v.as_int(); }, shows(&C::dp)},
      {"ep", Kind::kInt, by_default("0"), int_range(0, coll::kMaxChannels),
       "the MoE all-to-alls (Megatron-Core's ep); 0: NCCL's own",
       [](C& c, const Value& v) { c.ep = v.as_int(); }, shows(&C::ep)},
  };
  return f;
}

const std::vector<Section>& sections() {
  static const std::vector<Section> all = [] {
    std::vector<Section> s = {
        section<Scenario>("", top_fields(), [](const Scenario& x) { return &x; }),
        section<ModelSpec>("model", model_fields(),
                           [](const Scenario& x) {
                             return !trains(x) && x.model.layers == 0 ? nullptr : &x.model;
                           }),
        section<topo::ClusterSpec>("cluster", cluster_fields(), [](const Scenario& x) { return &x.cluster; }),
        section<hw::System>("cluster.system", system_fields(), [](const Scenario& x) { return &x.cluster.system; }),
        section<hw::Accelerator>("cluster.system.gpu", accelerator_fields(),
                                 [](const Scenario& x) { return &x.cluster.system.gpu; }),
        section<hw::ScaleUp>("cluster.system.scaleup", scaleup_fields(),
                             [](const Scenario& x) { return &x.cluster.system.scaleup; }),
        section<topo::FabricSpec>("cluster.fabric", fabric_fields(), [](const Scenario& x) { return &x.cluster.fabric; }),
        // Docs only: the switch's figures are applied to the fabric and network as read.
        section<hw::Switch>("cluster.fabric.switch", switch_fields(),
                            [](const Scenario&) -> const hw::Switch* { return nullptr; }),
        section<topo::StorageSpec>("cluster.storage", storage_fields(),
                                   [](const Scenario& x) { return &x.cluster.storage; }),
        section<ParallelPlan>("parallelism", parallelism_fields(),
                              [](const Scenario& x) { return trains(x) ? &x.parallelism : nullptr; }),
        section<CommunicatorCtas>("parallelism.nccl_min_ctas", communicator_ctas_fields(),
                                  [](const Scenario& x) { return trains(x) ? &x.parallelism.nccl_min_ctas : nullptr; }),
        section<CommunicatorCtas>("parallelism.nccl_max_ctas", communicator_ctas_fields(),
                                  [](const Scenario& x) { return trains(x) ? &x.parallelism.nccl_max_ctas : nullptr; }),
        section<TrainingSpec>("training", training_fields(),
                              [](const Scenario& x) { return trains(x) ? &x.training : nullptr; }),
        network_section(),
        section<Scenario>("compute", compute_fields(), [](const Scenario& x) { return &x; }),
        section<Expected>("expected", expected_fields(),
                          [](const Scenario& x) { return x.expected ? &*x.expected : nullptr; }),
        section<CollectiveCase>("collective", collective_fields(),
                                [](const Scenario& x) { return x.collective ? &*x.collective : nullptr; }),
        section<KernelCase>("kernel", kernel_fields(), [](const Scenario& x) { return x.kernel ? &*x.kernel : nullptr; }),
    };
    add_job_sections(s);
    add_edge_sections(s);
    add_fleet_sections(s);
    return s;
  }();
  return all;
}

}  // namespace anatomy::scenario::detail
