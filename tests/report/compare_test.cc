// Side-by-side comparison: values per run, differences against the first,
// and the inputs that differ.

#include "report/compare.h"

#include <gtest/gtest.h>

#include "fixtures.h"

namespace anatomy::report {
namespace {

std::vector<CompareRun> two_runs() {
  CompareRun a{"A", {}, testing::two_stage_result()};
  CompareRun b{"B", {}, testing::two_stage_result()};
  // B: 20 us more of exposed DP communication on the mean GPU.
  b.result.iteration += core::SimTime::us(20);
  b.result.mean.dp_comm += core::SimTime::us(20);
  b.result.tokens_per_s = 0.8e6;
  a.info.title = "400G";
  b.info.title = "100G";
  a.info.inputs = {{"scenario", "name", "400G", true},
                   {"cluster", "fabric.nic_speed", "400Gbps"},
                   {"cluster", "topology (built)", "... 400Gbps per NIC", false, true},
                   {"parallelism", "tp", "8"}};
  b.info.inputs = {{"scenario", "name", "100G", true},
                   {"cluster", "fabric.nic_speed", "100Gbps"},
                   {"cluster", "topology (built)", "... 100Gbps per NIC", false, true},
                   {"parallelism", "tp", "8"}};
  return {a, b};
}

const CompareMetric& find(const std::vector<CompareMetric>& m, const std::string& key) {
  for (const auto& x : m)
    if (x.key == key) return x;
  throw std::runtime_error("no metric " + key);
}

TEST(Compare, DifferencesAreAgainstTheFirstRun) {
  const auto m = compare_metrics(two_runs());
  const auto& dp = find(m, "exposed_DP_comm_s");
  EXPECT_NEAR(dp.diff(1), 20e-6, 1e-15);
  // Mean DP comm of A: (5 + 8.000006) / 2 us = 6.500003 us; B is 20 us more.
  EXPECT_NEAR(*dp.diff_pct(1), 100 * 20 / 6.500003, 1e-6);
  EXPECT_EQ(find(m, "forward_compute_s").diff(1), 0);
  EXPECT_NEAR(*find(m, "tokens_per_s").diff_pct(1), -20, 1e-9);
}

TEST(Compare, HasIterationEveryBucketAndTheHeadlineFigures) {
  const auto m = compare_metrics(two_runs());
  int buckets = 0;
  for (const auto& x : m) buckets += x.bucket;
  EXPECT_EQ(buckets, 10);
  for (const char* k : {"iteration_s", "tokens_per_s", "tflops_per_gpu", "mfu", "memory_per_gpu_GB"})
    EXPECT_NO_THROW(find(m, k)) << k;
}

TEST(Compare, WholeJobsAddGoodputGpuHoursAndDollarsPerCause) {
  auto runs = two_runs();
  EXPECT_THROW(find(compare_metrics(runs), "ettr"), std::runtime_error);  // iterations only: no job figures
  for (auto& r : runs) {
    r.job.emplace();
    r.job->gpus = 100;
    r.job->dollars_per_gpu_hour = 2;
    r.job->time.compute = core::SimTime::from_seconds(3600);
  }
  // B loses half an hour per GPU to recovery: 50 GPU-hours, $100.
  runs[1].job->time.recovery = core::SimTime::from_seconds(1800);
  runs[1].job->ettr = 0.5;
  const auto m = compare_metrics(runs);
  EXPECT_EQ(find(m, "ettr").values[1], 0.5);
  EXPECT_NEAR(find(m, "productive_compute_gpu_hours").values[0], 100, 1e-9);
  EXPECT_NEAR(find(m, "failure_recovery_gpu_hours").diff(1), 50, 1e-9);
  EXPECT_NEAR(find(m, "failure_recovery_dollars").diff(1), 100, 1e-9);
  EXPECT_NEAR(find(m, "total_dollars").diff(1), 100, 1e-9);
}

TEST(Compare, PercentOfAZeroBaselineIsUndefinedUnlessEqual) {
  const auto m = compare_metrics(two_runs());
  EXPECT_EQ(find(m, "recompute_s").diff_pct(1), 0.0);  // 0 in both
  CompareMetric x{"k", "k", "", 1, 3, false, false, {0.0, 1.0}};
  EXPECT_FALSE(x.diff_pct(1).has_value());
}

TEST(Compare, DifferingInputsLeaveOutNamesAndDerivedValues) {
  const auto d = differing_inputs(two_runs());
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].first, "cluster.fabric.nic_speed");
  EXPECT_EQ(d[0].second, (std::vector<std::string>{"400Gbps", "100Gbps"}));
}

TEST(Compare, JsonHasValuesDiffsAndPercentPerMetric) {
  const auto runs = two_runs();
  const auto j = compare_json(runs, compare_metrics(runs));
  EXPECT_EQ(j["baseline"], "A");
  ASSERT_EQ(j["runs"].size(), 2u);
  for (const auto& m : j["metrics"]) {
    EXPECT_EQ(m["values"].size(), 2u);
    EXPECT_EQ(m["diff"][0], 0.0);
  }
  EXPECT_EQ(j["inputs_that_differ"][0]["input"], "cluster.fabric.nic_speed");
}

TEST(Compare, TextHasAColumnPerRunAndTheDifference) {
  const auto runs = two_runs();
  const std::string t = compare_text(runs, compare_metrics(runs));
  EXPECT_NE(t.find("B-A %"), std::string::npos);
  EXPECT_NE(t.find("# differs: cluster.fabric.nic_speed: A 400Gbps, B 100Gbps"), std::string::npos);
  EXPECT_NE(t.find("+0.020"), std::string::npos);   // 20 us more DP comm, in ms
  EXPECT_NE(t.find("-20.00%"), std::string::npos);  // tokens/s
}

}  // namespace
}  // namespace anatomy::report
