#include "report/kernel_text.h"

#include <gtest/gtest.h>

#include "scenario/scenario.h"

namespace anatomy::report {
namespace {

scenario::Scenario any_kernel_case() {
  return scenario::parse_scenario("cluster: {system: mi300x-8, gpus: 8}\nkernel: {op: stream, bytes: 1GiB}\n", "k.yaml");
}

// A stream reports the rate it is validated in and no arithmetic: 1e9 B read
// plus written in 1 ms is 1,000 GB/s, and there is no "tflops" of 0 beside it.
TEST(KernelJson, AStreamReportsBytesAndGBpsOnly) {
  KernelTiming k;
  k.time = core::SimTime::from_seconds(1e-3);
  k.bytes = 1e9;
  const nlohmann::ordered_json j = kernel_case_json(any_kernel_case(), k);
  EXPECT_DOUBLE_EQ(j.at("GBps").get<double>(), 1000.0);
  EXPECT_DOUBLE_EQ(j.at("bytes").get<double>(), 1e9);
  EXPECT_FALSE(j.contains("flops"));
  EXPECT_FALSE(j.contains("tflops"));
}

// A GEMM reports FLOPs and TFLOP/s and no bytes: 2e12 FLOPs in 1 ms is
// 2,000 TFLOP/s.
TEST(KernelJson, AGemmReportsFlopsAndTflopsOnly) {
  KernelTiming k;
  k.time = core::SimTime::from_seconds(1e-3);
  k.flops = 2e12;
  const nlohmann::ordered_json j = kernel_case_json(any_kernel_case(), k);
  EXPECT_DOUBLE_EQ(j.at("tflops").get<double>(), 2000.0);
  EXPECT_FALSE(j.contains("bytes"));
  EXPECT_FALSE(j.contains("GBps"));
}

}  // namespace
}  // namespace anatomy::report
