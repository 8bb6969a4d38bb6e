#include "scenario/scenario.h"

#include "scenario/job_fields.h"
#include "scenario/network_fields.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/error.h"
#include "hw/catalog.h"
#include "hw/precision.h"
#include "scenario/yaml_fields.h"

namespace anatomy::scenario {
namespace {

using detail::by_default;
using detail::Check;
using detail::Context;
using detail::Default;
using detail::derived;
using detail::Field;
using detail::int_range;
using detail::Kind;
using detail::Present;
using detail::required;
using detail::Value;
using workload::ModelSpec;
using workload::ParallelPlan;
using workload::TrainingSpec;

constexpr int64_t kMaxGpus = 1'048'576;  // what topo::build_cluster accepts
constexpr int64_t kMaxDim = 1'000'000'000;
constexpr int64_t kMaxSeed = std::numeric_limits<int64_t>::max();

// ---- The schema: every key, declared once. -------------------------------

const std::vector<Field<Scenario>>& top_fields() {
  static const std::vector<Field<Scenario>> f = {
      {"name", Kind::kString, derived("the file name without its extension"), {},
       "a name for reports", [](Scenario& s, const Value& v) { s.name = v.text; }},
      {"seed", Kind::kInt, by_default("1"), int_range(0, kMaxSeed),
       "seed of every random stream (same seed, same results)",
       [](Scenario& s, const Value& v) { s.seed = static_cast<uint64_t>(v.integer); }},
      {"model", Kind::kSection, derived("required unless the scenario is a collective case"), {},
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
      {"job", Kind::kSection, derived("none: one iteration"), {},
       "a whole training run: duration, startup, checkpoints, failures, cost", {}},
      {"placement", Kind::kSection, derived("none: the job is the whole cluster"), {},
       "where the job lands in a larger cluster: policy, racks, power, busy hosts", {}},
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
       [](M& m, const Value& v) { m.name = v.text; }},
      {"layers", Kind::kInt, required(), int_range(1, kMaxDim), "transformer layers",
       [](M& m, const Value& v) { m.layers = v.integer; }},
      {"hidden", Kind::kInt, required(), int_range(1, kMaxDim), "hidden size h",
       [](M& m, const Value& v) { m.hidden = v.integer; }},
      {"heads", Kind::kInt, required(), int_range(1, kMaxDim), "attention heads",
       [](M& m, const Value& v) { m.heads = v.integer; }},
      {"kv_heads", Kind::kInt, derived("heads (no grouped-query attention)"), int_range(1, kMaxDim),
       "key/value heads (grouped-query attention when fewer than heads)",
       [](M& m, const Value& v) { m.kv_heads = v.integer; }},
      {"ffn_hidden", Kind::kInt, derived("4 x hidden"), int_range(1, kMaxDim), "MLP inner size, per expert",
       [](M& m, const Value& v) { m.ffn_hidden = v.integer; }},
      {"vocab", Kind::kInt, required(), int_range(1, kMaxDim), "vocabulary size",
       [](M& m, const Value& v) { m.vocab = v.integer; }},
      {"max_seq", Kind::kInt, by_default("0"), int_range(0, kMaxDim),
       "positions of a learned position embedding (0: rotary, no table)",
       [](M& m, const Value& v) { m.max_seq = v.integer; }},
      {"gated_mlp", Kind::kBool, by_default("false"), {}, "SwiGLU MLP (gate, up and down projections)",
       [](M& m, const Value& v) { m.gated_mlp = v.flag; }},
      {"tied_embeddings", Kind::kBool, by_default("false"), {}, "output layer shares the input embedding",
       [](M& m, const Value& v) { m.tied_embeddings = v.flag; }},
      {"layernorm", Kind::kBool, by_default("true"), {}, "LayerNorm with bias (GPT); false: RMSNorm (Llama)",
       [](M& m, const Value& v) { m.layernorm = v.flag; }},
      {"dropout", Kind::kBool, by_default("true"), {}, "dropout on attention scores and layer outputs (GPT)",
       [](M& m, const Value& v) { m.dropout = v.flag; }},
      {"experts", Kind::kInt, by_default("1"), int_range(1, 1 << 20), "MoE experts per layer (1: dense)",
       [](M& m, const Value& v) { m.experts = v.integer; }},
      {"top_k", Kind::kInt, by_default("1"), int_range(1, 1 << 20), "experts each token visits",
       [](M& m, const Value& v) { m.top_k = v.integer; }},
  };
  return f;
}

const std::vector<Field<topo::ClusterSpec>>& cluster_fields() {
  using C = topo::ClusterSpec;
  static const std::vector<Field<C>> f = {
      {"system", Kind::kString, required(), {}, "the system preset, e.g. dgx-h100 (anatomy list)",
       [](C& c, const Value& v) { c.system = hw::find_system(v.text); }},
      {"gpus", Kind::kInt, required(), int_range(1, kMaxGpus), "GPUs in the job",
       [](C& c, const Value& v) { c.gpus = v.as_int(); }},
      {"fabric", Kind::kSection, derived("every key at its default"), {}, "the scale-out fabric joining the hosts' NICs", {}},
      {"storage", Kind::kSection, derived("every key at its default"), {}, "storage servers and their network", {}},
  };
  return f;
}

Check radix_check() {
  return [](const Value& v) -> std::string {
    if (v.integer == 0 || (v.integer >= 4 && v.integer <= 1024)) return {};
    return fmt::format("must be 4 to 1024 ports, or 0 for a 51.2 Tb/s switch's worth (got {})", v.integer);
  };
}

const std::vector<Field<topo::FabricSpec>>& fabric_fields() {
  using F = topo::FabricSpec;
  static const std::vector<Field<F>> f = {
      {"tiers", Kind::kInt, by_default("0"),
       detail::int_one_of({0, 2, 3}, "must be 2 or 3, or 0 for the fewest tiers that hold the cluster"),
       "switch tiers of the folded Clos (0: the fewest that hold the cluster)",
       [](F& x, const Value& v) { x.tiers = v.as_int(); }},
      {"radix", Kind::kInt, by_default("0"), radix_check(),
       "ports per switch (0: a 51.2 Tb/s switch's worth at the port speed, 32 to 128)",
       [](F& x, const Value& v) { x.radix = v.as_int(); }},
      {"oversubscription", Kind::kDouble, by_default("1"), detail::number_at_least(1),
       "leaf down:up port ratio (1: non-blocking)", [](F& x, const Value& v) { x.oversubscription = v.number; }},
      {"spine_oversubscription", Kind::kDouble, by_default("1"), detail::number_at_least(1),
       "spine down:up port ratio in 3-tier fabrics", [](F& x, const Value& v) { x.spine_oversubscription = v.number; }},
      {"rail_optimized", Kind::kBool, by_default("true"), {},
       "NIC r of every host goes to its unit's rail-r leaf (false: a host's NICs share a leaf)",
       [](F& x, const Value& v) { x.rail_optimized = v.flag; }},
      {"planes", Kind::kInt, by_default("1"), int_range(1, 8), "independent copies of the fabric each NIC splits across",
       [](F& x, const Value& v) { x.planes = v.as_int(); }},
      {"nic_speed", Kind::kBandwidth, derived("the system preset's NIC speed"), {}, "per NIC, e.g. 800Gbps",
       [](F& x, const Value& v) { x.nic_speed = v.rate; }},
      {"link_speed", Kind::kBandwidth, derived("the NIC port speed"), {}, "switch-to-switch links",
       [](F& x, const Value& v) { x.link_speed = v.rate; }},
      {"switch_latency", Kind::kTime, by_default("600ns"), {}, "forwarding delay per switch",
       [](F& x, const Value& v) { x.switch_latency = v.time; }},
      {"mtu", Kind::kInt, by_default("4096"), int_range(256, 9216),
       "payload bytes per packet on the fabric: derates its links (mtu / (mtu + packet_overhead)) and sizes the "
       "packet model's packets",
       [](F& x, const Value& v) { x.framing.mtu_bytes = v.as_int(); }},
      {"packet_overhead", Kind::kInt, by_default("82"), int_range(0, 1024),
       "wire bytes each packet adds (RoCEv2: preamble, Ethernet, gap, IPv4, UDP, BTH, ICRC)",
       [](F& x, const Value& v) { x.framing.overhead_bytes = v.as_int(); }},
  };
  return f;
}

const std::vector<Field<topo::StorageSpec>>& storage_fields() {
  using S = topo::StorageSpec;
  static const std::vector<Field<S>> f = {
      {"servers", Kind::kInt, by_default("0"), int_range(0, kMaxGpus), "storage servers (0: none)",
       [](S& x, const Value& v) { x.servers = v.as_int(); }},
      {"nics_per_server", Kind::kInt, by_default("2"), int_range(1, 64), "NICs per storage server",
       [](S& x, const Value& v) { x.nics_per_server = v.as_int(); }},
      {"nic_speed", Kind::kBandwidth, by_default("400Gbps"), {}, "per storage-server NIC",
       [](S& x, const Value& v) { x.nic_speed = v.rate; }},
      {"shared_with_compute", Kind::kBool, by_default("false"), {},
       "storage on the scale-out fabric instead of a separate one",
       [](S& x, const Value& v) { x.shared_with_compute = v.flag; }},
  };
  return f;
}

const std::vector<Field<ParallelPlan>>& parallelism_fields() {
  using P = ParallelPlan;
  constexpr int64_t kMaxWays = kMaxGpus;
  static const std::vector<Field<P>> f = {
      {"tp", Kind::kInt, by_default("1"), int_range(1, kMaxWays), "tensor-parallel size",
       [](P& p, const Value& v) { p.tp = v.as_int(); }},
      {"pp", Kind::kInt, by_default("1"), int_range(1, kMaxWays), "pipeline-parallel stages",
       [](P& p, const Value& v) { p.pp = v.as_int(); }},
      {"dp", Kind::kInt, derived("GPUs / (tp x pp x cp)"), int_range(1, kMaxWays), "data-parallel replicas",
       [](P& p, const Value& v) { p.dp = v.as_int(); }},
      {"cp", Kind::kInt, by_default("1"), int_range(1, kMaxWays), "context-parallel size",
       [](P& p, const Value& v) { p.cp = v.as_int(); }},
      {"ep", Kind::kInt, by_default("1"), int_range(1, kMaxWays), "expert-parallel size (MoE; divides dp)",
       [](P& p, const Value& v) { p.ep = v.as_int(); }},
      {"sequence_parallel", Kind::kBool, by_default("true"), {},
       "with TP, shard norms and dropout (all-gather + reduce-scatter instead of all-reduce)",
       [](P& p, const Value& v) { p.sequence_parallel = v.flag; }},
      {"virtual_stages", Kind::kInt, by_default("1"), int_range(1, 1024),
       "model chunks per pipeline rank (interleaved 1F1B)", [](P& p, const Value& v) { p.virtual_stages = v.as_int(); }},
      {"zero_stage", Kind::kInt, by_default("1"), int_range(0, 3),
       "0 none, 1 optimizer state, 2 + gradients, 3 + parameters (FSDP) sharded over DP",
       [](P& p, const Value& v) { p.zero_stage = v.as_int(); }},
      {"overlap_grad_reduce", Kind::kBool, by_default("true"), {}, "reduce gradient buckets during backward",
       [](P& p, const Value& v) { p.overlap_grad_reduce = v.flag; }},
      {"overlap_param_gather", Kind::kBool, by_default("true"), {}, "gather sharded parameters during forward",
       [](P& p, const Value& v) { p.overlap_param_gather = v.flag; }},
      {"overlap_p2p_comm", Kind::kBool, by_default("false"), {},
       "pipeline sends overlap compute (false: a stage waits for its send, as Megatron-LM's blocking p2p)",
       [](P& p, const Value& v) { p.overlap_p2p_comm = v.flag; }},
      {"tp_comm_overlap", Kind::kBool, by_default("false"), {}, "hide TP collectives behind GEMMs",
       [](P& p, const Value& v) { p.tp_comm_overlap = v.flag; }},
      {"bucket_size", Kind::kBytes, by_default("80MB"), detail::bytes_positive(),
       "gradients reduced together, e.g. 40MB (Megatron: 40M bf16 elements = 80MB)",
       [](P& p, const Value& v) { p.bucket_bytes = v.bytes.count(); }},
      {"param_gather_size", Kind::kBytes, by_default("0"), {},
       "ZeRO-3: parameters gathered per collective (0: one layer, as FSDP wraps blocks; DeepSpeed: 100MB)",
       [](P& p, const Value& v) { p.param_gather_bytes = v.bytes.count(); }},
      {"framework", Kind::kEnum, by_default("megatron"), {},
       "what shards the model state: megatron (distributed optimizer; FSDP per block: a layer at once) or "
       "deepspeed (ZeRO: a sub-module's parameters at once, 2+2+12 bytes per fp16 parameter)",
       [](P& p, const Value& v) {
         p.framework = v.text == "deepspeed" ? workload::ShardingFramework::kDeepSpeed
                                             : workload::ShardingFramework::kMegatron;
       },
       {"megatron", "deepspeed"}},
      {"cp_all_gather", Kind::kBool, by_default("false"), {},
       "CP: all-gather K/V before attention, exposed (Llama 3); false: ring attention behind the kernels",
       [](P& p, const Value& v) { p.cp_all_gather = v.flag; }},
  };
  return f;
}

const std::vector<Field<TrainingSpec>>& training_fields() {
  using T = TrainingSpec;
  static const std::vector<Field<T>> f = {
      {"seq_len", Kind::kInt, by_default("2048"), int_range(1, kMaxDim), "tokens per sequence",
       [](T& t, const Value& v) { t.seq_len = v.integer; }},
      {"global_batch", Kind::kInt, by_default("512"), int_range(1, kMaxDim), "sequences per iteration",
       [](T& t, const Value& v) { t.global_batch = v.integer; }},
      {"micro_batch", Kind::kInt, by_default("1"), int_range(1, kMaxDim), "sequences per micro-batch per DP rank",
       [](T& t, const Value& v) { t.micro_batch = v.integer; }},
      {"precision", Kind::kEnum, by_default("bf16"), {}, "GEMM precision",
       [](T& t, const Value& v) { t.precision = hw::parse_precision(v.text, "training.precision"); },
       {"bf16", "fp8", "fp16", "fp32"}},
      {"recompute", Kind::kEnum, by_default("none"), {},
       "activation recomputation: none, selective (attention) or full (whole layers)",
       [](T& t, const Value& v) {
         t.recompute = v.text == "full"        ? workload::Recompute::kFull
                       : v.text == "selective" ? workload::Recompute::kSelective
                                               : workload::Recompute::kNone;
       },
       {"none", "selective", "full"}},
      {"flash_attention", Kind::kBool, by_default("true"), {},
       "fused attention (FlashAttention); false: attention scores materialized, as in Megatron-LM 2021",
       [](T& t, const Value& v) { t.flash_attention = v.flag; }},
  };
  return f;
}

const std::vector<Field<Scenario>>& compute_fields() {
  static const std::vector<Field<Scenario>> f = {
      {"calibration", Kind::kPath, derived("none: the system's own table, if one ships"), {},
       "a calibration table (JSON); relative to the scenario file's folder",
       [](Scenario& s, const Value& v) { s.calibration = v.text; }},
      {"memory_check", Kind::kEnum, by_default("error"), {},
       "a plan that does not fit in GPU memory: error, or warn and simulate anyway",
       [](Scenario& s, const Value& v) { s.memory_check_is_error = v.text == "error"; }, {"error", "warn"}},
  };
  return f;
}

const std::vector<Field<Expected>>& expected_fields() {
  using E = Expected;
  static const std::vector<Field<E>> f = {
      {"case", Kind::kString, required(), detail::not_empty(), "the validation case id, e.g. A1-175B",
       [](E& e, const Value& v) { e.case_id = v.text; }},
      {"metric", Kind::kEnum, required(), {}, "what the published figure measures",
       [](E& e, const Value& v) { e.metric = v.text; }, {"tflops_per_gpu", "megatron_tflops_per_gpu", "mfu", "tokens_per_s", "iteration_s",
                                                          "busbw_GBps", "time_us", "interruptions", "ettr"}},
      {"value", Kind::kDouble, required(), detail::number_positive(), "the published figure",
       [](E& e, const Value& v) { e.value = v.number; }},
      {"source", Kind::kString, by_default(""), {}, "where the figure was published",
       [](E& e, const Value& v) { e.source = v.text; }},
      {"bound", Kind::kEnum, by_default("equal"), {}, "equal, or a published bound: at_least / at_most",
       [](E& e, const Value& v) { e.bound = v.text; }, {"equal", "at_least", "at_most"}},
  };
  return f;
}

const std::vector<Field<CollectiveCase>>& collective_fields() {
  using C = CollectiveCase;
  static const std::vector<Field<C>> f = {
      {"op", Kind::kEnum, by_default("all_reduce"), {}, "the collective",
       [](C& c, const Value& v) { c.op = coll::parse_op(v.text, "collective.op"); },
       {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "all_to_all", "send_recv"}},
      {"bytes", Kind::kBytes, required(), {}, "message size, nccl-tests' convention",
       [](C& c, const Value& v) { c.bytes = v.bytes; }},
      {"algorithm", Kind::kString, by_default("auto"), {}, "ring, tree, nvls, hierarchical, direct or auto",
       [](C& c, const Value& v) { c.algorithm = v.text; }},
  };
  return f;
}

// ---- Reading. --------------------------------------------------------------

YAML::Node sub(const Present& p, std::string_view key) {
  const auto it = p.find(key);
  return it == p.end() ? YAML::Node() : it->second;
}

ModelSpec read_model(const YAML::Node& node, Context& ctx) {
  const int at = ctx.line_for("model");
  if (node.IsScalar()) {
    try {
      return workload::find_model(node.Scalar());
    } catch (const core::InputError& e) {
      throw ctx.locate(e, "model", at);
    }
  }
  if (!node.IsMap()) ctx.fail(at, "model", "expects a preset name or a mapping (preset and overrides, or dimensions)");
  const bool from_preset = node["preset"].IsDefined();
  ModelSpec m;
  const Present given = detail::read_section(node, "model", at, model_fields(), m, ctx, !from_preset);
  if (from_preset) {
    const ModelSpec& base = workload::find_model(node["preset"].Scalar());  // found once already
    // A multi-head preset given fewer heads stays multi-head.
    if (given.count("heads") && !given.count("kv_heads") && base.kv_heads == base.heads) m.kv_heads = m.heads;
    std::string changed;
    for (const auto& [key, _] : given)
      if (key != "preset" && key != "name") changed += (changed.empty() ? "" : ", ") + key;
    if (!changed.empty()) m.description += " [changed: " + changed + "]";
  } else {
    if (!given.count("kv_heads")) m.kv_heads = m.heads;
    if (!given.count("ffn_hidden")) m.ffn_hidden = 4 * m.hidden;
    m.description = "dimensions given in the scenario";
  }
  return m;
}

// dp, when not given: the GPUs left after TP, PP and CP. When they do not
// divide evenly, the nearest smaller dp is kept so validate_plan reports
// the product that does not match the GPU count.
void derive_dp(ParallelPlan& p, int gpus) {
  const int64_t others = int64_t{p.tp} * p.pp * p.cp;
  p.dp = static_cast<int>(std::max<int64_t>(1, gpus / others));
}

std::string stem_of(const std::string& file) { return std::filesystem::path(file).stem().string(); }

}  // namespace

Scenario parse_scenario(const std::string& yaml_text, const std::string& file) {
  Context ctx;
  ctx.file = file;
  ctx.folder = std::filesystem::path(file).parent_path();

  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw core::InputError({file, e.mark.is_null() ? 0 : e.mark.line + 1, ""}, "YAML syntax error: " + e.msg);
  }
  if (!root.IsDefined() || root.IsNull()) ctx.fail(0, "", "the scenario is empty (it needs at least model and cluster)");

