#include "cli/job_output.h"

#include <cstdio>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "cli/network_factory.h"
#include "cli/run_command.h"
#include "cli/setup.h"
#include "core/error.h"
#include "topo/builders.h"

namespace anatomy::cli {
namespace {

std::string h(core::SimTime t) { return fmt::format("{:.1f} h", t.seconds() / 3600); }

// An interval in whole iterations, as checkpoints can only be taken between them.
std::string iterations_in(core::SimTime interval, core::SimTime iteration) {
  const int64_t n = std::max<int64_t>(1, std::llround(interval.seconds() / iteration.seconds()));
  return fmt::format("every {} iteration{}", n, n == 1 ? "" : "s");
}

}  // namespace

JobRun simulate_job(const scenario::Scenario& s, int link_samples) {
  const std::unique_ptr<Setup> setup = make_setup(s);
  const topo::Topology& topology = setup->topology;
  JobRun run;
  run.topology = topology.description;
  if (setup->placement) run.topology += "; placed " + setup->placement->summary;
  job::JobInputs in;
  in.spec = *s.job;
  in.iteration = setup->inputs;
  in.steady_link_samples = link_samples;
  in.bulk_network = bulk_network_factory(s.network);
  const int gpus = s.parallelism.gpus();
  const int per_host = s.cluster.system.gpus_per_host;
  in.gpus_per_host = per_host;
  in.units.gpus = gpus;
  in.units.hosts = (gpus + per_host - 1) / per_host;
  in.units.nics = in.units.hosts * s.cluster.system.nics_per_host;
  int64_t switches = 0;
  for (topo::NodeId n = 0; n < topology.num_nodes(); ++n)
    if (topology.kind(n) == topo::NodeKind::kSwitch) ++switches;
  in.units.switches = switches;
  try {
    run.result = job::run_job(in);
    if (s.job->trace_congestion) run.cascade = job::trace_cascade(s.job->congestion, in, run.result);
    return run;
  } catch (const core::InputError& e) {
    throw scenario::locate_in_scenario(s, e);
  }
}

int print_job(const scenario::Scenario& s, const JobRun& run, const std::string& format) {
  const job::JobResult& r = run.result;
  const std::string& topology = run.topology;
  const double gpu_hours = r.gpus * r.wall.seconds() / 3600;
  const auto buckets = r.time.named();
  if (format == "json") {
    nlohmann::ordered_json j;
    j["scenario"] = s.name;
    j["gpus"] = r.gpus;
    j["wall_hours"] = r.wall.seconds() / 3600;
    j["iteration_s"] = r.steady.iteration.seconds();
    j["ettr"] = r.ettr;
    j["interruptions"] = r.interruptions;
    j["iterations_kept"] = r.iterations_kept;
    j["iterations_lost"] = r.iterations_lost;
    j["checkpoints"] = r.checkpoints;
    nlohmann::ordered_json gh;
    for (auto [name, t] : buckets) gh[name] = t.seconds() / 3600 * r.gpus;
    j["gpu_hours"] = gh;
    j["spare_gpu_hours"] = r.spare_gpu_hours;
    if (r.dollars_per_gpu_hour > 0) {
      nlohmann::ordered_json d;
      for (auto [name, t] : buckets) d[name] = t.seconds() / 3600 * r.gpus * r.dollars_per_gpu_hour;
      d["idle spares"] = r.spare_gpu_hours * r.dollars_per_gpu_hour;
      j["dollars"] = d;
    }
    j["by_component"] = r.by_component;
    j["by_category"] = r.by_category;
    j["mtbi_hours"] = r.mtbi_hours > 0 ? nlohmann::ordered_json(r.mtbi_hours) : nlohmann::ordered_json();
    j["checkpoint_stall_s"] = r.checkpoint.stall.seconds();
    j["checkpoint_cost_s"] = r.checkpoint_cost().seconds();
    j["checkpoint_interval_s"] = r.configured_interval.seconds();
    j["young_interval_s"] = r.young.seconds();
    j["daly_interval_s"] = r.daly.seconds();
    if (run.cascade) {
      nlohmann::ordered_json chain = nlohmann::json::array();
      for (const auto& step : run.cascade->chain)
        chain.push_back({{"mechanism", step.mechanism}, {"what", step.what}, {"cost_s", step.cost.seconds()}});
      j["cascade"] = {{"chain", chain}, {"total_s", run.cascade->total.seconds()}, {"failed_job", run.cascade->failed_job}};
    }
    std::puts(j.dump(2).c_str());
    return 0;
  }
  fmt::print("# anatomy run: {} ({})\n", s.name, s.file.empty() ? "built-in" : s.file);
  fmt::print("# cluster: {}\n", topology);
  fmt::print("# model: {}, plan: {}; one iteration {:.3f} s ({:.1f}% MFU)\n", s.model.name, plan_text(s),
             r.steady.iteration.seconds(), 100 * r.steady.mfu);
  fmt::print("# checkpoint: {} every {} iterations ({}); costs the job {} each\n",
             s.job->checkpoint.enabled ? r.checkpoint.how : "disabled", r.checkpoint_every,
             core::format_time(r.configured_interval), core::format_time(r.checkpoint_cost()));
  fmt::print("# startup: {}", core::format_time(r.first_start.total()));
  for (const auto& p : r.first_start.phases) fmt::print(" | {} {}", p.name, core::format_time(p.duration));
  fmt::print("\n# restart: {}", core::format_time(r.restart.total()));
  for (const auto& p : r.restart.phases) fmt::print(" | {} {}", p.name, core::format_time(p.duration));
  fmt::print("\n\n");
  fmt::print("wall time               {} ({:.1f} days) on {} GPUs\n", h(r.wall), r.wall.seconds() / 86400, r.gpus);
  fmt::print("effective training time {:.1f}% (productive training / wall time)\n", 100 * r.ettr);
  fmt::print("interruptions           {} ({})\n", r.interruptions,
             r.mtbi_hours > 0 ? fmt::format("MTBI from the failure rates: {:.2f} h", r.mtbi_hours)
                              : std::string("no failure rates given"));
  fmt::print("iterations              {} kept, {} lost and redone, {} checkpoints\n", r.iterations_kept,
             r.iterations_lost, r.checkpoints);
  if (r.young > core::SimTime::zero())
    fmt::print("checkpoint interval     {} configured; Young {}, Daly {} ({}) for this job's failure rate and "
               "checkpoint cost\n",
               core::format_time(r.configured_interval), core::format_time(r.young), core::format_time(r.daly),
               iterations_in(r.daly, r.steady.iteration));
  fmt::print("\nGPU-hours by cause ({:.0f} in all{}):\n", gpu_hours,
             r.dollars_per_gpu_hour > 0 ? fmt::format(", at ${:.2f} per GPU-hour", r.dollars_per_gpu_hour) : "");
  for (auto [name, t] : buckets) {
    const double gh = t.seconds() / 3600 * r.gpus;
    fmt::print("  {:<22} {:>12.0f}  {:5.1f}%", name, gh, 100 * t.seconds() / r.wall.seconds());
    if (r.dollars_per_gpu_hour > 0) fmt::print("  ${:>14.0f}", gh * r.dollars_per_gpu_hour);
    fmt::print("\n");
  }
  const core::SimTime residue = r.wall - r.time.total();
  fmt::print("  {:<22} {:>12.0f}  (residue {} ps)\n", "total", gpu_hours, residue.count_ps());
  if (r.spare_gpu_hours > 0)
    fmt::print("  {:<22} {:>12.0f}  (spare hosts held in reserve, beside the job){}\n", "idle spares",
               r.spare_gpu_hours,
               r.dollars_per_gpu_hour > 0 ? fmt::format(" ${:.0f}", r.spare_gpu_hours * r.dollars_per_gpu_hour) : "");
  if (!r.by_category.empty()) {
    fmt::print("\ninterruptions by category:");
    for (const auto& [k, v] : r.by_category) fmt::print("  {} {}", k, v);
    fmt::print("\ninterruptions by component:\n");
    for (const auto& [k, v] : r.by_component) fmt::print("  {:<32} {}\n", k, v);
  }
  if (run.cascade) {
    fmt::print("\ncongestion cascade ({}):\n", run.cascade->failed_job ? "it fails the job" : "absorbed");
    for (size_t i = 0; i < run.cascade->chain.size(); ++i)
      fmt::print("  {}. {}: {}\n", i + 1, run.cascade->chain[i].mechanism, run.cascade->chain[i].what);
    fmt::print("  total cost to the job: {}\n", core::format_time(run.cascade->total));
  }
  if (!r.events.empty()) {
    fmt::print("\nfirst interruptions:\n");
    for (size_t i = 0; i < r.events.size() && i < 5; ++i) fmt::print("  {}\n", r.events[i].what);
  }
  return 0;
}

}  // namespace anatomy::cli
