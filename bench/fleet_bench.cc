// Many jobs on one cluster (issue 17): one simulated month of a
// 16,384-GPU DGX H100 cluster with 10,000 generated jobs under EASY
// backfilling, contention on the shared fabric and storage links (flow
// model's max-min shares), checkpoints and failures; target < 60 s.

#include <benchmark/benchmark.h>

#include <string>

#include "app/data_dir.h"
#include "app/fleet.h"
#include "scenario/scenario.h"

namespace {

using namespace anatomy;

void BM_FleetMonth16k(benchmark::State& state) {
  const std::string file = app::data_dir() + "/scenarios/cluster/month-16k.yaml";
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
}
BENCHMARK(BM_FleetMonth16k)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