  Scenario s;
  s.file = file;
  const int root_line = detail::line_of(root);
  const Present top = detail::read_section(root, "", root_line, top_fields(), s, ctx);
  if (!top.count("name")) s.name = stem_of(file);

  if (top.count("collective")) {
    CollectiveCase c;
    detail::read_section(sub(top, "collective"), "collective", ctx.line_for("collective"), collective_fields(), c, ctx);
    s.collective = c;
  } else if (!top.count("model")) {
    ctx.fail(root_line, "model", "is required (a model preset name, or a mapping of its dimensions)");
  }
  if (top.count("model")) s.model = read_model(sub(top, "model"), ctx);

  const Present cluster =
      detail::read_section(sub(top, "cluster"), "cluster", ctx.line_for("cluster"), cluster_fields(), s.cluster, ctx);
  detail::read_section(sub(cluster, "fabric"), "cluster.fabric", ctx.line_for("cluster.fabric"), fabric_fields(),
                       s.cluster.fabric, ctx);
  detail::read_section(sub(cluster, "storage"), "cluster.storage", ctx.line_for("cluster.storage"), storage_fields(),
                       s.cluster.storage, ctx);

  const Present plan = detail::read_section(sub(top, "parallelism"), "parallelism", ctx.line_for("parallelism"),
                                            parallelism_fields(), s.parallelism, ctx);
  if (!plan.count("dp")) derive_dp(s.parallelism, s.cluster.gpus);
  detail::read_section(sub(top, "training"), "training", ctx.line_for("training"), training_fields(), s.training,
                       ctx);
  if (s.training.precision == hw::Precision::kFp8 && s.cluster.system.gpu.fp8_tflops <= 0)
    ctx.fail(ctx.line_for("training.precision"), "training.precision",
             fmt::format("fp8 needs FP8 tensor cores, which the {} does not have (use bf16)",
                         s.cluster.system.gpu.name));
  s.network = detail::read_network(sub(top, "network"), ctx.line_for("network"), ctx);
  detail::read_section(sub(top, "compute"), "compute", ctx.line_for("compute"), compute_fields(), s, ctx);
  if (top.count("expected")) {
    Expected e;
    detail::read_section(sub(top, "expected"), "expected", ctx.line_for("expected"), expected_fields(), e, ctx);
    s.expected = e;
  }

