// Whole `anatomy collective` runs, timed end to end (topology build,
// schedule, simulation), as a user runs them:
//  * the ASTRA-sim comparison: 1 GiB ring all-reduce on a 1-D ring of 1,024
//    devices, 50 GB/s and 500 ns per hop, 4 chunks, step by step
//    (ASTRA-sim's analytical backend: 12.5-17.4 s wall; target < 0.6 s);
//  * 1 GiB all-reduce, auto algorithm, bulk fidelity, on 16,384 and 131,072
//    DGX H100 GPUs (targets < 10 s and < 60 s);
//  * 1 GiB all-to-all on 2,048 to 16,384 DGX H100 GPUs, answered from every
//    pair's routed link loads (coll/link_load.h), as the CLI runs it.

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "app/collective.h"
#include "coll/library_model.h"
#include "hw/catalog.h"
#include "topo/builders.h"

namespace {

using namespace anatomy;

// As `anatomy collective` runs it: the topology built inside the timed loop.
void BM_AstraSimRing1024(benchmark::State& state) {
  app::CollectiveSweep sweep;
  sweep.sizes = {core::Bytes(int64_t{1} << 30)};
  sweep.chunks = 4;
  sweep.algorithm = "ring";
  sweep.fidelity = "step";
  for (auto _ : state) {
    const topo::Topology t = topo::build_torus({1024}, core::Bandwidth::gigabytes_per_s(50), core::SimTime::ns(500));
    benchmark::DoNotOptimize(app::run_collective_sweep(t, coll::ideal_library(), sweep));
  }
}
BENCHMARK(BM_AstraSimRing1024)->Unit(benchmark::kMillisecond);

void BM_AllReduceBulk(benchmark::State& state) {
  topo::ClusterSpec spec;
  spec.system = hw::find_system("dgx-h100");
  spec.gpus = static_cast<int>(state.range(0));
  app::CollectiveSweep sweep;
  sweep.sizes = {core::Bytes(1'000'000'000)};
  sweep.fidelity = "bulk";
  for (auto _ : state) {
    const topo::Topology t = topo::build_cluster(spec);
    benchmark::DoNotOptimize(app::run_collective_sweep(t, coll::nccl_library(spec.system), sweep));
  }
}
BENCHMARK(BM_AllReduceBulk)->Arg(16'384)->Arg(131'072)->Unit(benchmark::kSecond)->Iterations(1);

void BM_AllToAll(benchmark::State& state) {
  topo::ClusterSpec spec;
  spec.system = hw::find_system("dgx-h100");
  spec.gpus = static_cast<int>(state.range(0));
  app::CollectiveSweep sweep;
  sweep.op = coll::Op::kAllToAll;
  sweep.sizes = {core::Bytes(int64_t{1} << 30)};
  for (auto _ : state) {
    const topo::Topology t = topo::build_cluster(spec);
    benchmark::DoNotOptimize(app::run_collective_sweep(t, coll::nccl_library(spec.system), sweep));
  }
}
BENCHMARK(BM_AllToAll)->Arg(2'048)->Arg(2'056)->Arg(8'192)->Arg(16'384)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
