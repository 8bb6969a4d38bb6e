#include "hw/precision.h"

#include <cctype>
#include <string>

#include "core/error.h"

namespace anatomy::hw {

const char* to_string(Precision p) {
  switch (p) {
    case Precision::kFp32: return "fp32";
    case Precision::kBf16: return "bf16";
    case Precision::kFp16: return "fp16";
    case Precision::kFp8: return "fp8";
    case Precision::kFp4: return "fp4";
  }
  return "?";
}

Precision parse_precision(std::string_view s, std::string_view field) {
  std::string lower(s);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (Precision p : {Precision::kBf16, Precision::kFp16, Precision::kFp8, Precision::kFp4, Precision::kFp32})
    if (lower == to_string(p)) return p;
  throw core::InputError({"", 0, std::string(field)},
                         "unknown precision '" + std::string(s) + "' (valid: bf16, fp16, fp8, fp4, fp32)");
}

double bytes_of(Precision p) {
  switch (p) {
    case Precision::kFp32: return 4;
    case Precision::kBf16: return 2;
    case Precision::kFp16: return 2;
    case Precision::kFp8: return 1;
    case Precision::kFp4: return 0.5;
  }
  return 0;
}

double peak_tflops(const Accelerator& a, Precision p) {
  switch (p) {
    case Precision::kBf16: return a.bf16_tflops;
    case Precision::kFp16: return a.fp16_tflops;
    case Precision::kFp8: return a.fp8_tflops;
    case Precision::kFp4: return a.fp4_tflops;
    // FP32 GEMMs run on the tensor cores as TF32, whose dense rate is half
    // the BF16 rate on A100, Hopper, Blackwell and CDNA 3 (the datasheets'
    // 156 / 494.7 / 1,100-1,250 / 653.7 TFLOP/s); we take that ratio for all.
    case Precision::kFp32: return a.bf16_tflops / 2;
  }
  return 0;
}

}  // namespace anatomy::hw
