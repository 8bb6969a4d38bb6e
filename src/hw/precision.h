#pragma once
// Numeric precision of a tensor operation, and the peak rate a GPU has for it.

#include <string_view>

#include "hw/accelerator.h"

namespace anatomy::hw {

// kFp4: 4-bit block-scaled GEMM inputs (NVFP4 on Blackwell, MXFP4 on CDNA 4).
enum class Precision { kFp32, kBf16, kFp16, kFp8, kFp4 };

const char* to_string(Precision p);
// "bf16", "fp16", "fp8", "fp4", "fp32"; throws InputError naming `field`.
Precision parse_precision(std::string_view s, std::string_view field);
// Bytes per element of a GEMM operand (FP4: half a byte; its block scales
// add 1 byte per 16 (NVFP4) or 32 (MXFP4) elements, left out).
double bytes_of(Precision p);
// Dense tensor-core peak in TFLOP/s for GEMMs in this precision (fp32 runs
// as TF32 at half the BF16 rate; 0 if the part has no such units).
double peak_tflops(const Accelerator& a, Precision p);

}  // namespace anatomy::hw
