#include "cli/scenario_inputs.h"

#include <algorithm>

#include <fmt/format.h>

#include "cli/run_command.h"
#include "core/units.h"

namespace anatomy::cli {
namespace {

// A value that follows from other inputs (the built topology), shown at the
// end of its section and never listed as a difference between runs.
void add_derived(std::vector<report::InputRow>& rows, const std::string& section, std::string field, std::string value) {
  report::InputRow row{section, std::move(field), std::move(value), false, true};
  const auto last = std::find_if(rows.rbegin(), rows.rend(), [&](const report::InputRow& r) { return r.section == section; });
  rows.insert(last.base(), std::move(row));
}

}  // namespace

report::PageInfo scenario_page_info(const scenario::Scenario& s, const std::string& topology,
                                    const workload::IterationResult* result) {
  report::PageInfo info;
  info.title = s.name.empty() ? s.model.name : s.name;
  info.source = s.file.empty() ? "<built-in default>" : s.file;
  const auto& m = s.model;
  const auto& c = s.cluster;
  const auto& t = s.training;
  info.facts.push_back(
      {"model", fmt::format("{} ({} parameters), {}", m.name, core::format_count(m.params()), m.description)});
  info.facts.push_back({"cluster", topology});
  info.facts.push_back({"plan", fmt::format("{}; seq {}, global batch {} x micro-batch {}, {}, recompute {}",
                                            plan_text(s), t.seq_len, t.global_batch, t.micro_batch,
                                            hw::to_string(t.precision), workload::to_string(t.recompute))});
  if (result) {
    info.facts.push_back({"compute", result->compute_source});
    info.facts.push_back({"network", fmt::format("{} model; library: {}; gradient collectives: {}",
                                                 net::to_string(s.network), result->library, result->dp_algorithm)});
  }

  // Every input, from the scenario's field tables (scenario::input_rows).
  for (const scenario::InputValue& v : scenario::input_rows(s)) {
    report::InputRow row{v.section, v.field, v.value, false, v.derived};
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

}  // namespace anatomy::cli
