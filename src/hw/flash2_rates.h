#pragma once
// What a FlashAttention-2-style kernel reaches on Hopper: the attention
// kernels written for Ampere's synchronous MMA (FlashAttention-2; Triton
// before its Hopper support), which use neither Hopper's asynchronous
// warpgroup MMA nor TMA, measured on an H100 SXM5 (989 TFLOP/s BF16).
// Rates in TFLOP/s of useful attention FLOPs (a causal kernel's half
// counted), by sequence length; anatomy's own attention model (the
// calibration table, or the roofline) stands for the kernels that do use
// them (FlashAttention-3, cuDNN, Transformer Engine).

#include <cstdint>

namespace anatomy::hw {

// FlashAttention-2's rate on an H100 SXM5, head dimension 128, BF16, at
// `seq` tokens (log-linear between the measured lengths 512 to 16k,
// clamped outside): forward, or backward alone; causal or not.
double flash2_h100_tflops(int64_t seq, bool causal, bool backward);

}  // namespace anatomy::hw
