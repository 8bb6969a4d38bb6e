// Sweeps (issue 15): 1,000 points of the default scenario on 2 threads,
// target < 5 min; and what the sweep itself costs per point (scheduling,
// the scenario's overrides, the store's transaction) with a trivial point,
// target < 5 ms. The trivial point is a collective case whose simulation
// takes microseconds, so nearly all of its wall time is the sweep's own.

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <numeric>
#include <string>

#include "sweep/run.h"

namespace {

using namespace anatomy;

std::string fresh_store(const std::string& name) {
  const std::string path = (std::filesystem::temp_directory_path() / (name + "_" + std::to_string(getpid()) + ".sqlite")).string();
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path + ext);
  return path;
}

// `points` distinct points of the built-in default: only the seed differs
// (one iteration draws nothing from it, so every point is the same work).
sweep::Space default_points(int points) {
  return sweep::parse_space("name: bench\naxes:\n  seed: {from: 1, to: " + std::to_string(points) + ", step: 1}\n",
                            "bench.yaml");
}

void BM_Sweep1000DefaultPoints2Threads(benchmark::State& state) {
  const sweep::Space space = default_points(1000);
  sweep::Summary sum;
  for (auto _ : state) {
    sweep::RunOptions o;
    o.store = fresh_store("bench_default");
    o.threads = 2;
    sum = sweep::run_sweep(space, o);
  }
  state.counters["points"] = static_cast<double>(sum.ran);
  state.counters["failed"] = static_cast<double>(sum.failed);
  state.counters["s_per_point"] = sum.wall_s / static_cast<double>(std::max<int64_t>(1, sum.ran));
}
BENCHMARK(BM_Sweep1000DefaultPoints2Threads)->Unit(benchmark::kSecond)->Iterations(1);

// 2,000 trivial points on one thread: (the sweep's wall time - the time
// inside the points' own simulations) / points is the per-point overhead.
void BM_SweepOverheadPerPoint(benchmark::State& state) {
  const sweep::Space space = sweep::parse_space(
      "name: trivial\nscenario:\n  cluster: {system: dgx-h100, gpus: 8}\n  collective: {op: all_reduce, bytes: 8B}\n"
      "axes:\n  seed: {from: 1, to: 2000, step: 1}\n",
      "trivial.yaml");
  double wall = 0, inside = 0;
  int64_t n = 0;
  for (auto _ : state) {
    sweep::RunOptions o;
    o.store = fresh_store("bench_trivial");
    o.threads = 1;
    double in_points = 0;
    sweep::Callbacks cb;
    cb.on_point = [&](const sweep::PointRow& r) { in_points += r.wall_s; };
    const sweep::Summary sum = sweep::run_sweep(space, o, cb);
    wall = sum.wall_s;
    inside = in_points;
    n = sum.ran;
  }
  state.counters["points"] = static_cast<double>(n);
  state.counters["ms_per_point"] = 1e3 * wall / static_cast<double>(n);
  state.counters["ms_simulating"] = 1e3 * inside / static_cast<double>(n);
  state.counters["ms_overhead"] = 1e3 * (wall - inside) / static_cast<double>(n);
}
BENCHMARK(BM_SweepOverheadPerPoint)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
