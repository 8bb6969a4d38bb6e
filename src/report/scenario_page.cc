#include "report/scenario_page.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "coll/library_model.h"
#include "core/units.h"
#include "report/iteration_text.h"

namespace anatomy::report {
namespace {

// A value that follows from other inputs (the built topology), shown at the
// end of its section and never listed as a difference between runs.
void add_derived(std::vector<InputRow>& rows, const std::string& section, std::string field, std::string value) {
  InputRow row{section, std::move(field), std::move(value), false, true};
  const auto last = std::find_if(rows.rbegin(), rows.rend(), [&](const InputRow& r) { return r.section == section; });
  rows.insert(last.base(), std::move(row));
}

}  // namespace

std::string plan_text(const workload::ParallelPlan& p) {
  std::string out = fmt::format("TP{} PP{} DP{}", p.tp, p.pp, p.dp);
  if (p.cp > 1)
    out += fmt::format(" CP{}{}", p.cp,
                       p.cp_all_to_all    ? std::string(" (all-to-all)")
                       : p.cp_a2a_size > 1 ? fmt::format(" (all-to-all {} x ring {})", p.cp_a2a_size, p.cp / p.cp_a2a_size)
                       : p.cp_all_gather   ? std::string(" (all-gather)")
                                           : std::string());
  if (p.ep > 1) out += fmt::format(" EP{}", p.ep);
  if (p.etp() != p.tp) out += fmt::format(" ETP{}", p.etp());
  if (p.ep_comm_overlap) out += " (EP all-to-alls overlapped, combined 1F1B)";
  if (p.moe_dispatcher == workload::MoeDispatcher::kFlex) out += " (flex dispatcher)";
  if (p.virtual_stages > 1) out += fmt::format(" (interleaved x{})", p.virtual_stages);
  if (!p.layout.empty()) out += fmt::format(" (layers laid out \"{}\")", p.layout.text);
  if (p.first_stage_layers > 0) out += fmt::format(" (first stage {} layers)", p.first_stage_layers);
  if (p.last_stage_layers > 0) out += fmt::format(" (last stage {} layers)", p.last_stage_layers);
  if (p.embedding_in_split || p.loss_in_split)
    out += fmt::format(" ({} counted as a layer)", p.embedding_in_split && p.loss_in_split ? "embedding and loss each"
                                                   : p.embedding_in_split                ? "embedding"
                                                                                         : "loss");
  if (p.sequence_parallel && p.tp > 1) out += " +SP";
  out += fmt::format(", ZeRO-{}", p.zero_stage);
  if (p.zero_shards() < p.dp * p.cp) out += fmt::format(" (shard group {})", p.zero_shards());
  if (p.fp8_param_gather) out += ", FP8 parameter gather";
  if (!p.align_param_gather && p.virtual_stages > 1 && p.overlapped_sharded_gathers())
    out += ", each chunk's parameter gather at its first forward";
  if (p.one_hardware_queue()) out += ", one hardware queue (CUDA_DEVICE_MAX_CONNECTIONS=1)";
  // NCCL's CTA limits, communicator by communicator ("dp 1-8", "tp at most 8"),
  // or once when every communicator has the same (NCCL_MIN_CTAS and the like).
  std::vector<std::string> limits;
  std::string ctas;
  for (const auto& [name, c] : workload::kLimitedCommunicators) {
    const int lo = workload::ctas_for(p.nccl_min_ctas, c), hi = workload::ctas_for(p.nccl_max_ctas, c);
    limits.push_back(coll::ctas_text(lo, hi));
    if (!limits.back().empty()) ctas += fmt::format("{}{} {}", ctas.empty() ? "" : ", ", name, limits.back());
  }
  if (std::all_of(limits.begin(), limits.end(), [&](const std::string& l) { return l == limits.front(); })) {
    if (!limits.front().empty()) out += fmt::format(", NCCL CTAs {} on every communicator", limits.front());
  } else {
    out += fmt::format(", NCCL CTAs {}", ctas);
  }
  return out;
}

PageInfo scenario_page_info(const scenario::Scenario& s, const std::string& topology,
                                    const workload::IterationResult* result) {
  PageInfo info;
  info.title = s.name.empty() ? s.model.name : s.name;
  info.source = s.file.empty() ? "<built-in default>" : s.file;
  const auto& m = s.model;
  const auto& c = s.cluster;
  const auto& t = s.training;
  info.facts.push_back(
      {"model", fmt::format("{} ({} parameters), {}", m.name, core::format_count(m.params()), m.description)});
  info.facts.push_back({"cluster", topology});
  info.facts.push_back({"plan", fmt::format("{}; seq {}, global batch {} x micro-batch {}, {}, recompute {}",
                                            plan_text(s.parallelism), t.seq_len, t.global_batch, t.micro_batch,
                                            hw::to_string(t.precision) + workload::kernels_text(t),
                                            workload::recompute_text(t))});
  if (result) {
    info.facts.push_back({"compute", result->compute_source});
    info.facts.push_back({"network", fmt::format("{} model; library: {}; gradient collectives: {}",
                                                 net::to_string(s.network), result->library, result->dp_algorithm)});
    if (const std::string buckets = gradient_buckets_text(*result); !buckets.empty())
      info.facts.push_back({"gradient buckets", buckets});
  }

  // Every input, from the scenario's field tables (scenario::input_rows).
  for (const scenario::InputValue& v : scenario::input_rows(s)) {
    InputRow row{v.section, v.field, v.value, false, v.derived};
    row.names_run = v.section == "scenario" && v.field == "name";
    const bool title = row.names_run;
    info.inputs.push_back(std::move(row));
    if (title) info.inputs.push_back({"scenario", "file", info.source, true, false});
  }
  // What the scenario resolved that no key states.
  add_derived(info.inputs, "model", "source", m.description);
  add_derived(info.inputs, "model", "parameters", core::format_count(m.params()));
  add_derived(info.inputs, "cluster", "gpu", c.system.gpu.name);
  add_derived(info.inputs, "cluster", "gpus_per_host", fmt::format("{}", c.system.gpus_per_host));
  add_derived(info.inputs, "cluster", "nics_per_host", fmt::format("{}", c.system.nics_per_host));
  add_derived(info.inputs, "cluster", "topology (built)", topology);
  if (!s.collective)
    add_derived(info.inputs, "training", "micro-batches per pipeline", fmt::format("{}", t.micro_batches(s.parallelism)));
  return info;
}

}  // namespace anatomy::report
