#include "scenario/scenario.h"

#include <algorithm>
#include <filesystem>
#include <optional>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "coll/library_model.h"
#include "core/error.h"
#include "core/input_file.h"
#include "hw/precision.h"
#include "scenario/edge_fields.h"
#include "scenario/fleet_fields.h"
#include "scenario/hardware_fields.h"
#include "scenario/job_fields.h"
#include "scenario/network_fields.h"
#include "scenario/scenario_fields.h"
#include "scenario/yaml_fields.h"

namespace anatomy::scenario {
namespace {

using detail::Context;
using detail::Present;
using detail::sub;
using workload::ModelSpec;
using workload::ParallelPlan;

// ---- Reading. --------------------------------------------------------------

ModelSpec read_model(const YAML::Node& node, Context& ctx) {
  const int at = ctx.line_for("model");
  if (node.IsScalar()) {
    detail::check_length(node.Scalar(), "model", at, ctx);
    try {
      return workload::find_model(node.Scalar());
    } catch (const core::InputError& e) {
      throw ctx.locate(e, "model", at);
    }
  }
  if (!node.IsMap()) ctx.fail(at, "model", "expects a preset name or a mapping (preset and overrides, or dimensions)");
  const bool from_preset = node["preset"].IsDefined();
  ModelSpec m;
  const Present given = detail::read_section(node, "model", at, detail::model_fields(), m, ctx, !from_preset);
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

// The fabric's switch gives the figures the fabric section left out.
void apply_switch(const hw::Switch& w, const Present& given, topo::FabricSpec& f) {
  if (!given.count("radix")) f.radix = w.radix;
  if (!given.count("link_speed")) f.link_speed = w.port_speed;
  if (!given.count("switch_latency")) f.switch_latency = w.latency;
}

// ... and the packet model its buffer, unless network.switch_buffer is set
// (the flow model has no buffers).
void apply_switch_buffer(const hw::Switch& w, const YAML::Node& network, net::NetworkSpec& spec) {
  if (w.buffer.count() <= 0 || spec.model != net::NetworkModel::kPacket) return;
  if (network.IsMap() && network["switch_buffer"].IsDefined()) return;
  spec.packet.switch_buffer = w.buffer;
}

std::string stem_of(const std::string& file) { return std::filesystem::path(file).stem().string(); }

}  // namespace

Scenario parse_scenario(const std::string& yaml_text, const std::string& file,
                        const std::vector<Override>& overrides) {
  Context ctx;
  ctx.file = file;
  ctx.folder = std::filesystem::path(file).parent_path();

  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    const int line = e.mark.is_null() ? 1 : e.mark.line + 1;
    const int column = e.mark.is_null() ? -1 : e.mark.column;
    throw core::InputError({file, line, detail::key_path_at(yaml_text, line, column)}, "YAML syntax error: " + e.msg);
  }
  ctx.overridden = detail::apply_overrides(root, overrides);
  if (!root.IsDefined() || root.IsNull()) ctx.fail(1, "model", "is required: the scenario is empty (it needs at least model and cluster)");

  Scenario s;
  s.file = file;
  const int root_line = detail::line_of(root);
  const Present top = detail::read_section(root, "", root_line, detail::top_fields(), s, ctx);
  if (!top.count("name")) s.name = stem_of(file);

  if (top.count("collective") && top.count("kernel"))
    ctx.fail(ctx.line_for("kernel"), "kernel", "a scenario is a collective case or a kernel case, not both");
  if (top.count("collective")) {
    CollectiveCase c;
    detail::read_section(sub(top, "collective"), "collective", ctx.line_for("collective"), detail::collective_fields(), c, ctx);
    if (const std::string crossed = coll::crossed_ctas(c.min_ctas, c.max_ctas, "max_ctas"); !crossed.empty())
      ctx.fail(ctx.line_for("collective.min_ctas"), "collective.min_ctas", crossed);
    s.collective = c;
  } else if (top.count("kernel")) {
    KernelCase k;
    const Present given =
        detail::read_section(sub(top, "kernel"), "kernel", ctx.line_for("kernel"), detail::kernel_fields(), k, ctx);
    // Each kind of kernel: the fields it needs, and those it alone reads.
    struct KernelKind {
      const char* name;
      std::vector<std::string> required, own;
      const char* required_what;
    };
    static const KernelKind kinds[] = {
        {"gemm", {"m", "n", "k"}, {"m", "n", "k", "precision", "scaling"}, "GEMM's M, N and K"},
        {"attention", {"seq", "heads"}, {"batch", "seq", "heads", "head_dim", "causal"}, "sequence length and heads"},
        {"stream", {"bytes"}, {"bytes"}, "size in bytes read plus written"}};
    const std::string kind_name = k.op.rfind("attention", 0) == 0 ? "attention" : k.op;
    for (const KernelKind& kind : kinds) {
      if (kind.name == kind_name) {
        for (const std::string& key : kind.required)
          if (!given.count(key))
            ctx.fail(ctx.line_for("kernel"), "kernel." + key,
                     fmt::format("is required for {} (a {})", k.op, kind.required_what));
        continue;
      }
      // A field of another kind of kernel would be ignored: say so instead.
      for (const std::string& key : kind.own)
        if (given.count(key))
          ctx.fail(ctx.line_for("kernel." + key), "kernel." + key,
                   fmt::format("is not a field of {} (it belongs to {})", k.op, kind.name));
    }
    if (k.block_scaled && k.precision != hw::Precision::kFp8)
      ctx.fail(ctx.line_for("kernel.scaling"), "kernel.scaling",
               fmt::format("block scales FP8 inputs; kernel.precision is {} (use fp8, or leave scaling out)",
                           hw::to_string(k.precision)));
    s.kernel = k;
  } else if (!top.count("model") && !top.count("edge") && !top.count("fleet")) {
    ctx.fail(root_line, "model", "is required (a model preset name, or a mapping of its dimensions)");
  }
  if (top.count("model")) s.model = read_model(sub(top, "model"), ctx);