  // The plan against the model and GPU count (and the model's own shape):
  // its errors name a field; point them at that field's line, or at the
  // line of the nearest section written.
  if (top.count("job")) {
    s.job = detail::read_job(sub(top, "job"), ctx.line_for("job"), ctx);
    s.job->seed = s.seed;
  }
  if (top.count("placement")) {
    s.placement = detail::read_placement(sub(top, "placement"), ctx.line_for("placement"), ctx,
                                         &s.placement_cluster_gpus);
    s.placement->seed = s.seed;
    if (s.placement_cluster_gpus < s.cluster.gpus)
      ctx.fail(ctx.line_for("placement.cluster_gpus"), "placement.cluster_gpus",
               fmt::format("{} GPUs cannot hold a job of {} (cluster.gpus)", s.placement_cluster_gpus, s.cluster.gpus));
  }
  s.lines = ctx.lines;
  if (s.collective && !top.count("model")) return s;
  try {
    workload::validate_plan(s.model, s.parallelism, s.training, s.cluster.gpus);
  } catch (const core::InputError& e) {
    throw locate_in_scenario(s, e.where().field.empty() ? e.with_field("parallelism") : e);
  }
  return s;
}

core::InputError locate_in_scenario(const Scenario& s, const core::InputError& e) {
  if (!e.where().file.empty() || s.file.empty()) return e;
  // The builders below the scenario name fields as they know them: the
  // cluster's relative to the cluster, the network's without its section.
  std::string field = e.where().field;
  const auto starts = [&](std::string_view prefix) { return field.rfind(prefix, 0) == 0; };
  if (field == "gpus" || starts("fabric.") || starts("storage."))
    field = "cluster." + field;
  else if (starts("system."))
    field = "cluster.system";
  else if (field == "transport")
    field = "network.transport";
  return e.with_field(field).with_location(s.file, detail::nearest_line(s.lines, field));
}

Scenario load_scenario(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw core::InputError({path, 0, ""}, "cannot read the scenario file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_scenario(text.str(), path);
}

std::vector<FieldDoc> scenario_fields() {
  std::vector<FieldDoc> out;
  auto add = [&out](const std::string& section, const auto& fields) {
    for (const auto& f : fields) {
      FieldDoc d;
      d.path = detail::join(section, f.key);
      d.kind = detail::to_string(f.kind);
      for (auto c : f.choices) {
        d.kind += d.kind == "one of" ? ' ' : '|';
        d.kind += c;
      }
      d.default_value = f.def.how == Default::kRequired ? "required" : std::string(f.def.text);
      d.help = std::string(f.help);
      out.push_back(std::move(d));
    }
  };
  add("", top_fields());
  add("model", model_fields());
  add("cluster", cluster_fields());
  add("cluster.fabric", fabric_fields());
  add("cluster.storage", storage_fields());
  add("parallelism", parallelism_fields());
  add("training", training_fields());
  add("network", detail::network_fields());
  add("compute", compute_fields());
  add("expected", expected_fields());
  add("collective", collective_fields());
  detail::add_job_docs(out);
  return out;
}

}  // namespace anatomy::scenario
