#include "hw/compute_model.h"
#include "hw/link.h"

#include <gtest/gtest.h>

#include "hw/compute_interpolation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/error.h"
#include "hw/catalog.h"

namespace anatomy::hw {
namespace {

const std::string kH200Table = std::string(ANATOMY_SOURCE_DIR) + "/data/calibration/h200.json";
std::string shipped(const std::string& file) { return std::string(ANATOMY_SOURCE_DIR) + "/data/calibration/" + file; }

double gemm_flops(int64_t m, int64_t n, int64_t k) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

// The measured time of one shape in the table's "gemm" rows (not the grid).
double named_row_seconds(const CalibrationTable& t, Precision p, int64_t m, int64_t n, int64_t k) {
  for (const auto& g : t.gemms)
    if (!g.from_grid && g.dtype == p && g.m == m && g.n == n && g.k == k) return g.seconds;
  ADD_FAILURE() << "no gemm row " << m << "x" << n << "x" << k;
  return 0;
}

double grid_row_seconds(const CalibrationTable& t, int64_t m, int64_t n, int64_t k) {
  for (const auto& g : t.gemms)
    if (g.from_grid && g.m == m && g.n == n && g.k == k) return g.seconds;
  ADD_FAILURE() << "no gemm_grid row " << m << "x" << n << "x" << k;
  return 0;
}

std::string write_temp(const std::string& name, const std::string& body) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << body;
  return path;
}

// The shipped H200 table with one edit applied, written to a temp file.
template <typename Edit>
std::string edited_table(const std::string& name, Edit edit) {
  std::ifstream in(kH200Table);
  nlohmann::json doc = nlohmann::json::parse(in);
  edit(doc);
  return write_temp(name, doc.dump());
}

// A flash kernel's FP8 time over its BF16 time, batch 1.
double fp8_over_bf16(const ComputeModel& cm, int64_t seq, int64_t heads, int64_t width, bool causal, bool backward) {
  const auto time = [&](Precision p) {
    return (backward ? cm.attention_bwd(1, seq, heads, width, causal, 0, AttentionKernel::kFlash, p)
                     : cm.attention_fwd(1, seq, heads, width, causal, 0, AttentionKernel::kFlash, p))
        .seconds();
  };
  return time(Precision::kFp8) / time(Precision::kBf16);
}

// --- the interpolator (a pure solver) -------------------------------------

TEST(SlidingWindow, TheKernelComputesTheTilesTheWindowOverlaps) {
  // 4,096 tokens are 32 blocks of 128; causal attention computes 32 x 33 /
  // 2 = 528 tiles. A window of 128 (or 129) needs a block's own tile and
  // the one before: 1 + 2 x 31 = 63. A window of 256: 1 + 2 + 3 x 30 = 93.
  EXPECT_DOUBLE_EQ(sliding_window_tiles(4096, 128), 63.0 / 528);
  EXPECT_DOUBLE_EQ(sliding_window_tiles(4096, 129), 63.0 / 528);
  EXPECT_DOUBLE_EQ(sliding_window_tiles(4096, 256), 93.0 / 528);
  EXPECT_DOUBLE_EQ(sliding_window_tiles(4096, 4096), 1.0);
  EXPECT_DOUBLE_EQ(sliding_window_tiles(4096, 0), 1.0);
  // The kernel takes less time, but not less than reading Q, K, V and O.
  const ComputeModel cm = make_compute_model(find_accelerator("H100"), nullptr);
  const SimTime full = cm.attention_fwd(1, 4096, 64, 64, true);
  const SimTime window = cm.attention_fwd(1, 4096, 64, 64, true, 128);
  EXPECT_LT(window, full);
  EXPECT_GT(window, SimTime::zero());
  EXPECT_EQ(cm.attention_fwd(1, 4096, 64, 64, true, 8192), full);
}

TEST(LogInterpolator, TrilinearOnTheLatticeReproducesALinearFunction) {
  // Values v = 2a + b - c on the 2x2x2 lattice {8, 9}^3 (log2 coordinates):
  // trilinear interpolation is exact for any function linear in each axis.
  detail::LogInterpolator f;
  for (int a : {8, 9})
    for (int b : {8, 9})
      for (int c : {8, 9}) f.add({double(a), double(b), double(c)}, 2.0 * a + b - c);
  f.finish();
  EXPECT_NEAR(f({8.5, 8.25, 8.75}), 2 * 8.5 + 8.25 - 8.75, 1e-12);
  // Outside the box the edge value holds.
  EXPECT_NEAR(f({20, 8, 8}), 2 * 9 + 8 - 8, 1e-12);
}

TEST(LogInterpolator, AnOffLatticeSampleIsExactAndLocal) {
  // A flat lattice of 0 with one off-lattice sample of 1 at (8.5, 8.5, 8.5):
  // exact there, partway at 0.25 octave, gone beyond one octave (R = 1).
  detail::LogInterpolator f;
  for (int a : {8, 9, 10})
    for (int b : {8, 9, 10})
      for (int c : {8, 9, 10}) f.add({double(a), double(b), double(c)}, 0.0);
  f.add({8.5, 8.5, 8.5}, 1.0);
  f.finish();
  EXPECT_DOUBLE_EQ(f({8.5, 8.5, 8.5}), 1.0);
  const double near = f({8.75, 8.5, 8.5});
  EXPECT_GT(near, 0.0);
  EXPECT_LT(near, 1.0);
  EXPECT_DOUBLE_EQ(f({9.6, 8.5, 8.5}), 0.0);
  EXPECT_DOUBLE_EQ(f({9, 9, 9}), 0.0);  // a lattice point keeps its own value
}

TEST(ClampedLinear, LinearBetweenPointsAndFlatBeyondTheEnds) {
  // Through (1, 10), (2, 20), (2, 20), (4, 0): a quarter of the way from 1 to
  // 2 is 12.5; at 3, halfway from 2 to 4, 10; a repeated x spans nothing;
  // before 1 and after 4 the end values hold.
  const std::vector<double> xs = {1, 2, 2, 4}, ys = {10, 20, 20, 0};
  EXPECT_DOUBLE_EQ(detail::clamped_linear(xs, ys, 1.25), 12.5);
  EXPECT_DOUBLE_EQ(detail::clamped_linear(xs, ys, 2), 20);
  EXPECT_DOUBLE_EQ(detail::clamped_linear(xs, ys, 3), 10);
  EXPECT_DOUBLE_EQ(detail::clamped_linear(xs, ys, 0), 10);
  EXPECT_DOUBLE_EQ(detail::clamped_linear(xs, ys, 9), 0);
}

// --- the loader -----------------------------------------------------------

TEST(Calibration, LoadsEverySectionOfTheH200Table) {
  const CalibrationTable t = load_calibration(kH200Table);
  EXPECT_EQ(t.source, kH200Table);
  EXPECT_EQ(t.gpu_name, "NVIDIA H200");
  EXPECT_EQ(t.gemms.size(), 74u + 473u);     // "gemm" + "gemm_grid"
  EXPECT_EQ(t.attention.size(), 6u + 44u);   // "attention" + "attention_grid"
  EXPECT_NEAR(t.memory_GBps_rw, 4265.5, 0.1);
  // fp32_params row with the most parameters (1e9): 8.09 ms / 1e9.
  EXPECT_NEAR(t.optimizer_ns_per_param, 0.0080904, 1e-7);
  EXPECT_NEAR(t.h2d_GBps, 55.45, 0.01);
  EXPECT_NEAR(t.d2h_GBps, 55.35, 0.01);
  EXPECT_NEAR(t.disk_write_GBps, 1.245, 0.001);
}

TEST(Calibration, MissingFileIsAnInputErrorNamingIt) {
  const std::string path = ::testing::TempDir() + "no_such_table.json";
  try {
    load_calibration(path);
    FAIL() << "expected InputError";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().file, path);
    EXPECT_NE(std::string(e.what()).find("cannot read"), std::string::npos) << e.what();
  }
}

TEST(Calibration, MalformedJsonNamesTheFileAndLine) {
  const std::string path = write_temp("malformed.json", "{\n  \"meta\": {\"name\": \"NVIDIA H200\"},\n  \"gemm\": [,]\n}\n");
  try {
    load_calibration(path);
    FAIL() << "expected InputError";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().file, path);
    EXPECT_EQ(e.where().line, 3);  // the stray comma
    EXPECT_NE(std::string(e.what()).find("malformed JSON"), std::string::npos) << e.what();
  }
}

TEST(Calibration, ANumberPastDoublesRangeIsAnInputError) {
  // Found by the fuzz target: 2.7e78799 made the JSON library throw
  // out_of_range, which escaped as a crash instead of one error.
  try {
    parse_calibration("{\"meta\": {\"name\": 2.7361598610e78799}}", "t.json");
    FAIL() << "expected InputError";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().file, "t.json");
    EXPECT_NE(std::string(e.what()).find("number overflow"), std::string::npos) << e.what();
  }
}

TEST(Calibration, MissingOrMistypedFieldsAreNamedByJsonPath) {
  struct Case {
    const char* name;
    void (*edit)(nlohmann::json&);
    const char* field;
  };
  const Case cases[] = {
      {"no_m.json", [](nlohmann::json& d) { d["gemm_grid"][3].erase("m"); }, "gemm_grid[3].m"},
      {"string_m.json", [](nlohmann::json& d) { d["gemm_grid"][3]["m"] = "big"; }, "gemm_grid[3].m"},
      {"zero_s.json", [](nlohmann::json& d) { d["gemm"][0]["s"] = 0; }, "gemm[0].s"},
      {"int4.json", [](nlohmann::json& d) { d["gemm"][1]["dtype"] = "int4"; }, "gemm[1].dtype"},
      {"causal.json", [](nlohmann::json& d) { d["attention_grid"][2]["causal"] = "yes"; }, "attention_grid[2].causal"},
      {"no_memory.json", [](nlohmann::json& d) { d["memory"].erase("elementwise_inplace_GBps_rw"); },
       "memory.elementwise_inplace_GBps_rw"},
      {"no_meta.json", [](nlohmann::json& d) { d.erase("meta"); }, "meta"},
      {"no_fp32_adam.json",
       [](nlohmann::json& d) {
         for (auto& row : d["optimizer"]) row["dtype"] = "bf16_params";
       },
       "optimizer"},
      {"copy_link.json", [](nlohmann::json& d) { d["copy"]["link"] = "pcie-gen9"; }, "copy.link"},
      {"copy_link_type.json", [](nlohmann::json& d) { d["copy"]["link"] = 5; }, "copy.link"},
      {"dropout_no_bwd.json", [](nlohmann::json& d) { d["attention_dropout"][4].erase("bwd_dropout_s"); },
       "attention_dropout[4].bwd_dropout_s"},
      {"dropout_empty.json", [](nlohmann::json& d) { d["attention_dropout"] = nlohmann::json::array(); },
       "attention_dropout"},
      {"fp8_attention_no_bwd.json", [](nlohmann::json& d) { d["attention_fp8"][2].erase("fp8_bwd_s"); },
       "attention_fp8[2].fp8_bwd_s"},
      {"fp8_attention_zero.json", [](nlohmann::json& d) { d["attention_fp8"][0]["bf16_fwd_s"] = 0; },
       "attention_fp8[0].bf16_fwd_s"},
      {"fp8_attention_empty.json", [](nlohmann::json& d) { d["attention_fp8"] = nlohmann::json::array(); },
       "attention_fp8"},
      {"measured_on_unknown.json", [](nlohmann::json& d) { d["meta"]["attention_measured_on"] = "NVIDIA G999"; },
       "meta.attention_measured_on"},
      {"measured_on_number.json", [](nlohmann::json& d) { d["meta"]["attention_measured_on"] = 300; },
       "meta.attention_measured_on"},
      // The H200's table is fully measured: its attention was timed on the H200.
      {"measured_on_full_table.json", [](nlohmann::json& d) { d["meta"]["attention_measured_on"] = "NVIDIA H100"; },
       "meta.attention_measured_on"},
  };
  for (const Case& c : cases) {
    const std::string path = edited_table(c.name, c.edit);
    try {
      load_calibration(path);
      ADD_FAILURE() << c.name << ": expected InputError";
    } catch (const core::InputError& e) {
      EXPECT_EQ(e.where().file, path) << c.name;
      EXPECT_EQ(e.where().field, c.field) << c.name << ": " << e.what();
    }
  }
}

