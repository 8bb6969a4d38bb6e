// anatomy's GEMM rates on Blackwell against Hopper, checked against an
// independent measurement of both parts: the GEMM tables XLA's GPU cost
// model ships (tests/data/xla_gemm_rates.json says where they come from).
//
// Why ratios: anatomy's Hopper rates are the H200 table measured at the
// part's 700 W limit after 20 s of GEMMs; XLA's rows were timed under their
// own conditions (its H100 rows run about 14% faster than that table at the
// median of the shapes below). A
// condition that speeds up both parts alike cancels in B200 / H100 at one
// shape, so the ratio is what tests the Blackwell model: its plateau from
// published peaks (b200.json) and its shape curve borrowed from the H200.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hw/catalog.h"
#include "hw/compute_model.h"

namespace anatomy::hw {
namespace {

std::string source(const std::string& rel) { return std::string(ANATOMY_SOURCE_DIR) + "/" + rel; }

struct XlaRow {
  int64_t m, n, k;
  double h100_bf16, b200_bf16, b200_fp8;  // TFLOP/s
};

std::vector<XlaRow> xla_rows() {
  std::ifstream in(source("tests/data/xla_gemm_rates.json"));
  const auto doc = nlohmann::json::parse(in);
  std::vector<XlaRow> rows;
  for (const auto& r : doc.at("rows"))
    rows.push_back({r.at("m"), r.at("n"), r.at("k"), r.at("h100_bf16"), r.at("b200_bf16"), r.at("b200_fp8")});
  return rows;
}

double tflops(const ComputeModel& cm, const XlaRow& r, Precision p) {
  return 2.0 * static_cast<double>(r.m * r.n * r.k) / cm.gemm(r.m, r.n, r.k, p).seconds() / 1e12;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The shapes a training step's GEMMs are made of: at least 8 GFLOP
// (1024 x 2048 x 2048 and up). Below that a GEMM is a few microseconds and
// its launch, not the part, sets its rate.
bool training_sized(const XlaRow& r) { return 2.0 * static_cast<double>(r.m * r.n * r.k) >= 8e9; }

// The H100 model and the B200 model as a scenario gets them: the H200 table
// scaled to the H100; the B200's table of peaks with the H200's shortfall
// from its own roofline lent shape by shape. For GEMMs that is all the app
// layer's with_borrowed_rates changes (app/setup.cc): b200.json is its own
// family's precision-ratio table, and kernel rates do not touch GEMMs.
struct Models {
  CalibrationTable h200 = load_calibration(source("data/calibration/h200.json"));
  CalibrationTable b200 = load_calibration(source("data/calibration/b200.json"));
  ComputeModel h100 = make_compute_model(find_accelerator("H100"), &h200);
  ComputeModel b200_alone = make_compute_model(find_accelerator("B200"), &b200);
  ComputeModel b200_lent = [this] {
    CalibrationTable t = b200;
    borrow_roofline_shortfall(t, h200);
    return make_compute_model(find_accelerator("B200"), &t);
  }();
};

// (anatomy's B200 / H100) over (XLA's B200 / H100), per shape.
std::vector<double> speedup_over_measured(const ComputeModel& b200, const ComputeModel& h100) {
  std::vector<double> out;
  for (const XlaRow& r : xla_rows())
    if (training_sized(r))
      out.push_back((tflops(b200, r, Precision::kBf16) / tflops(h100, r, Precision::kBf16)) / (r.b200_bf16 / r.h100_bf16));
  return out;
}

TEST(XlaGemmCrossCheck, TheB200sBf16SpeedupOverTheH100IsTheOneXlaMeasuredShapeByShape) {
  // 23 of the 27 shapes are training-sized. At 4096^3 XLA measured 1,417
  // TFLOP/s on the B200 and 780 on the H100, a 1.82x speedup; anatomy gives
  // 2.05x there (+13%; its largest excess is +14%, at 4096 x 4096 x 1024),
  // and 1.04x XLA's at the median. A Blackwell model 20-40% too fast, as
  // the held-out set once found, would put the median near 1.25-1.45.
  const Models m;
  const std::vector<double> q = speedup_over_measured(m.b200_lent, m.h100);
  ASSERT_EQ(q.size(), 23u);
  EXPECT_NEAR(median(q), 1.0, 0.08);
  EXPECT_LT(*std::max_element(q.begin(), q.end()), 1.2);
  EXPECT_GT(*std::min_element(q.begin(), q.end()), 0.9);
}

TEST(XlaGemmCrossCheck, WithoutTheH200sShapeCurveTheB200WouldBeTooFastAtEveryShape) {
  // The check can fail: the B200's peaks alone put every shape on the
  // roofline's tile-and-wave curve up to the best searched shape's 77.6%,
  // which no 1-4k GEMM reaches (XLA: 1,417 TFLOP/s at 4096^3, 63%). Its
  // speedup over the H100 is then above XLA's at all 23 shapes (by 2-23%,
  // 13% at the median).
  const Models m;
  const std::vector<double> q = speedup_over_measured(m.b200_alone, m.h100);
  EXPECT_GT(median(q), 1.1);
  EXPECT_GT(*std::min_element(q.begin(), q.end()), 1.0);
}

TEST(XlaGemmCrossCheck, TheB200sFp8OverBf16IsWithinFifteenPercentOfXlasAtTheMedian) {
  // FP8 on the B200: its own plateau (b200.json's fp8 row, 76.3% of 4,500
  // TFLOP/s) on the same borrowed curve. XLA measured 2,765 / 1,417 = 1.95x
  // at 4096^3 and 1.02-1.23x under 8 GFLOP; anatomy's median is 0.91 of
  // XLA's over the training-sized shapes (0.77-1.13), slower where the FP8
  // GEMM is short.
  const Models m;
  std::vector<double> q;
  for (const XlaRow& r : xla_rows())
    if (training_sized(r))
      q.push_back((tflops(m.b200_lent, r, Precision::kFp8) / tflops(m.b200_lent, r, Precision::kBf16)) /
                  (r.b200_fp8 / r.b200_bf16));
  EXPECT_NEAR(median(q), 1.0, 0.15);
}

}  // namespace
}  // namespace anatomy::hw
