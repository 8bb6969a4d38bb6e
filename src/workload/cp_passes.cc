#include "workload/cp_passes.h"

namespace anatomy::workload {

CpPasses ring_merges(const hw::ComputeModel& cm, const RingShape& r) {
  if (r.cp <= 1) return {};
  constexpr int64_t kGradBytes = 2;
  // One kernel over `elems` elements with `accesses` reads and writes each.
  const auto kernel = [&](int64_t elems, int64_t accesses, int64_t bytes) {
    return cm.memory_bound(core::Bytes(elems * accesses * bytes));
  };
  // A tensor merged whole every step: a copy, then cp - 1 additions.
  const auto whole = [&](int64_t elems, int64_t bytes) {
    return kernel(elems, 2, bytes) + kernel(elems, 3, bytes) * (r.cp - 1);
  };
  // A gradient of `elems` elements merged over the steps, each step's share
  // `first`, `middle` (each of the cp - 2 between) and `last` of them:
  // dQ whole every step; dK and dV (`is_kv`) on the causal mask's last rank
  // half at the first and middle steps, whole at the last (the diagonal).
  const auto grad = [&](int64_t elems, int64_t first, int64_t middle, int64_t last, bool is_kv) {
    switch (r.grads) {
      case GradMerge::k16Bit:
        return kernel(first, 2, kGradBytes) + kernel(middle, 3, kGradBytes) * (r.cp - 2) +
               kernel(last, 3, kGradBytes);
      case GradMerge::kFp8Slots: {
        // Each step's FP8 gradient copied into its slot (the other half of a
        // causal dK or dV slot zeroed); then the cp slots made contiguous
        // and joined (TE's combine_and_dequantize: a copy of dQ's, two of
        // the strided dK's and dV's), dequantized (a byte read, four
        // written), summed (cp x 4 read, 4 written) and cast (4 read, 2
        // written).
        const core::SimTime copies = kernel(first, 2, 1) + kernel(middle, 2, 1) * (r.cp - 2) + kernel(last, 2, 1);
        const bool halves = is_kv && r.causal;
        const core::SimTime zeroed = halves ? kernel(first, 1, 1) + kernel(middle, 1, 1) * (r.cp - 2) : core::SimTime{};
        const int64_t joined = (is_kv ? 4 : 2) * r.cp;
        return copies + zeroed + kernel(elems, 1, joined + r.cp * (1 + 4 + 4) + 4 + 4 + 2);
      }
      case GradMerge::kFp32Sum:
        // Each step's 16-bit gradient (TE's FP8 backward returns dQ, dK, dV
        // in 16 bits under current scaling and MXFP8) converted to fp32 (2
        // read, 4 written), then copied (4 + 4) or added (4 + 4 + 4) into an
        // fp32 buffer, dK's and dV's zeroed first (4 written); the sum cast
        // at the end (4 + 2).
        return kernel(first, 1, 6 + 8) + kernel(middle, 1, 6 + 12) * (r.cp - 2) + kernel(last, 1, 6 + 12) +
               kernel(elems, 1, (is_kv ? 4 : 0) + 4 + 2);
    }
    return core::SimTime::zero();
  };
  const auto kv = [&](int64_t elems) {
    return r.causal ? grad(elems, elems / 2, elems / 2, elems, true) : grad(elems, elems, elems, elems, true);
  };
  const core::SimTime dq = grad(r.q_elems, r.q_elems, r.q_elems, r.q_elems, false);
  return {whole(r.out_elems, r.out_bytes), dq + kv(r.k_elems) + kv(r.v_elems)};
}

GradMerge grad_merge(bool fp8_attention, Fp8Recipe recipe) {
  if (!fp8_attention) return GradMerge::k16Bit;
  return recipe == Fp8Recipe::kDelayed ? GradMerge::kFp8Slots : GradMerge::kFp32Sum;
}

int64_t ring_exchange_bytes(bool fp8_attention, Fp8Recipe recipe) {
  return fp8_attention && recipe != Fp8Recipe::kMxfp8 ? 1 : 2;
}

CpExchangeBytes cp_exchange_bytes(bool fp8_attention, Fp8Recipe recipe) {
  if (!fp8_attention || recipe == Fp8Recipe::kMxfp8) return {2, 2, 2, 2};
  if (recipe == Fp8Recipe::kDelayed) return {1, 1, 1, 1};
  return {1, 2, 1, 2};
}

CpExchangeBytes cp_hierarchical_exchange_bytes(bool fp8_attention, Fp8Recipe recipe) {
  if (!fp8_attention) return {2, 2, 2, 2};
  return {2, 4, recipe == Fp8Recipe::kMxfp8 ? 2 : 1, 2};
}

CpPasses a2a_layout_passes(const hw::ComputeModel& cm, int64_t qkv_elems, int64_t out_elems, CpExchangeBytes b) {
  constexpr int64_t kPasses = 2, kAccesses = 2;  // laid out and reordered; a read and a write each
  return {cm.memory_bound(core::Bytes((qkv_elems * b.qkv + out_elems * b.out) * kPasses * kAccesses)),
          cm.memory_bound(core::Bytes((out_elems * b.dout + qkv_elems * b.dqkv) * kPasses * kAccesses))};
}

}  // namespace anatomy::workload
