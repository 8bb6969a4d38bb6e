#include "scenario/hardware_fields.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "hw/catalog.h"

namespace anatomy::scenario::detail {
namespace {

using hw::Accelerator;
using hw::ScaleUp;
using hw::System;

// Text that reads back as exactly the value printed (hardware_yaml.cc prints
// the presets with these, and a test reads every one back).
std::string number_text(double v) { return fmt::format("{}", v); }
std::string int_text(int64_t v) { return fmt::format("{}", v); }
std::string bool_text(bool v) { return v ? "true" : "false"; }
std::string bytes_text(core::Bytes b) {
  return b.count() % 1'000'000'000 == 0 ? fmt::format("{}GB", b.count() / 1'000'000'000) : fmt::format("{}B", b.count());
}
std::string time_text(core::SimTime t) {
  return t.count_ps() % 1000 == 0 ? fmt::format("{}ns", t.count_ps() / 1000) : fmt::format("{}ps", t.count_ps());
}
std::string byte_rate_text(core::Bandwidth b) { return hw::exact_rate_text(b, true); }
std::string bit_rate_text(core::Bandwidth b) { return hw::exact_rate_text(b, false); }

Check fraction() {
  return [](const Value& v) -> std::string {
    if (v.number > 0 && v.number <= 1) return {};
    return fmt::format("must be greater than 0 and at most 1 (got {})", v.text);
  };
}

Check link_check(std::string_view field) {
  return [field](const Value& v) -> std::string {
    try {
      hw::parse_link(v.text, field);
      return {};
    } catch (const core::InputError& e) {
      return e.message();
    }
  };
}

const char* to_text(hw::ScaleUpKind k) { return k == hw::ScaleUpKind::kMesh ? "mesh" : "switch"; }
const char* to_text(hw::CpuVendor v) {
  switch (v) {
    case hw::CpuVendor::kIntel: return "intel";
    case hw::CpuVendor::kAmd: return "amd";
    case hw::CpuVendor::kNvidia: return "nvidia";
  }
  return "intel";
}

std::vector<std::string_view> family_names() {
  std::vector<std::string_view> out;
  for (const auto& a : hw::architectures()) out.push_back(a.family);
  return out;
}

// One of the two figures of an accelerator's spread of sustained rates
// (hw/sync_pace.h): a share in [0, 1); setting it makes the scenario their
// source.
Field<Accelerator> rate_spread_field(std::string_view key, double Accelerator::*member, const char* help) {
  return {key, Kind::kDouble, by_default("0"), number_at_least_below(0, 1), help,
          [member](Accelerator& a, const Value& v) {
            a.*member = v.number;
            a.rate_spread_source = "defined in the scenario";
          },
          [member](const Accelerator& a) { return number_text(a.*member); }, {}};
}

}  // namespace

