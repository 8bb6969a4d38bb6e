// Event-queue throughput: the classic hold model. 10^6 events are pending;
// every event, when it runs, schedules one successor a random distance
// ahead (exponential, mean 1 us), so the queue stays at 10^6 while the
// benchmark pops and pushes. One "item" is one event run plus one scheduled.
//
// Target (issue 2): at least 20 million events/s on one core.

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "engine/simulator.h"

namespace {

using anatomy::core::SimTime;
using anatomy::engine::Simulator;

struct Hold {
  Simulator* sim;
  const std::vector<int64_t>* delays;
  size_t next = 0;
  void fire() {
    const int64_t d = (*delays)[next++ & (delays->size() - 1)];
    sim->schedule_in(SimTime::ps(d), [this] { fire(); });
  }
};

std::vector<int64_t> exponential_delays(size_t n, double mean_ps) {
  std::vector<int64_t> d(n);
  uint64_t x = 88172645463325252ULL;
  for (auto& v : d) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const double u = static_cast<double>(x >> 11) * 0x1.0p-53;
    v = static_cast<int64_t>(-std::log(1.0 - u) * mean_ps);
  }
  return d;
}

void BM_HoldModel(benchmark::State& state) {
  const size_t pending = static_cast<size_t>(state.range(0));
  const std::vector<int64_t> delays = exponential_delays(1 << 20, 1e6);
  Simulator sim;
  // Second argument 0: prefetch hints off, to measure what looking for
  // them costs events that have none (these events have none).
  sim.set_prefetch_hints(state.range(1) != 0);
  Hold hold{&sim, &delays};
  for (size_t i = 0; i < pending; ++i) hold.fire();
  for (auto _ : state) sim.step();
  state.SetItemsProcessed(state.iterations());
  state.counters["pending"] = static_cast<double>(sim.pending());
}
BENCHMARK(BM_HoldModel)->ArgsProduct({{1'000, 1'000'000}, {1, 0}})->Unit(benchmark::kNanosecond);

void BM_ScheduleAndCancel(benchmark::State& state) {
  // The flow backend's pattern: reschedule a completion (cancel + schedule)
  // many times before it fires.
  const std::vector<int64_t> delays = exponential_delays(1 << 16, 1e6);
  Simulator sim;
  // Second argument 0: prefetch hints off, to measure what looking for
  // them costs events that have none (these events have none).
  sim.set_prefetch_hints(state.range(1) != 0);
  Hold hold{&sim, &delays};
  for (int i = 0; i < 100'000; ++i) hold.fire();
  size_t k = 0;
  for (auto _ : state) {
    auto h = sim.schedule_cancellable_in(SimTime::ps(delays[k++ & 0xffff]), [] {});
    sim.cancel(h);
    sim.step();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ScheduleAndCancel);

// The hold model for a fixed number of steps, for counting instructions and
// cache misses (valgrind --tool=cachegrind), which timing on a shared VM
// cannot resolve to 3%: `engine_bench --hold-steps PENDING STEPS`.
int hold_steps(size_t pending, size_t steps) {
  const std::vector<int64_t> delays = exponential_delays(1 << 20, 1e6);
  Simulator sim;
  Hold hold{&sim, &delays};
  for (size_t i = 0; i < pending; ++i) hold.fire();
  for (size_t i = 0; i < steps; ++i) sim.step();
  std::printf("%llu events\n", static_cast<unsigned long long>(sim.events_processed()));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "--hold-steps") == 0)
    return hold_steps(std::strtoull(argv[2], nullptr, 10), std::strtoull(argv[3], nullptr, 10));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
