// Ring attention's merges of its steps, outside the flash kernels.
#include "workload/cp_passes.h"

#include <gtest/gtest.h>

#include "hw/catalog.h"

namespace anatomy::workload {
namespace {

using core::Bytes;
using core::SimTime;

const hw::ComputeModel& h100() {
  static const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  return cm;
}

TEST(CpPasses, TheLastCausalRankMergesWholeOutputsAndHalvesOfKAndVButTheDiagonal) {
  // CP 4, 16-bit: 1,000 output elements, 1,000 of Q, 200 of K and of V.
  // Forward, one kernel a step: the first step's output copied (2 accesses,
  // 4,000 B), three later ones added (3 accesses, 6,000 B each). Backward,
  // dQ the same; dK and dV each: half copied at the first step (100 x 2 x 2 B
  // = 400 B), half added at the two middle ones (600 B each), the whole
  // added at the last (1,200 B).
  const auto& cm = h100();
  const CpPasses m = ring_merges(cm, {.out_elems = 1000, .q_elems = 1000, .k_elems = 200, .v_elems = 200, .cp = 4});
  const auto k = [&](int64_t bytes) { return cm.memory_bound(Bytes(bytes)); };
  const SimTime whole = k(4000) + k(6000) * 3;
  const SimTime kv = k(400) + k(600) * 2 + k(1200);
  EXPECT_EQ(m.forward, whole);
  EXPECT_EQ(m.backward, whole + kv * 2);
}

TEST(CpPasses, WithoutAMaskEveryStepMergesEveryTensorWhole) {
  // CP 2, no mask: K's and V's 200 elements copied (800 B) and added once
  // (1,200 B) like the output's and Q's 1,000 (4,000 and 6,000 B). FP8
  // attention's fp32 outputs double the forward's bytes.
  const auto& cm = h100();
  const auto k = [&](int64_t bytes) { return cm.memory_bound(Bytes(bytes)); };
  const RingShape shape{.out_elems = 1000, .q_elems = 1000, .k_elems = 200, .v_elems = 200, .cp = 2, .causal = false};
  const CpPasses m = ring_merges(cm, shape);
  EXPECT_EQ(m.forward, k(4000) + k(6000));
  EXPECT_EQ(m.backward, k(4000) + k(6000) + (k(800) + k(1200)) * 2);
  RingShape fp32_out = shape;
  fp32_out.out_bytes = 4;
  EXPECT_EQ(ring_merges(cm, fp32_out).forward, k(8000) + k(12000));
  EXPECT_EQ(ring_merges(cm, fp32_out).backward, m.backward);
}

TEST(CpPasses, UnderFp8AttentionTheGradientsAreGatheredAsTransformerEngineDoes) {
  // CP 4, causal, 1,000 elements of dQ and 200 of dK and of dV on the last
  // rank. Delayed scaling: each step's FP8 gradient copied into a slot of
  // its own (2 accesses of 1 B: dQ whole, dK and dV half, the other half
  // zeroed, 1 B, but at the last step); then the four slots joined (dQ's
  // copied once, 2 B a slot; dK's and dV's twice, 4 B), dequantized (1 B
  // read, 4 written), summed (4 read a slot, 4 written) and cast (4 read, 2
  // written): 8 + 4 x 9 + 10 = 54 B an element of dQ, 16 + 36 + 10 = 62 of
  // dK. Current scaling: each step's 16-bit gradient converted to fp32 (2 +
  // 4 B) and copied (4 + 4) or added (4 + 4 + 4) into an fp32 buffer, dK's
  // zeroed first (4 B), the sum cast at the end (4 + 2).
  const auto& cm = h100();
  const auto k = [&](int64_t bytes) { return cm.memory_bound(Bytes(bytes)); };
  RingShape shape{.out_elems = 1000, .q_elems = 1000, .k_elems = 200, .v_elems = 200, .cp = 4};
  const SimTime forward = ring_merges(cm, shape).forward;
  shape.grads = grad_merge(true, Fp8Recipe::kDelayed);
  EXPECT_EQ(shape.grads, GradMerge::kFp8Slots);
  const SimTime dq_slots = k(2000) + k(2000) * 2 + k(2000) + k(54000);
  const SimTime kv_slots = k(200) + k(200) * 2 + k(400) + k(100) + k(100) * 2 + k(12400);
  EXPECT_EQ(ring_merges(cm, shape).backward, dq_slots + kv_slots * 2);
  EXPECT_EQ(ring_merges(cm, shape).forward, forward);
  for (Fp8Recipe r : {Fp8Recipe::kTensorwise, Fp8Recipe::kMxfp8}) {
    shape.grads = grad_merge(true, r);
    EXPECT_EQ(shape.grads, GradMerge::kFp32Sum);
    const SimTime dq_sum = k(14000) + k(18000) * 2 + k(18000) + k(6000);
    const SimTime kv_sum = k(1400) + k(1800) * 2 + k(3600) + k(2000);
    EXPECT_EQ(ring_merges(cm, shape).backward, dq_sum + kv_sum * 2);
  }
  EXPECT_EQ(grad_merge(false, Fp8Recipe::kDelayed), GradMerge::k16Bit);
  // The ring passes K and V (and their gradients) quantized, but under MXFP8.
  EXPECT_EQ(ring_exchange_bytes(true, Fp8Recipe::kDelayed), 1);
  EXPECT_EQ(ring_exchange_bytes(true, Fp8Recipe::kTensorwise), 1);
  EXPECT_EQ(ring_exchange_bytes(true, Fp8Recipe::kMxfp8), 2);
  EXPECT_EQ(ring_exchange_bytes(false, Fp8Recipe::kDelayed), 2);
}

TEST(CpPasses, WithoutARingThereIsNothingToMerge) {
  const CpPasses none = ring_merges(h100(), {.out_elems = 1000, .q_elems = 1000, .k_elems = 200, .v_elems = 200});
  EXPECT_EQ(none.forward, SimTime::zero());
  EXPECT_EQ(none.backward, SimTime::zero());
}

}  // namespace
}  // namespace anatomy::workload