const std::vector<Field<Accelerator>>& accelerator_fields() {
  using A = Accelerator;
  static const std::vector<Field<A>> f = {
      // First: the keys below override it.
      {"preset", Kind::kString, derived("none: the keys below describe the whole accelerator"), {},
       "an accelerator preset (anatomy list) to start from",
       [](A& a, const Value& v) { a = hw::find_accelerator(v.text); }},
      {"name", Kind::kString, by_default("custom"), not_empty(), "the accelerator's name in reports",
       [](A& a, const Value& v) { a.name = v.text; }, [](const A& a) { return a.name; }, {}},
      {"vendor", Kind::kString, by_default(""), {}, "who makes it, for reports",
       [](A& a, const Value& v) { a.vendor = v.text; }, [](const A& a) { return a.vendor; }, {}},
      {"part", Kind::kString, derived("the name"), {}, "the full part name, for reports",
       [](A& a, const Value& v) { a.part = v.text; }, [](const A& a) { return a.part; }, {}},
      {"architecture", Kind::kEnum, required(), {},
       "the GPU family whose constants the models use (tensor clock, softmax rate, NCCL tuning, calibration table)",
       [](A& a, const Value& v) { a.arch = hw::find_architecture(v.text); },
       [](const A& a) { return a.arch.family; }, family_names()},
      {"bf16_tflops", Kind::kDouble, required(), number_positive(), "dense BF16 tensor peak, TFLOP/s",
       [](A& a, const Value& v) { a.bf16_tflops = v.number; }, [](const A& a) { return number_text(a.bf16_tflops); }, {}},
      {"fp16_tflops", Kind::kDouble, derived("bf16_tflops"), number_at_least(0), "dense FP16 tensor peak, TFLOP/s",
       [](A& a, const Value& v) { a.fp16_tflops = v.number; }, [](const A& a) { return number_text(a.fp16_tflops); }, {}},
      {"fp8_tflops", Kind::kDouble, by_default("0"), number_at_least(0),
       "dense FP8 tensor peak, TFLOP/s (0: no FP8 tensor cores)",
       [](A& a, const Value& v) { a.fp8_tflops = v.number; }, [](const A& a) { return number_text(a.fp8_tflops); }, {}},
      {"fp6_tflops", Kind::kDouble, by_default("0"), number_at_least(0), "dense FP6 tensor peak, TFLOP/s (0: none)",
       [](A& a, const Value& v) { a.fp6_tflops = v.number; }, [](const A& a) { return number_text(a.fp6_tflops); }, {}},
      {"fp4_tflops", Kind::kDouble, by_default("0"), number_at_least(0), "dense FP4 tensor peak, TFLOP/s (0: none)",
       [](A& a, const Value& v) { a.fp4_tflops = v.number; }, [](const A& a) { return number_text(a.fp4_tflops); }, {}},
      {"hbm_capacity", Kind::kBytes, required(), bytes_positive(), "GPU memory, e.g. 80GB",
       [](A& a, const Value& v) { a.hbm_capacity = v.bytes; }, [](const A& a) { return bytes_text(a.hbm_capacity); }, {}},
      {"hbm_bandwidth", Kind::kBandwidth, required(), rate_positive(), "GPU memory bandwidth, e.g. 3350GB/s",
       [](A& a, const Value& v) { a.hbm_bandwidth = v.rate; },
       [](const A& a) { return byte_rate_text(a.hbm_bandwidth); }, {}},
      {"scaleup_bandwidth", Kind::kBandwidth, required(), rate_positive(),
       "NVLink / Infinity Fabric per GPU, per direction, all links together, e.g. 450GB/s",
       [](A& a, const Value& v) { a.scaleup_bandwidth = v.rate; },
       [](const A& a) { return byte_rate_text(a.scaleup_bandwidth); }, {}},
      {"scaleup_links", Kind::kInt, by_default("1"), int_range(1, 1024), "scale-up links per GPU",
       [](A& a, const Value& v) { a.scaleup_links = v.as_int(); },
       [](const A& a) { return int_text(a.scaleup_links); }, {}},
      {"tdp_watts", Kind::kDouble, required(), number_positive(), "board power, W",
       [](A& a, const Value& v) { a.tdp_watts = v.number; }, [](const A& a) { return number_text(a.tdp_watts); }, {}},
      {"compute_units", Kind::kInt, by_default("0"), int_range(0, 1 << 20),
       "SMs or CUs that run kernels (0: the architecture's typical count)",
       [](A& a, const Value& v) { a.compute_units = v.as_int(); },
       [](const A& a) { return int_text(a.compute_units); }, {}},
      {"source", Kind::kString, by_default("defined in the scenario"), {}, "where the figures come from",
       [](A& a, const Value& v) { a.source = v.text; }, [](const A& a) { return a.source; }, {}},
      rate_spread_field("busy_node_rate_loss", &A::busy_node_rate_loss,
                        "what a GPU's sustained GEMM rate loses when the other GPUs of its node compute too, "
                        "against it alone, e.g. 0.005 (0: not measured); a training job pays it (compute.gpu_rate_spread)"),
      rate_spread_field("sustained_rate_range", &A::sustained_rate_range,
                        "slowest to fastest sustained GEMM rate across GPUs of a busy node, over their mean, e.g. "
                        "0.049 (0: not measured); a synchronous job runs at its slowest GPU's "
                        "(compute.gpu_rate_spread)"),
      // After the two figures, whose setters name the scenario as their
      // source, so that a printed preset reads back with its citation.
      {"rate_spread_source", Kind::kString, by_default(""), {},
       "where busy_node_rate_loss and sustained_rate_range come from (setting either says: defined in the scenario)",
       [](A& a, const Value& v) { a.rate_spread_source = v.text; }, [](const A& a) { return a.rate_spread_source; },
       {}},
  };
  return f;
}

