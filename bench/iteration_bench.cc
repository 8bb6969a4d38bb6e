// `anatomy run` end to end (scenario, topology, compute model, iteration):
//  * the built-in default: Llama 3 70B on 1,024 B200 (512 GB200), target < 2 s;
//  * Llama 3 405B on 16,384 H100, TP8 PP16 DP128 (validation case A7),
//    target < 10 s;
//  * a 54-day, 16,384-GPU job with failures and checkpoints (case C1), target
//    < 10 s for a 30-day job;
//  * a 54-day adaptive job under some 14,000 condition episodes
//    (scenarios/adaptive/season-adaptive.yaml), each episode looked at only
//    while it may be in force;
//  * DeepSeek-V3 on 1,024 H100 with EP 64 across hosts
//    (scenarios/deepseek-v3-h100-ep64.yaml): the flow model's largest
//    coupled fair-share solves, one per all-to-all start and finish;
//  * `anatomy validate` over every published case.

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "app/data_dir.h"
#include "app/iteration.h"
#include "app/job.h"
#include "app/validate.h"
#include "scenario/scenario.h"

namespace {

using namespace anatomy;

std::string validation_case(const char* file) { return app::validation_dir("bench") + "/" + file; }

// Each timed loop reads the scenario too, as `anatomy run` does.
void BM_RunDefault(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(app::run_iteration(app::load_or_default("")));
}
BENCHMARK(BM_RunDefault)->Unit(benchmark::kMillisecond);

void BM_RunLlama405B16k(benchmark::State& state) {
  const std::string file = validation_case("a7-llama3-405b-16k-gpus.yaml");
  for (auto _ : state) benchmark::DoNotOptimize(app::run_iteration(scenario::load_scenario(file)));
}
BENCHMARK(BM_RunLlama405B16k)->Unit(benchmark::kSecond)->Iterations(1);

// The whole-job model: Llama 3 405B on 16,384 H100 for 54 days with Table
// 5's failure rates (case C1), target < 10 s for 30 days.
void BM_JobLlama405B54Days(benchmark::State& state) {
  const std::string file = validation_case("c1-llama3-405b-54-days-ettr.yaml");
  for (auto _ : state) benchmark::DoNotOptimize(app::run_job(scenario::load_scenario(file)));
}
BENCHMARK(BM_JobLlama405B54Days)->Unit(benchmark::kSecond)->Iterations(1);

void BM_JobAdaptiveSeason(benchmark::State& state) {
  const std::string file = app::data_dir() + "/scenarios/adaptive/season-adaptive.yaml";
  for (auto _ : state) benchmark::DoNotOptimize(app::run_job(scenario::load_scenario(file)));
}
BENCHMARK(BM_JobAdaptiveSeason)->Unit(benchmark::kSecond)->Iterations(1);

void BM_RunDeepSeekV3Ep64(benchmark::State& state) {
  const std::string file = app::data_dir() + "/scenarios/deepseek-v3-h100-ep64.yaml";
  for (auto _ : state) benchmark::DoNotOptimize(app::run_iteration(scenario::load_scenario(file)));
}
BENCHMARK(BM_RunDeepSeekV3Ep64)->Unit(benchmark::kSecond)->Iterations(1);

// The shipped cases on one thread (the figure bench/README.md has kept
// since the first 47 cases) and on one a core, as `anatomy validate` runs them.
void BM_ValidateAll(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(app::validate_folder("", {}, {}, 1));
}
BENCHMARK(BM_ValidateAll)->Unit(benchmark::kSecond)->Iterations(1);

void BM_ValidateAllEveryCore(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(app::validate_folder("", {}, {}, 0));
}
BENCHMARK(BM_ValidateAllEveryCore)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