// --- the roofline ---------------------------------------------------------

TEST(Roofline, NamesItsSource) {
  const ComputeModel cm = make_compute_model(find_accelerator("H100"), nullptr);
  const std::string d = cm.describe();
  EXPECT_NE(d.find("roofline"), std::string::npos) << d;
  EXPECT_NE(d.find("H100 SXM5 80GB"), std::string::npos) << d;
  EXPECT_NE(d.find("989 TFLOP/s"), std::string::npos) << d;
  EXPECT_NE(d.find("3.35TB/s"), std::string::npos) << d;
}

TEST(Roofline, NeverExceedsPeakOnAnyPartShapeOrPrecision) {
  const int64_t dims[] = {1, 7, 64, 128, 1000, 4096, 8192, 65536};
  for (const auto& gpu : accelerators()) {
    const ComputeModel cm = make_compute_model(gpu, nullptr);
    for (Precision p : {Precision::kBf16, Precision::kFp16, Precision::kFp8, Precision::kFp32})
      for (int64_t m : dims)
        for (int64_t n : dims)
          for (int64_t k : dims) {
            const double eff = cm.gemm_efficiency(m, n, k, p);
            EXPECT_GT(eff, 0) << gpu.name << " " << m << "x" << n << "x" << k;
            EXPECT_LT(eff, 0.9) << gpu.name << " " << m << "x" << n << "x" << k;  // below the plateau
          }
  }
}

TEST(Roofline, TinyGemmIsLaunchBound) {
  // 64x64x64 on H100: one 128x128 tile on one SM. Its mainloop is
  // 2*128*128*64 FLOP at one SM's sustained rate (989e12 * 0.81 / 132 =
  // 6.07e12 FLOP/s), 0.35 us, plus the 1 us tile latency, plus the 4 us
  // launch: 5.35 us for 0.5 MFLOP, an efficiency of 1e-4.
  const ComputeModel cm = make_compute_model(find_accelerator("H100"), nullptr);
  const SimTime t = cm.gemm(64, 64, 64, Precision::kBf16);
  const double sm_rate = 989e12 * 0.81 / 132;
  EXPECT_NEAR(t.micros(), (2.0 * 128 * 128 * 64 / sm_rate + 1e-6 + 4e-6) * 1e6, 1e-3);
  EXPECT_LT(cm.gemm_efficiency(64, 64, 64, Precision::kBf16), 1e-3);
}

TEST(Roofline, MatrixVectorProductIsMemoryBound) {
  // m=1, n=k=8192 on H100: 64 tiles on 132 SMs, so split-K in 2. HBM moves
  // A (8192), B (8192^2) and C (8192) in bf16 plus the fp32 partials written
  // and read back (2 splits x 8192 x 4 B, twice): 134.38 MB at 90% of
  // 3.35 TB/s = 44.57 us, above the compute (one wave of 22 us + 1 us).
  const ComputeModel cm = make_compute_model(find_accelerator("H100"), nullptr);
  const double bytes = (8192.0 + 8192.0 * 8192 + 8192) * 2 + 2.0 * 2 * 8192 * 4;
  const double expected_s = bytes / (3.35e12 * 0.9) + 4e-6;
  EXPECT_NEAR(cm.gemm(1, 8192, 8192, Precision::kBf16).seconds(), expected_s, 1e-9);
}

TEST(Roofline, DoublingTheGemmDoublesTheTime) {
  // 8192^3 on H100: 64x64 = 4096 tiles = 32 waves of 132; doubling m gives
  // 8192 tiles = 63 waves: 63/32 = 1.97x (the last wave is fuller).
  const ComputeModel cm = make_compute_model(find_accelerator("H100"), nullptr);
  const double t1 = cm.gemm(8192, 8192, 8192, Precision::kBf16).seconds();
  const double t2 = cm.gemm(16384, 8192, 8192, Precision::kBf16).seconds();
  EXPECT_NEAR(t2 / t1, 2.0, 0.05);
}

TEST(Roofline, WaveQuantizationCostsAPartialWave) {
  // H100, n = k = 8192: m = 2112 gives 17 x 64 = 1088 tiles = 8.24 waves, so
  // 9 waves run; m = 2048 gives 16 x 64 = 1024 tiles = 7.76 waves, 8 run. The
  // extra 64 rows cost a whole wave: 9/8 of the time for 1.03x the FLOPs.
  const ComputeModel cm = make_compute_model(find_accelerator("H100"), nullptr);
  const double e2048 = cm.gemm_efficiency(2048, 8192, 8192, Precision::kBf16);
  const double e2112 = cm.gemm_efficiency(2112, 8192, 8192, Precision::kBf16);
  EXPECT_NEAR(e2112 / e2048, (2112.0 / 2048) * (8.0 / 9.0), 0.01);
}

TEST(Roofline, Fp8IsFasterThanBf16ForALargeGemm) {
  // Twice the tensor rate and half the bytes; the fixed per-tile latency
  // weighs twice as much, so a little less than 2x.
  const ComputeModel cm = make_compute_model(find_accelerator("H200"), nullptr);
  const double bf16 = cm.gemm(8192, 8192, 8192, Precision::kBf16).seconds();
  const double fp8 = cm.gemm(8192, 8192, 8192, Precision::kFp8).seconds();
  EXPECT_LT(fp8, 0.6 * bf16);
  EXPECT_GT(fp8, 0.5 * bf16);
}

TEST(Roofline, Fp8OnAPartWithoutFp8UnitsRunsAtTheBf16Rate) {
  const ComputeModel cm = make_compute_model(find_accelerator("A100"), nullptr);
  EXPECT_EQ(cm.gemm(8192, 8192, 8192, Precision::kFp8), cm.gemm(8192, 8192, 8192, Precision::kBf16));
}

TEST(Roofline, EfficiencyIsFlopsOverTimeAtPeak) {
  const ComputeModel cm = make_compute_model(find_accelerator("B200"), nullptr);
  const double t = cm.gemm(4096, 1280, 8192, Precision::kBf16).seconds();
  EXPECT_NEAR(cm.gemm_efficiency(4096, 1280, 8192, Precision::kBf16), gemm_flops(4096, 1280, 8192) / (t * 2250e12),
              1e-9);
}

TEST(Roofline, IsWithinAFifthOfTheH200MeasurementForLlama70bShards) {
  // A check of the prior, not a fit: Llama-3-70B TP8 shards at 4096 tokens,
  // roofline on the H200 datasheet against the table's measurement.
  const CalibrationTable t = load_calibration(kH200Table);
  const ComputeModel cm = make_compute_model(find_accelerator("H200"), nullptr);
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{4096, 1280, 8192}, {4096, 8192, 1024},
                         {4096, 7168, 8192}, {4096, 8192, 3584}}) {
    const double measured = named_row_seconds(t, Precision::kBf16, m, n, k);
    EXPECT_NEAR(cm.gemm(m, n, k, Precision::kBf16).seconds() / measured, 1.0, 0.2) << m << "x" << n << "x" << k;
  }
}

