#include "report/validation.h"

#include <gtest/gtest.h>

namespace anatomy::report {
namespace {

ValidationCase ran(const std::string& id, const std::string& metric, double published, double simulated,
                   CaseKind kind = CaseKind::kTraining) {
  ValidationCase c;
  c.case_id = id;
  c.metric = metric;
  c.kind = kind;
  c.published = published;
  c.simulated = simulated;
  c.ran = true;
  return c;
}

TEST(Validation, EachKindOfCaseHasItsOwnSummary) {
  // The targets are stated per kind: training rows, collectives, kernels.
  // A kernel 30% off must not count as a collective's error, nor a
  // collective's as a training row's:
  //   training   +10%, -2%          -> median 6%, worst 10%
  //   collective +4%                -> 4%
  //   kernel     -30%, +5%, -10%    -> median 10%, worst 30%
  //   job        interruptions +1%  -> 1%
  Validation v;
  v.cases = {ran("T1", "iteration_s", 1.0, 1.1),
             ran("T2", "mfu", 0.5, 0.49),
             ran("C1", "busbw_GBps", 100, 104, CaseKind::kCollective),
             ran("K1", "tflops", 1000, 700, CaseKind::kKernel),
             ran("K2", "tflops", 1000, 1050, CaseKind::kKernel),
             ran("K3", "tflops", 1000, 900, CaseKind::kKernel),
             ran("J1", "interruptions", 100, 101, CaseKind::kJob)};
  const ErrorSummary t = v.summary(CaseKind::kTraining), c = v.summary(CaseKind::kCollective);
  const ErrorSummary k = v.summary(CaseKind::kKernel), j = v.summary(CaseKind::kJob);
  EXPECT_EQ(t.n, 2u);
  EXPECT_NEAR(t.median, 0.06, 1e-12);
  EXPECT_NEAR(t.worst, 0.10, 1e-12);
  EXPECT_EQ(c.n, 1u);
  EXPECT_NEAR(c.worst, 0.04, 1e-12);
  EXPECT_EQ(k.n, 3u);
  EXPECT_NEAR(k.median, 0.10, 1e-12);
  EXPECT_NEAR(k.worst, 0.30, 1e-12);
  EXPECT_NEAR(j.worst, 0.01, 1e-12);

  const std::string text = validation_text(v);
  EXPECT_NE(text.find("collectives (bandwidth, time): median |error| 4.0%, worst 4.0% over 1 simulated cases"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("single kernels (TFLOP/s, GB/s, time): median |error| 10.0%, worst 30.0% over 3 simulated cases"), std::string::npos);
  const auto json = validation_json(v);
  EXPECT_DOUBLE_EQ(json["collective_worst_abs_error_pct"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(json["kernel_worst_abs_error_pct"].get<double>(), 30.0);
  // Each row says which summary it counts in.
  EXPECT_EQ(json["cases"][2]["kind"], "collective");
  EXPECT_EQ(json["cases"][3]["kind"], "kernel");
}

TEST(Validation, AKindWithoutCasesPrintsNoLine) {
  // A directory of training cases alone (a sweep's validation) says nothing
  // of collectives, kernels or jobs.
  Validation v;
  v.cases = {ran("T1", "iteration_s", 1.0, 1.05)};
  const std::string text = validation_text(v);
  EXPECT_NE(text.find("training throughput/MFU"), std::string::npos);
  EXPECT_EQ(text.find("collectives"), std::string::npos);
  EXPECT_EQ(text.find("kernels"), std::string::npos);
  EXPECT_EQ(text.find("whole jobs"), std::string::npos);
}

ValidationCase of_series(const std::string& series, int64_t m, double published_step, double simulated_step,
                         const std::string& bound = "equal") {
  ValidationCase c = ran("S" + std::to_string(m), "iteration_s", published_step, simulated_step);
  c.series = series;
  c.micro_batches = m;
  c.published_step_s = published_step;
  c.simulated_time = core::SimTime::from_seconds(simulated_step);
  c.bound = bound;
  // Two buckets: "a" 0.3 s + 50 ms a micro-batch, "b" the rest of the step.
  const double a = 0.3 + 0.05 * static_cast<double>(m);
  c.simulated_parts_s = {{"a", a}, {"b", simulated_step - a}};
  return c;
}

TEST(Validation, ASeriesSplitsItsStepsIntoAFixedPartAndAPartPerMicroBatch) {
  // Published steps 1 + 0.1 m at m = 10, 20, 40: 2, 3, 5 s; simulated
  // 0.5 + 0.08 m: 1.3, 2.1, 3.7 s. The lines through them give back
  // fixed 1 s and 100 ms a micro-batch against 0.5 s and 80 ms: each
  // micro-batch simulated 20% short. A bound, a case the model refused
  // and a series of one micro-batch count fit nothing.
  ValidationCase refused = of_series("P", 50, 9.0, 9.0);
  refused.ran = false;
  Validation v;
  v.cases = {of_series("P", 10, 2.0, 1.3), of_series("P", 20, 3.0, 2.1), of_series("P", 40, 5.0, 3.7),
             of_series("P", 30, 9.0, 9.0, "at_most"), refused, of_series("Q", 8, 1.0, 1.1), of_series("Q", 8, 1.2, 1.1)};
  const std::vector<SeriesFit> fits = v.series();
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_EQ(fits[0].name, "P");
  EXPECT_EQ(fits[0].cases, 3u);
  EXPECT_EQ(fits[0].min_micro_batches, 10);
  EXPECT_EQ(fits[0].max_micro_batches, 40);
  EXPECT_NEAR(fits[0].published_fixed_s, 1.0, 1e-12);
  EXPECT_NEAR(fits[0].published_per_micro_batch_s, 0.1, 1e-12);
  EXPECT_NEAR(fits[0].simulated_fixed_s, 0.5, 1e-12);
  EXPECT_NEAR(fits[0].simulated_per_micro_batch_s, 0.08, 1e-12);
  // The simulated fixed part, bucket by bucket: "a" 0.3 s, "b" the other
  // 0.5 - 0.3 = 0.2 s.
  ASSERT_EQ(fits[0].simulated_fixed_parts_s.size(), 2u);
  EXPECT_EQ(fits[0].simulated_fixed_parts_s[0].first, "a");
  EXPECT_NEAR(fits[0].simulated_fixed_parts_s[0].second, 0.3, 1e-12);
  EXPECT_NEAR(fits[0].simulated_fixed_parts_s[1].second, 0.2, 1e-12);
  const std::string text = validation_text(v);
  EXPECT_NE(text.find("P                          3     10-40    1.000 s,    100.0 ms    0.500 s,     80.0 ms    -20.0%"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("P                      a 0.300, b 0.200"), std::string::npos) << text;
  const auto json = validation_json(v);
  EXPECT_DOUBLE_EQ(json["series"][0]["simulated_per_micro_batch_s"].get<double>(), 0.08);
  EXPECT_NEAR(json["series"][0]["simulated_fixed_parts_s"]["a"].get<double>(), 0.3, 1e-12);
}

ValidationCase on(const std::string& accelerator, ValidationCase c) {
  c.accelerator = accelerator;
  return c;
}

TEST(Validation, EachAcceleratorsBiasSaysWhichWayItsCasesMiss) {
  // |error| drops the sign: rows that all run fast and rows that miss both
  // ways can read the same median |error|. The bias, the median of how much
  // faster anatomy runs each case than its source did, tells them apart. A
  // step 20% short is 1 / 0.8 - 1 = 25% fast, a throughput 10% high 10%
  // fast, an MFU 10% low 10% slow:
  //   H100 training: speeds +25, +10, -10%  -> bias +10%; |error| 20, 10, 10 -> median 10%, worst 20%
  //   H100 training, a bound that holds: |error| 0, no speed (4 cases: |error| median (10 + 10) / 2 = 10%,
  //     the bias still over the 3 with a speed)
  //   MI300X collective: busbw 100 -> 130                    -> bias +30%
  //   MI300X kernel: 10 us -> 12.5 us, 10 / 12.5 - 1         -> bias -20% (|error| 25%)
  // A whole job's interruptions are not a speed, and a refused case is not simulated: neither has a row.
  ValidationCase bound = ran("T4", "tflops_per_gpu", 100, 120);
  bound.bound = "at_least";
  ValidationCase refused = ran("T5", "iteration_s", 1.0, 0.0);
  refused.ran = false;
  Validation v;
  v.cases = {on("H100", ran("T1", "iteration_s", 1.0, 0.8)),
             on("H100", ran("T2", "tokens_per_s", 100, 110)),
             on("H100", ran("T3", "mfu", 0.5, 0.45)),
             on("H100", bound),
             on("H100", refused),
             on("MI300X", ran("C1", "busbw_GBps", 100, 130, CaseKind::kCollective)),
             on("MI300X", ran("K1", "time_us", 10, 12.5, CaseKind::kKernel)),
             on("MI300X", ran("J1", "interruptions", 100, 90, CaseKind::kJob))};
  EXPECT_NEAR(v.cases[0].speed_error(), 0.25, 1e-12);
  EXPECT_NEAR(v.cases[6].speed_error(), -0.20, 1e-12);
  EXPECT_EQ(v.cases[3].speed_error(), 0.0);

  const std::vector<AcceleratorSummary> t = v.by_accelerator(CaseKind::kTraining);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].accelerator, "H100");
  EXPECT_EQ(t[0].n, 4u);
  EXPECT_EQ(t[0].bias_n, 3u);
  EXPECT_NEAR(t[0].bias, 0.10, 1e-12);
  EXPECT_NEAR(t[0].median, 0.10, 1e-12);
  EXPECT_NEAR(t[0].worst, 0.20, 1e-12);
  const std::vector<AcceleratorSummary> k = v.by_accelerator(CaseKind::kKernel);
  ASSERT_EQ(k.size(), 1u);
  EXPECT_NEAR(k[0].bias, -0.20, 1e-12);
  EXPECT_NEAR(k[0].worst, 0.25, 1e-12);
  EXPECT_TRUE(v.by_accelerator(CaseKind::kJob).empty());

  const std::string text = validation_text(v);
  EXPECT_NE(text.find("training     H100             4    +10.0%      10.0%      20.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("collective   MI300X           1    +30.0%      30.0%      30.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("kernel       MI300X           1    -20.0%      25.0%      25.0%"), std::string::npos) << text;
  const auto json = validation_json(v);
  ASSERT_EQ(json["by_accelerator"].size(), 3u);
  EXPECT_EQ(json["by_accelerator"][1]["kind"], "collective");
  EXPECT_NEAR(json["by_accelerator"][1]["bias_pct"].get<double>(), 30.0, 1e-9);
  EXPECT_EQ(json["by_accelerator"][0]["cases_simulated"], 4);
  EXPECT_EQ(json["by_accelerator"][0]["bias_cases"], 3);
}

}  // namespace
}  // namespace anatomy::report
