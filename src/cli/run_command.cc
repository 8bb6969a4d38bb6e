#include "cli/run_command.h"

#include <cstdio>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/collective_command.h"
#include "cli/outputs.h"
#include "cli/job_output.h"
#include "core/error.h"
#include "core/units.h"
#include "report/job_section.h"
#include "report/progress.h"
#include "workload/flops.h"

namespace anatomy::cli {
namespace {

std::string seconds(core::SimTime t) {
  const double s = t.seconds();
  return s >= 1 ? fmt::format("{:.3f} s", s) : fmt::format("{:.2f} ms", s * 1e3);
}

std::string gb(core::Bytes b) { return fmt::format("{:.1f} GB", b.as_double() / 1e9); }

nlohmann::ordered_json breakdown_json(const workload::TimeBreakdown& b) {
  nlohmann::ordered_json j;
  for (auto [name, t] : b.buckets()) {
    std::string key = name;
    for (auto& c : key)
      if (c == ' ') c = '_';
    j[key] = t.seconds();
  }
  return j;
}

// A scenario with a `collective:` section times that one collective, as
// `anatomy validate` does; its reports and CSVs are `anatomy collective`'s.
int run_collective_case(const scenario::Scenario& s, const std::string& format, const OutputOptions& outputs) {
  if (!outputs.report.empty() || !outputs.trace.empty() || !outputs.csv.empty())
    throw scenario::locate_in_scenario(
        s, core::InputError({"", 0, "collective"}, "a collective case has no iteration to report, trace or tabulate: "
                                                   "use anatomy collective --report / --csv for one collective"));
  std::string topology;
  const coll::CollectiveResult r = simulate_collective_case(s, &topology);
  const std::string what = fmt::format("{} of {} on {} GPUs", coll::to_string(s.collective->op),
                                       core::format_bytes(s.collective->bytes), s.cluster.gpus);
  if (format == "json") {
    nlohmann::ordered_json j;
    j["scenario"] = s.name;
    j["op"] = coll::to_string(s.collective->op);
    j["gpus"] = s.cluster.gpus;
    j["system"] = s.cluster.system.name;
    j.update(collective_row_json(r));  // as anatomy collective prints each size
    std::puts(j.dump(2).c_str());
    return 0;
  }
  fmt::print("# anatomy run: {} ({}): {}\n", s.name, s.file.empty() ? "built-in" : s.file, what);
  fmt::print("# cluster: {}\n\n", topology);
  fmt::print("time      {:.2f} us\nalgbw     {:.2f} GB/s\nbusbw     {:.2f} GB/s\nalgorithm {}/{}\n", r.time.micros(),
             r.algbw_GBps, r.busbw_GBps, r.algorithm, r.protocol);
  return 0;
}

int run(const std::string& file, const std::string& format, const OutputOptions& outputs) {
  if (format != "table" && format != "json")
    throw core::InputError({"", 0, "--format"}, fmt::format("unknown format '{}' (known: table, json)", format));
  const scenario::Scenario s =
      file.empty() ? scenario::parse_scenario(default_scenario_yaml(), "<built-in default>") : scenario::load_scenario(file);
  if (s.collective) return run_collective_case(s, format, outputs);
  check_iteration_outputs(outputs, s);
  if (s.job) {  // a whole training run (job_output.h); the files show its steady iteration too
    const JobRun job = simulate_job(s, outputs.link_samples());
    write_iteration_outputs(outputs, s, job.topology, job.result.steady, {report::job_section(job.result)},
                            &job.result.phases);
    return print_job(s, job, format);
  }
  std::string topology;
  workload::IterationResult r;
  {
    report::Progress progress(stderr, outputs.progress(), 1, "iteration");
    r = simulate_scenario(s, &topology, outputs.link_samples());
    progress.advance(r.iteration);
  }
  write_iteration_outputs(outputs, s, topology, r);
  const auto& t = s.training;
  if (format == "json") {
    nlohmann::ordered_json j;
    j["scenario"] = s.name;
    j["model"] = s.model.name;
    j["gpus"] = s.parallelism.gpus();
    j["system"] = s.cluster.system.name;
    j["plan"] = plan_text(s);
    j["iteration_s"] = r.iteration.seconds();
    j["breakdown_s"] = breakdown_json(r.mean);
    j["tokens_per_s"] = r.tokens_per_s;
    j["tflops_per_gpu"] = r.tflops_per_gpu;
    j["megatron_tflops_per_gpu"] = r.megatron_tflops_per_gpu;
    j["mfu"] = r.mfu;
    j["hfu"] = r.hfu;
    j["micro_batches"] = r.micro_batches;
    j["memory_per_gpu_GB"] = r.memory.total().as_double() / 1e9;
    if (!r.memory_warning.empty()) j["memory_warning"] = r.memory_warning;
    nlohmann::ordered_json stages = nlohmann::json::array();
    for (const auto& b : r.stages) stages.push_back(breakdown_json(b));
    j["stages_breakdown_s"] = stages;
    j["compute_model"] = r.compute_source;
    j["library"] = r.library;
    j["dp_algorithm"] = r.dp_algorithm;
    std::puts(j.dump(2).c_str());
    return 0;
  }
  fmt::print("# anatomy run: {}{}\n", s.name.empty() ? s.model.name : s.name, s.file.empty() ? "" : " (" + s.file + ")");
  fmt::print("# model: {} ({} parameters), {}\n", s.model.name, core::format_count(s.model.params()), s.model.description);
  fmt::print("# cluster: {}\n", topology);
  fmt::print("# plan: {}; seq {}, global batch {} x micro-batch {} ({} micro-batches per pipeline), {}, recompute {}\n",
             plan_text(s), t.seq_len, t.global_batch, t.micro_batch, r.micro_batches, hw::to_string(t.precision),
             workload::to_string(t.recompute));
  fmt::print("# compute: {}\n", r.compute_source);
  fmt::print("# network: {} model; library: {}; gradient collectives: {}\n", net::to_string(s.network), r.library, r.dp_algorithm);
  fmt::print("# memory per GPU: {} of {} (weights {}, gradients {}, optimizer {}, activations {}, workspace {})\n",
             gb(r.memory.total()), gb(s.cluster.system.gpu.hbm_capacity), gb(r.memory.weights), gb(r.memory.gradients),
             gb(r.memory.optimizer), gb(r.memory.activations), gb(r.memory.workspace));
  if (!r.memory_warning.empty()) fmt::print("# WARNING (memory_check: warn): {}\n", r.memory_warning);
  fmt::print("\n");
  fmt::print("iteration time    {}\n", seconds(r.iteration));
  fmt::print("tokens/s          {:.0f}\n", r.tokens_per_s);
  fmt::print("TFLOP/s per GPU   {:.1f} (model FLOPs; {:.1f} counting recomputation as Megatron-LM does)\n",
             r.tflops_per_gpu, r.megatron_tflops_per_gpu);
  fmt::print("MFU               {:.1f}% of {:.0f} TFLOP/s {} peak\n", 100 * r.mfu, r.peak_tflops,
             hw::to_string(t.precision));
  fmt::print("\nwhere each GPU's iteration goes (mean over GPUs):\n");
  for (auto [name, v] : r.mean.buckets())
    fmt::print("  {:<20} {:>12}  {:5.1f}%\n", name, seconds(v), 100.0 * v.seconds() / r.iteration.seconds());
  const core::SimTime residue = r.iteration - r.mean.total();
  fmt::print("  {:<20} {:>12}  (residue {} ps; per GPU the buckets add up exactly)\n", "total", seconds(r.mean.total()),
             residue.count_ps());
  if (r.mean.recompute > core::SimTime::zero())
    fmt::print("  (backward compute includes {} of recomputation)\n", seconds(r.mean.recompute));
  if (r.stages.size() > 1 && r.stages.size() <= 16) {
    fmt::print("\nper pipeline stage (ms):\n  {:<6}", "stage");
    for (const char* name : {"forward", "backward", "optim", "TP comm", "DP comm", "PP comm", "bubble", "waiting"})
      fmt::print(" {:>9}", name);
    fmt::print("\n");
    for (size_t i = 0; i < r.stages.size(); ++i) {
      fmt::print("  {:<6}", i);
      for (auto [name, v] : r.stages[i].buckets()) fmt::print(" {:>9.1f}", v.seconds() * 1e3);
      fmt::print("\n");
    }
  }
  return 0;
}

}  // namespace

std::string plan_text(const scenario::Scenario& s) {
  const auto& p = s.parallelism;
  std::string out = fmt::format("TP{} PP{} DP{}", p.tp, p.pp, p.dp);
  if (p.cp > 1) out += fmt::format(" CP{}", p.cp);
  if (p.ep > 1) out += fmt::format(" EP{}", p.ep);
  if (p.virtual_stages > 1) out += fmt::format(" (interleaved x{})", p.virtual_stages);
  if (p.sequence_parallel && p.tp > 1) out += " +SP";
  out += fmt::format(", ZeRO-{}", p.zero_stage);
  return out;
}

const char* default_scenario_yaml() {
  return R"(# The built-in default: a 70B-parameter model on 512 GB200 superchips
# (1,024 B200 GPUs in NVL72 racks) over an 800 Gb/s rail-optimized
# Ethernet fabric.
name: llama3-70b on 512 GB200 (1024 B200), 800G rail-optimized Ethernet
model: llama3-70b
cluster:
  system: gb200-nvl72
  gpus: 1024
  fabric:
    nic_speed: 800Gbps
    rail_optimized: true
parallelism:
  tp: 4
  pp: 4
  virtual_stages: 5
  zero_stage: 1
  tp_comm_overlap: true
  overlap_p2p_comm: true
training:
  seq_len: 8192
  global_batch: 512
  micro_batch: 1
  precision: bf16
  recompute: selective
)";
}

void add_run_command(CLI::App& app, int& exit_code) {
  auto file = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("table");
  auto show = std::make_shared<bool>(false);
  auto outputs = std::make_shared<OutputOptions>();
  CLI::App* sub = app.add_subcommand("run", "simulate one training iteration of a scenario (default: the built-in one)");
  sub->add_option("scenario", *file, "scenario YAML file");
  sub->add_option("--format", *format, "table or json")->capture_default_str();
  sub->add_flag("--show-default", *show, "print the built-in default scenario's YAML and exit");
  outputs->add_to(*sub, OutputOptions::kReport | OutputOptions::kTrace | OutputOptions::kCsv | OutputOptions::kQuiet);
  sub->callback([file, format, show, outputs, &exit_code] {
    if (*show) {
      std::fputs(default_scenario_yaml(), stdout);
      exit_code = 0;
      return;
    }
    exit_code = run(*file, *format, *outputs);
  });
}

}  // namespace anatomy::cli