TEST(Roofline, MemoryBoundKernelRunsAtNinetyPercentOfHbm) {
  // 1 GB read plus written on H100: 1e9 / (0.9 x 3.35e12) = 331.7 us, + 4 us launch.
  const ComputeModel cm = make_compute_model(find_accelerator("H100"), nullptr);
  EXPECT_NEAR(cm.memory_bound(Bytes(1'000'000'000)).micros(), 1e9 / (0.9 * 3.35e12) * 1e6 + 4, 1e-3);
  // AdamW: 28 B per parameter through the same HBM; on bf16 parameters
  // and moments the same seven accesses move 14 B.
  EXPECT_NEAR(cm.optimizer_step(1'000'000'000).millis(), 28e9 / (0.9 * 3.35e12) * 1e3 + 4e-3, 1e-6);
  EXPECT_NEAR(cm.optimizer_step(1'000'000'000, ComputeModel::OptimizerState::kBf16).millis(),
              14e9 / (0.9 * 3.35e12) * 1e3 + 4e-3, 1e-6);
}

TEST(Roofline, UnfusedAdamPaysAPassPerOperation) {
  // PyTorch's for-loop AdamW (and Composer's DecoupledAdamW) runs nine
  // elementwise kernels, 2+2+3+2+4+2+2+2+4 = 23 accesses of a 4-byte state
  // element: 92 B a parameter against the fused kernel's 28, and nine
  // launches instead of one. 1e9 parameters on H100: 92e9 / (0.9 x 3.35e12)
  // = 30.51 ms + 9 x 4 us; 16-bit state moves half the bytes. The foreach
  // implementation updates the first moment in one lerp: eight passes, 84 B.
  const ComputeModel cm = make_compute_model(find_accelerator("H100"), nullptr);
  using S = ComputeModel::OptimizerState;
  EXPECT_NEAR(cm.optimizer_step(1'000'000'000, S::kFp32, OptimizerImpl::kForLoop).millis(),
              92e9 / (0.9 * 3.35e12) * 1e3 + 9 * 4e-3, 1e-6);
  EXPECT_NEAR(cm.optimizer_step(1'000'000'000, S::kBf16, OptimizerImpl::kForLoop).millis(),
              46e9 / (0.9 * 3.35e12) * 1e3 + 9 * 4e-3, 1e-6);
  EXPECT_NEAR(cm.optimizer_step(1'000'000'000, S::kFp32, OptimizerImpl::kForeach).millis(),
              84e9 / (0.9 * 3.35e12) * 1e3 + 8 * 4e-3, 1e-6);
}

TEST(Roofline, FlashAttention2RunsAtItsMeasuredH100Rates) {
  // FlashAttention-3 paper, Figures 5-6 (H100 SXM5, head dim 128): FA2's
  // causal forward reaches 319 TFLOP/s at 4k tokens, its backward 310
  // without the mask, taken at the forward's causal share 319/368 with it.
  // One sequence of 4,096 tokens, 16 heads of 128: the causal forward is
  // 4 x 4096^2 x 16 x 128 / 2 = 68.7 GFLOP, 215.4 us at 319 TFLOP/s; the
  // backward 2.5 x that at 310 x 319 / 368 = 268.7 TFLOP/s.
  const ComputeModel h100 = make_compute_model(find_accelerator("H100"), nullptr);
  const double flops = 4.0 * 4096 * 4096 * 16 * 128 * 0.5;
  EXPECT_NEAR(h100.attention_fwd(1, 4096, 16, 128, true, 0, AttentionKernel::kFlash2).seconds(), flops / 319e12,
              1e-12);
  EXPECT_NEAR(h100.attention_bwd(1, 4096, 16, 128, true, 0, AttentionKernel::kFlash2).seconds(),
              2.5 * flops / (310e12 * 319 / 368), 1e-12);
  // Without the mask: 4 x 4096^2 x 16 x 128 at 368 TFLOP/s.
  EXPECT_NEAR(h100.attention_fwd(1, 4096, 16, 128, false, 0, AttentionKernel::kFlash2).seconds(), 2 * flops / 368e12,
              1e-12);
  // Between measured lengths, log-linear in the length: at 2,896 tokens
  // (2^11.5 nearly) the causal forward is nearly halfway from 298 to 319.
  const int64_t s = 2896;
  const double x = std::log2(2896.0) - 11;
  const double f = 4.0 * s * s * 16 * 128 * 0.5;
  EXPECT_NEAR(h100.attention_fwd(1, s, 16, 128, true, 0, AttentionKernel::kFlash2).seconds(),
              f / ((298 + x * (319 - 298)) * 1e12), 1e-12);
  // The H200 (same SMs and clock) runs it alike, whatever its table says of
  // its own best kernel, which is faster; on the A100 FlashAttention-2 is
  // the native kernel: the same as flash.
  const CalibrationTable t = load_calibration(kH200Table);
  const ComputeModel h200 = make_compute_model(find_accelerator("H200"), &t);
  EXPECT_EQ(h200.attention_fwd(1, 4096, 16, 128, true, 0, AttentionKernel::kFlash2),
            h100.attention_fwd(1, 4096, 16, 128, true, 0, AttentionKernel::kFlash2));
  EXPECT_LT(h200.attention_bwd(1, 4096, 16, 128, true),
            h200.attention_bwd(1, 4096, 16, 128, true, 0, AttentionKernel::kFlash2));
  const ComputeModel a100 = make_compute_model(find_accelerator("A100"), nullptr);
  EXPECT_EQ(a100.attention_bwd(1, 4096, 16, 128, true, 0, AttentionKernel::kFlash2),
            a100.attention_bwd(1, 4096, 16, 128, true));
}

TEST(Roofline, AttentionStaysBelowPeakAndBackwardCostsMore) {
  const ComputeModel cm = make_compute_model(find_accelerator("H100"), nullptr);
  for (int64_t seq : {512, 2048, 8192, 32768})
    for (int64_t heads : {8, 64}) {
      // Causal forward FLOPs: 4 s^2 h d / 2; backward 2.5x that.
      const double fwd_flops = 4.0 * seq * seq * heads * 128 / 2;
      const double fwd = cm.attention_fwd(1, seq, heads, 128, true).seconds();
      const double bwd = cm.attention_bwd(1, seq, heads, 128, true).seconds();
      EXPECT_LT(fwd_flops / fwd, 989e12 * 0.81) << seq;
      EXPECT_LT(2.5 * fwd_flops / bwd, 989e12 * 0.81) << seq;
      EXPECT_GT(bwd, fwd) << seq;
    }
}

TEST(Roofline, TheExponentialsLimitAttentionOnlyWhereTheyCannotKeepUp) {
  // A score element costs 4d tensor FLOPs forward and one exp beside them.
  // B200's exp unit feeds 512 tensor FLOPs: at d = 128 (512) the matmuls
  // set the pace, at d = 64 (256) the exponentials, at half the rate: each
  // FLOP takes twice as long. H100's feeds 256: both run at the matmuls'
  // rate. Long sequences, so that per-tile and launch costs vanish.
  auto per_flop = [](const ComputeModel& cm, int64_t d) {
    const double flops = 4.0 * 32768.0 * 32768.0 * 64 * d / 2;
    return cm.attention_fwd(1, 32768, 64, d, true).seconds() / flops;
  };
  const ComputeModel b200 = make_compute_model(find_accelerator("B200"), nullptr);
  EXPECT_NEAR(per_flop(b200, 64) / per_flop(b200, 128), 2.0, 0.05);
  const ComputeModel h100 = make_compute_model(find_accelerator("H100"), nullptr);
  EXPECT_NEAR(per_flop(h100, 64) / per_flop(h100, 128), 1.0, 0.05);
}

TEST(Roofline, Fp8AttentionSpeedsOnlyTheMatmulsTheExponentialsDoNotLimit) {
  // FP8 matmuls do twice the tensor FLOPs a clock; the exp unit's rate is
  // the same. B200's unit feeds 512 BF16 FLOPs an exponential, so 1,024 FP8
  // ones. Forward at d = 128 has 4d = 512 per score element: at FP8 the
  // exponentials set the pace and the time stays the BF16 time (the matmuls
  // were exactly as fast as the unit). Backward has 2.5 x 512 = 1,280 per
  // element, above 1,024: the matmuls still set the pace, at twice the rate,
  // so the backward takes 1/2 of its BF16 time, times the FP8 / BF16
  // plateaus (both the roofline's 81%). H100's unit feeds 256 (512 at FP8):
  // the forward halves too. Long sequences, so per-tile, launch and memory
  // costs vanish.
  auto ratio = [](const ComputeModel& cm, bool backward) { return fp8_over_bf16(cm, 32768, 64, 128, true, backward); };
  const ComputeModel b200 = make_compute_model(find_accelerator("B200"), nullptr);
  EXPECT_NEAR(ratio(b200, false), 1.0, 0.02);
  EXPECT_NEAR(ratio(b200, true), 0.5, 0.02);
  const ComputeModel h100 = make_compute_model(find_accelerator("H100"), nullptr);
  EXPECT_NEAR(ratio(h100, false), 0.5, 0.02);
  EXPECT_NEAR(ratio(h100, true), 0.5, 0.02);
  // A measured table without FP8 attention rows keeps its BF16 time and
  // takes the roofline's ratio: the H200's measured rows, halved at this
  // shape.
  CalibrationTable t = load_calibration(kH200Table);
  t.attention_fp8.clear();
  const ComputeModel h200 = make_compute_model(find_accelerator("H200"), &t);
  const ComputeModel h200_roof = make_compute_model(find_accelerator("H200"), nullptr);
  EXPECT_NEAR(ratio(h200, true), ratio(h200_roof, true), 1e-9);
  EXPECT_NEAR(ratio(h200, true), 0.5, 0.02);
}

TEST(Roofline, HopperScalesFp8BlocksOnItsCudaCoresEvery128OfK) {
  // A 4096^3 FP8 GEMM with a scale per 128 values of k: every output's
  // partial sum is scaled into its FP32 accumulator k / 128 = 32 times,
  // 4096^2 x 32 = 536.9 M multiply-adds. An H100's CUDA cores do one for
  // every 64 dense FP8 tensor FLOPs: 1,979e12 / 64 x 0.9 (the sustained
  // clock) = 27.83e12 a second, so 19.29 us on top of the FP8 GEMM. A
  // ragged k pays its last block whole (4,000: 32 blocks). B200's tensor
  // cores take the scales (MXFP8): the plain FP8 GEMM. A100 has no FP8:
  // what gemm() gives FP8 there.
  const ComputeModel h100 = make_compute_model(find_accelerator("H100"), nullptr);
  const double fma_rate = 1979e12 / 64 * 0.9;
  EXPECT_NEAR((h100.gemm_fp8_blockwise(4096, 4096, 4096) - h100.gemm(4096, 4096, 4096, Precision::kFp8)).seconds(),
              4096.0 * 4096 * 32 / fma_rate, 1e-9);
  EXPECT_NEAR((h100.gemm_fp8_blockwise(4096, 4096, 4000) - h100.gemm(4096, 4096, 4000, Precision::kFp8)).seconds(),
              4096.0 * 4096 * 32 / fma_rate, 1e-9);
  const ComputeModel b200 = make_compute_model(find_accelerator("B200"), nullptr);
  EXPECT_EQ(b200.gemm_fp8_blockwise(4096, 4096, 4096), b200.gemm(4096, 4096, 4096, Precision::kFp8));
  const ComputeModel a100 = make_compute_model(find_accelerator("A100"), nullptr);
  EXPECT_EQ(a100.gemm_fp8_blockwise(4096, 4096, 4096), a100.gemm(4096, 4096, 4096, Precision::kFp8));
}

// --- the calibrated model -------------------------------------------------

TEST(Calibrated, NamesTheTable) {
  const CalibrationTable t = load_calibration(kH200Table);
  const ComputeModel cm = make_compute_model(find_accelerator("H200"), &t);
  EXPECT_EQ(cm.describe(), "calibration table " + kH200Table +
                               " (NVIDIA H200); FP8 flash attention at the table's measured FP8 / BF16 kernel times");
}

TEST(Calibrated, ReproducesItsOwnMeasurementOfABigSquareGemm) {
  // 16384^3 bf16 appears once, in "gemm" (15.21 ms, 578 TFLOP/s).
  const CalibrationTable t = load_calibration(kH200Table);
  const ComputeModel cm = make_compute_model(find_accelerator("H200"), &t);
  const double measured = named_row_seconds(t, Precision::kBf16, 16384, 16384, 16384);
  EXPECT_NEAR(cm.gemm(16384, 16384, 16384, Precision::kBf16).seconds() / measured, 1.0, 0.01);
}

TEST(Calibrated, ReproducesItsOwnMeasurementOfModelShapes) {
  // Off-lattice shapes (n = 1280, k = 3584) and an fp8 row come back as measured.
  const CalibrationTable t = load_calibration(kH200Table);
  const ComputeModel cm = make_compute_model(find_accelerator("H200"), &t);
  EXPECT_NEAR(cm.gemm(4096, 1280, 8192, Precision::kBf16).seconds() /
                  named_row_seconds(t, Precision::kBf16, 4096, 1280, 8192), 1.0, 0.01);
  EXPECT_NEAR(cm.gemm(2048, 8192, 3584, Precision::kBf16).seconds() /
                  named_row_seconds(t, Precision::kBf16, 2048, 8192, 3584), 1.0, 0.01);
  EXPECT_NEAR(cm.gemm(4096, 7168, 8192, Precision::kFp8).seconds() /
                  named_row_seconds(t, Precision::kFp8, 4096, 7168, 8192), 1.0, 0.01);
}

TEST(Calibrated, InterpolationBetweenTwoGridPointsLiesBetweenThem) {
  // m=1024, n=512: k=2896 sits halfway (in log2) between the grid's k=2048
  // and k=4096, with no model-shape row within an octave.
  const CalibrationTable t = load_calibration(kH200Table);
  const ComputeModel cm = make_compute_model(find_accelerator("H200"), &t);
  const double e_lo = gemm_flops(1024, 512, 2048) / (grid_row_seconds(t, 1024, 512, 2048) * 989e12);
  const double e_hi = gemm_flops(1024, 512, 4096) / (grid_row_seconds(t, 1024, 512, 4096) * 989e12);
  EXPECT_NEAR(cm.gemm_efficiency(1024, 512, 2048, Precision::kBf16), e_lo, 0.01 * e_lo);
  EXPECT_NEAR(cm.gemm_efficiency(1024, 512, 4096, Precision::kBf16), e_hi, 0.01 * e_hi);
  const double mid = cm.gemm_efficiency(1024, 512, 2896, Precision::kBf16);
  EXPECT_GT(mid, std::min(e_lo, e_hi));
  EXPECT_LT(mid, std::max(e_lo, e_hi));
}

TEST(Calibrated, OutsideTheGridHoldsTheEdgeEfficiencyButNotBeyondTheRoofline) {
  const CalibrationTable t = load_calibration(kH200Table);
  const ComputeModel cm = make_compute_model(find_accelerator("H200"), &t);
  // k = 65536 is past the grid's 32768: the k = 32768 efficiency holds.
  EXPECT_NEAR(cm.gemm_efficiency(1024, 512, 65536, Precision::kBf16),
              cm.gemm_efficiency(1024, 512, 32768, Precision::kBf16), 1e-6);
  // m = 1 (a matrix-vector product) cannot beat HBM: it reads 8192^2 bf16
  // weights at 4.8 TB/s at best.
  EXPECT_GE(cm.gemm(1, 8192, 8192, Precision::kBf16).seconds(), 8192.0 * 8192 * 2 / 4.8e12);
  for (int64_t m : {1, 16, 128, 100000})
    EXPECT_LT(cm.gemm_efficiency(m, 4096, 4096, Precision::kBf16), 1.0) << m;
}

TEST(Calibrated, TinyGemmIsLaunchBound) {
  // 64^3 is 0.5 MFLOP: well under a microsecond at any measured rate, so the
  // 4 us launch floor is the time.
  const CalibrationTable t = load_calibration(kH200Table);
  const ComputeModel cm = make_compute_model(find_accelerator("H200"), &t);
  EXPECT_NEAR(cm.gemm(64, 64, 64, Precision::kBf16).micros(), 4.0, 0.1);
}

TEST(Calibrated, DoublingTheGemmRoughlyDoublesTheTime) {
  const CalibrationTable t = load_calibration(kH200Table);
  const ComputeModel cm = make_compute_model(find_accelerator("H200"), &t);
  const double t1 = cm.gemm(8192, 8192, 8192, Precision::kBf16).seconds();
  const double t2 = cm.gemm(16384, 8192, 8192, Precision::kBf16).seconds();
  EXPECT_NEAR(t2 / t1, 2.0, 0.3);
}

TEST(Calibrated, Fp8IsFasterThanBf16ForALargeGemm) {
  const CalibrationTable t = load_calibration(kH200Table);
  const ComputeModel cm = make_compute_model(find_accelerator("H200"), &t);
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{8192, 8192, 8192}, {16384, 16384, 8192},
                         {32768, 32768, 32768}}) {
    EXPECT_LT(cm.gemm(m, n, k, Precision::kFp8).seconds(), 0.75 * cm.gemm(m, n, k, Precision::kBf16).seconds())
        << m << "x" << n << "x" << k;
  }
}

TEST(Calibrated, ScaledToH100KeepsComputeAndSlowsMemory) {
  // H100 and H200 share the GH100 die (989 TFLOP/s) but have 3.35 vs 4.8 TB/s.
  const CalibrationTable t = load_calibration(kH200Table);
  const ComputeModel h200 = make_compute_model(find_accelerator("H200"), &t);
  const ComputeModel h100 = make_compute_model(find_accelerator("H100"), &t);
  EXPECT_NE(h100.describe().find("measured on NVIDIA H200, scaled to H100"), std::string::npos) << h100.describe();
  EXPECT_EQ(h100.gemm(8192, 8192, 8192, Precision::kBf16), h200.gemm(8192, 8192, 8192, Precision::kBf16));
  const Bytes ten_gb(10'000'000'000);
  EXPECT_NEAR(h100.memory_bound(ten_gb).seconds() / h200.memory_bound(ten_gb).seconds(), 4.8 / 3.35, 1e-6);
  EXPECT_NEAR(h100.optimizer_step(1'000'000'000).seconds() / h200.optimizer_step(1'000'000'000).seconds(), 4.8 / 3.35,
              1e-6);
}

TEST(Calibrated, ScaledToB200BorrowsEfficiencyAtTheNewPeak) {
  // B200 peak 2250 over 989: same efficiency, 2.275x the rate.
  const CalibrationTable t = load_calibration(kH200Table);
  const ComputeModel h200 = make_compute_model(find_accelerator("H200"), &t);
  const ComputeModel b200 = make_compute_model(find_accelerator("B200"), &t);
  EXPECT_NEAR(b200.gemm_efficiency(8192, 8192, 8192, Precision::kBf16),
              h200.gemm_efficiency(8192, 8192, 8192, Precision::kBf16), 1e-6);
  EXPECT_NEAR(h200.gemm(8192, 8192, 8192, Precision::kBf16).seconds() /
                  b200.gemm(8192, 8192, 8192, Precision::kBf16).seconds(), 2250.0 / 989, 1e-3);
}

TEST(Calibrated, OptimizerStepForABillionParameters) {
  // 1e9 x 0.00809 ns/param (the table's 1e9-parameter fp32 AdamW row) = 8.09 ms.
  const CalibrationTable t = load_calibration(kH200Table);
  const ComputeModel cm = make_compute_model(find_accelerator("H200"), &t);
  EXPECT_NEAR(cm.optimizer_step(1'000'000'000).millis(), 8.09, 0.01);
}

TEST(Calibrated, Bf16ParametersStepAtTheMeasuredBf16Rate) {
  // The table's 1e9-parameter rows: fused AdamW over bf16 parameters takes
  // 0.005404 ns a parameter (5.40 ms), over fp32 ones 0.00809 (8.09 ms):
  // a model cast to bf16 steps 1.5x faster than mixed precision's fp32
  // master weights, not at their rate.
  const CalibrationTable t = load_calibration(kH200Table);
  const ComputeModel cm = make_compute_model(find_accelerator("H200"), &t);
  EXPECT_NEAR(cm.optimizer_step(1'000'000'000, ComputeModel::OptimizerState::kBf16).millis(), 5.40, 0.01);
  EXPECT_NEAR(cm.optimizer_step(1'000'000'000, ComputeModel::OptimizerState::kFp32).millis(), 8.09, 0.01);
}

TEST(Calibrated, UnfusedAdamStreamsAtTheMeasuredElementwiseRate) {
  // The table measured no unfused AdamW; its passes run at its in-place
  // elementwise rate (4,265.5 GB/s read plus written on the H200): 92 B x
  // 1e9 / 4.2655e12 = 21.57 ms, 2.7x the measured fused step (8.09 ms).
  const CalibrationTable t = load_calibration(kH200Table);
  const ComputeModel cm = make_compute_model(find_accelerator("H200"), &t);
  const SimTime loop =
      cm.optimizer_step(1'000'000'000, ComputeModel::OptimizerState::kFp32, OptimizerImpl::kForLoop);
  EXPECT_NEAR(loop.millis(), 92e9 / (t.memory_GBps_rw * 1e9) * 1e3, 0.01);
  EXPECT_GT(loop, cm.optimizer_step(1'000'000'000) * 2.5);
}

TEST(Calibrated, Bf16MomentsStepAtTheFp32RateOverTheBytesTheyMove) {
  // Not measured: fp32 master weights and gradients with bf16 moments move
  // 3 x 4 + 4 x 2 = 20 B a parameter against fp32 AdamW's 28, so
  // 8.09 ms x 20/28 = 5.78 ms for 1e9 parameters; on the roofline,
  // 20e9 / (0.9 x 3.35e12) + 4 us.
  const CalibrationTable t = load_calibration(kH200Table);
  const ComputeModel cm = make_compute_model(find_accelerator("H200"), &t);
  EXPECT_NEAR(cm.optimizer_step(1'000'000'000, ComputeModel::OptimizerState::kBf16Moments).seconds() /
                  cm.optimizer_step(1'000'000'000).seconds(),
              20.0 / 28.0, 1e-9);
  const ComputeModel roof = make_compute_model(find_accelerator("H100"), nullptr);
  EXPECT_NEAR(roof.optimizer_step(1'000'000'000, ComputeModel::OptimizerState::kBf16Moments).millis(),
              20e9 / (0.9 * 3.35e12) * 1e3 + 4e-3, 1e-6);
}

TEST(Calibrated, ASnapshotCopyRunsAtTheRateMeasuredOverThatLink) {
  // The table measured pinned device-to-host copies at 55.35 GB/s over PCIe
  // Gen5 (copy.link), whose x16 carries 64 GB/s a direction: a GPU on a
  // Gen5 host link copies at the measured 55.35; on NVLink-C2C (450 GB/s),
  // a link the table did not measure, at the link's rate.
  const CalibrationTable t = load_calibration(kH200Table);
  const ComputeModel cm = make_compute_model(find_accelerator("H200"), &t);
  const Bandwidth gen5 = parse_link("pcie-gen5", "host_link").per_direction;
  const Bandwidth c2c = parse_link("nvlink-c2c", "host_link").per_direction;
  EXPECT_NEAR(cm.device_to_host(gen5).gigabytes_per_second(), 55.35, 0.01);
  EXPECT_EQ(cm.device_to_host(c2c).bps(), c2c.bps());
  // Without a table: the link's rate.
  const ComputeModel roofline = make_compute_model(find_accelerator("H200"), nullptr);
  EXPECT_EQ(roofline.device_to_host(gen5).bps(), gen5.bps());
}

TEST(Calibrated, MemoryBoundRunsAtTheMeasuredRate) {
  // 4.2655 GB at 4,265.5 GB/s read+write = 1 ms.
  const CalibrationTable t = load_calibration(kH200Table);
  const ComputeModel cm = make_compute_model(find_accelerator("H200"), &t);
  EXPECT_NEAR(cm.memory_bound(Bytes(static_cast<int64_t>(t.memory_GBps_rw * 1e6))).millis(), 1.0, 1e-6);
}

TEST(Calibrated, AttentionReproducesTheGridAndScalesWithBatch) {
  const CalibrationTable t = load_calibration(kH200Table);
  const ComputeModel cm = make_compute_model(find_accelerator("H200"), &t);
  // attention_grid: seq 16384, 16 heads, head_dim 128, causal (only row of its shape).
  const CalibrationTable::Attention* row = nullptr;
  for (const auto& a : t.attention)
    if (a.seq == 16384 && a.heads == 16 && a.head_dim == 128) row = &a;
  ASSERT_NE(row, nullptr);
  EXPECT_NEAR(cm.attention_fwd(1, 16384, 16, 128, true).seconds() / row->fwd_seconds, 1.0, 0.01);
  EXPECT_NEAR(cm.attention_bwd(1, 16384, 16, 128, true).seconds() / (row->fwd_bwd_seconds - row->fwd_seconds), 1.0,
              0.01);
  // Two sequences of 32 heads are the work, and the parallelism, of one of 64.
  EXPECT_EQ(cm.attention_fwd(2, 4096, 32, 128, true), cm.attention_fwd(1, 4096, 64, 128, true));
  // Full (non-causal) attention does twice the FLOPs at the same rate.
  EXPECT_NEAR(cm.attention_fwd(1, 8192, 64, 128, false).seconds() / cm.attention_fwd(1, 8192, 64, 128, true).seconds(),
              2.0, 1e-6);
}

// Flash attention's backward does 2.5x its forward's FLOPs at a somewhat
// lower rate, so each shape's backward alone takes 2-5x its forward. The
// H200 rows before 2026-12-04 timed the backward with a host round trip in
// it (a forward and .sum().backward() between two synchronizations) and
// reached 16x at 1,024 tokens; the shipped rows time it alone.
TEST(Calibrated, TheH200AttentionRowsTimeTheBackwardAlone) {
  const CalibrationTable t = load_calibration(kH200Table);
  ASSERT_GE(t.attention.size(), 44u);
  for (const auto& a : t.attention) {
    const double ratio = (a.fwd_bwd_seconds - a.fwd_seconds) / a.fwd_seconds;
    EXPECT_GT(ratio, 2.0) << a.seq << " x " << a.heads << " x " << a.head_dim;
    EXPECT_LT(ratio, 5.0) << a.seq << " x " << a.heads << " x " << a.head_dim;
  }
}

// Attention dropout's cost per score element is the median over the rows
// of (with dropout - without) / (heads x seq^2 / 2): a two-row table of
// 1 and 3 ps gives 2 ps, and a 4096-token, 32-head causal forward then pays
// 2e-12 x 32 x 4096^2 / 2 = 0.537 ms on the part that measured it.
TEST(Calibrated, AttentionDropoutCostsTheMedianMeasuredTimePerScoreElement) {
  const std::string path = edited_table("dropout_two_rows.json", [](nlohmann::json& d) {
    const double scores = 32.0 * 4096 * 4096 / 2;
    nlohmann::json rows = nlohmann::json::array();
    for (double ps : {1.0, 3.0})
      rows.push_back({{"seq", 4096}, {"heads", 32}, {"head_dim", 128}, {"causal", true}, {"fwd_s", 1e-4},
                      {"fwd_dropout_s", 1e-4 + ps * 1e-12 * scores}, {"bwd_s", 3e-4},
                      {"bwd_dropout_s", 3e-4 + ps * 0.5e-12 * scores}});
    d["attention_dropout"] = rows;
  });
  const CalibrationTable t = load_calibration(path);
  EXPECT_NEAR(t.dropout_fwd_s_per_score, 2e-12, 1e-18);
  EXPECT_NEAR(t.dropout_bwd_s_per_score, 1e-12, 1e-18);
  EXPECT_EQ(t.dropout_sms, 132);  // meta.sms
  const ComputeModel h200 = make_compute_model(find_accelerator("H200"), &t);
  EXPECT_NEAR(h200.attention_dropout(1, 4096, 32, true, 0, false).seconds(), 0.537e-3, 0.001e-3);
  EXPECT_NEAR(h200.attention_dropout(1, 4096, 32, true, 0, true).seconds(), 0.268e-3, 0.001e-3);
  // Full attention draws for twice the elements; two sequences twice again.
  EXPECT_EQ(h200.attention_dropout(2, 4096, 32, false, 0, false),
            h200.attention_dropout(1, 4096, 32, true, 0, false) * 4);
}

// An FP8 flash kernel costs the part's BF16 kernel times the FP8 / BF16
// time ratio its table measured on the same shapes, interpolated in log2 of
// the sequence between rows of the same mask and held at the ends. Two
// causal rows, 4,096 tokens at 0.6 forward / 1.2 backward and 16,384 at
// 0.8 / 1.4, put 8,192 (halfway in log2) at 0.7 / 1.3; 2,048 takes the first
// row's 0.6, 65,536 the last's 1.4 backward. An unmasked row of 0.5 does not
// enter a causal kernel, and prices an unmasked one.
TEST(Calibrated, FlashAttentionInFp8CostsBf16TimesTheMeasuredRatio) {
  const std::string path = edited_table("fp8_attention_rows.json", [](nlohmann::json& d) {
    auto row = [](int64_t seq, bool causal, double fwd, double bwd) {
      return nlohmann::json{{"seq", seq},         {"heads", 64},           {"head_dim", 128}, {"causal", causal},
                            {"bf16_fwd_s", 1e-3}, {"bf16_bwd_s", 2e-3},    {"fp8_fwd_s", fwd * 1e-3},
                            {"fp8_bwd_s", bwd * 2e-3}};
    };
    d["attention_fp8"] = {row(16384, true, 0.8, 1.4), row(4096, true, 0.6, 1.2), row(8192, false, 0.5, 0.5)};
  });
  const CalibrationTable t = load_calibration(path);
  ASSERT_EQ(t.attention_fp8.size(), 3u);
  const ComputeModel h200 = make_compute_model(find_accelerator("H200"), &t);
  const auto ratio = [&](int64_t seq, bool causal, bool backward) {
    return fp8_over_bf16(h200, seq, 64, 128, causal, backward);
  };
  EXPECT_NEAR(ratio(8192, true, false), 0.7, 1e-6);
  EXPECT_NEAR(ratio(8192, true, true), 1.3, 1e-6);
  EXPECT_NEAR(ratio(2048, true, false), 0.6, 1e-6);
  EXPECT_NEAR(ratio(65536, true, true), 1.4, 1e-6);
  EXPECT_NEAR(ratio(8192, false, false), 0.5, 1e-6);
  EXPECT_NE(h200.describe().find("FP8 flash attention at the table's measured FP8 / BF16 kernel times"),
            std::string::npos);
}

// cuDNN's own benchmark on an H200 times the causal FP8 backward slower
// than the BF16 one from 8,192 tokens (6.392 against 5.083 ms at 8,192,
// 64 heads of 128), the forward at two thirds (1.141 against 1.708 ms):
// the shipped table prices the two so, where twice the tensor rate had
// made both about half.
TEST(Calibrated, TheShippedH200TablePricesFp8AttentionAsCudnnMeasuredIt) {
  const CalibrationTable t = load_calibration(kH200Table);
  const ComputeModel h200 = make_compute_model(find_accelerator("H200"), &t);
  const auto ratio = [&](bool backward) { return fp8_over_bf16(h200, 8192, 64, 128, true, backward); };
  EXPECT_NEAR(ratio(false), 1.141 / 1.708, 1e-3);
  EXPECT_NEAR(ratio(true), 6.392 / 5.083, 1e-3);
}

// An MLA kernel's width is the mean of its Q/K and V head dims, and it takes
// the rows measured at the nearest width: on the shipped GB200 table
// DeepSeek-V3's heads (192 and 128, width 160) take the dsv3 rows (causal
// 8,192 tokens: 1.235 / 1.800 ms forward, 4.544 / 5.728 backward), Llama's
// 128 the llama3.1 rows (0.553 / 0.688, 1.860 / 2.097); a width of 144 lies
// nearer 160 than 128 in log2 (0.152 against 0.170) and takes the dsv3 rows.
TEST(Calibrated, Fp8AttentionTakesTheRowsOfTheNearestHeadWidth) {
  const CalibrationTable t = load_calibration(shipped("gb200.json"));
  const ComputeModel gb200 = make_compute_model(find_accelerator("GB200"), &t);
  const auto ratio = [&](int64_t width, bool backward) {
    return fp8_over_bf16(gb200, 8192, 128, width, true, backward);
  };
  EXPECT_NEAR(ratio(160, false), 1.235 / 1.800, 1e-3);
  EXPECT_NEAR(ratio(160, true), 4.544 / 5.728, 1e-3);
  EXPECT_NEAR(ratio(128, false), 0.553 / 0.688, 1e-3);
  EXPECT_NEAR(ratio(128, true), 1.860 / 2.097, 1e-3);
  EXPECT_NEAR(ratio(144, false), 1.235 / 1.800, 1e-3);
}

// The numbers are drawn on the SMs' ordinary pipes: a B200 (148 SMs) draws
// what an H200 (132) measured in 132 / 148 of the time; without a table,
// nothing measured it and dropout adds nothing.
TEST(Calibrated, AttentionDropoutScalesByStreamingMultiprocessorsAndNeedsAMeasurement) {
  const CalibrationTable h200 = load_calibration(kH200Table);
  ASSERT_GT(h200.dropout_fwd_s_per_score, 0);
  CalibrationTable b200 = load_calibration(shipped("b200.json"));
  EXPECT_EQ(b200.dropout_fwd_s_per_score, 0);
  borrow_dropout_cost(b200, h200);
  EXPECT_EQ(b200.dropout_lent_by, kH200Table);
  const SimTime on_h200 =
      make_compute_model(find_accelerator("H200"), &h200).attention_dropout(1, 8192, 64, true, 0, false);
  const SimTime on_b200 =
      make_compute_model(find_accelerator("B200"), &b200).attention_dropout(1, 8192, 64, true, 0, false);
  EXPECT_NEAR(on_b200.seconds() / on_h200.seconds(), 132.0 / 148.0, 1e-6);
  EXPECT_EQ(make_compute_model(find_accelerator("H100"), nullptr).attention_dropout(1, 8192, 64, true, 0, false),
            SimTime::zero());
  // A table with its own measurement keeps it, even one that found
  // dropout free within its noise (a CPU's, say: a median below zero).
  const std::string free_path = edited_table("dropout_free.json", [](nlohmann::json& d) {
    for (auto& row : d["attention_dropout"]) row["fwd_dropout_s"] = row["fwd_s"].get<double>() * 0.99;
  });
  CalibrationTable free = load_calibration(free_path);
  EXPECT_TRUE(free.dropout_measured);
  EXPECT_EQ(free.dropout_fwd_s_per_score, 0);
  borrow_dropout_cost(free, h200);
  EXPECT_EQ(free.dropout_fwd_s_per_score, 0);
  EXPECT_TRUE(free.dropout_lent_by.empty());
}

TEST(Calibrated, TableFromAnUnknownGpuIsAnInputError) {
  CalibrationTable t = load_calibration(kH200Table);
  t.gpu_name = "ACME X1";
  try {
    make_compute_model(find_accelerator("H100"), &t);
    FAIL() << "expected InputError";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().file, kH200Table);
    EXPECT_EQ(e.where().field, "meta.name");
  }
}

// --- a table of measured peaks ---------------------------------------------

TEST(Peaks, EveryShippedTableOfPeaksLoadsAndNamesItsPart) {
  for (const char* f : {"b200.json", "gb200.json", "b300.json", "mi300x.json", "mi325x.json", "mi355x.json"}) {
    const CalibrationTable t = load_calibration(shipped(f));
    EXPECT_TRUE(t.peaks_only) << f;
    EXPECT_NE(accelerator_named_in(t.gpu_name), nullptr) << f << ": " << t.gpu_name;
    EXPECT_FALSE(t.gemms.empty()) << f;
  }
}

TEST(Peaks, TheBestMeasuredEfficiencyIsThePlateauABigGemmApproaches) {
  // MI300X: the best bf16 row is AMD's own 708 of 1,307 TFLOP/s = 54.2%
  // (the table's other bf16 row, 668.4, is lower); the generic CDNA 3
  // plateau is 0.75 x 0.9 = 67.5%. A 16384^3 GEMM fills 128^2 = 16,384
  // tiles over 304 CUs in 54 waves (99.8% full) at k = 16,384 (small-k cost
  // under 1%), so it reaches the plateau within a couple of percent, never above.
  const CalibrationTable t = load_calibration(shipped("mi300x.json"));
  const ComputeModel cm = make_compute_model(find_accelerator("MI300X"), &t);
  const double plateau = 708.0 / 1307;
  const double eff = cm.gemm_efficiency(16384, 16384, 16384, Precision::kBf16);
  EXPECT_LE(eff, plateau + 1e-9);
  EXPECT_GT(eff, 0.97 * plateau);
  EXPECT_NE(cm.describe().find("plateau measured on AMD Instinct MI300X"), std::string::npos) << cm.describe();
  // Without the table the generic plateau holds: the same GEMM a third faster.
  const ComputeModel roofline = make_compute_model(find_accelerator("MI300X"), nullptr);
  EXPECT_GT(roofline.gemm_efficiency(16384, 16384, 16384, Precision::kBf16), 0.97 * 0.675);
}

TEST(Peaks, Fp8AndFp4RunAtTheirOwnMeasuredRatesNotAMultipleOfBf16) {
  // B200 rows: bf16 best 1,745.0 / 2,250 = 77.6%; fp8 3,432.5 / 4,500 =
  // 76.3%; NVFP4 best 5,495.9 / 9,000 = 61.1%. For a big GEMM the rates
  // then stand as 2 x 76.3 / 77.6 = 1.97 (fp8) and 4 x 61.1 / 77.6 = 3.15
  // (fp4), not 2 and 4.
  const CalibrationTable t = load_calibration(shipped("b200.json"));
  const ComputeModel cm = make_compute_model(find_accelerator("B200"), &t);
  const int64_t n = 32768;
  const double bf16 = cm.gemm(n, n, n, Precision::kBf16).seconds();
  const double fp8 = cm.gemm(n, n, n, Precision::kFp8).seconds();
  const double fp4 = cm.gemm(n, n, n, Precision::kFp4).seconds();
  EXPECT_NEAR(bf16 / fp8, 2 * (3432.5 / 4500) / (1745.0 / 2250), 0.03);
  EXPECT_NEAR(bf16 / fp4, 4 * (5495.9 / 9000) / (1745.0 / 2250), 0.08);
}

TEST(Peaks, Fp8AttentionIsNeverSlowerThanBf16WhereTheExponentialsSetThePace) {
  // On the B200's table the FP8 plateau (76.3%) is below the BF16 one
  // (77.6%). A d = 128 forward (4d = 512 tensor FLOPs an element, the
  // unit's 512 BF16 ones, 1,024 FP8) is paced by the exponentials at FP8,
  // and their rate does not depend on the matmuls' precision: FP8 takes
  // the BF16 time (the tile's FP8 matmul rate, 2 x 76.3 = 152.6% of the
  // BF16 peak, is above the exp unit's 77.6%), not 76.3 / 77.6 = 1.7% more.
  // (The roofline's ratio, which the table's measured FP8 rows replace.)
  CalibrationTable t = load_calibration(shipped("b200.json"));
  t.attention_fp8.clear();
  const ComputeModel cm = make_compute_model(find_accelerator("B200"), &t);
  EXPECT_NEAR(fp8_over_bf16(cm, 32768, 64, 128, true, false), 1.0, 1e-3);
}

TEST(Peaks, APrecisionWithoutRowsTakesTheBf16Plateau) {
  // The MI355X table without its fp4 rows: fp4 runs at the bf16 plateau,
  // 1,565 / 2,517 = 62.2%, of its own peak, four times the bf16 rate for a
  // compute-bound GEMM.
  CalibrationTable t = load_calibration(shipped("mi355x.json"));
  std::erase_if(t.gemms, [](const CalibrationTable::Gemm& g) { return g.dtype == Precision::kFp4; });
  const ComputeModel cm = make_compute_model(find_accelerator("MI355X"), &t);
  EXPECT_NEAR(cm.gemm_efficiency(32768, 32768, 32768, Precision::kFp4),
              cm.gemm_efficiency(32768, 32768, 32768, Precision::kBf16), 0.02);
  EXPECT_NE(cm.describe().find("fp4 62.2% (not measured: bf16's)"), std::string::npos) << cm.describe();
}

TEST(Peaks, TheMi355xRunsMxfp4AtItsOwnMeasuredPlateau) {
  // aiter's tuned MXFP4 GEMM on one MI355X (an AMD engineer's benchmark
  // guide): at best 5,338 TFLOP/s (4736 x 44416 x 17920 in 1,412 us), 53.0%
  // of the 10,066 dense MXFP4 peak, below the bf16 plateau's 62.2% it took
  // before; that shape then ran in 1,298 us (9% fast), now within 10% of
  // the measured time.
  const CalibrationTable t = load_calibration(shipped("mi355x.json"));
  const ComputeModel cm = make_compute_model(find_accelerator("MI355X"), &t);
  EXPECT_NE(cm.describe().find("fp4 53.0% (15 rows)"), std::string::npos) << cm.describe();
  EXPECT_NEAR(cm.gemm(4736, 44416, 17920, Precision::kFp4).seconds(), 1412e-6, 1412e-6 * 0.10);
}

TEST(Peaks, TheMi355xRunsFp8AtItsOwnMeasuredPlateau) {
  // AMD's hipBLASLt FP8 GEMM on one MI355X (ROCm blog, 2026-03-10): 3,130.21
  // TFLOP/s at M = N = K = 8192, 62.2% of the 5,033 dense FP8 peak. Before
  // those rows the part took its BF16 plateau times CDNA 3's FP8 / BF16
  // ratio, 62.2% x 0.899 = 55.9%, and 8192^3 ran at about 2,620 TFLOP/s
  // (16% under the row); with them it runs at the plateau less the shape's
  // shortfall the H200 table lends (a few percent at this shape), so within
  // 10% of the measured rate.
  CalibrationTable t = load_calibration(shipped("mi355x.json"));
  borrow_precision_ratios(t, load_calibration(shipped("mi300x.json")));
  EXPECT_EQ(t.plateau_over_bf16[static_cast<size_t>(Precision::kFp8)], 0.0);
  const ComputeModel cm = make_compute_model(find_accelerator("MI355X"), &t);
  EXPECT_NE(cm.describe().find("fp8 62.2% (2 rows)"), std::string::npos) << cm.describe();
  const double tflops = 2.0 * 8192.0 * 8192.0 * 8192.0 / cm.gemm(8192, 8192, 8192, Precision::kFp8).seconds() / 1e12;
  EXPECT_NEAR(tflops, 3130.21, 3130.21 * 0.10);
}

TEST(Peaks, AMissingLowPrecisionTakesItsGenerationsMeasuredRatioToBf16) {
  // GB200's table has bf16 and fp8 rows, no fp4. B200 (the same die)
  // measured NVFP4 at 5,495.9 / 9,000 = 61.07% of its peak against bf16's
  // 1,745.0 / 2,250 = 77.56%: a ratio of 0.7874. Lent, GB200's fp4 plateau
  // is its own bf16 one, 1,822 / 2,500 = 72.88%, times that: 57.38%; its fp8
  // keeps its own row.
  CalibrationTable gb200 = load_calibration(shipped("gb200.json"));
  const CalibrationTable b200 = load_calibration(shipped("b200.json"));
  borrow_precision_ratios(gb200, b200);
  const double ratio = (5495.9 / 9000) / (1745.0 / 2250);
  EXPECT_NEAR(gb200.plateau_over_bf16[static_cast<size_t>(Precision::kFp4)], ratio, 1e-3);
  EXPECT_EQ(gb200.plateau_over_bf16[static_cast<size_t>(Precision::kFp8)], 0.0);
  const ComputeModel cm = make_compute_model(find_accelerator("GB200"), &gb200);
  EXPECT_NE(cm.describe().find("fp4 57.4% (not measured: bf16's x 0.787"), std::string::npos) << cm.describe();
  // A big fp4 GEMM then runs at that plateau's share of bf16's, times the
  // peaks' 4x: 4 x 0.7874 = 3.15x the bf16 rate, not 4x.
  const int64_t n = 32768;
  EXPECT_NEAR(cm.gemm(n, n, n, Precision::kBf16).seconds() / cm.gemm(n, n, n, Precision::kFp4).seconds(), 4 * ratio,
              0.08);
  // A table with its own rows of that precision borrows nothing.
  CalibrationTable b200_again = b200;
  borrow_precision_ratios(b200_again, b200);
  EXPECT_EQ(b200_again.plateau_over_bf16[static_cast<size_t>(Precision::kFp4)], 0.0);
  // Neither does a fully measured table.
  CalibrationTable h200 = load_calibration(kH200Table);
  borrow_precision_ratios(h200, b200);
  EXPECT_EQ(h200.plateau_over_bf16[static_cast<size_t>(Precision::kFp4)], 0.0);
}

TEST(Peaks, TheSameDieUnderMorePowerRunsItsGemmsFaster) {
  // MI300X (750 W) and MI325X (1,000 W) share the CDNA 3 die and its
  // datasheet peaks; AMD's own max-achievable table measures fp8 GEMMs at
  // 1,273 and 1,519 TFLOP/s (median clocks 1,230 and 1,464 MHz): a big fp8
  // GEMM on MI325X takes 1,273 / 1,519 = 0.838 of its MI300X time.
  const CalibrationTable t300 = load_calibration(shipped("mi300x.json"));
  const CalibrationTable t325 = load_calibration(shipped("mi325x.json"));
  const ComputeModel mi300x = make_compute_model(find_accelerator("MI300X"), &t300);
  const ComputeModel mi325x = make_compute_model(find_accelerator("MI325X"), &t325);
  const int64_t n = 32768;
  EXPECT_NEAR(mi325x.gemm(n, n, n, Precision::kFp8).seconds() / mi300x.gemm(n, n, n, Precision::kFp8).seconds(),
              1273.0 / 1519, 0.01);
}

TEST(Peaks, APowerLimitedFamilyCarriesAMeasuredRateByBoardPowerNotByPeak) {
  // CDNA 3's pair above gives the exponent: ln(843 / 708) / ln(1000 / 750)
  // = 0.607. The MI355X table (1,400 W) measured bf16 at 1,565 TFLOP/s; the
  // MI350X is the same die at 1,000 W, so its plateau rate is 1,565 x
  // (1000 / 1400)^0.607 = 1,565 x 0.815 = 1,276 TFLOP/s, 55.3% of its
  // 2,307 peak, where scaling by peak alone kept the MI355X's 62.2%.
  const double exponent = std::log(843.0 / 708) / std::log(1000.0 / 750);
  EXPECT_NEAR(find_architecture("cdna4").gemm_power_exponent, exponent, 0.001);
  const CalibrationTable t = load_calibration(shipped("mi355x.json"));
  const ComputeModel mi350x = make_compute_model(find_accelerator("MI350X"), &t);
  const ComputeModel mi355x = make_compute_model(find_accelerator("MI355X"), &t);
  const double rate = 1565.0 * std::pow(1000.0 / 1400, exponent);
  EXPECT_NEAR(rate, 1276, 1);
  const int64_t n = 16384;
  EXPECT_LE(mi350x.gemm_efficiency(n, n, n, Precision::kBf16), rate / 2307 + 1e-3);
  EXPECT_GT(mi350x.gemm_efficiency(n, n, n, Precision::kBf16), 0.97 * rate / 2307);
  // A big GEMM on the MI350X then takes 1 / 0.815 = 1.23x its MI355X time
  // (by peak it was 2,517 / 2,307 = 1.09x).
  EXPECT_NEAR(mi350x.gemm(n, n, n, Precision::kBf16).seconds() / mi355x.gemm(n, n, n, Precision::kBf16).seconds(),
              1565.0 / rate, 0.01);
  EXPECT_NE(mi350x.describe().find("by (1000 / 1400)^0.61 = 0.815"), std::string::npos) << mi350x.describe();
  // The part that measured the table is not scaled; nor is a family not
  // known to be power-limited (Blackwell: exponent 0).
  EXPECT_EQ(mi355x.describe().find("carried"), std::string::npos);
  EXPECT_EQ(find_architecture("blackwell").gemm_power_exponent, 0);
}

TEST(Peaks, APowerLimitedPartCarriesItsMemoryBoundRateByBoardPowerToo) {
  // A training step holds the board at its power limit, and the power
  // manager sets the memory clocks from the budget that sets the compute
  // clock, so in a step the MI350X (1,000 W) streams at the MI355X's (1,400 W)
  // rate x (1000 / 1400)^0.607 = 0.815 as well, not at the same rate because
  // both have 8 TB/s of HBM. The table measures no stream, so both start
  // from 90% of 8 TB/s: 1 GiB read plus written takes 1,073,741,824 /
  // (7.2e12) = 149.1 us on the MI355X and 149.1 / 0.815 = 183.0 us on the
  // MI350X, each plus the 4 us launch. A stream timed alone stays below the
  // limit: 149.1 us on both.
  const CalibrationTable t = load_calibration(shipped("mi355x.json"));
  const ComputeModel mi350x = make_compute_model(find_accelerator("MI350X"), &t);
  const ComputeModel mi355x = make_compute_model(find_accelerator("MI355X"), &t);
  const double power = std::pow(1000.0 / 1400, find_architecture("cdna4").gemm_power_exponent);
  EXPECT_NEAR(power, 0.815, 0.001);
  const double bytes = 1073741824.0, launch_s = 4e-6;
  EXPECT_NEAR(mi355x.memory_bound(Bytes(static_cast<int64_t>(bytes))).seconds(), bytes / 7.2e12 + launch_s, 1e-9);
  EXPECT_NEAR(mi350x.memory_bound(Bytes(static_cast<int64_t>(bytes))).seconds(), bytes / (7.2e12 * power) + launch_s,
              1e-9);
  EXPECT_NEAR(mi350x.stream_alone(Bytes(static_cast<int64_t>(bytes))).seconds(), bytes / 7.2e12 + launch_s, 1e-9);
  EXPECT_NE(mi350x.describe().find("memory-bound kernels at the same 0.815"), std::string::npos) << mi350x.describe();
  // A part with a table of its own keeps its HBM's rate.
  EXPECT_EQ(mi355x.describe().find("memory-bound kernels at the same"), std::string::npos);

  // Where the table measured a stream (6,000 GB/s, say) and a kernel's own
  // rate (a norm at 3,000 GB/s), the MI350X takes each once at 0.815 in a
  // step: 1 GiB / (6e12 x 0.815) = 219.6 us, 1 GiB / (3e12 x 0.815).
  CalibrationTable measured = t;
  measured.memory_GBps_rw = 6000;
  measured.elementwise_GBps = {{"layernorm", 3000}};
  const ComputeModel mi350x_measured = make_compute_model(find_accelerator("MI350X"), &measured);
  EXPECT_NEAR(mi350x_measured.memory_bound(Bytes(static_cast<int64_t>(bytes))).seconds(), bytes / (6e12 * power),
              1e-9);
  EXPECT_NEAR(mi350x_measured.elementwise(ComputeModel::Kernel::kNorm, Bytes(static_cast<int64_t>(bytes))).seconds(),
              bytes / (3e12 * power), 1e-9);
  EXPECT_NEAR(mi350x_measured.stream_alone(Bytes(static_cast<int64_t>(bytes))).seconds(), bytes / 6e12, 1e-9);
}

TEST(Peaks, AttentionRunsAtTheMeasuredBf16Plateau) {
  // Attention's mainloop is the bf16 tensor rate; with the MI300X's measured
  // plateau (708 / 1,307 = 54.2%) instead of the generic 67.5% a long
  // compute-bound attention takes 67.5 / 54.2 = 1.25x as long.
  const CalibrationTable t = load_calibration(shipped("mi300x.json"));
  const ComputeModel peaks = make_compute_model(find_accelerator("MI300X"), &t);
  const ComputeModel roofline = make_compute_model(find_accelerator("MI300X"), nullptr);
  EXPECT_NEAR(peaks.attention_fwd(8, 16384, 64, 128, true).seconds() /
                  roofline.attention_fwd(8, 16384, 64, 128, true).seconds(),
              0.675 / (708.0 / 1307), 0.02);
}

TEST(Peaks, TheMeasuredMemoryRateReplacesTheGenericOne) {
  // b200.json: 6,721 GB/s read + write; 6.721 GB then takes 1 ms.
  const CalibrationTable t = load_calibration(shipped("b200.json"));
  const ComputeModel cm = make_compute_model(find_accelerator("B200"), &t);
  EXPECT_NEAR(cm.memory_bound(Bytes(6'721'000'000)).millis(), 1.0, 1e-6);
}

TEST(Peaks, AnAmdPartStreamsAtItsMeasuredRateNotNinetyPercentOfItsDatasheet) {
  // mi300x.json: 3,910.62 GB/s read + write (AMD's memcopy test), 74% of
  // the 5.3 TB/s datasheet, where a part without a measured stream gets
  // 90%: 3.91062 GB then takes 1 ms, not 3.91062e9 / (0.9 x 5.3e12) s =
  // 0.82 ms. mi325x.json: 4,287.31 GB/s, so 4.28731 GB takes 1 ms.
  const CalibrationTable mi300x = load_calibration(shipped("mi300x.json"));
  const ComputeModel cm = make_compute_model(find_accelerator("MI300X"), &mi300x);
  EXPECT_NEAR(cm.memory_bound(Bytes(3'910'620'000)).millis(), 1.0, 1e-6);
  const ComputeModel generic = make_compute_model(find_accelerator("MI300X"), nullptr);
  EXPECT_NEAR(generic.memory_bound(Bytes(3'910'620'000)).millis(), 3.91062e9 / (0.9 * 5.3e12) * 1e3, 0.01);
  const CalibrationTable mi325x = load_calibration(shipped("mi325x.json"));
  EXPECT_NEAR(make_compute_model(find_accelerator("MI325X"), &mi325x).memory_bound(Bytes(4'287'310'000)).millis(),
              1.0, 1e-6);
}

TEST(Peaks, AKernelNobodyMeasuredOnThisPartRunsAtTheFractionOfTheStreamMeasuredOnAnother) {
  // h200.json measures the fused layernorm at L GB/s and a plain in-place
  // stream at 4,265.5 GB/s: the kernel reaches f = L / 4,265.5 of the
  // stream (about 0.53). b200.json measures only the stream, 6,721 GB/s, so
  // 1 GB through a B200 layernorm takes 1e9 / (f x 6,721e9) s, where the
  // table alone would give the stream's 1e9 / 6,721e9 s.
  const CalibrationTable h200 = load_calibration(kH200Table);
  double layernorm_GBps = 0;
  for (const auto& [op, gbps] : h200.elementwise_GBps)
    if (op == "layernorm") layernorm_GBps = gbps;
  ASSERT_GT(layernorm_GBps, 0);
  const double f = layernorm_GBps / h200.memory_GBps_rw;
  EXPECT_GT(f, 0.4);
  EXPECT_LT(f, 0.7);

  CalibrationTable b200 = load_calibration(shipped("b200.json"));
  const ComputeModel alone = make_compute_model(find_accelerator("B200"), &b200);
  borrow_kernel_rates(b200, h200);
  const ComputeModel borrowed = make_compute_model(find_accelerator("B200"), &b200);
  const Bytes gb(1'000'000'000);
  using K = ComputeModel::Kernel;
  EXPECT_NEAR(alone.elementwise(K::kNorm, gb).seconds(), 1e9 / 6721e9, 1e-9);
  EXPECT_NEAR(borrowed.elementwise(K::kNorm, gb).seconds(), 1e9 / (f * 6721e9), 1e-8);
  // Plain streams (an FP8 cast, an embedding lookup) keep the stream's rate.
  EXPECT_EQ(borrowed.memory_bound(gb), alone.memory_bound(gb));
  EXPECT_NE(borrowed.describe().find("fractions of the streaming rate measured in " + kH200Table +
                                    ", applied to the stream measured on NVIDIA B200 (6721 GB/s read plus written)"),
            std::string::npos)
      << borrowed.describe();
}

// The mean time of every "gemm" row of one shape (8192^3 appears twice:
// as a square and as a Llama-3-70B shard).
double named_mean_seconds(const CalibrationTable& t, Precision p, int64_t m, int64_t n, int64_t k) {
  double sum = 0;
  int rows = 0;
  for (const auto& g : t.gemms)
    if (!g.from_grid && g.dtype == p && g.m == m && g.n == n && g.k == k) sum += g.seconds, ++rows;
  EXPECT_GT(rows, 0);
  return rows ? sum / rows : 0;
}

TEST(Peaks, OnTheH200ItsPeaksRooflineWithItsOwnShapeRatiosReproducesItsMeasurements) {
  // The roofline from the H200's best rows alone runs a model's shapes
  // faster than the H200 measured them (its best bf16 row reaches 83% of
  // peak, 8192 x 8192 x 8192 69%). The ratios borrow_roofline_shortfall lends
  // are that roofline's time over the measured time, so on the H200 itself
  // they give back each measured shape.
  const CalibrationTable h200 = load_calibration(kH200Table);
  CalibrationTable peaks = peaks_of(h200);
  const ComputeModel bare = make_compute_model(find_accelerator("H200"), &peaks);
  borrow_roofline_shortfall(peaks, h200);
  ASSERT_FALSE(peaks.gemm_of_roofline.empty());
  const ComputeModel lent = make_compute_model(find_accelerator("H200"), &peaks);
  // 8192^3 was measured both as a named row and on the grid: the named row wins.
  const double measured = named_mean_seconds(h200, Precision::kBf16, 8192, 8192, 8192);
  EXPECT_NEAR(lent.gemm(8192, 8192, 8192, Precision::kBf16).seconds() / measured, 1.0, 1e-9);
  EXPECT_LT(bare.gemm(8192, 8192, 8192, Precision::kBf16).seconds(), 0.9 * measured);
  // A model shape off the lattice (Llama-3-70B's down projection at 4096
  // tokens) and an fp8 one.
  EXPECT_NEAR(lent.gemm(4096, 8192, 28672, Precision::kBf16).seconds() /
                  named_mean_seconds(h200, Precision::kBf16, 4096, 8192, 28672),
              1.0, 1e-9);
  EXPECT_NEAR(lent.gemm(4096, 8192, 28672, Precision::kFp8).seconds() /
                  named_mean_seconds(h200, Precision::kFp8, 4096, 8192, 28672),
              1.0, 1e-9);
  // Flash attention (causal, seq 16384, 16 heads, head_dim 128): the
  // roofline puts the softmax's exps beside the matmuls and no more, so its
  // backward (five matmuls to one exp) comes out faster than measured; with
  // the lent ratios both passes are the measured ones.
  double fwd = 0, bwd = 0;
  int rows = 0;
  for (const auto& a : h200.attention)
    if (a.causal && a.seq == 16384 && a.heads == 16 && a.head_dim == 128)
      fwd += a.fwd_seconds, bwd += a.fwd_bwd_seconds - a.fwd_seconds, ++rows;
  ASSERT_GT(rows, 0);
  EXPECT_LT(bare.attention_bwd(1, 16384, 16, 128, true).seconds(), bwd / rows);
  EXPECT_NEAR(lent.attention_fwd(1, 16384, 16, 128, true).seconds() / (fwd / rows), 1.0, 1e-9);
  EXPECT_NEAR(lent.attention_bwd(1, 16384, 16, 128, true).seconds() / (bwd / rows), 1.0, 1e-9);
}

TEST(Peaks, ABlackwellGemmFallsShortOfItsRooflineAsTheH200sDidAtThatShape) {
  // b200.json's plateau is its best searched shape (77.6% bf16). At
  // 8192 x 8192 x 8192 the H200's roofline from its own best rows is r of
  // its measured time; the B200's roofline time at that shape is divided by
  // the same r.
  const CalibrationTable h200 = load_calibration(kH200Table);
  CalibrationTable peaks = peaks_of(h200);
  const double r = make_compute_model(find_accelerator("H200"), &peaks).gemm(8192, 8192, 8192, Precision::kBf16).seconds() /
                   named_mean_seconds(h200, Precision::kBf16, 8192, 8192, 8192);
  EXPECT_LT(r, 0.9);
  CalibrationTable b200 = load_calibration(shipped("b200.json"));
  const ComputeModel alone = make_compute_model(find_accelerator("B200"), &b200);
  borrow_roofline_shortfall(b200, h200);
  const ComputeModel lent = make_compute_model(find_accelerator("B200"), &b200);
  EXPECT_NEAR(lent.gemm(8192, 8192, 8192, Precision::kBf16).seconds(),
              alone.gemm(8192, 8192, 8192, Precision::kBf16).seconds() / r, 1e-12);
  EXPECT_NE(lent.describe().find("each GEMM and attention shape off that roofline as far as " + kH200Table), std::string::npos);
  // A fully measured table lends nothing to another, nor takes anything.
  CalibrationTable full = load_calibration(kH200Table);
  borrow_roofline_shortfall(full, h200);
  EXPECT_TRUE(full.gemm_of_roofline.empty());
}

// A table of peaks that measured its own part's flash attention prices
// attention at that measurement, not at the shortfall the H200's table
// lends. mi300x.json's rows are aiter's asm kernels; at batch 1, 64 query
// heads and seq 8192 (causal, head_dim 128) it has two rows (8 and 4 KV
// heads): forward 518.29 and 519.32 TFLOP/s of 4 x 8192^2 x 64 x 128 / 2
// = 1.0995 TFLOP, backward 481.895 and 480.06 of 2.5 times that. The model
// gives the mean of the two rows' times.
TEST(Peaks, ATableOfPeaksThatMeasuredAttentionPricesItsOwnKernels) {
  const CalibrationTable h200 = load_calibration(kH200Table);
  CalibrationTable mi300x = load_calibration(shipped("mi300x.json"));
  ASSERT_TRUE(mi300x.peaks_only);
  ASSERT_FALSE(mi300x.attention.empty());
  CalibrationTable bare = mi300x;
  bare.attention.clear();
  borrow_roofline_shortfall(bare, h200);
  const ComputeModel lent = make_compute_model(find_accelerator("MI300X"), &bare);
  own_attention_shortfall(mi300x);
  borrow_roofline_shortfall(mi300x, h200);  // GEMMs lent, the part's own attention kept
  const ComputeModel own = make_compute_model(find_accelerator("MI300X"), &mi300x);
  const double flops = 4.0 * 8192 * 8192 * 64 * 128 / 2;
  const double fwd = (flops / 518.29e12 + flops / 519.32e12) / 2;
  const double bwd = (2.5 * flops / 481.895e12 + 2.5 * flops / 480.06e12) / 2;
  EXPECT_NEAR(own.attention_fwd(1, 8192, 64, 128, true).seconds() / fwd, 1.0, 1e-6);
  EXPECT_NEAR(own.attention_bwd(1, 8192, 64, 128, true).seconds() / bwd, 1.0, 1e-6);
  // The H200's shortfall, lent, prices the MI300X forward within 10% of
  // aiter's kernels (1.25x faster while the exponentials were priced after
  // the matmuls, not beside them), but not as its own rows do.
  const double lent_fwd = lent.attention_fwd(1, 8192, 64, 128, true).seconds();
  EXPECT_NEAR(lent_fwd / fwd, 1.0, 0.1);
  EXPECT_GT(std::abs(lent_fwd / fwd - 1.0), 0.01);
  EXPECT_EQ(own.gemm(8192, 8192, 8192, Precision::kBf16), lent.gemm(8192, 8192, 8192, Precision::kBf16));
  EXPECT_NE(own.describe().find("each GEMM shape off that roofline as far as " + kH200Table), std::string::npos);
  EXPECT_NE(own.describe().find("flash attention off that roofline as far as the kernels measured in " + mi300x.source),
            std::string::npos);
  // The MI325X (the same die, no attention rows) takes the MI300X's
  // shortfall at its own, higher plateau (64.5% against 54.2% of the same
  // peak): its kernels, at the clock its 1,000 W allow.
  CalibrationTable mi325x = load_calibration(shipped("mi325x.json"));
  borrow_roofline_shortfall(mi325x, h200);
  borrow_attention_shortfall(mi325x, load_calibration(shipped("mi300x.json")));
  EXPECT_EQ(mi325x.attention_of_roofline_source, mi300x.source);
  const ComputeModel mi325 = make_compute_model(find_accelerator("MI325X"), &mi325x);
  const double speedup = own.attention_fwd(1, 8192, 64, 128, true).seconds() /
                         mi325.attention_fwd(1, 8192, 64, 128, true).seconds();
  EXPECT_GT(speedup, 1.1);
  EXPECT_LT(speedup, 1.25);
  // A fully measured table keeps its own interpolation: nothing to do.
  CalibrationTable full = load_calibration(kH200Table);
  own_attention_shortfall(full);
  EXPECT_TRUE(full.attention_of_roofline.empty());
}

// A family's table may carry attention its sibling timed (b300.json holds
// the GB300's cuDNN rows): those rows fell short of the sibling's roofline,
// the table's efficiencies at the sibling's peaks, and the part the table
// prices takes that shortfall at its own. Rows that are exactly the GB300
// roofline's times then leave the B300 at its own roofline; read as the
// B300's own they would become the B300's times, faster than its roofline
// by the two rooflines' ratio, about the datasheets' 2,500 / 2,250 BF16.
TEST(Peaks, AttentionTimedOnASiblingFallsShortOfThatSiblingsRoofline) {
  CalibrationTable b300 = load_calibration(shipped("b300.json"));
  ASSERT_EQ(b300.attention_gpu_name, "NVIDIA GB300");
  CalibrationTable peaks = peaks_of(b300);
  const ComputeModel gb300 = make_compute_model(find_accelerator("GB300"), &peaks);
  const ComputeModel alone = make_compute_model(find_accelerator("B300"), &peaks);
  b300.attention.clear();
  for (int64_t seq : {2048, 8192}) {
    const double fwd = gb300.attention_fwd(1, seq, 128, 160, true).seconds();
    b300.attention.push_back({seq, 128, 160, true, fwd, fwd + gb300.attention_bwd(1, seq, 128, 160, true).seconds()});
  }
  CalibrationTable as_own = b300;
  as_own.attention_gpu_name.clear();
  own_attention_shortfall(b300);
  own_attention_shortfall(as_own);
  const ComputeModel sibling = make_compute_model(find_accelerator("B300"), &b300);
  const ComputeModel own = make_compute_model(find_accelerator("B300"), &as_own);
  const double roofline = alone.attention_fwd(1, 8192, 128, 160, true).seconds();
  EXPECT_NEAR(sibling.attention_fwd(1, 8192, 128, 160, true).seconds() / roofline, 1.0, 1e-9);
  // Read as the B300's own, the GB300's times become the B300's.
  const double gb300_fwd = gb300.attention_fwd(1, 8192, 128, 160, true).seconds();
  EXPECT_NEAR(own.attention_fwd(1, 8192, 128, 160, true).seconds() / gb300_fwd, 1.0, 1e-9);
  EXPECT_NEAR(gb300_fwd / roofline, 2250.0 / 2500.0, 0.02);
}

// Where a part's own attention rows span few shapes (gb200.json: cuDNN at
// 128 heads of width 160 only), a shape outside their box takes the rows'
// shortfall at the nearest shape they measured, moved as the lent table's
// shortfall moves from that shape to this one. Lent ratios of 1.0 at 128
// heads and 0.5 at 8 heads halve the rate at 8 heads (twice the time) and
// leave 128 heads, inside the rows' box, as the rows set it.
TEST(Peaks, OwnAttentionRowsAreCarriedPastTheirShapesAsTheLentTableFallsOff) {
  CalibrationTable gb200 = load_calibration(shipped("gb200.json"));
  ASSERT_FALSE(gb200.attention.empty());
  own_attention_shortfall(gb200);
  ASSERT_FALSE(gb200.attention_of_roofline_source.empty());
  const ComputeModel rows_only = make_compute_model(find_accelerator("GB200"), &gb200);
  gb200.attention_lent_of_roofline = {{8192, 128, 128, 1.0, 1.0}, {8192, 8, 128, 0.5, 0.25}};
  gb200.of_roofline_source = "lent.json";
  const ComputeModel carried = make_compute_model(find_accelerator("GB200"), &gb200);
  EXPECT_NEAR(carried.attention_fwd(1, 8192, 8, 160, true).seconds() /
                  rows_only.attention_fwd(1, 8192, 8, 160, true).seconds(),
              2.0, 1e-6);
  EXPECT_NEAR(carried.attention_bwd(1, 8192, 8, 160, true).seconds() /
                  rows_only.attention_bwd(1, 8192, 8, 160, true).seconds(),
              4.0, 1e-6);
  EXPECT_NEAR(carried.attention_fwd(1, 8192, 128, 160, true).seconds() /
                  rows_only.attention_fwd(1, 8192, 128, 160, true).seconds(),
              1.0, 1e-12);
  EXPECT_NE(carried.describe().find("at shapes those did not measure as lent.json's shortfall moves from the nearest "
                                    "measured one"),
            std::string::npos)
      << carried.describe();
  // The shipped path: the H200's table lends its ratios beside the rows, and
  // 8 heads of 128 at 2K tokens (a CP 4 shard of an 8B model on TP 4), outside
  // the rows' box, is priced off them, not at the rows' 128-head shortfall.
  CalibrationTable shipped_rows = load_calibration(shipped("gb200.json"));
  own_attention_shortfall(shipped_rows);
  borrow_roofline_shortfall(shipped_rows, load_calibration(kH200Table));
  ASSERT_FALSE(shipped_rows.attention_lent_of_roofline.empty());
  const ComputeModel lent = make_compute_model(find_accelerator("GB200"), &shipped_rows);
  EXPECT_GT(lent.attention_fwd(1, 2048, 8, 128, true).seconds() / rows_only.attention_fwd(1, 2048, 8, 128, true).seconds(),
            1.01);
}

TEST(Peaks, ATableWithItsOwnKernelRatesBorrowsNone) {
  CalibrationTable h200 = load_calibration(kH200Table);
  const CalibrationTable other = load_calibration(kH200Table);
  borrow_kernel_rates(h200, other);
  EXPECT_TRUE(h200.elementwise_of_stream.empty());
}

TEST(Peaks, ATableOfPeaksNeedsABf16GemmRowAndNothingElse) {
  const std::string ok = write_temp("peaks_ok.json", R"({"meta": {"name": "NVIDIA B200"},
      "gemm": [{"dtype": "bf16", "m": 8192, "n": 8192, "k": 8192, "s": 0.001}]})");
  EXPECT_TRUE(load_calibration(ok).peaks_only);
  const std::string no_bf16 = write_temp("peaks_fp8.json", R"({"meta": {"name": "NVIDIA B200"},
      "gemm": [{"dtype": "fp8", "m": 8192, "n": 8192, "k": 8192, "s": 0.001}]})");
  try {
    load_calibration(no_bf16);
    FAIL() << "expected InputError";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().field, "gemm");
  }
}

TEST(Peaks, EachFamilyShipsATableAndGb200AndMi325xTheirOwn) {
  EXPECT_EQ(find_architecture("blackwell").calibration_table, "b200.json");
  EXPECT_EQ(find_architecture("blackwell-ultra").calibration_table, "b300.json");
  EXPECT_EQ(find_architecture("cdna3").calibration_table, "mi300x.json");
  EXPECT_EQ(find_architecture("cdna4").calibration_table, "mi355x.json");
  EXPECT_EQ(find_accelerator("GB200").calibration_table, "gb200.json");
  EXPECT_EQ(find_accelerator("MI325X").calibration_table, "mi325x.json");
  EXPECT_EQ(find_accelerator("B200").calibration_table, "");
}

TEST(Peaks, AFamilysPrecisionRatioTableIsAShippedTableOfPeaksWithLowPrecisionRows) {
  // Both Blackwell generations lend FP4's ratio from the B200's table, the
  // only one with NVFP4 rows; CDNA 4 lends FP8's from the MI300X's, the
  // only AMD table with FP8 rows besides the MI325X's. A family that names
  // one names a table of peaks that measured fp8 or fp4, or the lending
  // would be a no-op.
  EXPECT_EQ(find_architecture("blackwell").precision_ratio_table, "b200.json");
  EXPECT_EQ(find_architecture("blackwell-ultra").precision_ratio_table, "b200.json");
  EXPECT_EQ(find_architecture("cdna4").precision_ratio_table, "mi300x.json");
  for (const Architecture& a : architectures()) {
    if (a.precision_ratio_table.empty()) continue;
    const CalibrationTable t = load_calibration(shipped(a.precision_ratio_table));
    EXPECT_TRUE(t.peaks_only) << a.family;
    EXPECT_TRUE(std::any_of(t.gemms.begin(), t.gemms.end(),
                            [](const CalibrationTable::Gemm& g) {
                              return g.dtype == Precision::kFp8 || g.dtype == Precision::kFp4;
                            }))
        << a.family;
  }
}

TEST(Peaks, Cdna4Fp8RunsAtCdna3sMeasuredRatioToBf16) {
  // MI300X, AMD's own rows: fp8 1,273 / 2,615 = 48.68%, bf16 708 / 1,307 =
  // 54.17%: a ratio of 0.8987. Lent to a CDNA 4 table with bf16 rows only
  // (the MI355X's without its fp8 rows: 1,565 / 2,517 = 62.18%), fp8's
  // plateau is 55.88%; fp4 stays bf16's (the MI300X measured none).
  CalibrationTable mi355x = load_calibration(shipped("mi355x.json"));
  std::erase_if(mi355x.gemms, [](const CalibrationTable::Gemm& g) { return g.dtype == Precision::kFp8; });
  borrow_precision_ratios(mi355x, load_calibration(shipped("mi300x.json")));
  EXPECT_NEAR(mi355x.plateau_over_bf16[static_cast<size_t>(Precision::kFp8)], (1273.0 / 2615) / (708.0 / 1307), 1e-3);
  EXPECT_EQ(mi355x.plateau_over_bf16[static_cast<size_t>(Precision::kFp4)], 0.0);
  const ComputeModel cm = make_compute_model(find_accelerator("MI355X"), &mi355x);
  EXPECT_NE(cm.describe().find("fp8 55.9% (not measured: bf16's x 0.899"), std::string::npos) << cm.describe();
}

}  // namespace
}  // namespace anatomy::hw
