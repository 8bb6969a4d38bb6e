// An edge site end to end (scenario, compute model, collectives, the
// packet-level sensor and WAN windows, 24 hourly cycles): the article's
// pharmaceutical line for 24 simulated hours, target < 5 s (issue 13);
// and the TSN segment alone, frames per second of wall time.

#include <benchmark/benchmark.h>

#include <string>

#include "app/data_dir.h"
#include "app/edge.h"
#include "net/tsn/tsn_segment.h"
#include "scenario/scenario.h"

namespace {

using namespace anatomy;

std::string edge_scenario(const char* file) { return app::data_dir() + "/scenarios/edge/" + file; }

void BM_EdgePharmaLine24h(benchmark::State& state) {
  const std::string file = edge_scenario("pharma-line.yaml");
  size_t cycles = 0;
  for (auto _ : state) {
    const app::EdgeRun r = app::run_edge(scenario::load_scenario(file));
    cycles = r.result.cycles.size();
    benchmark::DoNotOptimize(r);
  }
  state.counters["cycles"] = static_cast<double>(cycles);
}
BENCHMARK(BM_EdgePharmaLine24h)->Unit(benchmark::kSecond)->Iterations(1);

void BM_EdgeDroneDepot7d(benchmark::State& state) {
  const std::string file = edge_scenario("drone-depot.yaml");
  for (auto _ : state) benchmark::DoNotOptimize(app::run_edge(scenario::load_scenario(file)));
}
BENCHMARK(BM_EdgeDroneDepot7d)->Unit(benchmark::kSecond)->Iterations(1);

// One 10 Gb/s port, four 2 MB camera streams at 30 fps in 9000-byte frames
// and a saturating training stream: simulated frames per wall second.
void BM_TsnSegment(benchmark::State& state) {
  net::tsn::SegmentSpec s;
  net::tsn::TsnPortConfig port;
  port.rate = core::Bandwidth::gbps(10);
  s.ports = {port};
  for (int i = 0; i < 4; ++i)
    s.streams.push_back({.name = "camera", .hops = {0}, .message_bytes = 2'000'000, .mtu = 9000,
                         .period = core::SimTime::ms(33), .offset = core::SimTime::ms(8) * i, .priority = 5});
  s.streams.push_back({.name = "training", .hops = {0}, .message_bytes = 4 << 20, .mtu = 9000,
                       .period = core::SimTime::ms(5), .priority = 0, .measured = false});
  uint64_t events = 0;
  for (auto _ : state) events += net::tsn::simulate_segment(s, core::SimTime::sec(1)).events;
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TsnSegment)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