const std::vector<Field<ScaleUp>>& scaleup_fields() {
  using S = ScaleUp;
  static const std::vector<Field<S>> f = {
      {"kind", Kind::kEnum, by_default("switch"), {},
       "switch: each GPU has one link to the domain's switches (NVSwitch); mesh: a link per GPU pair (Infinity Fabric)",
       [](S& s, const Value& v) { s.kind = v.text == "mesh" ? hw::ScaleUpKind::kMesh : hw::ScaleUpKind::kSwitch; }, [](const S& s) { return std::string(to_text(s.kind)); },
       {"switch", "mesh"}},
      {"fabric", Kind::kString, by_default(""), {}, "what the domain is built of, for reports",
       [](S& s, const Value& v) { s.fabric = v.text; }, [](const S& s) { return s.fabric; }, {}},
      {"domain_gpus", Kind::kInt, derived("gpus_per_host"), int_range(1, 1 << 20), "GPUs in one scale-up domain",
       [](S& s, const Value& v) { s.domain_gpus = v.as_int(); }, [](const S& s) { return int_text(s.domain_gpus); }, {}},
      {"per_gpu", Kind::kBandwidth, derived("the GPU's scaleup_bandwidth"), rate_positive(),
       "per GPU, per direction, all links", [](S& s, const Value& v) { s.per_gpu = v.rate; },
       [](const S& s) { return byte_rate_text(s.per_gpu); }, {}},
      {"per_link", Kind::kBandwidth, derived("mesh: per_gpu / the GPU's scaleup_links; switch: unused"), {},
       "mesh: one GPU-to-GPU link, per direction", [](S& s, const Value& v) { s.per_link = v.rate; },
       [](const S& s) { return s.per_link.bps() > 0 ? byte_rate_text(s.per_link) : std::string(); }, {}},
      {"hop_latency", Kind::kTime, by_default("700ns"), {}, "GPU to GPU through the domain, one way",
       [](S& s, const Value& v) { s.hop_latency = v.time; }, [](const S& s) { return time_text(s.hop_latency); }, {}},
      {"in_network_reduction", Kind::kBool, by_default("false"), {}, "reduction in the switches (NVLink SHARP, NVLS)",
       [](S& s, const Value& v) { s.in_network_reduction = v.flag; },
       [](const S& s) { return bool_text(s.in_network_reduction); }, {}},
      {"payload_efficiency", Kind::kDouble, by_default("1"), fraction(),
       "payload per byte of line rate (NVLink 4: 20.6 of 25 GB/s in NCCL's model)",
       [](S& s, const Value& v) { s.payload_efficiency = v.number; },
       [](const S& s) { return number_text(s.payload_efficiency); }, {}},
  };
  return f;
}

