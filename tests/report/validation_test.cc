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

}  // namespace
}  // namespace anatomy::report
