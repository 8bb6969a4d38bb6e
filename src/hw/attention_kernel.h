#pragma once
// AttentionKernel: which flash attention kernel a training step runs. The
// compute model times each (compute_model.h); the scenario's
// training.attention_kernel picks one.

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

}  // namespace anatomy::hw
