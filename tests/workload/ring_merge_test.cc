// Ring attention's merges of its steps, outside the flash kernels.
#include "workload/ring_merge.h"

#include <gtest/gtest.h>

#include "hw/catalog.h"

namespace anatomy::workload {
namespace {

TEST(RingMerges, EachLaterStepReadsTwoTensorsAndWritesOneOverTheFirstStepsCopy) {
  // CP 4 on an H100, 1,000 output elements (as many of dQ) and 200 of
  // dK + dV, 2 B each. Forward: the first step's output read and written
  // (2 accesses) and 3 later steps' added in (3 accesses each): 11 x 1,000
  // x 2 B = 22,000 B. Backward: dQ the same, 22,000 B, and dK/dV's first
  // copy (2 x 200) with 3 later additions of half of them (3 x 100 each):
  // 1,300 x 2 B = 2,600 B.
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  const RingMerges m = ring_merges(cm, 1000, 1000, 200, 4);
  EXPECT_EQ(m.forward, cm.memory_bound(core::Bytes(22'000)));
  EXPECT_EQ(m.backward, cm.memory_bound(core::Bytes(22'000)) + cm.memory_bound(core::Bytes(2'600)));
  // Without a ring there is nothing to merge.
  const RingMerges none = ring_merges(cm, 1000, 1000, 200, 1);
  EXPECT_EQ(none.forward, core::SimTime::zero());
  EXPECT_EQ(none.backward, core::SimTime::zero());
}

}  // namespace
}  // namespace anatomy::workload
