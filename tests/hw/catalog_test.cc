#include "hw/catalog.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace anatomy::hw {
namespace {

TEST(Catalog, HasEveryPresetTheIssueNames) {
  for (const char* name : {"dgx-a100", "dgx-h100", "dgx-h200", "dgx-b200", "gb200-nvl72", "dgx-b300", "gb300-nvl72",
                           "mi300x-8", "mi325x-8", "mi350x-8", "mi355x-8"}) {
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

TEST(Catalog, BlackwellUltraAndCdna4PresetsCarryTheirDatasheetFigures) {
  // GB300 NVL72: 1,080 PFLOP/s dense FP4 for 72 GPUs = 15,000 TFLOP/s each;
  // HGX B300: 108 PFLOP/s dense FP4 for 8 = 13,500. FP6 runs at the FP8
  // rate on Blackwell; at the FP4 rate on CDNA 4 (MI355X: 10.1 PFLOP/s).
  EXPECT_EQ(find_accelerator("GB300").fp4_tflops, 15000);
  EXPECT_EQ(find_accelerator("B300").fp4_tflops, 13500);
  EXPECT_EQ(find_accelerator("B200").fp6_tflops, find_accelerator("B200").fp8_tflops);
  EXPECT_EQ(find_accelerator("MI355X").fp6_tflops, find_accelerator("MI355X").fp4_tflops);
  EXPECT_NEAR(find_accelerator("MI355X").fp4_tflops, 10066, 1);
  EXPECT_EQ(find_accelerator("B300").arch.family, "blackwell-ultra");
  EXPECT_EQ(find_accelerator("MI355X").arch.family, "cdna4");
  // ConnectX-8 at 800 Gb/s behind PCIe Gen6 (128 GB/s = 1,024 Gb/s), so
  // the link no longer caps the NIC; GB300's GPUs reach Grace over C2C.
  const System& b300 = find_system("dgx-b300");
  EXPECT_DOUBLE_EQ(b300.nic_speed.bps(), 800e9);
  EXPECT_EQ(b300.gpu_nic_link.kind, "pcie-gen6");
  EXPECT_GT(b300.gpu_nic_link.per_direction, b300.nic_speed);
  const System& gb300 = find_system("gb300-nvl72");
  EXPECT_EQ(gb300.scaleup.domain_gpus, 72);
  EXPECT_EQ(gb300.host_link.kind, "nvlink-c2c");
  EXPECT_DOUBLE_EQ(gb300.host_link.per_direction.gigabytes_per_second(), 450);
  EXPECT_EQ(find_system("gb200-nvl72").host_link.kind, "nvlink-c2c");
  // Every part that publishes FP4 has it at least at its FP8 rate.
  for (const auto& a : accelerators()) {
    if (a.fp4_tflops > 0) {
      EXPECT_GE(a.fp4_tflops, a.fp8_tflops) << a.name;
    }
  }
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
