#include "cli/compare_command.h"

#include <cstdio>
#include <memory>

#include "app/compare.h"
#include "cli/outputs.h"
#include "cli/scenario_options.h"
#include "report/compare.h"
#include "report/progress.h"

namespace anatomy::cli {
namespace {

struct CompareArgs {
  std::vector<std::string> files;
  std::string replay;  // a trace folder: replayed on its machine and on each scenario's
  std::string format = "table";
  OutputOptions outputs;
  ScenarioOptions scenario;
};

void compare(const CompareArgs& a) {
  check_format(a.format);
  check_writable(a.outputs.report, "--report");
  std::vector<report::CompareRun> runs;
  {
    report::Progress progress(stderr, a.outputs.progress(), static_cast<int64_t>(a.files.size()), "runs");
    runs = a.replay.empty() ? app::compare_scenarios(a.files, a.scenario.overrides(), on_step(progress))
                            : app::compare_replays(a.replay, a.files, a.scenario.overrides(), on_step(progress));
  }
  const std::vector<report::CompareMetric> metrics = report::compare_metrics(runs);
  if (!a.outputs.report.empty())
    write_output_file(a.outputs.report, report::compare_report_html(runs, metrics), "--report");
  if (a.format == "json") print_json(report::compare_json(runs, metrics));
  else std::fputs(report::compare_text(runs, metrics).c_str(), stdout);
}

}  // namespace

void add_compare_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* sub = app.add_subcommand("compare", "run several scenarios and show them side by side, with differences");
  sub->add_option("scenarios", args->files, "two or more scenario YAML files (the first is the baseline)")->required();
  sub->add_option("--replay", args->replay,
                  "a trace folder (anatomy replay): the baseline is its job on the machine it ran on, then on each "
                  "scenario's machine");
  sub->add_option("--format", args->format, "table or json")->capture_default_str();
  args->outputs.add_to(*sub, OutputOptions::kReport | OutputOptions::kQuiet);
  args->scenario.add_to(*sub);
  sub->callback([args, &exit_code] {
    compare(*args);
    exit_code = 0;
  });
}

}  // namespace anatomy::cli
