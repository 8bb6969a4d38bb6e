#include <cstdio>
#include <memory>

#include "app/validate.h"
#include "cli/outputs.h"
#include "cli/run_command.h"
#include "cli/scenario_options.h"
#include "report/progress.h"

namespace anatomy::cli {

void add_validate_command(CLI::App& app, int& exit_code) {
  auto path = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("table");
  auto quiet = std::make_shared<bool>(false);
  auto threads = std::make_shared<int>(0);
  auto scenario_options = std::make_shared<ScenarioOptions>();
  CLI::App* sub = app.add_subcommand("validate", "run every published case under validation/ and compare");
  sub->add_option("path", *path, "a validation case, or a folder of them (default: the shipped validation cases)");
  sub->add_option("--format", *format, "table or json")->capture_default_str();
  sub->add_flag("-q,--quiet", *quiet, "no progress bar on stderr");
  sub->add_option("--threads", *threads, "cases run at once (0: one a core); the table does not depend on it")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  scenario_options->add_to(*sub);
  sub->callback([path, format, quiet, threads, scenario_options, &exit_code] {
    check_format(*format);
    report::Validation v;
    {
      report::Progress progress(stderr, report::progress_wanted(*quiet), 0, "cases");
      v = app::validate_path(*path, scenario_options->overrides(), on_step(progress), *threads);
    }
    if (*format == "json") print_json(report::validation_json(v));
    else std::fputs(report::validation_text(v).c_str(), stdout);
    exit_code = 0;
  });
}

}  // namespace anatomy::cli
