#pragma once
// AttentionKernel and OptimizerImpl: which flash attention kernel and
// which AdamW implementation a training step runs. The compute model times
// each (compute_model.h); the scenario's training.attention_kernel and
// training.optimizer_impl pick them.

namespace anatomy::hw {

// Which flash attention kernel runs. kFlash: the part's best (what its
// calibration table measured, or the roofline: on Hopper, kernels on its
// asynchronous warpgroup MMA such as FlashAttention-3, cuDNN and
// Transformer Engine). kFlash2: a kernel written for Ampere's synchronous
// MMA (FlashAttention-2, PyTorch's SDPA flash backend, Triton kernels from
// before Triton's Hopper support): on Hopper at FlashAttention-2's measured
// H100 rates (flash2_rates.h), on Ampere the same as kFlash; other
// families have no measurement (scenarios refuse it there).
enum class AttentionKernel { kFlash, kFlash2 };

// How AdamW's update runs, in PyTorch's words: one fused kernel; foreach,
// one multi-tensor kernel per operation of the update; or a for-loop of
// one elementwise kernel per operation and tensor.
enum class OptimizerImpl { kFused, kForeach, kForLoop };
// PyTorch's name for it: "fused", "foreach" or "for-loop".
constexpr const char* to_string(OptimizerImpl i) {
  return i == OptimizerImpl::kForeach ? "foreach" : i == OptimizerImpl::kForLoop ? "for-loop" : "fused";
}

}  // namespace anatomy::hw
