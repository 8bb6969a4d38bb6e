#include "hw/precision.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "hw/catalog.h"

namespace anatomy::hw {
namespace {

TEST(Precision, ParsesAnyCaseAndRoundTrips) {
  EXPECT_EQ(parse_precision("bf16", "x"), Precision::kBf16);
  EXPECT_EQ(parse_precision("BF16", "x"), Precision::kBf16);
  EXPECT_EQ(parse_precision("Fp8", "x"), Precision::kFp8);
  EXPECT_EQ(parse_precision("FP32", "x"), Precision::kFp32);
  EXPECT_EQ(parse_precision("fp4", "x"), Precision::kFp4);
  for (Precision p : {Precision::kFp32, Precision::kBf16, Precision::kFp16, Precision::kFp8, Precision::kFp4})
    EXPECT_EQ(parse_precision(to_string(p), "x"), p);
}

TEST(Precision, UnknownNameIsAnInputErrorNamingTheFieldAndTheValidOnes) {
  try {
    parse_precision("int4", "training.precision");
    FAIL() << "expected InputError";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().field, "training.precision");
    const std::string what = e.what();
    EXPECT_NE(what.find("int4"), std::string::npos) << what;
    EXPECT_NE(what.find("bf16, fp16, fp8, fp4, fp32"), std::string::npos) << what;
  }
}

TEST(Precision, BytesPerElement) {
  EXPECT_EQ(bytes_of(Precision::kFp32), 4);
  EXPECT_EQ(bytes_of(Precision::kBf16), 2);
  EXPECT_EQ(bytes_of(Precision::kFp16), 2);
  EXPECT_EQ(bytes_of(Precision::kFp8), 1);
  // Two FP4 (E2M1) values per byte.
  EXPECT_EQ(bytes_of(Precision::kFp4), 0.5);
}

TEST(Precision, Fp4PeakIsTheDatasheetsOwnNotAMultipleOfBf16) {
  // B300: 13,500 dense FP4 against 2,250 BF16 (6x, where B200 has 4x).
  EXPECT_EQ(peak_tflops(find_accelerator("B300"), Precision::kFp4), 13500);
  EXPECT_EQ(peak_tflops(find_accelerator("B200"), Precision::kFp4), 9000);
  EXPECT_EQ(peak_tflops(find_accelerator("H100"), Precision::kFp4), 0);
}

TEST(Precision, PeakRatesComeFromTheDatasheet) {
  // H100 SXM: 989 BF16/FP16, 1,979 FP8 dense; FP32 runs as TF32 at half of BF16.
  const Accelerator& h100 = find_accelerator("H100");
  EXPECT_EQ(peak_tflops(h100, Precision::kBf16), 989);
  EXPECT_EQ(peak_tflops(h100, Precision::kFp16), 989);
  EXPECT_EQ(peak_tflops(h100, Precision::kFp8), 1979);
  EXPECT_EQ(peak_tflops(h100, Precision::kFp32), 494.5);
  // The A100 has no FP8 units: 0 tells the caller to fall back.
  EXPECT_EQ(peak_tflops(find_accelerator("A100"), Precision::kFp8), 0);
  EXPECT_EQ(peak_tflops(find_accelerator("A100"), Precision::kFp32), 156);
}

}  // namespace
}  // namespace anatomy::hw
