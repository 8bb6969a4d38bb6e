// Many jobs on one cluster (issue 17): one simulated month of a
// 16,384-GPU DGX H100 cluster with 10,000 generated jobs under EASY
// backfilling, contention on the shared fabric and storage links (flow
// model's max-min shares), checkpoints and failures; target < 60 s. And a
// day of it with the largest jobs re-simulated as training jobs.

#include <benchmark/benchmark.h>

#include <string>

#include "app/data_dir.h"
#include "app/fleet.h"
#include "scenario/scenario.h"

namespace {

using namespace anatomy;

void run_fleet_file(benchmark::State& state, const std::string& name) {
  const std::string file = app::data_dir() + "/scenarios/cluster/" + name;
  fleet::FleetResult last;
  for (auto _ : state) {
    app::FleetRun r = app::run_fleet(scenario::load_scenario(file));
    last = std::move(r.result);
    benchmark::DoNotOptimize(last);
  }
  state.counters["jobs"] = static_cast<double>(last.jobs.size());
  state.counters["finished"] = last.finished;
  state.counters["events"] = static_cast<double>(last.events);
  state.counters["evaluations"] = static_cast<double>(last.evaluations);
  state.counters["utilization"] = last.gpu_utilization;
  state.counters["resimulated"] = static_cast<double>(last.iterations_run);
}

void BM_FleetMonth16k(benchmark::State& state) { run_fleet_file(state, "month-16k.yaml"); }
BENCHMARK(BM_FleetMonth16k)->Unit(benchmark::kSecond)->Iterations(1);

// A day of the same stream with its largest jobs as training jobs whose
// iterations are re-simulated on the cluster (fleet_sim.h): what that costs.
void BM_FleetDay16kTraining(benchmark::State& state) { run_fleet_file(state, "day-16k-training.yaml"); }
BENCHMARK(BM_FleetDay16kTraining)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