const std::vector<Field<System>>& system_fields() {
  using S = System;
  static const std::vector<Field<S>> f = {
      // First: the keys below override it.
      {"preset", Kind::kString, derived("none: the keys below describe the whole system"), {},
       "a system preset (anatomy list) to start from", [](S& s, const Value& v) { s = hw::find_system(v.text); }},
      {"name", Kind::kString, by_default("custom"), not_empty(), "the system's name in reports",
       [](S& s, const Value& v) { s.name = v.text; }, [](const S& s) { return s.name; }, {}},
      {"description", Kind::kString, by_default(""), {}, "one line for reports",
       [](S& s, const Value& v) { s.description = v.text; }, [](const S& s) { return s.description; }, {}},
      {"gpu", Kind::kSection, required(), {},
       "the accelerator: a preset name, or a mapping (preset and overrides, or a whole definition)", {}},
      {"gpus_per_host", Kind::kInt, by_default("8"), int_range(1, 1024), "GPUs in one host (or compute tray)",
       [](S& s, const Value& v) { s.gpus_per_host = v.as_int(); },
       [](const S& s) { return int_text(s.gpus_per_host); }, {}},
      {"scaleup", Kind::kSection, derived("every key at its default"), {},
       "the scale-up domain: kind, size, bandwidth, latency", {}},
      {"nics_per_host", Kind::kInt, by_default("8"), int_range(1, 1024),
       "scale-out NICs per host, one rail each (they divide gpus_per_host); on MI300X and MI325X RCCL "
       "chooses LL128 only with 4",
       [](S& s, const Value& v) { s.nics_per_host = v.as_int(); },
       [](const S& s) { return int_text(s.nics_per_host); }, {}},
      {"nic_speed", Kind::kBandwidth, required(), rate_positive(), "per NIC, e.g. 800Gbps",
       [](S& s, const Value& v) { s.nic_speed = v.rate; }, [](const S& s) { return bit_rate_text(s.nic_speed); }, {}},
      {"gpu_nic_link", Kind::kString, by_default("pcie-gen5"), link_check("gpu_nic_link"),
       "between a GPU and its NIC, per direction: pcie-gen4 (32GB/s), pcie-gen5 (64GB/s), pcie-gen6 (128GB/s) or a rate",
       [](S& s, const Value& v) { s.gpu_nic_link = hw::parse_link(v.text, "gpu_nic_link"); },
       [](const S& s) { return hw::link_text(s.gpu_nic_link); }, {}},
      {"host_link", Kind::kString, derived("gpu_nic_link"), link_check("host_link"),
       "between a GPU and host memory: a PCIe generation, nvlink-c2c (Grace, 450GB/s) or a rate",
       [](S& s, const Value& v) { s.host_link = hw::parse_link(v.text, "host_link"); },
       [](const S& s) { return hw::link_text(s.host_link); }, {}},
      {"nic_latency", Kind::kTime, by_default("1us"), {}, "NIC processing, one way, per end",
       [](S& s, const Value& v) { s.nic_latency = v.time; }, [](const S& s) { return time_text(s.nic_latency); }, {}},
      {"cpu", Kind::kString, by_default(""), {}, "the host CPU, for reports",
       [](S& s, const Value& v) { s.cpu = v.text; }, [](const S& s) { return s.cpu; }, {}},
      {"cpu_vendor", Kind::kEnum, by_default("intel"), {},
       "the host CPU's vendor (on AMD hosts NCCL caps LL bandwidth across nodes lower and a ring that crosses "
       "nodes waits 2 us, not 1, to post each network step)",
       [](S& s, const Value& v) {
         s.cpu_vendor = v.text == "amd" ? hw::CpuVendor::kAmd
                        : v.text == "nvidia" ? hw::CpuVendor::kNvidia
                                             : hw::CpuVendor::kIntel;
       }, [](const S& s) { return std::string(to_text(s.cpu_vendor)); },
       {"intel", "amd", "nvidia"}},
      {"storage_nics_per_host", Kind::kInt, by_default("2"), int_range(0, 1024),
       "NICs per host for a separate storage fabric",
       [](S& s, const Value& v) { s.storage_nics_per_host = v.as_int(); },
       [](const S& s) { return int_text(s.storage_nics_per_host); }, {}},
      {"storage_nic_speed", Kind::kBandwidth, by_default("200Gbps"), rate_positive(), "per storage NIC",
       [](S& s, const Value& v) { s.storage_nic_speed = v.rate; },
       [](const S& s) { return bit_rate_text(s.storage_nic_speed); }, {}},
      {"source", Kind::kString, by_default("defined in the scenario"), {}, "where the figures come from",
       [](S& s, const Value& v) { s.source = v.text; }, [](const S& s) { return s.source; }, {}},
  };
  return f;
}

const std::vector<Field<hw::Switch>>& switch_fields() {
  using W = hw::Switch;
  static const std::vector<Field<W>> f = {
      {"name", Kind::kString, by_default("custom"), not_empty(), "the switch's name in reports",
       [](W& w, const Value& v) { w.name = v.text; }, [](const W& w) { return w.name; }, {}},
      {"radix", Kind::kInt, required(), int_range(4, 1024), "ports per switch",
       [](W& w, const Value& v) { w.radix = v.as_int(); }, [](const W& w) { return int_text(w.radix); }, {}},
      {"port_speed", Kind::kBandwidth, required(), rate_positive(),
       "per port; the fabric's switch-to-switch links run at it, e.g. 800Gbps",
       [](W& w, const Value& v) { w.port_speed = v.rate; }, [](const W& w) { return bit_rate_text(w.port_speed); }, {}},
      {"buffer", Kind::kBytes, by_default("0"), {},
       "shared packet buffer, for the packet model (0: the model's default); the flow model has no buffers",
       [](W& w, const Value& v) { w.buffer = v.bytes; }, [](const W& w) { return bytes_text(w.buffer); }, {}},
      {"latency", Kind::kTime, by_default("600ns"), {}, "forwarding delay, port to port",
       [](W& w, const Value& v) { w.latency = v.time; }, [](const W& w) { return time_text(w.latency); }, {}},
      {"source", Kind::kString, by_default("defined in the scenario"), {}, "where the figures come from",
       [](W& w, const Value& v) { w.source = v.text; }, [](const W& w) { return w.source; }, {}},
  };
  return f;
}

