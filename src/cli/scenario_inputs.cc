#include "cli/scenario_inputs.h"

#include <fmt/format.h>

#include "cli/run_command.h"
#include "core/units.h"

namespace anatomy::cli {
namespace {

std::string yes_no(bool b) { return b ? "true" : "false"; }

class Rows {
 public:
  explicit Rows(std::vector<report::InputRow>& out) : out_(out) {}
  void section(std::string name) { section_ = std::move(name); }
  template <typename T>
  void add(std::string field, const T& value) {
    out_.push_back({section_, std::move(field), fmt::format("{}", value)});
  }

 private:
  std::vector<report::InputRow>& out_;
  std::string section_;
};

}  // namespace

report::PageInfo scenario_page_info(const scenario::Scenario& s, const std::string& topology,
                                    const workload::IterationResult* result) {
  report::PageInfo info;
  info.title = s.name.empty() ? s.model.name : s.name;
  info.source = s.file.empty() ? "<built-in default>" : s.file;
  const auto& m = s.model;
  const auto& c = s.cluster;
  const auto& p = s.parallelism;
  const auto& t = s.training;
  info.facts.push_back(
      {"model", fmt::format("{} ({} parameters), {}", m.name, core::format_count(m.params()), m.description)});
  info.facts.push_back({"cluster", topology});
  info.facts.push_back({"plan", fmt::format("{}; seq {}, global batch {} x micro-batch {}, {}, recompute {}",
                                            plan_text(s), t.seq_len, t.global_batch, t.micro_batch,
                                            hw::to_string(t.precision), workload::to_string(t.recompute))});
  if (result) {
    info.facts.push_back({"compute", result->compute_source});
    info.facts.push_back({"network", fmt::format("{} model; library: {}; gradient collectives: {}", net::to_string(s.network),
                                                 result->library, result->dp_algorithm)});
  }

  Rows rows(info.inputs);
  rows.section("scenario");
  rows.add("name", info.title);
  rows.add("file", info.source);
  for (auto& row : info.inputs) row.names_run = true;
  rows.add("seed", s.seed);
  rows.section("model");
  rows.add("name", m.name);
  rows.add("source", m.description);
  rows.add("parameters", core::format_count(m.params()));
  rows.add("layers", m.layers);
  rows.add("hidden", m.hidden);
  rows.add("heads", m.heads);
  rows.add("kv_heads", m.kv_heads);
  rows.add("ffn_hidden", m.ffn_hidden);
  rows.add("vocab", m.vocab);
  rows.add("gated_mlp", yes_no(m.gated_mlp));
  if (m.experts > 1) {
    rows.add("experts", m.experts);
    rows.add("top_k", m.top_k);
  }
  rows.section("cluster");
  rows.add("system", fmt::format("{} ({})", c.system.name, c.system.description));
  rows.add("gpu", c.system.gpu.name);
  rows.add("gpus", c.gpus);
  rows.add("gpus_per_host", c.system.gpus_per_host);
  rows.add("nics_per_host", c.system.nics_per_host);
  const auto& f = c.fabric;
  rows.add("fabric.nic_speed", f.nic_speed.bps() > 0 ? core::format_bandwidth(f.nic_speed)
                                                     : core::format_bandwidth(c.system.nic_speed) + " (the system's)");
  rows.add("fabric.link_speed", f.link_speed.bps() > 0 ? core::format_bandwidth(f.link_speed) : "the NIC port speed");
  rows.add("fabric.tiers", f.tiers > 0 ? fmt::format("{}", f.tiers) : "auto (fewest that hold the cluster)");
  rows.add("fabric.radix", f.radix > 0 ? fmt::format("{}", f.radix) : "auto (51.2 Tb/s of ports)");
  rows.add("fabric.oversubscription", fmt::format("{:g}:1", f.oversubscription));
  rows.add("fabric.rail_optimized", yes_no(f.rail_optimized));
  rows.add("fabric.planes", f.planes);
  rows.add("fabric.switch_latency", core::format_time(f.switch_latency));
  if (c.storage.servers > 0) {
    rows.add("storage.servers", c.storage.servers);
    rows.add("storage.nic_speed", core::format_bandwidth(c.storage.nic_speed));
    rows.add("storage.shared_with_compute", yes_no(c.storage.shared_with_compute));
  }
  rows.add("topology (built)", topology);
  info.inputs.back().derived = true;
  rows.section("parallelism");
  rows.add("tp", p.tp);
  rows.add("pp", p.pp);
  rows.add("dp", p.dp);
  rows.add("cp", p.cp);
  rows.add("ep", p.ep);
  rows.add("sequence_parallel", yes_no(p.sequence_parallel));
  rows.add("virtual_stages", p.virtual_stages);
  rows.add("zero_stage", p.zero_stage);
  rows.add("overlap_grad_reduce", yes_no(p.overlap_grad_reduce));
  rows.add("overlap_param_gather", yes_no(p.overlap_param_gather));
  rows.add("tp_comm_overlap", yes_no(p.tp_comm_overlap));
  rows.add("overlap_p2p_comm", yes_no(p.overlap_p2p_comm));
  rows.add("bucket_size", core::format_bytes(core::Bytes(p.bucket_bytes)));
  if (p.param_gather_bytes > 0) rows.add("param_gather_size", core::format_bytes(core::Bytes(p.param_gather_bytes)));
  if (p.framework == workload::ShardingFramework::kDeepSpeed) rows.add("framework", "deepspeed");
  if (p.cp > 1) rows.add("cp_all_gather", yes_no(p.cp_all_gather));
  rows.section("training");
  rows.add("seq_len", t.seq_len);
  rows.add("global_batch", t.global_batch);
  rows.add("micro_batch", t.micro_batch);
  rows.add("micro-batches per pipeline", t.micro_batches(p));
  info.inputs.back().derived = true;
  rows.add("precision", hw::to_string(t.precision));
  rows.add("recompute", workload::to_string(t.recompute));
  rows.add("flash_attention", yes_no(t.flash_attention));
  rows.section("network and compute");
  rows.add("network.model", net::to_string(s.network));
  rows.add("compute.calibration", s.calibration.empty() ? "the system's own, if shipped" : s.calibration);
  rows.add("compute.memory_check", s.memory_check_is_error ? "error" : "warn");
  if (s.placement) {
    const job::PlacementSpec& pl = *s.placement;
    rows.section("placement");
    rows.add("cluster_gpus", s.placement_cluster_gpus);
    rows.add("policy", job::to_string(pl.policy));
    rows.add("hosts_per_rack", pl.hosts_per_rack);
    rows.add("racks_per_feed", pl.racks_per_feed);
    rows.add("rack_power", pl.rack_power_kw > 0 ? fmt::format("{:g} kW", pl.rack_power_kw) : "no budget");
    rows.add("busy_fraction", fmt::format("{:g}", pl.busy_fraction));
    if (pl.max_ranks_per_rack > 0) rows.add("max_ranks_per_rack", pl.max_ranks_per_rack);
  }
  if (s.job) {
    const job::JobSpec& j = *s.job;
    rows.section("job");
    rows.add("duration", core::format_time(j.duration));
    rows.add("checkpoint.policy", j.checkpoint.enabled ? job::to_string(j.checkpoint.policy) : "none");
    if (j.checkpoint.enabled) {
      rows.add("checkpoint.interval", j.checkpoint.interval_iterations > 0
                                          ? fmt::format("{} iterations", j.checkpoint.interval_iterations)
                                          : core::format_time(j.checkpoint.interval));
      if (j.checkpoint.compression_ratio < 1)
        rows.add("checkpoint.compression_ratio", fmt::format("{:g}", j.checkpoint.compression_ratio));
    }
    rows.add("failures.classes", j.failures.classes.size());
    rows.add("failures.watchdog_timeout", core::format_time(j.failures.watchdog_timeout));
    rows.add("failures.spare_hosts", j.failures.spare_hosts);
    rows.add("startup.image_size", core::format_bytes(j.startup.image_size));
    rows.add("startup.framework_init", core::format_time(j.startup.framework_init));
    if (j.cost.dollars_per_gpu_hour > 0)
      rows.add("cost.dollars_per_gpu_hour", fmt::format("{:.2f}", j.cost.dollars_per_gpu_hour));
    rows.add("seed", j.seed);
    if (j.trace_congestion)
      rows.add("congestion", fmt::format("{:g} of the busiest link's bandwidth for {}", j.congestion.bandwidth_fraction,
                                         core::format_time(j.congestion.duration)));
  }
  return info;
}

}  // namespace anatomy::cli
