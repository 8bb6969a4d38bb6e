// Building the largest clusters: 16,384 and 131,072 DGX H100 GPUs on a
// rail-optimized Clos (three tiers chosen automatically). Target (issue 2):
// 131,072 GPUs build in seconds, in bounded memory.

#include <benchmark/benchmark.h>

#include "hw/catalog.h"
#include "topo/builders.h"

namespace {

void BM_BuildCluster(benchmark::State& state) {
  anatomy::topo::ClusterSpec spec;
  spec.system = anatomy::hw::find_system("dgx-h100");
  spec.gpus = static_cast<int>(state.range(0));
  size_t bytes = 0, links = 0;
  for (auto _ : state) {
    auto t = anatomy::topo::build_cluster(spec);
    bytes = t.memory_bytes();
    links = t.num_links();
    benchmark::DoNotOptimize(t);
  }
  state.counters["topology_MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["links"] = static_cast<double>(links);
}
BENCHMARK(BM_BuildCluster)->Arg(16'384)->Arg(131'072)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
