#include "report/job_ensemble.h"

#include <gtest/gtest.h>

#include <cmath>

namespace anatomy::report {
namespace {

TEST(Ensemble, SpreadIsMeanSampleDeviationAndRange) {
  // 385, 418, 437 (case C1's first three seeds): mean 1240 / 3 = 413.33;
  // squared deviations 802.8 + 21.8 + 560.1 = 1384.7, / (3 - 1) = 692.3,
  // sqrt = 26.31; range 385 to 437.
  const Spread s = spread_of({385, 418, 437});
  EXPECT_NEAR(s.mean, 413.333, 1e-3);
  EXPECT_NEAR(s.stdev, 26.312, 1e-3);
  EXPECT_EQ(s.min, 385);
  EXPECT_EQ(s.max, 437);
}

TEST(Ensemble, OneRunHasNoSpread) {
  const Spread s = spread_of({7});
  EXPECT_EQ(s.mean, 7);
  EXPECT_EQ(s.stdev, 0);
}

TEST(Ensemble, FiguresCoverInterruptionsEttrAndEveryCause) {
  job::JobResult a, b;
  a.gpus = b.gpus = 8;
  a.interruptions = 2;
  b.interruptions = 4;
  a.ettr = 0.9;
  b.ettr = 0.8;
  a.time.lost_work = core::SimTime::sec(3600);  // 1 h x 8 GPUs = 8 GPU-hours
  b.time.lost_work = core::SimTime::sec(7200);  // 16 GPU-hours
  const auto figures = ensemble_figures({a, b});
  const auto find = [&](const std::string& key) {
    for (const auto& f : figures)
      if (f.key == key) return f.spread;
    ADD_FAILURE() << key;
    return Spread{};
  };
  EXPECT_EQ(find("interruptions").mean, 3);
  EXPECT_NEAR(find("ettr").mean, 0.85, 1e-12);
  EXPECT_EQ(find("lost_work_gpu_hours").min, 8);
  EXPECT_EQ(find("lost_work_gpu_hours").max, 16);
  EXPECT_EQ(find("lost_work_gpu_hours").mean, 12);
}

}  // namespace
}  // namespace anatomy::report