namespace {

template <typename T>
T by_name(const YAML::Node& node, const std::string& path, int line, const Context& ctx,
          const T& (*find)(std::string_view)) {
  check_length(node.Scalar(), path, line, ctx);
  try {
    return find(node.Scalar());
  } catch (const core::InputError& e) {
    throw ctx.locate(e, path, line);
  }
}

Accelerator read_accelerator(const YAML::Node& node, const std::string& path, int line, Context& ctx,
                             const Accelerator* base) {
  if (node.IsScalar()) return by_name(node, path, line, ctx, &hw::find_accelerator);
  const bool from_preset = node.IsMap() && node["preset"].IsDefined();
  const bool overrides = from_preset || base;
  Accelerator a = base ? *base : Accelerator{};
  const Present given = read_section(node, path, line, accelerator_fields(), a, ctx, !overrides);
  if (!overrides) {
    if (!given.count("part")) a.part = a.name;
    if (!given.count("fp16_tflops")) a.fp16_tflops = a.bf16_tflops;
  }
  return a;
}

}  // namespace

System read_system(const YAML::Node& node, const std::string& path, int line, Context& ctx) {
  if (node.IsScalar()) return by_name(node, path, line, ctx, &hw::find_system);
  if (!node.IsMap())
    ctx.fail(line, path, "expects a system preset name or a mapping (preset and overrides, or a whole definition)");
  const bool from_preset = node["preset"].IsDefined();
  System s;
  // A definition's gpu is required; a preset's is already there. Both are
  // read after the system's own keys, as is the scale-up domain, whose
  // defaults come from them.
  const Present given = read_section(node, path, line, system_fields(), s, ctx, !from_preset);
  const std::string gpu_path = join(path, "gpu");
  if (given.count("gpu"))
    s.gpu = read_accelerator(sub(given, "gpu"), gpu_path, ctx.lines.at(gpu_path), ctx, from_preset ? &s.gpu : nullptr);
  if (!from_preset && !given.count("host_link")) s.host_link = s.gpu_nic_link;

  const std::string up_path = join(path, "scaleup");
  const int up_line = given.count("scaleup") ? ctx.lines.at(up_path) : line;
  const Present up = read_section(sub(given, "scaleup"), up_path, up_line, scaleup_fields(), s.scaleup, ctx, !from_preset);
  // Derived from the GPU unless given: in a definition always, on a preset
  // when the GPU was changed (a preset's domain follows its GPU).
  if (!from_preset || given.count("gpu")) {
    if (!up.count("per_gpu")) s.scaleup.per_gpu = s.gpu.scaleup_bandwidth;
    if (!up.count("per_link"))
      s.scaleup.per_link = s.scaleup.kind == hw::ScaleUpKind::kMesh
                               ? s.scaleup.per_gpu / std::max(1, s.gpu.scaleup_links)
                               : core::Bandwidth();
  }
  if (!from_preset && !up.count("domain_gpus")) s.scaleup.domain_gpus = s.gpus_per_host;
  if (s.scaleup.kind == hw::ScaleUpKind::kMesh && s.scaleup.per_link.bps() <= 0)
    ctx.fail(up_line, join(up_path, "per_link"), "a mesh needs a link bandwidth greater than zero");
  if (s.nics_per_host > s.gpus_per_host || s.gpus_per_host % s.nics_per_host != 0)
    ctx.fail(ctx.line_for(join(path, "nics_per_host")), join(path, "nics_per_host"),
             fmt::format("{} NICs per host do not divide {} GPUs per host", s.nics_per_host, s.gpus_per_host));
  return s;
}

hw::Switch read_switch(const YAML::Node& node, const std::string& path, int line, Context& ctx) {
  if (!node.IsMap()) ctx.fail(line, path, "expects a mapping: {radix, port_speed, buffer, latency}");
  hw::Switch w;
  read_section(node, path, line, switch_fields(), w, ctx);
  return w;
}

}  // namespace anatomy::scenario::detail
