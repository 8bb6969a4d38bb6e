#include "app/validate.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "app/collective.h"
#include "core/error.h"
#include "scenario/scenario.h"

namespace anatomy::app {
namespace {

// A case file in the test's temporary folder, removed when it goes out of scope.
struct CaseFile {
  std::string path;
  CaseFile(const std::string& name, const std::string& text)
      : path(::testing::TempDir() + "anatomy_validate_" + name + "_" + std::to_string(getpid()) + ".yaml") {
    std::ofstream(path) << text;
  }
  ~CaseFile() { std::remove(path.c_str()); }
  CaseFile(const CaseFile&) = delete;
  CaseFile& operator=(const CaseFile&) = delete;
};

const std::string kCollective =
    "cluster: {system: dgx-h100, gpus: 8}\n"
    "collective: {op: all_reduce, bytes: 1GiB}\n";

// A case counts in the summary of what it runs, not of its metric's name: a
// kernel timed in microseconds is a kernel case, a ring timed so a
// collective one.
TEST(ValidateCase, ACaseCountsAsWhatItRunsWhateverItsMetric) {
  const CaseFile kernel("kernel_us",
                        "cluster: {system: dgx-h100, gpus: 8}\n"
                        "kernel: {op: gemm, m: 4096, n: 4096, k: 4096}\n"
                        "expected: {case: K, metric: time_us, value: 200}\n");
  EXPECT_EQ(validate_case(kernel.path).kind, report::CaseKind::kKernel);
  const CaseFile ring("coll_us", kCollective + "expected: {case: C, metric: time_us, value: 5000}\n");
  EXPECT_EQ(validate_case(ring.path).kind, report::CaseKind::kCollective);
}

// nccl-tests prints algbw beside busbw: the message over the time. For an
// all-reduce on n ranks busbw = algbw x 2(n-1)/n, so on 8 GPUs algbw is
// busbw x 8/14, and a case may quote either.
TEST(ValidateCase, ACollectiveCaseMayQuoteAlgorithmBandwidth) {
  const CaseFile alg_file("algbw", kCollective + "expected: {case: A, metric: algbw_GBps, value: 100}\n");
  const CaseFile bus_file("busbw", kCollective + "expected: {case: B, metric: busbw_GBps, value: 100}\n");
  const report::ValidationCase alg = validate_case(alg_file.path), bus = validate_case(bus_file.path);
  ASSERT_TRUE(alg.ran && bus.ran);
  EXPECT_NEAR(alg.simulated, bus.simulated * 8.0 / 14.0, 1e-9 * bus.simulated);
}

// A stream case quotes GB/s (bytes read plus written over the time); a
// stream has no TFLOP/s to quote.
TEST(ValidateCase, AStreamCaseQuotesBandwidth) {
  const std::string stream = "cluster: {system: mi300x-8, gpus: 8}\nkernel: {op: stream, bytes: 4GiB}\n";
  const CaseFile ok("stream", stream + "expected: {case: S, metric: GBps, value: 4000}\n");
  const report::ValidationCase c = validate_case(ok.path);
  EXPECT_EQ(c.kind, report::CaseKind::kKernel);
  EXPECT_NEAR(c.simulated, 3910.62, 1e-3);
  const CaseFile bad("stream_tflops", stream + "expected: {case: S, metric: tflops, value: 1}\n");
  EXPECT_THROW(validate_case(bad.path), core::InputError);
}

// A metric a collective does not have is refused with the field named.
TEST(ValidateCase, ACollectiveCaseRefusesATrainingMetric) {
  const CaseFile file("bad_metric", kCollective + "expected: {case: X, metric: mfu, value: 0.5}\n");
  try {
    validate_case(file.path);
    FAIL() << "accepted mfu for a collective";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("expected.metric"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("algbw_GBps"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace anatomy::app
