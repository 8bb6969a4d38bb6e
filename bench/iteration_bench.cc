// `anatomy run` end to end (scenario, topology, compute model, iteration):
//  * the built-in default: Llama 3 70B on 1,024 B200 (512 GB200), target < 2 s;
//  * Llama 3 405B on 16,384 H100, TP8 PP16 DP128 (validation case A7),
//    target < 10 s;
//  * `anatomy validate` over every published case.

#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

#include "cli/main.h"

namespace {

int run_cli(std::vector<std::string> args) {
  std::vector<char*> argv;
  static std::string prog = "anatomy";
  argv.push_back(prog.data());
  for (auto& a : args) argv.push_back(a.data());
  std::fflush(stdout);
  const int saved = dup(1);
  FILE* null = std::fopen("/dev/null", "w");
  dup2(fileno(null), 1);
  const int rc = anatomy::cli::main(static_cast<int>(argv.size()), argv.data());
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  std::fclose(null);
  return rc;
}

void BM_RunDefault(benchmark::State& state) {
  for (auto _ : state) run_cli({"run"});
}
BENCHMARK(BM_RunDefault)->Unit(benchmark::kMillisecond);

void BM_RunLlama405B16k(benchmark::State& state) {
  for (auto _ : state) run_cli({"run", std::string(ANATOMY_SOURCE_DIR) + "/validation/a7-llama3-405b-16k-gpus.yaml"});
}
BENCHMARK(BM_RunLlama405B16k)->Unit(benchmark::kSecond)->Iterations(1);

void BM_ValidateAll(benchmark::State& state) {
  for (auto _ : state) run_cli({"validate"});
}
BENCHMARK(BM_ValidateAll)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
