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

TEST(CpPasses, WithoutARingThereIsNothingToMerge) {
  const CpPasses none = ring_merges(h100(), {.out_elems = 1000, .q_elems = 1000, .k_elems = 200, .v_elems = 200});
  EXPECT_EQ(none.forward, SimTime::zero());
  EXPECT_EQ(none.backward, SimTime::zero());
}

}  // namespace
}  // namespace anatomy::workload
