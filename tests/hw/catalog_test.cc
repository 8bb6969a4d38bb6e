#include "hw/catalog.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace anatomy::hw {
namespace {

TEST(Catalog, HasEveryPresetTheIssueNames) {
  for (const char* name : {"dgx-a100", "dgx-h100", "dgx-h200", "dgx-b200", "gb200-nvl72", "mi300x-8", "mi325x-8",
                           "mi350x-8"}) {
    const System& s = find_system(name);
    EXPECT_GT(s.gpu.bf16_tflops, 0) << name;
    EXPECT_GT(s.gpu.hbm_capacity.count(), 0) << name;
    EXPECT_GT(s.nic_speed.bps(), 0) << name;
    EXPECT_GT(s.scaleup.per_gpu.bps(), 0) << name;
    EXPECT_GT(s.scaleup.payload_efficiency, 0.5) << name;
    EXPECT_LE(s.scaleup.payload_efficiency, 1.0) << name;
    EXPECT_FALSE(s.gpu.source.empty()) << name;
  }
}

TEST(Catalog, DatasheetFiguresAreDenseAndConsistent) {
  // H100 SXM: 989 dense BF16, FP8 twice that, 450 GB/s NVLink each way.
  const Accelerator& h100 = find_accelerator("H100");
  EXPECT_EQ(h100.bf16_tflops, 989);
  EXPECT_EQ(h100.fp8_tflops, 1979);
  EXPECT_DOUBLE_EQ(h100.scaleup_bandwidth.gigabytes_per_second(), 450);
  // The A100 has no FP8 tensor cores.
  EXPECT_EQ(find_accelerator("A100").fp8_tflops, 0);
  // Every FP8-capable part doubles its BF16 rate (within rounding of the datasheets).
  for (const auto& a : accelerators()) {
    if (a.fp8_tflops > 0) {
      EXPECT_NEAR(a.fp8_tflops / a.bf16_tflops, 2.0, 0.01) << a.name;
    }
  }
  // H200 = H100 compute with more, faster HBM.
  const Accelerator& h200 = find_accelerator("H200");
  EXPECT_EQ(h200.bf16_tflops, h100.bf16_tflops);
  EXPECT_GT(h200.hbm_bandwidth, h100.hbm_bandwidth);
}

TEST(Catalog, MeshLinksAddUpToTheGpuTotal) {
  // MI300X: 7 Infinity Fabric links of 64 GB/s each way.
  const System& s = find_system("mi300x-8");
  EXPECT_EQ(s.scaleup.kind, ScaleUpKind::kMesh);
  EXPECT_DOUBLE_EQ(s.scaleup.per_link.gigabytes_per_second() * s.gpu.scaleup_links,
                   s.scaleup.per_gpu.gigabytes_per_second());
  EXPECT_DOUBLE_EQ(s.scaleup.per_link.gigabytes_per_second(), 64);
}

TEST(Catalog, Nvl72IsOneDomainOfSeventyTwo) {
  const System& s = find_system("gb200-nvl72");
  EXPECT_EQ(s.scaleup.domain_gpus, 72);
  EXPECT_EQ(s.gpus_per_host, 4);
  EXPECT_TRUE(s.scaleup.in_network_reduction);
}

TEST(Catalog, UnknownNamesListWhatIsKnown) {
  try {
    find_system("dgx-h900");
    FAIL();
  } catch (const core::InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("unknown system 'dgx-h900'"), std::string::npos);
    EXPECT_NE(msg.find("dgx-h100"), std::string::npos);
  }
}

}  // namespace
}  // namespace anatomy::hw