  const Present cluster =
      detail::read_section(sub(top, "cluster"), "cluster", ctx.line_for("cluster"), detail::cluster_fields(), s.cluster, ctx);
  s.cluster.system = detail::read_system(sub(cluster, "system"), "cluster.system", ctx.line_for("cluster.system"), ctx);
  const Present fabric = detail::read_section(sub(cluster, "fabric"), "cluster.fabric", ctx.line_for("cluster.fabric"),
                                              detail::fabric_fields(), s.cluster.fabric, ctx);
  std::optional<hw::Switch> fabric_switch;
  if (fabric.count("switch")) {
    fabric_switch = detail::read_switch(sub(fabric, "switch"), "cluster.fabric.switch",
                                        ctx.line_for("cluster.fabric.switch"), ctx);
    apply_switch(*fabric_switch, fabric, s.cluster.fabric);
  }
  detail::read_section(sub(cluster, "storage"), "cluster.storage", ctx.line_for("cluster.storage"), detail::storage_fields(),
                       s.cluster.storage, ctx);

  const Present plan = detail::read_section(sub(top, "parallelism"), "parallelism", ctx.line_for("parallelism"),
                                            detail::parallelism_fields(), s.parallelism, ctx);
  if (!plan.count("dp")) derive_dp(s.parallelism, s.cluster.gpus);
  detail::read_section(sub(plan, "nccl_min_ctas"), "parallelism.nccl_min_ctas", ctx.line_for("parallelism.nccl_min_ctas"),
                       detail::communicator_ctas_fields(), s.parallelism.nccl_min_ctas, ctx);
  detail::read_section(sub(plan, "nccl_max_ctas"), "parallelism.nccl_max_ctas", ctx.line_for("parallelism.nccl_max_ctas"),
                       detail::communicator_ctas_fields(), s.parallelism.nccl_max_ctas, ctx);
  detail::read_section(sub(top, "training"), "training", ctx.line_for("training"), detail::training_fields(), s.training,
                       ctx);
  if ((s.training.precision == hw::Precision::kFp8 || s.training.precision == hw::Precision::kFp4) &&
      hw::peak_tflops(s.cluster.system.gpu, s.training.precision) <= 0)
    ctx.fail(ctx.line_for("training.precision"), "training.precision",
             fmt::format("{} needs {} tensor cores, which the {} does not have (use bf16)",
                         hw::to_string(s.training.precision), s.training.precision == hw::Precision::kFp8 ? "FP8" : "FP4",
                         s.cluster.system.gpu.name));
  if (s.training.fp8_recipe != workload::Fp8Recipe::kDelayed && s.training.precision != hw::Precision::kFp8)
    ctx.fail(ctx.line_for("training.fp8_recipe"), "training.fp8_recipe",
             fmt::format("{} scales FP8 GEMM inputs; training.precision is {} (use fp8, or leave fp8_recipe out)",
                         workload::to_string(s.training.fp8_recipe), hw::to_string(s.training.precision)));
  if (s.training.fp8_recipe == workload::Fp8Recipe::kMxfp8 && !s.cluster.system.gpu.arch.mx_formats)
    ctx.fail(ctx.line_for("training.fp8_recipe"), "training.fp8_recipe",
             fmt::format("mxfp8 needs tensor cores that scale by blocks, which the {} does not have (use delayed or "
                         "tensorwise)",
                         s.cluster.system.gpu.name));
  // Transformer Engine runs Float8BlockScaling on Hopper and, as MXFP8, on
  // NVIDIA's Blackwell families (the ones with NVFP4); ROCm's has no such recipe.
  if (s.training.fp8_recipe == workload::Fp8Recipe::kBlockwise && !s.cluster.system.gpu.arch.nvfp4 &&
      s.cluster.system.gpu.arch.fp8_flops_per_fp32_fma <= 0)
    ctx.fail(ctx.line_for("training.fp8_recipe"), "training.fp8_recipe",
             fmt::format("blockwise needs Hopper's or Blackwell's FP8 tensor cores (Transformer Engine's "
                         "Float8BlockScaling), which the {} does not have (use delayed or tensorwise)",
                         s.cluster.system.gpu.name));
  if (s.training.attention_kernel == hw::AttentionKernel::kFlash2) {
    const std::string& family = s.cluster.system.gpu.arch.family;
    if (!s.training.flash_attention)
      ctx.fail(ctx.line_for("training.attention_kernel"), "training.attention_kernel",
               "flash2 is a flash attention kernel; flash_attention is false");
    if (family != "hopper" && family != "ampere")
      ctx.fail(ctx.line_for("training.attention_kernel"), "training.attention_kernel",
               fmt::format("flash2 is measured on Hopper and native on Ampere; the {} is {}: use flash",
                           s.cluster.system.gpu.name, family));
  }
  if (s.training.fp8_attention) {
    const auto fail = [&](const std::string& why) {
      ctx.fail(ctx.line_for("training.fp8_attention"), "training.fp8_attention", why);
    };
    if (s.training.precision != hw::Precision::kFp8 && s.training.precision != hw::Precision::kFp4)
      fail(fmt::format("true needs FP8 or FP4 training (Transformer Engine's FP8 attention runs inside its FP8 "
                       "autocast); training.precision is {}",
                       hw::to_string(s.training.precision)));
    // FP4 training can be asked of a part with FP4 but no FP8 tensor cores
    // (a custom accelerator); its attention would then have nothing to run on.
    else if (hw::peak_tflops(s.cluster.system.gpu, hw::Precision::kFp8) <= 0)
      fail(fmt::format("true needs FP8 tensor cores, which the {} does not have", s.cluster.system.gpu.name));
    else if (!s.training.flash_attention)
      fail("true is a flash attention kernel's; flash_attention is false");
    else if (s.training.attention_kernel != hw::AttentionKernel::kFlash)
      fail("true is the part's own flash kernel (cuDNN's); attention_kernel is flash2");
  }
  s.network = detail::read_network(sub(top, "network"), ctx.line_for("network"), ctx);
  if (fabric_switch) apply_switch_buffer(*fabric_switch, sub(top, "network"), s.network);
  detail::read_section(sub(top, "compute"), "compute", ctx.line_for("compute"), detail::compute_fields(), s, ctx);
  if (top.count("expected")) {
    Expected e;
    detail::read_section(sub(top, "expected"), "expected", ctx.line_for("expected"), detail::expected_fields(), e, ctx);
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
  if (top.count("edge")) {
    s.edge = detail::read_edge(sub(top, "edge"), ctx.line_for("edge"), ctx, s.cluster.gpus);
    s.edge->seed = s.seed;
    if (s.edge->retrain.quantized_weights && s.training.precision != hw::Precision::kFp8 &&
        s.training.precision != hw::Precision::kFp4)
      ctx.fail(ctx.line_for("edge.retrain.quantized_weights"), "edge.retrain.quantized_weights",
               fmt::format("true needs precision fp8 or fp4 (the weights kept at the products' precision); "
                           "training.precision is {}",
                           hw::to_string(s.training.precision)));
  }
  if (top.count("fleet")) {
    s.fleet = detail::read_fleet(sub(top, "fleet"), ctx.line_for("fleet"), ctx, s.cluster.gpus);
    s.fleet->seed = s.seed;
  }
  s.lines = ctx.lines;
  s.overridden = ctx.overridden;
  if ((s.collective || s.kernel || s.edge || s.fleet) && !top.count("model")) return s;
  try {
    workload::validate_plan(s.model, s.parallelism, s.training, s.cluster.gpus);
  } catch (const core::InputError& e) {
    throw locate_in_scenario(s, e.where().field.empty() ? e.with_field("parallelism") : e);
  }
  return s;
}

core::InputError locate_in_scenario(const Scenario& s, const core::InputError& e) {
  if (!e.where().file.empty()) return e;
  // The builders below the scenario name fields as they know them: the
  // cluster's relative to the cluster, the network's without its section.
  std::string field = e.where().field;
  const auto starts = [&](std::string_view prefix) { return field.rfind(prefix, 0) == 0; };
  if (field == "gpus" || starts("fabric.") || starts("storage.") || starts("system."))
    field = "cluster." + field;
  else if (field == "transport")
    field = "network.transport";
  if (const std::string set = detail::override_for(s.overridden, field); !set.empty())
    return e.with_field(field).with_location(set, 0);
  if (s.file.empty()) return e;
  // A field the file left out (a default the plan contradicts) points at the top.
  const int line = detail::nearest_line(s.lines, field);
  return e.with_field(field.empty() ? detail::kTopLevel : field).with_location(s.file, line > 0 ? line : 1);
}

Scenario load_scenario(const std::string& path, const std::vector<Override>& overrides) {
  return parse_scenario(core::read_input_file(path, core::kMaxScenarioBytes, "scenario file"), path, overrides);
}

}  // namespace anatomy::scenario
