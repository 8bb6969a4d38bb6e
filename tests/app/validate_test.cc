#include "app/validate.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "app/collective.h"
#include "core/error.h"
#include "report/validation.h"
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

// A series' fit needs each case's step as published: a rate metric is the
// inverse of the step, so a published rate half the simulated one is a step
// twice as long. 8 H100, DP 8 at micro-batch 1 and global batch 32: 32 / (1 x 8)
// = 4 micro-batches a pipeline.
TEST(ValidateCase, ATrainingCaseOfASeriesCarriesItsStepsAndMicroBatches) {
  const std::string run =
      "model: gpt-1.7b\ncluster: {system: dgx-h100, gpus: 8}\n"
      "training: {seq_len: 2048, global_batch: 32, micro_batch: 1}\n";
  const CaseFile step_file("series_step", run + "expected: {case: S, metric: iteration_s, value: 1.0, series: X}\n");
  const report::ValidationCase step = validate_case(step_file.path);
  ASSERT_TRUE(step.ran);
  EXPECT_EQ(step.series, "X");
  EXPECT_EQ(step.micro_batches, 4);
  EXPECT_DOUBLE_EQ(step.published_step_s, 1.0);
  // The same run quoted as tokens/s and as MFU, each published at half the
  // simulated rate.
  const double tokens_per_s = 32.0 * 2048 / step.simulated_time.seconds();
  const CaseFile rate_file("series_rate", run + fmt::format("expected: {{case: R, metric: tokens_per_s, value: {}}}\n",
                                                            tokens_per_s / 2));
  const report::ValidationCase rate = validate_case(rate_file.path);
  EXPECT_NEAR(rate.published_step_s, 2 * step.simulated_time.seconds(), 1e-9);
  EXPECT_EQ(rate.series, "");
  const CaseFile mfu_probe("series_mfu_probe", run + "expected: {case: M, metric: mfu, value: 0.5}\n");
  const double mfu = validate_case(mfu_probe.path).simulated;
  const CaseFile mfu_file("series_mfu", run + fmt::format("expected: {{case: M, metric: mfu, value: {}}}\n", mfu / 2));
  EXPECT_NEAR(validate_case(mfu_file.path).published_step_s, 2 * step.simulated_time.seconds(), 1e-9);
}

// A collective or a kernel has no micro-batches to fit a series over:
// naming one is refused, the field and its line named.
TEST(ValidateCase, ASeriesIsRefusedOutsideATrainingIteration) {
  const std::string kernel = "cluster: {system: dgx-h100, gpus: 8}\nkernel: {op: gemm, m: 4096, n: 4096, k: 4096}\n";
  for (const auto& [name, text] : {std::pair{"series_coll", kCollective}, std::pair{"series_kernel", kernel}}) {
    const CaseFile file(name, text + "expected:\n  case: C\n  series: X\n  metric: time_us\n  value: 100\n");
    try {
      validate_case(file.path);
      ADD_FAILURE() << "accepted a series on " << name;
    } catch (const core::InputError& e) {
      EXPECT_EQ(e.where().field, "expected.series");
      EXPECT_EQ(e.where().line, 5);
    }
  }
}

// A folder of cases in the test's temporary folder, removed when it goes out of scope.
struct CaseFolder {
  std::string path;
  explicit CaseFolder(const std::string& name)
      : path(::testing::TempDir() + "anatomy_validate_" + name + "_" + std::to_string(getpid())) {
    std::filesystem::create_directories(path);
  }
  void add(const std::string& file, const std::string& text) const { std::ofstream(path + "/" + file) << text; }
  ~CaseFolder() { std::filesystem::remove_all(path); }
  CaseFolder(const CaseFolder&) = delete;
  CaseFolder& operator=(const CaseFolder&) = delete;
};

// Cases are independent, so running them on several threads gives the same
// table, row for row, as running them one after another.
TEST(ValidateFolder, TheTableDoesNotDependOnTheThreadCount) {
  const CaseFolder folder("threads");
  folder.add("a.yaml", kCollective + "expected: {case: A, metric: busbw_GBps, value: 400}\n");
  folder.add("b.yaml",
             "cluster: {system: dgx-h100, gpus: 8}\nkernel: {op: gemm, m: 8192, n: 8192, k: 8192}\n"
             "expected: {case: B, metric: tflops, value: 700}\n");
  folder.add("c.yaml",
             "model: gpt-1.7b\ncluster: {system: dgx-h100, gpus: 8}\n"
             "training: {seq_len: 2048, global_batch: 32, micro_batch: 1}\n"
             "expected: {case: C, metric: iteration_s, value: 1}\n");
  const std::string one = report::validation_text(validate_folder(folder.path, {}, {}, 1));
  EXPECT_EQ(report::validation_text(validate_folder(folder.path, {}, {}, 3)), one);
  EXPECT_NE(one.find("\nC "), std::string::npos) << one;
}

// With several bad files the error is the first one's in name order, as one
// thread would report it, however the workers met them.
TEST(ValidateFolder, TheFirstBadFileIsTheOneReported) {
  const CaseFolder folder("bad");
  const std::string good = kCollective + "expected: {case: G, metric: busbw_GBps, value: 400}\n";
  const std::string bad = kCollective + "expected: {case: X, metric: nonsense, value: 1}\n";
  folder.add("a_good.yaml", good);
  folder.add("b_bad.yaml", bad);
  folder.add("c_good.yaml", good);
  folder.add("d_bad.yaml", bad);
  for (int threads : {1, 2, 4}) {
    try {
      validate_folder(folder.path, {}, {}, threads);
      ADD_FAILURE() << "accepted a bad case on " << threads << " threads";
    } catch (const core::InputError& e) {
      EXPECT_NE(std::string(e.what()).find("b_bad.yaml"), std::string::npos) << threads << ": " << e.what();
    }
  }
}

}  // namespace
}  // namespace anatomy::app
