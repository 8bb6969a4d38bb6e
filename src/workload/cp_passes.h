#pragma once
// What Transformer Engine's context parallelism (context_parallel.py) spends
// outside its flash kernels on one CP rank, in memory-bound passes: the
// ring's merges of its steps, and the all-to-all's layout and reordering of
// each tensor it exchanges (with the bytes an element it exchanges them in).
//
// The ring (AttnFuncWithCPAndKVP2P) merges its steps, one memory-bound
// kernel a tensor a step.
// Forward, after the ring's loop, the first step's output is rescaled by
// its log-sum-exp into `out` (read and written) and each later step's is
// added in, rescaled (out_per_step read, out read and written: three
// accesses an element). Backward, dQ, dK and dV take each step's kernel
// output, by a copy (two accesses) and then additions (three), in 16 bits;
// under FP8 attention as GradMerge says.
//
// Timed for the last CP rank. Under the causal mask each of its later
// steps sets all its queries against the first half of a peer's keys: it
// merges a whole output and dQ every step, and of dK and dV it copies half
// at the first step, adds half at each middle one and adds the whole at
// the last (its own chunks, the diagonal). That rank is the busiest where
// K and V are narrower than Q (grouped-query attention); with as many KV
// heads as query heads rank 0, which merges half of out and dQ but whole
// dK and dV, does more backward and less forward. Without a mask every
// step merges every tensor whole. The log-sum-exp tensors (fp32, one a
// head and token) are left out: under 1/32 of the output at head widths of
// 64 and more.

#include <cstdint>

#include "core/time.h"
#include "hw/compute_model.h"
#include "workload/training.h"

namespace anatomy::workload {

// The time of such passes on one rank, forward and backward.
struct CpPasses {
  core::SimTime forward, backward;
};

// How the ring's backward gathers each step's dQ, dK and dV. In 16 bits, a
// copy and then additions (above). Under FP8 attention with delayed scaling
// TE copies each step's FP8 gradients (a byte an element) into a slot of
// their own and at the end joins the cp slots, dequantizes them to fp32,
// sums them and casts the sum to 16 bits; with current scaling or MXFP8
// its FP8 kernels return 16-bit gradients, which it converts to fp32 and
// copies or adds into an fp32 buffer, cast to 16 bits at the end
// (context_parallel.py: "DelayedScaling: collect all results in uint8 to
// one tensor, dequantize to float32, then reduce; CurrentScaling:
// dequantize partial results from each step to float32, then reduce").
// Under FP8 attention the gradients of the peers' K and V go back to them
// in one all-to-all at the last step, not around the ring.
enum class GradMerge { k16Bit, kFp8Slots, kFp32Sum };

// The elements on this rank (its tokens x width) of the attention output,
// Q, K and V; `cp` ring steps. `out_bytes` a forward element: 2, or 4 where
// FP8 attention merges its dequantized outputs in fp32.
struct RingShape {
  int64_t out_elems = 0, q_elems = 0, k_elems = 0, v_elems = 0;
  int64_t cp = 1;
  bool causal = true;
  int64_t out_bytes = 2;
  GradMerge grads = GradMerge::k16Bit;
};

// The gradient merge under this attention (FP8 or not) and its recipe.
GradMerge grad_merge(bool fp8_attention, Fp8Recipe attention_recipe);
// The bytes an element of K and V the ring passes, forward and again
// backward: FP8 attention quantizes them before the ring but under MXFP8.
// (Its gradients' all-to-all is FP8 under every recipe: TE's uint8 buffer.)
int64_t ring_exchange_bytes(bool fp8_attention, Fp8Recipe attention_recipe);

CpPasses ring_merges(const hw::ComputeModel& cm, const RingShape& ring);

// The bytes an element of each tensor all-to-all context parallelism
// (AttnFuncWithCPAndQKVOA2A) exchanges. Under FP8 attention with delayed
// scaling every one is FP8: Q, K and V quantized before the exchange, the
// output, its gradient and dQ, dK, dV as the FP8 kernels make them. With
// current scaling (tensorwise) Q, K, V and the output gradient are FP8, the
// output (quantized after the exchange) and dQ, dK, dV 16-bit; MXFP8
// quantizes after the exchange, so all 16-bit, as without FP8 attention.
struct CpExchangeBytes {
  int64_t qkv, out, dout, dqkv;
};
CpExchangeBytes cp_exchange_bytes(bool fp8_attention, Fp8Recipe attention_recipe);
// The same for hierarchical CP's all-to-alls (AttnFuncWithCPAndKVP2P with
// an a2a group), which TE runs around its ring rather than its kernel: Q, K
// and V exchanged in 16 bits and quantized after; the output as the ring's
// merges leave it, fp32 under FP8 attention; its gradient quantized before
// the exchange (FP8 but under MXFP8); dQ, dK, dV 16-bit.
CpExchangeBytes cp_hierarchical_exchange_bytes(bool fp8_attention, Fp8Recipe attention_recipe);

// The all-to-all's passes over this rank's share of Q, K and V together
// (`qkv_elems`) and of the output (`out_elems`): each tensor laid out for
// the exchange and its chunks reordered after it, two passes (a read and a
// write each) at the bytes it is exchanged in; backward, the gradients'.
CpPasses a2a_layout_passes(const hw::ComputeModel& cm, int64_t qkv_elems, int64_t out_elems, CpExchangeBytes bytes);

}  // namespace anatomy::workload
