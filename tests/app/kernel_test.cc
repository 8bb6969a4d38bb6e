#include "app/kernel.h"

#include <gtest/gtest.h>

#include <string>

#include "app/setup.h"
#include "core/error.h"
#include "hw/compute_model.h"
#include "scenario/scenario.h"

namespace anatomy::app {
namespace {

scenario::Scenario kernel_case(const std::string& kernel, const std::string& system = "dgx-b200") {
  return scenario::parse_scenario("cluster: {system: " + system + ", gpus: 8}\nkernel: " + kernel + "\n", "k.yaml");
}

// A GEMM case is the compute model's GEMM on one GPU alone, with the
// part's shipped table, not a job's slowest GPU: 2 x 8192^3 FLOPs over the
// model's time for that shape.
TEST(KernelCase, AGemmIsTheComputeModelsGemmOnOneGpu) {
  const scenario::Scenario s = kernel_case("{op: gemm, m: 8192, n: 8192, k: 8192, precision: bf16}");
  const KernelCaseRun run = run_kernel_case(s);
  const std::optional<hw::CalibrationTable> table = calibration_of(s);
  const hw::ComputeModel cm = hw::make_compute_model(s.cluster.system.gpu, table ? &*table : nullptr);
  EXPECT_EQ(run.time, cm.gemm(8192, 8192, 8192, hw::Precision::kBf16));
  EXPECT_DOUBLE_EQ(run.flops, 2.0 * 8192.0 * 8192.0 * 8192.0);
  EXPECT_NE(run.compute.find("b200.json"), std::string::npos);
}

// Attention FLOPs as FlashAttention counts them: forward 4 x batch x heads
// x seq^2 x head_dim, halved when causal (4 x 2 x 16 x 4096^2 x 128 / 2 =
// 4.398e11); backward 2.5 times that.
TEST(KernelCase, AttentionCountsFlashAttentionsFlops) {
  const KernelCaseRun fwd =
      run_kernel_case(kernel_case("{op: attention_forward, batch: 2, seq: 4096, heads: 16}", "dgx-h100"));
  EXPECT_DOUBLE_EQ(fwd.flops, 4.0 * 2 * 16 * 4096.0 * 4096.0 * 128 / 2);
  const KernelCaseRun bwd =
      run_kernel_case(kernel_case("{op: attention_backward, batch: 2, seq: 4096, heads: 16}", "dgx-h100"));
  EXPECT_DOUBLE_EQ(bwd.flops, 2.5 * fwd.flops);
  EXPECT_GT(bwd.time, fwd.time);
}

// A stream is the part's streaming rate over the bytes it reads plus
// writes: on an MI300X, whose table measured 3,910.62 GB/s, 4 GiB
// (4,294,967,296 B) takes 4,294,967,296 / 3,910.62e9 s = 1.0983 ms, and
// reads back as that rate.
TEST(KernelCase, AStreamRunsAtThePartsStreamingRate) {
  const KernelCaseRun run = run_kernel_case(kernel_case("{op: stream, bytes: 4GiB}", "mi300x-8"));
  EXPECT_NEAR(run.time.millis(), 4294967296.0 / 3910.62e9 * 1e3, 1e-6);
  EXPECT_NEAR(report::kernel_GBps(run), 3910.62, 1e-3);
  EXPECT_EQ(run.flops, 0);
}

// Bad kernel cases name their field: a GEMM without K, attention without
// heads, a precision the part has no units for (A100: no FP8), a kernel
// case that is also a collective case.
TEST(KernelCase, BadInputNamesTheField) {
  auto field_of = [](const std::string& text) {
    try {
      const scenario::Scenario s = scenario::parse_scenario(text, "k.yaml");
      run_kernel_case(s);
    } catch (const core::InputError& e) {
      return e.where().field;
    }
    return std::string("no error");
  };
  EXPECT_EQ(field_of("cluster: {system: dgx-b200, gpus: 8}\nkernel: {op: gemm, m: 1, n: 1}\n"), "kernel.k");
  EXPECT_EQ(field_of("cluster: {system: dgx-b200, gpus: 8}\nkernel: {op: attention_forward, seq: 8}\n"),
            "kernel.heads");
  EXPECT_EQ(field_of("cluster: {system: dgx-a100, gpus: 8}\nkernel: {m: 64, n: 64, k: 64, precision: fp8}\n"),
            "kernel.precision");
  EXPECT_EQ(field_of("cluster: {system: dgx-b200, gpus: 8}\nkernel: {m: 0, n: 1, k: 1}\n"), "kernel.m");
  // A field of the other kind of kernel is not silently ignored.
  EXPECT_EQ(field_of("cluster: {system: dgx-b200, gpus: 8}\nkernel: {m: 1, n: 1, k: 1, seq: 8}\n"), "kernel.seq");
  EXPECT_EQ(field_of("cluster: {system: dgx-b200, gpus: 8}\nkernel: {op: attention_forward, seq: 8, heads: 1, "
                     "precision: fp8}\n"),
            "kernel.precision");
  EXPECT_EQ(field_of("cluster: {system: dgx-b200, gpus: 8}\ncollective: {bytes: 1GiB}\nkernel: {m: 1, n: 1, k: 1}\n"),
            "kernel");
  // A stream needs its bytes, and a GEMM has none.
  EXPECT_EQ(field_of("cluster: {system: dgx-b200, gpus: 8}\nkernel: {op: stream}\n"), "kernel.bytes");
  EXPECT_EQ(field_of("cluster: {system: dgx-b200, gpus: 8}\nkernel: {m: 1, n: 1, k: 1, bytes: 1GiB}\n"), "kernel.bytes");
  EXPECT_EQ(field_of("cluster: {system: dgx-b200, gpus: 8}\nkernel: {op: stream, bytes: 1GiB, m: 4}\n"), "kernel.m");
}

// A kernel case is not a training job: make_setup refuses it, naming kernel.
TEST(KernelCase, IsNotATrainingJob) {
  try {
    make_setup(kernel_case("{m: 64, n: 64, k: 64}"));
    FAIL() << "make_setup took a kernel case";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().field, "kernel");
  }
}

}  // namespace
}  // namespace anatomy::app
