#include "app/compare.h"

#include <fmt/format.h>

#include "app/iteration.h"
#include "app/job.h"
#include "app/setup.h"
#include "core/error.h"
#include "app/replay.h"
#include "report/replay_report.h"
#include "report/scenario_page.h"

namespace anatomy::app {
namespace {

// "A", "B", ... "Z", then "R27", "R28", ...
std::string label_of(size_t i) {
  return i < 26 ? std::string(1, static_cast<char>('A' + i)) : fmt::format("R{}", i + 1);
}

}  // namespace

std::vector<report::CompareRun> compare_scenarios(const std::vector<std::string>& files,
                                                  const std::vector<scenario::Override>& overrides,
                                                  const OnStep& on_run) {
  if (files.size() < 2) throw core::InputError({"", 0, "scenarios"}, "give at least two scenario files to compare");
  std::vector<scenario::Scenario> scenarios;
  for (const auto& f : files) {
    scenarios.push_back(scenario::load_scenario(f, overrides));
    if (scenarios.back().collective || scenarios.back().kernel) throw not_an_iteration(scenarios.back());
  }
  std::vector<report::CompareRun> runs;
  for (size_t i = 0; i < scenarios.size(); ++i) {
    std::string topology;
    report::CompareRun run;
    if (scenarios[i].job) {
      JobRun job = run_job(scenarios[i]);
      topology = job.topology;
      run.result = job.result.steady;
      run.job = std::move(job.result);
    } else {
      IterationRun it = run_iteration(scenarios[i]);
      topology = std::move(it.topology);
      run.result = std::move(it.result);
    }
    if (on_run) on_run(run.result.iteration, static_cast<int64_t>(scenarios.size()));
    run.label = label_of(i);
    run.info = report::scenario_page_info(scenarios[i], topology, &run.result);
    runs.push_back(std::move(run));
  }
  return runs;
}

std::vector<report::CompareRun> compare_replays(const std::string& trace_dir, const std::vector<std::string>& files,
                                                const std::vector<scenario::Override>& overrides, const OnStep& on_run) {
  if (files.empty())
    throw core::InputError({"", 0, "scenarios"}, "give at least one scenario to replay the trace on besides its own machine");
  std::vector<std::string> targets = {""};
  targets.insert(targets.end(), files.begin(), files.end());
  std::vector<report::CompareRun> runs;
  for (size_t i = 0; i < targets.size(); ++i) {
    ReplayRequest q;
    q.trace_dir = trace_dir;
    q.on = targets[i];
    q.overrides = overrides;
    const ReplayRun r = run_replay(q);
    const report::ReplayView view{&r.trace, &r.replay, &r.target, r.target_label, r.source_machine,
                                  r.topology, r.ranks, r.assumptions};
    report::CompareRun run;
    run.label = label_of(i);
    run.result = r.replay.result;
    run.info = report::replay_page_info(view);
    if (on_run) on_run(run.result.iteration, static_cast<int64_t>(targets.size()));
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace anatomy::app
