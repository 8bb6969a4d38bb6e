#include "cli/compare_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "cli/job_output.h"
#include "cli/outputs.h"
#include "cli/run_command.h"
#include "cli/scenario_inputs.h"
#include "core/error.h"
#include "report/compare.h"
#include "report/progress.h"

namespace anatomy::cli {
namespace {

struct CompareArgs {
  std::vector<std::string> files;
  std::string format = "table";
  OutputOptions outputs;
};

// "A", "B", ... "Z", then "R27", "R28", ...
std::string label_of(size_t i) {
  return i < 26 ? std::string(1, static_cast<char>('A' + i)) : fmt::format("R{}", i + 1);
}

int compare(const CompareArgs& a) {
  if (a.format != "table" && a.format != "json")
    throw core::InputError({"", 0, "--format"}, fmt::format("unknown format '{}' (known: table, json)", a.format));
  if (a.files.size() < 2) throw core::InputError({"", 0, "scenarios"}, "give at least two scenario files to compare");
  // Read and check every scenario before running any.
  std::vector<scenario::Scenario> scenarios;
  for (const auto& f : a.files) {
    scenarios.push_back(scenario::load_scenario(f));
    if (scenarios.back().collective) throw not_an_iteration(scenarios.back());
  }
  check_writable(a.outputs.report, "--report");
  std::vector<report::CompareRun> runs;
  {
    report::Progress progress(stderr, a.outputs.progress(), static_cast<int64_t>(scenarios.size()), "runs");
    for (size_t i = 0; i < scenarios.size(); ++i) {
      std::string topology;
      report::CompareRun run;
      if (scenarios[i].job) {
        JobRun job = simulate_job(scenarios[i]);
        topology = job.topology;
        run.result = job.result.steady;
        run.job = std::move(job.result);
      } else {
        run.result = simulate_scenario(scenarios[i], &topology);
      }
      progress.advance(run.result.iteration);
      run.label = label_of(i);
      run.info = scenario_page_info(scenarios[i], topology, &run.result);
      runs.push_back(std::move(run));
    }
  }
  const std::vector<report::CompareMetric> metrics = report::compare_metrics(runs);
  if (!a.outputs.report.empty())
    write_output_file(a.outputs.report, report::compare_report_html(runs, metrics), "--report");
  if (a.format == "json") {
    std::puts(report::compare_json(runs, metrics).dump(2).c_str());
  } else {
    std::fputs(report::compare_text(runs, metrics).c_str(), stdout);
  }
  return 0;
}

}  // namespace

void add_compare_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* sub = app.add_subcommand("compare", "run several scenarios and show them side by side, with differences");
  sub->add_option("scenarios", args->files, "two or more scenario YAML files (the first is the baseline)")->required();
  sub->add_option("--format", args->format, "table or json")->capture_default_str();
  args->outputs.add_to(*sub, OutputOptions::kReport | OutputOptions::kQuiet);
  sub->callback([args, &exit_code] { exit_code = compare(*args); });
}

}  // namespace anatomy::cli
