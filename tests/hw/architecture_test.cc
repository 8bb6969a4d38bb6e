#include "hw/architecture.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "hw/catalog.h"
#include "hw/compute_model.h"

namespace anatomy::hw {
namespace {

TEST(Architecture, EveryCatalogPartCarriesItsFamilysRecord) {
  // The family decides what the models take from the silicon: H100 and H200
  // (GH100) share Hopper's, both Blackwell parts Blackwell's, the CDNA 3
  // parts theirs.
  EXPECT_EQ(find_accelerator("A100").arch.family, "ampere");
  EXPECT_EQ(find_accelerator("H100").arch.family, "hopper");
  EXPECT_EQ(find_accelerator("H200").arch.family, "hopper");
  EXPECT_EQ(find_accelerator("B200").arch.family, "blackwell");
  EXPECT_EQ(find_accelerator("GB200").arch.family, "blackwell");
  EXPECT_EQ(find_accelerator("MI300X").arch.family, "cdna3");
  EXPECT_EQ(find_accelerator("MI350X").arch.family, "cdna4");
  for (const auto& a : accelerators()) {
    EXPECT_EQ(find_architecture(a.arch.family).description, a.arch.description) << a.name;
    EXPECT_GT(a.arch.typical_compute_units, 0) << a.name;
    EXPECT_GT(a.arch.ll_max_one_node_GBps, 0) << a.name;
  }
}

TEST(Architecture, RecordsHoldNcclsPerGenerationConstants) {
  // NCCL 2.28 tuning.cc: nvlsEfficiency 0.85 on Hopper, 0.74 on Blackwell;
  // llMaxBws on one node 87.7 (Ampere), 141 (Hopper), 2 x 141 (Blackwell).
  EXPECT_DOUBLE_EQ(find_architecture("hopper").nvls_efficiency, 0.85);
  EXPECT_DOUBLE_EQ(find_architecture("blackwell").nvls_efficiency, 0.74);
  EXPECT_DOUBLE_EQ(find_architecture("ampere").ll_max_one_node_GBps, 87.7);
  EXPECT_DOUBLE_EQ(find_architecture("hopper").ll_max_one_node_GBps, 141.0);
  EXPECT_DOUBLE_EQ(find_architecture("blackwell").ll_max_one_node_GBps, 282.0);
  // Hopper ships a full calibration table (measured on an H200); Ampere none,
  // so its roofline runs at the generic plateau.
  EXPECT_EQ(find_architecture("hopper").calibration_table, "h200.json");
  EXPECT_EQ(find_architecture("ampere").calibration_table, "");
  EXPECT_EQ(find_architecture("cdna3").library, CollectiveLibrary::kRccl);
}

TEST(Architecture, UnknownFamilyListsTheKnownOnes) {
  try {
    find_architecture("volta");
    FAIL();
  } catch (const core::InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("unknown architecture 'volta'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("hopper"), std::string::npos) << msg;
  }
}

TEST(Architecture, TheComputeModelReadsTheRecordNotTheName) {
  // An accelerator called "H100" but given the CDNA 3 record runs at CDNA 3's
  // plateau: 0.75 clock x 0.90 mainloop = 67.5%, not Hopper's 81%.
  // 8192^3 on 132 SMs: 4,096 tiles of 128x128 in 32 waves; one tile's
  // mainloop is 2 x 128 x 128 x 8192 FLOP / (989e12 x 0.81 / 132 FLOP/s) =
  // 44.2 us on Hopper's plateau and 44.2 x 0.81 / 0.675 = 53.1 us on CDNA
  // 3's, each plus 1 us per tile, so (32 x 45.2 + 4) / (32 x 54.1 + 4) =
  // 0.837 against the bare 0.75 / 0.90 = 0.833.
  Accelerator a = find_accelerator("H100");
  const ComputeModel hopper = make_compute_model(a, nullptr);
  a.arch = find_architecture("cdna3");
  const ComputeModel cdna3 = make_compute_model(a, nullptr);
  const double e_hopper = hopper.gemm_efficiency(8192, 8192, 8192, Precision::kBf16);
  const double e_cdna3 = cdna3.gemm_efficiency(8192, 8192, 8192, Precision::kBf16);
  EXPECT_NEAR(e_cdna3 / e_hopper, 0.837, 0.002);
  EXPECT_NE(cdna3.describe().find("CUs"), std::string::npos) << cdna3.describe();
  EXPECT_NE(hopper.describe().find("SMs"), std::string::npos) << hopper.describe();
}

TEST(Architecture, APartWithoutAComputeUnitCountTakesItsFamilysTypical) {
  // No SM count given: the Blackwell record's 148, said to be assumed.
  Accelerator a = find_accelerator("B200");
  a.compute_units = 0;
  const ComputeModel cm = make_compute_model(a, nullptr);
  EXPECT_EQ(cm.compute_units(), 148);
  EXPECT_NE(cm.describe().find("148 SMs assumed"), std::string::npos) << cm.describe();
}

}  // namespace
}  // namespace anatomy::hw
