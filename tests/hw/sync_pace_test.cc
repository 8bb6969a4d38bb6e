#include "hw/sync_pace.h"

#include <gtest/gtest.h>

#include <string>

#include "hw/catalog.h"
#include "hw/compute_model.h"

namespace anatomy::hw {
namespace {

// A GPU alone sets its own pace: nothing to wait for, no busy siblings.
TEST(SyncPace, OneGpuRunsAtItsOwnRate) { EXPECT_DOUBLE_EQ(synchronous_pace(find_accelerator("B200"), 1), 1.0); }

// Eight B200 (one chip loses 0.5% when its siblings compute, rates spread
// over 4.9%): the least of 8 even draws over [1 - 0.0245, 1 + 0.0245] is
// expected at 1 - 0.0245 + 0.049 / 9 = 0.980944; times 0.995: 0.976040.
TEST(SyncPace, EightB200WaitOnTheSlowestOfABusyNode) {
  EXPECT_NEAR(synchronous_pace(find_accelerator("B200"), 8), 0.995 * (1 - 0.0245 + 0.049 / 9), 1e-12);
  EXPECT_NEAR(synchronous_pace(find_accelerator("B200"), 8), 0.976040, 1e-6);
}

// The page's whole-node run (mamf-finder-all-gpus.py) measured the slowest
// of 8 directly: 1.25% under the median B200 (1,421 / 1,439) and 1.32%
// under the median H200 (745 / 755). The even spread's term for 8 GPUs,
// r (1/2 - 1/9), is 1.91% and 1.32%: within 0.7 points of the node runs,
// on the slow side (the 40 runs' range also holds a GPU's run-to-run move).
TEST(SyncPace, TheSpreadAgreesWithTheSlowestOfAMeasuredNode) {
  for (const char* part : {"B200", "H200"}) {
    const Accelerator& gpu = find_accelerator(part);
    const double spread_term = synchronous_pace(gpu, 8) / busy_node_pace(gpu, 8);
    const double measured = std::string(part) == "B200" ? 1421.0 / 1439.0 : 745.0 / 755.0;
    EXPECT_LE(spread_term, measured + 1e-3) << part;
    EXPECT_GT(spread_term, measured - 0.007) << part;
  }
}

// More GPUs, a slower slowest one, but never below the slowest measured:
// 256 H200 at 0.998 x (1 - 0.017 + 0.034 / 257) = 0.981166; the bound
// 0.998 x 0.983 = 0.981034.
TEST(SyncPace, TheSlowestOfManyStaysWithinTheMeasuredRange) {
  const Accelerator& h200 = find_accelerator("H200");
  EXPECT_NEAR(synchronous_pace(h200, 256), 0.998 * (1 - 0.017 + 0.034 / 257), 1e-12);
  double last = 1.0;
  for (int64_t n : {2, 8, 72, 1024, 16384, 1 << 20}) {
    const double pace = synchronous_pace(h200, n);
    EXPECT_LT(pace, last) << n;
    EXPECT_GT(pace, 0.998 * (1 - 0.017)) << n;
    last = pace;
  }
}

// A part nobody measured that way (B300, MI300X) keeps one GPU's rate, and
// says nothing about it.
TEST(SyncPace, AnUnmeasuredPartKeepsOneGpusRate) {
  EXPECT_DOUBLE_EQ(synchronous_pace(find_accelerator("B300"), 512), 1.0);
  EXPECT_DOUBLE_EQ(synchronous_pace(find_accelerator("MI300X"), 512), 1.0);
  EXPECT_EQ(synchronous_pace_text(find_accelerator("B300"), 512), "");
  EXPECT_NE(synchronous_pace_text(find_accelerator("B200"), 8).find("0.976"), std::string::npos);
}

// The chips' spread is the die's, the busy node's loss the board's: GB200
// (the B200's die on another board) takes the B200's 4.9% range and no
// loss. 512 GPUs: 1 - 0.049/2 + 0.049/513 = 0.97560.
TEST(SyncPace, APartOnAMeasuredDieBorrowsItsSpreadNotItsBoardsLoss) {
  EXPECT_NEAR(synchronous_pace(find_accelerator("GB200"), 512), 1 - 0.049 / 2 + 0.049 / 513, 1e-12);
  EXPECT_DOUBLE_EQ(busy_node_pace(find_accelerator("GB200"), 512), 1.0);
  EXPECT_NE(synchronous_pace_text(find_accelerator("GB200"), 512).find("the same GB100 die"), std::string::npos);
}

// A table's measured kernel cannot be split into compute and memory: a
// GEMM, an attention kernel and attention's dropout draws (on the SMs'
// pipes) take 1 / 0.9 as long at pace 0.9; a memory-bound pass as long as
// before (a power-saturated part lowers its SM clock, not its HBM's).
TEST(SyncPace, APacedTableSlowsItsTensorKernelsWhole) {
  const CalibrationTable table = load_calibration(std::string(ANATOMY_SOURCE_DIR) + "/data/calibration/h200.json");
  const ComputeModel cm = make_compute_model(find_accelerator("H200"), &table);
  const ComputeModel slow = cm.paced(0.9, "why");
  EXPECT_NEAR(slow.gemm(8192, 8192, 8192, Precision::kBf16).seconds(),
              cm.gemm(8192, 8192, 8192, Precision::kBf16).seconds() / 0.9, 1e-12);
  EXPECT_NEAR(slow.attention_bwd(1, 8192, 32, 128, true).seconds(),
              cm.attention_bwd(1, 8192, 32, 128, true).seconds() / 0.9, 1e-12);
  ASSERT_GT(cm.attention_dropout(1, 8192, 32, true, 0, false).seconds(), 0);
  EXPECT_NEAR(slow.attention_dropout(1, 8192, 32, true, 0, false).seconds(),
              cm.attention_dropout(1, 8192, 32, true, 0, false).seconds() / 0.9, 1e-12);
  EXPECT_EQ(slow.memory_bound(Bytes(1 << 30)), cm.memory_bound(Bytes(1 << 30)));
  EXPECT_EQ(slow.describe(), cm.describe() + "; why");
}

// The roofline paces a GEMM's compute term only: an 8192^3 GEMM on a B200
// (compute-bound, its launch 4 us of some 0.6 ms) takes nearly 1 / 0.9 as
// long; a one-row GEMM of 8192 x 8192 weights, bound by reading them from
// HBM (134 MB at 8 TB/s: ~17 us, against ~0.06 us of math), takes as long.
TEST(SyncPace, TheRooflinePacesComputeNotHbm) {
  const ComputeModel cm = make_compute_model(find_accelerator("B200"), nullptr);
  const ComputeModel slow = cm.paced(0.9, "");
  const double big = slow.gemm(8192, 8192, 8192, Precision::kBf16).seconds() /
                     cm.gemm(8192, 8192, 8192, Precision::kBf16).seconds();
  EXPECT_GT(big, 1.10);
  EXPECT_LT(big, 1 / 0.9);
  EXPECT_EQ(slow.gemm(1, 8192, 8192, Precision::kBf16), cm.gemm(1, 8192, 8192, Precision::kBf16));
  EXPECT_EQ(slow.describe(), cm.describe());
}

// Pacing a paced model again replaces the pace and its reason (a replay
// re-paces a machine for its own rank count): 0.9 then 0.8 is 0.8.
TEST(SyncPace, PacingAgainReplacesThePace) {
  const ComputeModel cm = make_compute_model(find_accelerator("B200"), nullptr);
  const ComputeModel twice = cm.paced(0.9, "first").paced(0.8, "second");
  EXPECT_DOUBLE_EQ(twice.tensor_pace(), 0.8);
  EXPECT_EQ(twice.describe(), cm.describe() + "; second");
  EXPECT_EQ(twice.gemm(8192, 8192, 8192, Precision::kBf16), cm.paced(0.8, "").gemm(8192, 8192, 8192, Precision::kBf16));
}

}  // namespace
}  // namespace anatomy::hw
