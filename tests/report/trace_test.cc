// The Chrome / Perfetto trace of an iteration: well-formed events, exact
// times, a track per representative GPU whose durations add up to the
// iteration, the stage filter and link sampling.

#include "report/trace.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "core/error.h"
#include "fixtures.h"

namespace anatomy::report {
namespace {

nlohmann::json parse(const TraceOptions& o = {}) {
  return nlohmann::json::parse(chrome_trace(testing::two_stage_result(), testing::kTwoStageGpus, o));
}

TEST(Trace, EveryEventHasTheRequiredFields) {
  const auto j = parse();
  ASSERT_TRUE(j["traceEvents"].is_array());
  ASSERT_FALSE(j["traceEvents"].empty());
  for (const auto& e : j["traceEvents"]) {
    for (const char* k : {"name", "ph", "ts", "pid", "tid"}) EXPECT_TRUE(e.contains(k)) << k << " in " << e.dump();
    if (e["ph"] == "X") {
      EXPECT_TRUE(e.contains("dur")) << e.dump();
    }
  }
}

TEST(Trace, EachGpuTrackAddsUpToTheIteration) {
  // Stage 0's intervals tile [0, 80 us + 7 ps]; so do stage 1's. In
  // picoseconds, from the 6-decimal microsecond text, exactly.
  const auto j = parse();
  std::map<int, int64_t> total_ps;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "X" && e["pid"] == 1) total_ps[e["tid"].get<int>()] += std::llround(e["dur"].get<double>() * 1e6);
  ASSERT_EQ(total_ps.size(), 2u);
  for (auto [tid, ps] : total_ps) EXPECT_EQ(ps, 80'000'007) << "GPU " << tid;
}

TEST(Trace, TimesAreExactMicrosecondsOfThePicosecondClock) {
  // Stage 0's second forward starts at 10,000,001 ps = 10.000001 us.
  const std::string text = chrome_trace(testing::two_stage_result(), testing::kTwoStageGpus, {});
  EXPECT_NE(text.find(R"("ts":10.000001,"dur":10.000000)"), std::string::npos);
}

TEST(Trace, NamesEachTrackByStageAndGpu) {
  std::set<std::string> names;
  const auto j = parse();
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == 1) names.insert(e["args"]["name"]);
  EXPECT_EQ(names, (std::set<std::string>{"stage 0 · GPU 0", "stage 1 · GPU 16"}));
}

TEST(Trace, IntervalsCarryKindMicroBatchAndChunk) {
  const auto j = parse();
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "X" && e["pid"] == 1 && e["ts"].get<double>() == 0 && e["tid"] == 0) {
      EXPECT_EQ(e["name"], "forward");
      EXPECT_EQ(e["args"]["micro_batch"], 0);
      EXPECT_EQ(e["args"]["chunk"], 0);
      return;
    }
  FAIL() << "no interval at 0 on GPU 0";
}

TEST(Trace, StageFilterKeepsOnlyThoseTracks) {
  TraceOptions o;
  o.stages = {1};
  std::set<int> tids;
  const auto j = parse(o);
  for (const auto& e : j["traceEvents"])
    if (e["pid"] == 1 && e["ph"] == "X") tids.insert(e["tid"].get<int>());
  EXPECT_EQ(tids, std::set<int>{16});
}

TEST(Trace, LinkCountersAreTheTopN) {
  TraceOptions o;
  o.links = 2;
  std::set<std::string> counters;
  const auto j = parse(o);
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "C") counters.insert(e["name"]);
  EXPECT_EQ(counters.size(), 2u);
  // The first two of the model's one ranking, as the report lists them.
  EXPECT_TRUE(counters.count("host 0 gpu 0 -> leaf 0 port 1 (scale-up)"));
  EXPECT_TRUE(counters.count("host 0 gpu 1 -> leaf 1 port 1 (fabric)"));
  o.links = 0;
  const auto none = parse(o);
  for (const auto& e : none["traceEvents"]) EXPECT_NE(e["ph"], "C");
}

TEST(Trace, CounterHoldsTheMeanUtilizationOverTheIteration) {
  TraceOptions o;
  o.links = 1;
  std::vector<double> values;
  const auto j = parse(o);
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "C") values.push_back(e["args"]["utilization_pct"].get<double>());
  EXPECT_EQ(values, (std::vector<double>{60.0, 0.0}));  // 60% from 0, back to 0 at the end
}

TEST(Trace, SampledLinksHaveACounterValuePerInterval) {
  auto r = testing::two_stage_result();
  r.busiest_links[0].utilization_series = {0.9, 0.1, 0.5, 0.0};
  TraceOptions o;
  o.links = 1;
  std::vector<std::pair<double, double>> points;  // (ts us, %)
  const auto j = nlohmann::json::parse(chrome_trace(r, testing::kTwoStageGpus, o));
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "C") points.emplace_back(e["ts"].get<double>(), e["args"]["utilization_pct"].get<double>());
  // Intervals are whole picoseconds: the iteration's, divided by 4, rounded down.
  const double quarter = static_cast<double>(r.iteration.count_ps() / 4) * 1e-6;
  ASSERT_EQ(points.size(), 5u);  // four intervals, then 0 at the end
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(points[k].first, k * quarter, 1e-6) << k;
    EXPECT_DOUBLE_EQ(points[k].second, 100 * r.busiest_links[0].utilization_series[k]) << k;
  }
  EXPECT_EQ(points[4].second, 0);
}

TEST(Trace, SameResultSameBytes) {
  const auto r = testing::two_stage_result();
  EXPECT_EQ(chrome_trace(r, testing::kTwoStageGpus, {}), chrome_trace(r, testing::kTwoStageGpus, {}));
}

TEST(ParseStageList, TakesListsAndRanges) {
  EXPECT_EQ(parse_stage_list("0,3", 4, "--trace-ranks"), (std::vector<int>{0, 3}));
  EXPECT_EQ(parse_stage_list("0-7", 8, "--trace-ranks"), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(parse_stage_list("5,1,4-6", 8, "--trace-ranks"), (std::vector<int>{1, 4, 5, 6}));
}

TEST(ParseStageList, RejectsWhatIsNotAStageNamingTheFlag) {
  for (const char* bad : {"", "a", "1,", "-1", "3-1", "4", "0-4", "1.5"}) {
    try {
      parse_stage_list(bad, 4, "--trace-ranks");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const core::InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--trace-ranks"), std::string::npos) << e.what();
    }
  }
}

TEST(Trace, AJobsLifecycleIsATrackOfItsOwnCoveringTheWallTime) {
  using core::SimTime;
  const std::vector<job::JobPhase> phases = {{"startup", SimTime::zero(), SimTime::sec(60)},
                                             {"training", SimTime::sec(60), SimTime::sec(3600)},
                                             {"recovery", SimTime::sec(3600), SimTime::sec(3700)}};
  TraceOptions o;
  o.lifecycle = &phases;
  const auto j = parse(o);
  std::vector<std::string> names;
  double covered_us = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e.value("cat", "") != "lifecycle") continue;
    EXPECT_EQ(e["tid"], 1);
    names.push_back(e["name"]);
    covered_us += e["dur"].get<double>();
  }
  EXPECT_EQ(names, (std::vector<std::string>{"startup", "training", "recovery"}));
  EXPECT_DOUBLE_EQ(covered_us, 3700e6);
  // Without a job there is no lifecycle track.
  const auto plain = parse();
  for (const auto& e : plain["traceEvents"]) EXPECT_NE(e.value("cat", ""), "lifecycle");
}

}  // namespace
}  // namespace anatomy::report
