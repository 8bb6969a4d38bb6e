#include "cli/run_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "app/collective.h"
#include "app/edge.h"
#include "app/fleet.h"
#include "app/iteration.h"
#include "app/job.h"
#include "app/kernel.h"
#include "cli/outputs.h"
#include "cli/scenario_options.h"
#include "core/error.h"
#include "report/collective_text.h"
#include "report/edge_page.h"
#include "report/edge_report.h"
#include "report/edge_trace.h"
#include "report/fleet_report.h"
#include "report/fleet_trace.h"
#include "report/iteration_text.h"
#include "report/job_ensemble.h"
#include "report/job_section.h"
#include "report/kernel_text.h"
#include "report/progress.h"
#include "workload/trace/chakra.h"
#include "workload/trace/trace_dir.h"

namespace anatomy::cli {
namespace {

// A collective case's reports and CSVs are `anatomy collective`'s.
void run_collective_case(const scenario::Scenario& s, const std::string& format, const OutputOptions& outputs) {
  if (!outputs.report.empty() || !outputs.trace.empty() || !outputs.csv.empty())
    throw scenario::locate_in_scenario(
        s, core::InputError({"", 0, "collective"},
                            "a collective case has no iteration to report, trace or tabulate: "
                            "use anatomy collective --report / --csv for one collective"));
  const app::CollectiveCaseRun run = app::run_collective_case(s);
  if (format == "json")
    print_json(report::collective_case_json(s, run.result));
  else
    std::fputs(report::collective_case_text(s, run.result, run.topology).c_str(), stdout);
}

// A kernel case: one kernel's time on one GPU, nothing to report or trace.
void run_kernel_case(const scenario::Scenario& s, const std::string& format, const OutputOptions& outputs) {
  if (!outputs.report.empty() || !outputs.trace.empty() || !outputs.csv.empty())
    throw scenario::locate_in_scenario(
        s, core::InputError({"", 0, "kernel"}, "a kernel case has no iteration to report, trace or tabulate"));
  const app::KernelCaseRun run = app::run_kernel_case(s);
  if (format == "json")
    print_json(report::kernel_case_json(s, run));
  else
    std::fputs(report::kernel_case_text(s, run).c_str(), stdout);
}

// An edge site: its cycles, tiers and coverage (report/edge_report.h), and
// its timeline as a trace (report/edge_trace.h).
void run_edge_case(const scenario::Scenario& s, const std::string& format, const OutputOptions& outputs) {
  if (!outputs.csv.empty())
    throw scenario::locate_in_scenario(
        s, core::InputError({"", 0, "edge"}, "an edge site has no CSVs yet: use --format json for its cycles, "
                                             "tiers and coverage"));
  check_writable(outputs.report, "--report");
  check_writable(outputs.trace, "--trace");
  const app::EdgeRun run = app::run_edge(s);
  const report::EdgeContext context{&run.model, run.topology, run.compute, run.library};
  if (!outputs.trace.empty()) write_output_file(outputs.trace, report::edge_trace(run.result, s.name), "--trace");
  if (!outputs.report.empty()) write_output_file(outputs.report, report::edge_html(s, run.result, context), "--report");
  if (format == "json")
    print_json(report::edge_json(s, run.result, context));
  else
    std::fputs(report::edge_text(s, run.result, context).c_str(), stdout);
}

// Many jobs on one cluster: jobs, cluster GPU-hours by cause, contention
// (report/fleet_report.h); --csv writes jobs.csv, --report the HTML page,
// --trace the Perfetto trace (report/fleet_trace.h).
void run_fleet_case(const scenario::Scenario& s, const std::string& format, const OutputOptions& outputs) {
  check_writable(outputs.trace, "--trace");
  check_writable(outputs.report, "--report");
  check_csv_folder(outputs.csv);
  const app::FleetRun run = app::run_fleet(s, !outputs.trace.empty());
  if (!outputs.csv.empty()) {
    make_csv_folder(outputs.csv);
    write_output_file((std::filesystem::path(outputs.csv) / "jobs.csv").string(), report::fleet_jobs_csv(run.result),
                      "--csv");
  }
  if (!outputs.trace.empty()) write_output_file(outputs.trace, report::fleet_trace(run.result, s.name), "--trace");
  if (!outputs.report.empty())
    write_output_file(outputs.report, report::fleet_html(s, run.result, run.topology), "--report");
  if (format == "json")
    print_json(report::fleet_json(s, run.result, run.topology));
  else
    std::fputs(report::fleet_text(s, run.result, run.topology).c_str(), stdout);
}

void run(const std::string& file, const std::string& format, const OutputOptions& outputs,
         const ScenarioOptions& scenario_options, int seeds, bool seeds_given, const std::string& export_chakra) {
  check_format(format);
  if (!export_chakra.empty() && !std::filesystem::is_directory(export_chakra))
    throw core::InputError({"", 0, "--export-chakra"}, fmt::format("no folder '{}'", export_chakra));
  const scenario::Scenario s = app::load_or_default(file, scenario_options.overrides());
  if (seeds_given && !s.job)
    throw core::InputError({"", 0, "--seeds"}, "needs a scenario with a job: section (one iteration draws nothing)");
  if (s.collective) return run_collective_case(s, format, outputs);
  if (s.kernel) return run_kernel_case(s, format, outputs);
  if (s.edge) return run_edge_case(s, format, outputs);
  if (s.fleet) return run_fleet_case(s, format, outputs);
  check_iteration_outputs(outputs, s);
  if (s.job) {  // the files show its (first seed's) steady iteration too
    std::vector<app::JobRun> runs;
    if (seeds_given) {
      report::Progress progress(stderr, outputs.progress(), seeds, "seeds");
      runs = app::run_job_seeds(s, seeds, outputs.link_samples(), on_step(progress));
    } else {
      runs.push_back(app::run_job(s, outputs.link_samples()));
    }
    const app::JobRun& job = runs.front();
    write_iteration_outputs(outputs, s, job.topology, job.result.steady, {report::job_section(job.result)},
                            &job.result.phases, job.result.adaptation ? &*job.result.adaptation : nullptr);
    std::vector<job::JobResult> results;
    for (const auto& r : runs) results.push_back(r.result);
    if (format == "json") print_json(report::jobs_json(s, results, seeds_given));
    else std::fputs(report::jobs_text(s, results, job.topology, seeds_given).c_str(), stdout);
    return;
  }
  app::IterationRun it;
  {
    report::Progress progress(stderr, outputs.progress(), 1, "iteration");
    it = app::run_iteration(s, outputs.link_samples());
    progress.advance(it.result.iteration);
  }
  write_iteration_outputs(outputs, s, it.topology, it.result);
  if (!export_chakra.empty())  // one rank per pipeline stage's representative (trace_dir.h)
    workload::trace::write_chakra(workload::trace::graph_of_iteration(it.result, s.name), export_chakra, "anatomy");
  if (format == "json")
    print_json(report::iteration_json(s, it.result));
  else
    std::fputs(report::iteration_text(s, it.result, it.topology).c_str(), stdout);
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto file = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("table");
  auto show = std::make_shared<bool>(false);
  auto outputs = std::make_shared<OutputOptions>();
  auto scenario_options = std::make_shared<ScenarioOptions>();
  auto seeds = std::make_shared<int>(1);
  auto export_chakra = std::make_shared<std::string>();
  CLI::App* sub =
      app.add_subcommand("run", "simulate one training iteration of a scenario (default: the built-in one)");
  sub->add_option("scenario", *file, "scenario YAML file");
  sub->add_option("--format", *format, "table or json")->capture_default_str();
  sub->add_flag("--show-default", *show, "print the built-in default scenario's YAML and exit");
  outputs->add_to(*sub, OutputOptions::kReport | OutputOptions::kTrace | OutputOptions::kCsv | OutputOptions::kQuiet);
  scenario_options->add_to(*sub);
  CLI::Option* seeds_flag = sub->add_option(
      "--seeds", *seeds, "run a whole job with N seeds (--seed, --seed + 1, ...): mean, spread and range of each figure");
  sub->add_option("--export-chakra", *export_chakra,
                  "also write the iteration as Chakra ET (anatomy.<stage>.et: one rank per pipeline stage) into this folder");
  sub->callback([file, format, show, outputs, scenario_options, seeds, seeds_flag, export_chakra, &exit_code] {
    if (*show)
      std::fputs(app::default_scenario_yaml(), stdout);
    else
      run(*file, *format, *outputs, *scenario_options, *seeds, seeds_flag->count() > 0, *export_chakra);
    exit_code = 0;
  });
}

}  // namespace anatomy::cli
