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
  // dK or dV on the causal mask's last rank: half copied, half added at
  // each middle step, the whole added at the last.
  const auto causal_kv = [&](int64_t elems) {
    return kernel(elems / 2, 2, kGradBytes) + kernel(elems / 2, 3, kGradBytes) * (r.cp - 2) +
           kernel(elems, 3, kGradBytes);
  };
  const core::SimTime kv = r.causal ? causal_kv(r.k_elems) + causal_kv(r.v_elems)
                                    : whole(r.k_elems, kGradBytes) + whole(r.v_elems, kGradBytes);
  return {whole(r.out_elems, r.out_bytes), whole(r.q_elems, kGradBytes) + kv};
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
