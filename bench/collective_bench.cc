// Whole `anatomy collective` runs, timed end to end (topology build,
// schedule, simulation), as a user runs them:
//  * the ASTRA-sim comparison: 1 GiB ring all-reduce on a 1-D ring of 1,024
//    devices, 50 GB/s and 500 ns per hop, 4 chunks, step by step
//    (ASTRA-sim's analytical backend: 12.5-17.4 s wall; target < 0.6 s);
//  * 1 GiB all-reduce, auto algorithm, bulk fidelity, on 16,384 and 131,072
//    DGX H100 GPUs (targets < 10 s and < 60 s).

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "run_cli.h"

namespace {

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
