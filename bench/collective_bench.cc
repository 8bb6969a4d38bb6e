// Whole `anatomy collective` runs, timed end to end (topology build,
// schedule, simulation), as a user runs them:
//  * the ASTRA-sim comparison: 1 GiB ring all-reduce on a 1-D ring of 1,024
//    devices, 50 GB/s and 500 ns per hop, 4 chunks, step by step
//    (ASTRA-sim's analytical backend: 12.5-17.4 s wall; target < 0.6 s);
//  * 1 GiB all-reduce, auto algorithm, bulk fidelity, on 16,384 and 131,072
//    DGX H100 GPUs (targets < 10 s and < 60 s).

#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

#include "cli/main.h"

namespace {

// Runs the CLI with its stdout sent to /dev/null, so the table stays readable.
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

void BM_AstraSimRing1024(benchmark::State& state) {
  for (auto _ : state)
    run_cli({"collective", "--topology", "ring", "--gpus", "1024", "--link-bandwidth", "50GB/s", "--hop-latency",
             "500ns", "--bytes", "1GiB", "--chunks", "4", "--algo", "ring", "--fidelity", "step", "--format",
             "json"});
}
BENCHMARK(BM_AstraSimRing1024)->Unit(benchmark::kMillisecond);

void BM_AllReduceBulk(benchmark::State& state) {
  const std::string gpus = std::to_string(state.range(0));
  for (auto _ : state)
    run_cli({"collective", "--system", "dgx-h100", "--gpus", gpus, "--bytes", "1G", "--fidelity", "bulk",
             "--format", "json"});
}
BENCHMARK(BM_AllReduceBulk)->Arg(16'384)->Arg(131'072)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
