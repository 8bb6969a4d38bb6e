// ComputeModel: the roofline with shape-dependent efficiency, and the
// calibration-table interpolation. See compute_model.h for the contract.
//
// Roofline GEMM (C[m,n] = A[m,k] B[k,n], 2mnk FLOPs). A GEMM kernel cuts C
// into 128x128 output tiles, one per CTA, and runs them in waves over the SMs.
// Each CTA costs its mainloop, 2 x 128 x 128 x k FLOPs at one SM's sustained
// tensor rate, plus a fixed per-tile latency (pipeline fill, exposed
// epilogue). The busiest SM therefore finishes after
//
//   t_compute = waves x (2 x 128 x 128 x k_cta / R_sm + t_tile)
//   R_sm      = peak x plateau / SMs,   waves = ceil(CTAs / SMs)
//
// which is FLOPs / (peak x eff) with eff = plateau x (useful tile slots /
// all slots in the waves) x k_cta / (k_cta + k_0), k_0 = t_tile x R_sm /
// (2 x 128 x 128): wave quantization, tile padding and the small-k penalty
// fall out of one formula. When the tiles cannot fill the SMs, the kernel
// splits k (split-K) and pays an fp32 partial-sum round trip in HBM. The
// memory term moves A, B and C once: (mk + kn + mn) x bytes. Then
//
//   t = max(t_compute, bytes / (HBM x eff_mem)) + t_launch.
//
// Flash attention is the same picture with CTAs = batch x heads x
// ceil(seq / 128) query blocks, and a softmax factor: each score element
// costs 4 x head_dim tensor FLOPs (forward) and one exp on the special
// function unit, which runs at a small fraction of the tensor rate (FA3
// paper: H100 SXM has 989 TFLOP/s of matmul but 3.9 TFLOP/s of exp), beside
// the matmuls: the exp unit limits only where it cannot keep up.
//
// Calibrated: efficiencies (achieved / peak) interpolated in log2 shape space
// over the table's measurements (compute_interpolation.h), then time =
// FLOPs / (eff x this GPU's peak), never faster than the ideal roofline.

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "core/error.h"
#include "hw/catalog.h"
#include "hw/compute_interpolation.h"
#include "hw/compute_model.h"
#include "hw/flash2_rates.h"
#include "hw/link.h"

namespace anatomy::hw {
namespace {

using detail::log2_point;
using detail::LogInterpolator;
using detail::Point;
using detail::ResidualField;

// One kernel boundary: the host's cudaLaunchKernel costs ~2-4 us and the GPU
// adds ~1 us of grid launch, CTA ramp-up and tail drain; a stream fed by an
// eager framework pays about this per kernel. The H200 table's smallest GEMMs
// (16-25 us for under 0.1 GFLOP) show the same floor, with eager dispatch on top.
constexpr double kLaunchSeconds = 4e-6;
// HBM: streaming kernels sustain ~90% of the pin bandwidth (refresh,
// read/write turnarounds, row misses), as STREAM-style copies show on HBM2e/3.
constexpr double kMemoryEfficiency = 0.90;
// Tensor-core mainloop at a fixed clock: well-tuned CUTLASS/cuBLAS/hipBLASLt
// kernels keep the tensor pipes ~90% busy (barriers, address math, issue slots).
constexpr double kMainloopEfficiency = 0.90;
// Output tile per CTA; the smallest tile that still reaches the plateau on
// Ampere, Hopper and CDNA (128x256 tiles need twice the work to fill a wave).
constexpr int64_t kTileM = 128;
constexpr int64_t kTileN = 128;
// Fixed cost per tile: one loaded DRAM round trip (~0.6-0.8 us on HBM) to fill
// the operand pipeline before the first MMA, plus the part of the epilogue's
// store that the next tile does not hide.
constexpr double kTileFixedSeconds = 1e-6;
// Split-K leaves every split at least this much k, so its pipeline still fills.
constexpr int64_t kMinSplitK = 512;
// Flash attention's query block per CTA.
constexpr int64_t kAttentionBlock = 128;
// Attention backward FLOPs over forward: it recomputes S = QK^T and runs dV,
// dP, dQ and dK, five s x s x d matmuls against the forward's two (the
// table's convention too).
constexpr double kBackwardFlopRatio = 2.5;
// Fused AdamW, fp32 master weights and gradients: reads param, grad, m, v and
// writes param, m, v: 7 x 4 bytes per parameter; on bf16 parameters, grads
// and moments the same seven accesses are 2 bytes each.
constexpr double kAdamBytesPerParam = 28;
constexpr double kAdamBf16BytesPerParam = 14;
// fp32 master weights and gradients, bf16 moments: 3 x 4 + 4 x 2 (a master
// weight kept as a bf16 weight and its 16-bit remainder moves 4 bytes too),
// as Transformer Engine's FusedAdam reads and writes them since 2.14; older
// versions copy each bf16 moment to an fp32 temporary and back.
constexpr double kAdamBf16MomentsBytesPerParam = 20;
// Unfused AdamW, its kernels in order as accesses of one state element (4
// bytes with fp32 state, 2 with 16-bit). PyTorch's for-loop AdamW and
// Composer's DecoupledAdamW: param.mul_ (decay) 2, exp_avg.mul_ 2,
// exp_avg.add_(grad) 3, exp_avg_sq.mul_ 2, exp_avg_sq.addcmul_(grad, grad)
// 4, sqrt 2, division by the bias correction 2, add_(eps) 2,
// param.addcdiv_(exp_avg, denom) 4: 23 accesses, 92 bytes with fp32 state.
// PyTorch's foreach AdamW (_multi_tensor_adamw) moves the first moment in
// one _foreach_lerp_ (3) instead of the mul_ and add_: 21 accesses, 84 bytes.
constexpr std::array<int, 9> kForLoopAdamAccesses = {2, 2, 3, 2, 4, 2, 2, 2, 4};
constexpr std::array<int, 8> kForeachAdamAccesses = {2, 3, 2, 4, 2, 2, 2, 4};

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A precision the part has no tensor units for runs at the BF16 rate (what a
// framework's fallback does); callers that care check peak_tflops() first.
Precision runnable(const Accelerator& gpu, Precision p) {
  ANATOMY_CHECK(gpu.bf16_tflops > 0, "accelerator " + gpu.name + " has no BF16 peak");
  return peak_tflops(gpu, p) > 0 ? p : Precision::kBf16;
}

// The accelerator the table was measured on, named in meta.name: a catalog
// one, or the scenario's own when meta.name names it (a table that
// `anatomy calibrate` measured on a part the catalog does not know, such as
// a host CPU).
const Accelerator& table_accelerator(const CalibrationTable& t, const Accelerator& gpu) {
  if (const Accelerator* a = accelerator_named_in(t.gpu_name)) return *a;
  if (!gpu.name.empty() && t.gpu_name.find(gpu.name) != std::string::npos) return gpu;
  throw core::InputError({t.source, 0, "meta.name"}, fmt::format("'{}' names no catalog accelerator (known: {})",
                                                                 t.gpu_name, accelerator_names()));
}

std::string tflops_text(double v) { return fmt::format("{:g}", v); }

// The FP8 kernel's time over the BF16 one's at `seq` for a kernel of head
// width `width`, from the rows of the nearest measured width (in log2; a
// tie takes the narrower) and the same mask (any mask where none has it):
// linear in log2(seq) between the two rows around it, the nearest row's
// outside them. A wider head does more matmul work per exponential, so FP8
// gains more there (DeepSeek-V3's 192 / 128 heads against Llama's 128).
double measured_fp8_over_bf16(const CalibrationTable& t, int64_t seq, int64_t width, bool causal, bool backward) {
  const auto distance = [&](int64_t w) {
    return std::abs(std::log2(static_cast<double>(w)) - std::log2(static_cast<double>(std::max<int64_t>(width, 1))));
  };
  int64_t nearest = t.attention_fp8.front().width;
  for (const auto& a : t.attention_fp8)
    if (distance(a.width) < distance(nearest) || (distance(a.width) == distance(nearest) && a.width < nearest))
      nearest = a.width;
  std::vector<double> xs, ys;  // log2 seq (ascending: the rows are sorted by seq), ratio
  const auto take = [&](bool any_mask) {
    for (const auto& a : t.attention_fp8)
      if (a.width == nearest && (any_mask || a.causal == causal)) {
        xs.push_back(std::log2(static_cast<double>(a.seq)));
        ys.push_back(backward ? a.bwd_over_bf16 : a.fwd_over_bf16);
      }
  };
  take(false);
  if (xs.empty()) take(true);
  return detail::clamped_linear(xs, ys, std::log2(static_cast<double>(std::max<int64_t>(seq, 1))));
}

std::string ratios_borrowed_text(const CalibrationTable& t) {
  const bool own_attention = !t.attention_of_roofline_source.empty();
  std::string text;
  if (!t.gemm_of_roofline.empty())
    text = fmt::format("; each GEMM{} shape off that roofline as far as {} measured it off its own",
                       t.attention_of_roofline.empty() || own_attention ? "" : " and attention", t.of_roofline_source);
  if (own_attention)
    text += fmt::format(
        "; flash attention off that roofline as far as the kernels measured in {}{} fell short of theirs{}",
        t.attention_of_roofline_source,
        t.attention_gpu_name.empty() ? "" : fmt::format(" (timed on {})", t.attention_gpu_name),
        t.attention_lent_of_roofline.empty()
            ? ""
            : fmt::format(", and at shapes those did not measure as {}'s shortfall moves from the nearest measured one",
                          t.of_roofline_source));
  return text;
}

std::string kernels_borrowed_text(const CalibrationTable& t) {
  std::string text;
  // Which stream the fractions are of: the table's own measured one where it
  // has one (scaled by HBM bandwidth to the part it runs), else the generic
  // share of the datasheet's.
  if (!t.elementwise_of_stream.empty())
    text = fmt::format("; memory-bound kernels at the fractions of the streaming rate measured in {}, applied to {}",
                       t.elementwise_of_stream_source,
                       t.memory_GBps_rw > 0
                           ? fmt::format("the stream measured on {} ({:.0f} GB/s read plus written)", t.gpu_name,
                                         t.memory_GBps_rw)
                           : fmt::format("{:.0f}% of this part's datasheet HBM bandwidth", 100 * kMemoryEfficiency));
  if (!t.dropout_lent_by.empty())
    text += fmt::format("; attention dropout at the cost per score element measured in {}", t.dropout_lent_by);
  if (!t.attention_fp8.empty())
    text += "; FP8 flash attention at the table's measured FP8 / BF16 kernel times";
  return text;
}

}  // namespace

// Per-GPU constants of the roofline's efficiency curve.
struct detail::RooflineShape {
  int sms = 132;                 // SMs (NVIDIA) or CUs (AMD)
  double clock_fraction = 0.9;   // sustained tensor clock / the clock the datasheet peak assumes
  double flops_per_exp = 256;    // dense BF16 tensor FLOPs per exp, per clock per SM
  bool assumed = false;          // the part gives no SM count: its family's typical one
  // The plateau per precision (index: Precision) where a table of measured
  // peaks set it; 0: the generic one below.
  std::array<double, 5> measured{};
  // ln(roofline / measured time) by log2 shape, lent by a fully measured
  // table (borrow_roofline_shortfall): bf16 (and fp16), and fp8 (and fp4)
  // where it measured fp8; absent: the roofline as it is.
  std::optional<LogInterpolator> ratio_bf16, ratio_fp8;
  // The same for flash attention by log2 (seq, batch x heads, head_dim).
  std::optional<LogInterpolator> ratio_attn_fwd, ratio_attn_bwd;
  // Where those are a part's own rows: the fully measured table's, which
  // carry them past the box the rows span (CalibrationTable::
  // attention_lent_of_roofline).
  std::optional<LogInterpolator> lent_attn_fwd, lent_attn_bwd;
  double generic() const { return clock_fraction * kMainloopEfficiency; }
  // The lent shortfall at this shape and precision (1: none).
  double roofline_over_measured(int64_t m, int64_t n, int64_t k, Precision p) const {
    const bool low = p == Precision::kFp8 || p == Precision::kFp4;
    const std::optional<LogInterpolator>& f = low && ratio_fp8 ? ratio_fp8 : ratio_bf16;
    return f ? std::exp((*f)(log2_point(m, n, k))) : 1.0;
  }
  double attention_roofline_over_measured(int64_t seq, int64_t batch_heads, int64_t head_dim, bool backward) const {
    const std::optional<LogInterpolator>& f = backward ? ratio_attn_bwd : ratio_attn_fwd;
    if (!f) return 1.0;
    const Point x = log2_point(seq, batch_heads, head_dim);
    const std::optional<LogInterpolator>& lent = backward ? lent_attn_bwd : lent_attn_fwd;
    if (!lent) return std::exp((*f)(x));
    const Point nearest = f->clamp(x);
    return std::exp((*f)(nearest) + (*lent)(x) - (*lent)(nearest));
  }
  double plateau(Precision p) const {
    const double m = measured[static_cast<size_t>(p)];
    return m > 0 ? m : generic();
  }
};

namespace {

// The clock the tensor pipes hold and the softmax unit's rate are the
// family's (hw/architecture.cc says where they come from); the SM count is
// the part's own, or its family's typical count when it gives none.
detail::RooflineShape shape_of(const Accelerator& gpu) {
  detail::RooflineShape s;
  s.clock_fraction = gpu.arch.tensor_clock_fraction;
  s.flops_per_exp = gpu.arch.flops_per_exp;
  s.assumed = gpu.compute_units <= 0;
  s.sms = s.assumed ? gpu.arch.typical_compute_units : gpu.compute_units;
  ANATOMY_CHECK(s.sms > 0, "accelerator " + gpu.name + " has no compute units and its family no typical count");
  return s;
}

}  // namespace

// The calibration table turned into interpolators of achieved rates.
struct detail::CalibratedRates {
  LogInterpolator gemm_bf16;  // ln(achieved / BF16 peak) by (log2 m, log2 n, log2 k)
  ResidualField gemm_fp8;     // ln(FP8 efficiency / BF16 efficiency) by shape
  LogInterpolator attn_fwd;   // ln(achieved TFLOP/s) by (log2 seq, log2 heads, log2 head_dim)
  LogInterpolator attn_bwd;
  double memory_GBps_rw = 0;
  double optimizer_ns_per_param = 0;
  double optimizer_bf16_ns_per_param = 0;
};

namespace {

// One time per (dtype, shape): the mean of the "gemm" rows when any measured
// it, else the mean of the "gemm_grid" rows.
std::map<std::tuple<Precision, int64_t, int64_t, int64_t>, double> gemm_seconds_by_shape(const CalibrationTable& t) {
  struct Times {
    double named = 0, grid = 0;
    int named_n = 0, grid_n = 0;
  };
  std::map<std::tuple<Precision, int64_t, int64_t, int64_t>, Times> times;
  for (const auto& g : t.gemms) {
    Times& x = times[{g.dtype, g.m, g.n, g.k}];
    (g.from_grid ? x.grid : x.named) += g.seconds;
    ++(g.from_grid ? x.grid_n : x.named_n);
  }
  std::map<std::tuple<Precision, int64_t, int64_t, int64_t>, double> out;
  for (const auto& [key, x] : times) out[key] = x.named_n ? x.named / x.named_n : x.grid / x.grid_n;
  return out;
}

// Attention at batch 1, forward and backward alone: the mean of each
// (seq, heads, head_dim, causal) shape's rows.
struct AttentionSeconds {
  double fwd = 0, bwd = 0;
};
std::map<std::tuple<int64_t, int64_t, int64_t, bool>, AttentionSeconds> attention_seconds_by_shape(
    const CalibrationTable& t) {
  std::map<std::tuple<int64_t, int64_t, int64_t, bool>, std::array<double, 3>> sums;  // fwd, bwd, count
  for (const auto& a : t.attention) {
    auto& x = sums[{a.seq, a.heads, a.head_dim, a.causal}];
    x[0] += a.fwd_seconds;
    x[1] += a.fwd_bwd_seconds - a.fwd_seconds;
    x[2] += 1;
  }
  std::map<std::tuple<int64_t, int64_t, int64_t, bool>, AttentionSeconds> out;
  for (const auto& [key, x] : sums) out[key] = {x[0] / x[2], x[1] / x[2]};
  return out;
}

std::shared_ptr<const detail::CalibratedRates> build_calibrated(const CalibrationTable& t, const Accelerator& measured) {
  auto c = std::make_shared<detail::CalibratedRates>();

  const auto times = gemm_seconds_by_shape(t);
  auto efficiency = [&](Precision p, int64_t m, int64_t n, int64_t k, double s) {
    const double peak = peak_tflops(measured, runnable(measured, p)) * 1e12;
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / (s * peak);
  };
  for (const auto& [key, x] : times) {
    const auto& [p, m, n, k] = key;
    if (p == Precision::kBf16) c->gemm_bf16.add(log2_point(m, n, k), std::log(efficiency(p, m, n, k, x)));
  }
  c->gemm_bf16.finish();
  // FP8 as a correction on the BF16 efficiency: near a measured FP8 shape its
  // own measurement; elsewhere the mean FP8/BF16 ratio the table shows (FP8
  // tiles finish twice as fast, so fixed costs weigh more), or 1 with no rows.
  double sum = 0;
  int rows = 0;
  for (const auto& [key, x] : times) {
    const auto& [p, m, n, k] = key;
    if (p != Precision::kFp8) continue;
    const Point at = log2_point(m, n, k);
    const double r = std::log(efficiency(p, m, n, k, x)) - c->gemm_bf16(at);
    c->gemm_fp8.add(c->gemm_bf16.clamp(at), r);
    sum += r;
    ++rows;
  }
  if (rows) c->gemm_fp8.set_far(sum / rows);

  // Attention: achieved TFLOP/s, forward and backward alone, batch 1; the
  // rows' causal FLOPs are half the full count, backward 2.5x forward.
  for (const auto& [key, x] : attention_seconds_by_shape(t)) {
    const auto& [seq, heads, head_dim, causal] = key;
    const Point at = log2_point(seq, heads, head_dim);
    c->attn_fwd.add(at, std::log(attention_flops(1, seq, heads, head_dim, causal, false) / x.fwd / 1e12));
    c->attn_bwd.add(at, std::log(attention_flops(1, seq, heads, head_dim, causal, true) / x.bwd / 1e12));
  }
  c->attn_fwd.finish();
  c->attn_bwd.finish();
  c->memory_GBps_rw = t.memory_GBps_rw;
  c->optimizer_ns_per_param = t.optimizer_ns_per_param;
  // A table without bf16 rows: the fp32 rate over the bytes each moves.
  c->optimizer_bf16_ns_per_param = t.optimizer_bf16_ns_per_param > 0
                                       ? t.optimizer_bf16_ns_per_param
                                       : t.optimizer_ns_per_param * kAdamBf16BytesPerParam / kAdamBytesPerParam;
  return c;
}

}  // namespace

namespace {

// The highest efficiency (achieved / that precision's datasheet peak on
// `measured`, the part that ran them) a table's rows reach, and how many
// rows each precision has; index Precision.
struct BestEfficiencies {
  std::array<double, 5> efficiency{};
  std::array<int, 5> rows{};
};
BestEfficiencies best_efficiencies(const CalibrationTable& t, const Accelerator& measured) {
  BestEfficiencies b;
  for (const auto& g : t.gemms) {
    const double peak = peak_tflops(measured, g.dtype) * 1e12;
    if (peak <= 0) continue;
    const double eff = 2.0 * static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k) /
                       (g.seconds * peak);
    const auto i = static_cast<size_t>(g.dtype);
    b.efficiency[i] = std::max(b.efficiency[i], std::min(1.0, eff));
    ++b.rows[i];
  }
  return b;
}

// A table of measured peaks: each precision's plateau is the highest
// efficiency its rows reach on the GPU they were measured on. Those rows
// are maximum-achievable matmul rates (the best shape a search found, or
// the best of a sweep): the plateau the efficiency curve tends to, below
// which tiles, waves and small k still cost what the roofline says. A
// precision without rows takes BF16's, times the ratio another part of the
// generation measured where one was lent (borrow_precision_ratios). Returns
// the text that names them ("bf16 77.6% (1 row), ...").
std::string set_measured_plateaus(detail::RooflineShape& s, const CalibrationTable& t, const Accelerator& measured) {
  const BestEfficiencies best = best_efficiencies(t, measured);
  s.measured = best.efficiency;
  const std::array<int, 5>& rows = best.rows;
  const auto bf16 = static_cast<size_t>(Precision::kBf16);
  ANATOMY_CHECK(rows[bf16] > 0, "a table of peaks has a bf16 row (the loader checks)");
  std::string text;
  for (Precision p : {Precision::kBf16, Precision::kFp8, Precision::kFp4}) {
    const auto i = static_cast<size_t>(p);
    const double lent = t.plateau_over_bf16[i];
    if (!rows[i]) s.measured[i] = std::min(1.0, s.measured[bf16] * (lent > 0 ? lent : 1.0));
    if (peak_tflops(measured, p) <= 0) continue;
    std::string how;
    if (rows[i])
      how = fmt::format(" ({} row{})", rows[i], rows[i] > 1 ? "s" : "");
    else if (lent > 0)
      how = fmt::format(" (not measured: bf16's x {:.3f}, the {} / bf16 plateau measured in {})", lent, to_string(p),
                        t.plateau_over_bf16_source);
    else
      how = " (not measured: bf16's)";
    text += fmt::format("{}{} {:.1f}%{}", text.empty() ? "" : ", ", to_string(p), 100 * s.measured[i], how);
  }
  s.measured[static_cast<size_t>(Precision::kFp16)] = s.measured[bf16];
  return text;
}

// (gpu's board power / measured's)^exponent for a family whose clocks follow
// the power limit; 1 where that does not apply.
double power_carry(const Accelerator& gpu, const Accelerator& measured) {
  const double exponent = gpu.arch.gemm_power_exponent;
  if (exponent <= 0 || gpu.name == measured.name || gpu.tdp_watts <= 0 || measured.tdp_watts <= 0 ||
      gpu.tdp_watts == measured.tdp_watts)
    return 1.0;
  return std::pow(gpu.tdp_watts / measured.tdp_watts, exponent);
}

// A table of peaks measured on another part of a family whose GEMMs run at
// the clock the board's power limit allows (Architecture::
// gemm_power_exponent): what carries over is the rate at that power, scaled
// by the two board powers, not the fraction of a datasheet peak that assumes
// a boost clock neither part holds. Returns the text that says so ("" when
// it does not apply). `power` is power_carry(gpu, measured).
std::string carry_plateaus_by_power(detail::RooflineShape& s, const Accelerator& gpu, const Accelerator& measured,
                                    double power) {
  if (power == 1.0) return "";
  const double exponent = gpu.arch.gemm_power_exponent;
  for (Precision p : {Precision::kBf16, Precision::kFp16, Precision::kFp8, Precision::kFp4}) {
    const double ours = peak_tflops(gpu, p), theirs = peak_tflops(measured, p);
    if (ours <= 0 || theirs <= 0) continue;
    auto& m = s.measured[static_cast<size_t>(p)];
    m = std::min(1.0, m * theirs / ours * power);
  }
  return fmt::format(
      "; each rate carried from the {}'s {:.0f} W to the {}'s {:.0f} W by ({:.0f} / {:.0f})^{:.2f} = {:.3f}, as "
      "{} GEMMs run at the clock the power limit allows: bf16 {:.1f}% of this part's peak; in a training step, "
      "which holds the board at that limit, its memory-bound kernels at the same {:.3f} of their rate, as the power "
      "manager sets the memory clocks from the same budget",
      measured.name, measured.tdp_watts, gpu.name, gpu.tdp_watts, gpu.tdp_watts, measured.tdp_watts, exponent, power,
      gpu.arch.description, 100 * s.measured[static_cast<size_t>(Precision::kBf16)], power);
}

void set_lent_ratios(detail::RooflineShape& s, const CalibrationTable& t) {
  LogInterpolator bf16, fp8;
  bool any_bf16 = false, any_fp8 = false;
  for (const auto& r : t.gemm_of_roofline) {
    const bool low = r.dtype == Precision::kFp8;
    (low ? fp8 : bf16).add(log2_point(r.m, r.n, r.k), std::log(r.roofline_over_measured));
    (low ? any_fp8 : any_bf16) = true;
  }
  if (any_bf16) bf16.finish(), s.ratio_bf16 = std::move(bf16);
  if (any_fp8) fp8.finish(), s.ratio_fp8 = std::move(fp8);
  if (t.attention_of_roofline.empty()) return;
  const auto interpolators = [](const std::vector<CalibrationTable::AttentionRatio>& rows) {
    LogInterpolator fwd, bwd;
    for (const auto& r : rows) {
      fwd.add(log2_point(r.seq, r.heads, r.head_dim), std::log(r.fwd_roofline_over_measured));
      bwd.add(log2_point(r.seq, r.heads, r.head_dim), std::log(r.bwd_roofline_over_measured));
    }
    fwd.finish(), bwd.finish();
    return std::pair{std::move(fwd), std::move(bwd)};
  };
  std::tie(s.ratio_attn_fwd, s.ratio_attn_bwd) = interpolators(t.attention_of_roofline);
  // Without rows of its own the lent ratios are attention_of_roofline
  // already, and moving them by themselves would change nothing.
  if (!t.attention_of_roofline_source.empty() && !t.attention_lent_of_roofline.empty())
    std::tie(s.lent_attn_fwd, s.lent_attn_bwd) = interpolators(t.attention_lent_of_roofline);
}

// `roofline`'s time over the time `t` measured, for each causal attention
// shape `t` has (a training step's attention is causal), forward and backward.
std::vector<CalibrationTable::AttentionRatio> attention_of_roofline(const ComputeModel& roofline,
                                                                  const CalibrationTable& t) {
  std::vector<CalibrationTable::AttentionRatio> out;
  for (const auto& [key, x] : attention_seconds_by_shape(t)) {
    const auto& [seq, heads, head_dim, causal] = key;
    if (!causal) continue;
    out.push_back({seq, heads, head_dim, roofline.attention_fwd(1, seq, heads, head_dim, true).seconds() / x.fwd,
                   roofline.attention_bwd(1, seq, heads, head_dim, true).seconds() / x.bwd});
  }
  return out;
}

}  // namespace

CalibrationTable peaks_of(const CalibrationTable& t) {
  CalibrationTable peaks;
  peaks.source = t.source;
  peaks.gpu_name = t.gpu_name;
  peaks.peaks_only = true;
  for (Precision p : {Precision::kBf16, Precision::kFp8}) {
    const CalibrationTable::Gemm* best = nullptr;
    double best_rate = 0;
    for (const auto& g : t.gemms) {
      const double rate = static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k) / g.seconds;
      if (g.dtype == p && rate > best_rate) best = &g, best_rate = rate;
    }
    if (best) peaks.gemms.push_back(*best);
  }
  return peaks;
}

void borrow_roofline_shortfall(CalibrationTable& to, const CalibrationTable& from) {
  if (!to.peaks_only || from.peaks_only) return;
  const Accelerator* measured = accelerator_named_in(from.gpu_name);
  if (!measured) return;
  // `from` as a table of peaks: its best bf16 and fp8 rows set the plateau.
  const CalibrationTable peaks = peaks_of(from);
  if (peaks.gemms.empty() || peaks.gemms.front().dtype != Precision::kBf16) return;
  const ComputeModel roofline = make_compute_model(*measured, &peaks);
  // One ratio per (precision, shape), over its measured time as the
  // calibrated model reads it.
  to.gemm_of_roofline.clear();
  for (const auto& [key, seconds] : gemm_seconds_by_shape(from)) {
    const auto& [p, m, n, k] = key;
    if (p != Precision::kBf16 && p != Precision::kFp8) continue;
    to.gemm_of_roofline.push_back({p, m, n, k, roofline.gemm(m, n, k, p).seconds() / seconds});
  }
  to.of_roofline_source = from.source;
  // Attention: in place of `to`'s own where it measured none; beside them,
  // to carry them past the shapes they span.
  to.attention_lent_of_roofline = attention_of_roofline(roofline, from);
  if (to.attention_of_roofline_source.empty()) to.attention_of_roofline = to.attention_lent_of_roofline;
}

void own_attention_shortfall(CalibrationTable& t) {
  if (!t.peaks_only || t.attention.empty()) return;
  const Accelerator* measured =
      accelerator_named_in(t.attention_gpu_name.empty() ? t.gpu_name : t.attention_gpu_name);
  if (!measured) return;
  // The roofline those rows fell short of: this table's own best GEMMs, at
  // the peaks of the part that ran them (the efficiencies a sibling part
  // takes from this table).
  const CalibrationTable peaks = peaks_of(t);
  if (peaks.gemms.empty() || peaks.gemms.front().dtype != Precision::kBf16) return;
  std::vector<CalibrationTable::AttentionRatio> own = attention_of_roofline(make_compute_model(*measured, &peaks), t);
  if (own.empty()) return;
  t.attention_of_roofline = std::move(own);
  t.attention_of_roofline_source = t.source;
}

void borrow_attention_shortfall(CalibrationTable& to, const CalibrationTable& family) {
  if (!to.peaks_only || !to.attention.empty()) return;
  CalibrationTable own = family;
  own_attention_shortfall(own);
  if (own.attention_of_roofline_source.empty()) return;
  to.attention_of_roofline = std::move(own.attention_of_roofline);
  to.attention_of_roofline_source = own.attention_of_roofline_source;
}

void borrow_precision_ratios(CalibrationTable& to, const CalibrationTable& from) {
  if (!to.peaks_only || !from.peaks_only) return;
  const Accelerator* measured = accelerator_named_in(from.gpu_name);
  if (!measured) return;
  const BestEfficiencies theirs = best_efficiencies(from, *measured);
  const auto bf16 = static_cast<size_t>(Precision::kBf16);
  if (theirs.rows[bf16] == 0 || theirs.efficiency[bf16] <= 0) return;
  for (Precision p : {Precision::kFp8, Precision::kFp4}) {
    const auto i = static_cast<size_t>(p);
    const bool own_rows =
        std::any_of(to.gemms.begin(), to.gemms.end(), [p](const CalibrationTable::Gemm& g) { return g.dtype == p; });
    if (own_rows || theirs.rows[i] == 0) continue;
    to.plateau_over_bf16[i] = theirs.efficiency[i] / theirs.efficiency[bf16];
    to.plateau_over_bf16_source = fmt::format("{} ({})", from.source, from.gpu_name);
  }
}

ComputeModel make_compute_model(const Accelerator& gpu, const CalibrationTable* table) {
  ComputeModel cm;
  cm.gpu_ = gpu;
  cm.shape_ = std::make_shared<const detail::RooflineShape>(shape_of(gpu));
  // Held here: a peaks-only table replaces cm.shape_ below, and the
  // description still reads the datasheet's shape.
  const std::shared_ptr<const detail::RooflineShape> datasheet_shape = cm.shape_;
  const auto& shape = *datasheet_shape;
  if (!table) {
    cm.description_ = fmt::format(
        "roofline over the {} datasheet ({} TFLOP/s BF16, {} HBM), GEMM efficiency by shape ({} {}{}, "
        "{}x{} tiles, {:.0f}% plateau)",
        gpu.part, tflops_text(gpu.bf16_tflops), core::format_bytes_rate(gpu.hbm_bandwidth), shape.sms,
        gpu.arch.compute_unit_name, shape.assumed ? " assumed" : "", kTileM, kTileN,
        100 * shape.generic());
    return cm;
  }
  const Accelerator& measured = table_accelerator(*table, gpu);
  cm.table_ = std::make_shared<const CalibrationTable>(*table);
  cm.table_peak_scale_ = gpu.bf16_tflops / measured.bf16_tflops;
  cm.table_hbm_scale_ = gpu.hbm_bandwidth / measured.hbm_bandwidth;
  if (table->peaks_only) {
    auto measured_shape = std::make_shared<detail::RooflineShape>(shape);
    std::string plateaus = set_measured_plateaus(*measured_shape, *table, measured);
    cm.memory_pace_ = power_carry(gpu, measured);
    // After set_measured_plateaus: it scales those plateaus.
    plateaus += carry_plateaus_by_power(*measured_shape, gpu, measured, cm.memory_pace_);
    set_lent_ratios(*measured_shape, *table);
    cm.shape_ = measured_shape;
    cm.description_ = fmt::format(
        "roofline over the {} datasheet ({} TFLOP/s BF16, {} HBM), GEMM efficiency by shape ({} {}{}, {}x{} "
        "tiles) up to the plateau measured on {} ({}): {}",
        gpu.part, tflops_text(gpu.bf16_tflops), core::format_bytes_rate(gpu.hbm_bandwidth), shape.sms,
        gpu.arch.compute_unit_name, shape.assumed ? " assumed" : "", kTileM, kTileN, table->gpu_name, table->source,
        plateaus) + ratios_borrowed_text(*table) + kernels_borrowed_text(*table);
    return cm;
  }
  cm.calibrated_ = build_calibrated(*table, measured);
  // Measured on this very part (or one with the same peak and HBM): the
  // table as it is, nothing scaled.
  if (cm.table_peak_scale_ == 1.0 && cm.table_hbm_scale_ == 1.0) {
    cm.description_ = fmt::format("calibration table {} ({})", table->source, table->gpu_name);
  } else {
    cm.description_ = fmt::format(
        "calibration table {} measured on {}, scaled to {} by peak ({} / {} TFLOP/s BF16) and HBM "
        "bandwidth ({} / {})",
        table->source, table->gpu_name, gpu.part, tflops_text(gpu.bf16_tflops), tflops_text(measured.bf16_tflops),
        core::format_bytes_rate(gpu.hbm_bandwidth), core::format_bytes_rate(measured.hbm_bandwidth));
  }
  cm.description_ += kernels_borrowed_text(*table);
  return cm;
}

SimTime ComputeModel::gemm(int64_t m, int64_t n, int64_t k, Precision p) const {
  ANATOMY_CHECK(m >= 0 && n >= 0 && k >= 0, fmt::format("GEMM {}x{}x{} has a negative dimension", m, n, k));
  ANATOMY_CHECK(shape_ != nullptr, "a ComputeModel comes from make_compute_model()");
  if (m == 0 || n == 0 || k == 0) return SimTime::zero();
  p = runnable(gpu_, p);
  return calibrated_ ? at_pace(table_gemm(m, n, k, p)) : roofline_gemm(m, n, k, p);
}

SimTime ComputeModel::gemm_fp8_blockwise(int64_t m, int64_t n, int64_t k) const {
  const SimTime mma = gemm(m, n, k, Precision::kFp8);
  const Architecture& a = gpu_.arch;
  if (a.mx_formats || a.fp8_flops_per_fp32_fma <= 0 || runnable(gpu_, Precision::kFp8) != Precision::kFp8)
    return mma;
  // The CUDA cores run at the tensor cores' sustained clock.
  const double fma_per_s =
      peak_tflops(gpu_, Precision::kFp8) * 1e12 / a.fp8_flops_per_fp32_fma * a.tensor_clock_fraction * tensor_pace_;
  constexpr int64_t kScaleBlock = 128;
  const double fmas = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(ceil_div(k, kScaleBlock));
  return mma + SimTime::from_seconds(fmas / fma_per_s);
}

SimTime ComputeModel::at_pace(SimTime t) const {
  return tensor_pace_ == 1.0 ? t : SimTime::from_seconds(t.seconds() / tensor_pace_);
}

ComputeModel ComputeModel::paced(double pace, const std::string& why) const {
  ANATOMY_CHECK(pace > 0 && pace <= 1, fmt::format("a kernel pace of {} is not in (0, 1]", pace));
  ComputeModel out = *this;
  if (out.paced_at_ != std::string::npos) out.description_.resize(out.paced_at_);
  out.paced_at_ = out.description_.size();
  out.tensor_pace_ = pace;
  if (!why.empty()) out.description_ += "; " + why;
  return out;
}

ComputeModel ComputeModel::noted(const std::string& note) const {
  ComputeModel out = *this;
  out.description_ += "; " + note;
  return out;
}

double ComputeModel::gemm_efficiency(int64_t m, int64_t n, int64_t k, Precision p) const {
  const SimTime t = gemm(m, n, k, p);
  if (t == SimTime::zero()) return 0;
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  return flops / (t.seconds() * peak_tflops(gpu_, runnable(gpu_, p)) * 1e12);
}

SimTime ComputeModel::roofline_gemm(int64_t m, int64_t n, int64_t k, Precision p) const {
  const detail::RooflineShape& s = *shape_;
  const double peak = peak_tflops(gpu_, p) * 1e12;
  const double sm_rate = peak * s.plateau(p) / s.sms;  // FLOP/s of one SM in the mainloop
  const int64_t tiles = ceil_div(m, kTileM) * ceil_div(n, kTileN);
  int64_t split = 1;
  if (tiles < s.sms) split = std::clamp<int64_t>(s.sms / tiles, 1, std::max<int64_t>(1, k / kMinSplitK));
  const int64_t waves = ceil_div(tiles * split, s.sms);
  const double k_cta = static_cast<double>(k) / static_cast<double>(split);
  const double cta_seconds = 2.0 * kTileM * kTileN * k_cta / sm_rate + kTileFixedSeconds;
  const double compute = static_cast<double>(waves) * cta_seconds / tensor_pace_;

  const double mk = static_cast<double>(m) * static_cast<double>(k);
  const double kn = static_cast<double>(k) * static_cast<double>(n);
  const double mn = static_cast<double>(m) * static_cast<double>(n);
  double bytes = (mk + kn + mn) * bytes_of(p);
  if (split > 1) bytes += 2.0 * static_cast<double>(split) * mn * 4;  // fp32 partials written, then reduced
  const double memory = bytes / (hbm_Bps() * kMemoryEfficiency);
  return SimTime::from_seconds((std::max(compute, memory) + kLaunchSeconds) / s.roofline_over_measured(m, n, k, p));
}

SimTime ComputeModel::table_gemm(int64_t m, int64_t n, int64_t k, Precision p) const {
  const detail::CalibratedRates& c = *calibrated_;
  const Point at = log2_point(m, n, k);
  double ln_eff = c.gemm_bf16(at);
  if (p == Precision::kFp8) ln_eff += c.gemm_fp8(c.gemm_bf16.clamp(at));
  const double peak = peak_tflops(gpu_, p) * 1e12;
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const double measured = flops / (std::exp(ln_eff) * peak);
  // Never faster than the ideal roofline of this GPU (its peak, its HBM).
  const double bytes = (static_cast<double>(m) * static_cast<double>(k) + static_cast<double>(k) * static_cast<double>(n) +
                        static_cast<double>(m) * static_cast<double>(n)) *
                       bytes_of(p);
  const double ideal = std::max(flops / peak, bytes / hbm_Bps()) + kLaunchSeconds;
  return SimTime::from_seconds(std::max(measured, ideal));
}

double sliding_window_tiles(int64_t seq, int64_t window) {
  if (window <= 0 || window >= seq) return 1.0;
  const int64_t blocks = ceil_div(seq, kAttentionBlock);
  int64_t tiles = 0;
  for (int64_t j = 0; j < blocks; ++j) {
    const int64_t earliest = std::max<int64_t>(0, j * kAttentionBlock - (window - 1));
    tiles += j - earliest / kAttentionBlock + 1;
  }
  return static_cast<double>(tiles) / static_cast<double>(blocks * (blocks + 1) / 2);
}

double attention_flops(int64_t batch, int64_t seq, int64_t heads, int64_t head_dim, bool causal, bool backward,
                       int64_t window) {
  const double b = static_cast<double>(batch), s = static_cast<double>(seq), h = static_cast<double>(heads),
               d = static_cast<double>(head_dim);
  // Forward: QK^T and PV, 2 x 2 s^2 d FLOPs per head; causal skips half.
  const double fwd_flops = 4.0 * b * s * s * h * d * (causal ? 0.5 * sliding_window_tiles(seq, window) : 1.0);
  return backward ? kBackwardFlopRatio * fwd_flops : fwd_flops;
}

SimTime ComputeModel::attention_fwd(int64_t batch, int64_t seq, int64_t heads, int64_t head_dim, bool causal,
                                    int64_t window, AttentionKernel kernel, Precision precision) const {
  return attention(batch, seq, heads, head_dim, causal, window, false, kernel, precision);
}

SimTime ComputeModel::attention_bwd(int64_t batch, int64_t seq, int64_t heads, int64_t head_dim, bool causal,
                                    int64_t window, AttentionKernel kernel, Precision precision) const {
  return attention(batch, seq, heads, head_dim, causal, window, true, kernel, precision);
}

SimTime ComputeModel::attention(int64_t batch, int64_t seq, int64_t heads, int64_t head_dim, bool causal,
                                int64_t window, bool backward, AttentionKernel kernel, Precision precision) const {
  ANATOMY_CHECK(batch >= 0 && seq >= 0 && heads >= 0 && head_dim >= 0, "attention dimensions must be non-negative");
  ANATOMY_CHECK(shape_ != nullptr, "a ComputeModel comes from make_compute_model()");
  ANATOMY_CHECK(precision == Precision::kBf16 || precision == Precision::kFp8, "attention runs at bf16 or fp8");
  if (batch == 0 || seq == 0 || heads == 0 || head_dim == 0) return SimTime::zero();
  const SimTime bf16 = attention_bf16(batch, seq, heads, head_dim, causal, window, backward, kernel);
  if (precision == Precision::kBf16) return bf16;
  ANATOMY_CHECK(gpu_.fp8_tflops > 0, "FP8 attention needs FP8 tensor cores, which the " + gpu_.name + " does not have");
  ANATOMY_CHECK(kernel == AttentionKernel::kFlash, "FP8 attention is the part's own flash kernel, not FlashAttention-2");
  if (table_ && !table_->attention_fp8.empty())
    return SimTime::from_seconds(bf16.seconds() * measured_fp8_over_bf16(*table_, seq, head_dim, causal, backward));
  return SimTime::from_seconds(
      bf16.seconds() *
      attention_roofline_seconds(batch, seq, heads, head_dim, causal, window, backward, Precision::kFp8) /
      attention_roofline_seconds(batch, seq, heads, head_dim, causal, window, backward, Precision::kBf16));
}

SimTime ComputeModel::attention_bf16(int64_t batch, int64_t seq, int64_t heads, int64_t head_dim, bool causal,
                                     int64_t window, bool backward, AttentionKernel kernel) const {
  const double b = static_cast<double>(batch), s = static_cast<double>(seq), h = static_cast<double>(heads),
               d = static_cast<double>(head_dim);
  const double flops = attention_flops(batch, seq, heads, head_dim, causal, backward, window);
  // bf16 Q, K, V, O once (forward); Q, K, V, O, dO in and dQ, dK, dV out (backward).
  const double bytes = (backward ? 8.0 : 4.0) * b * s * h * d * 2;
  const double peak = gpu_.bf16_tflops * 1e12;
  const double hbm = hbm_Bps();
  const double ideal = std::max(flops / peak, bytes / hbm) + kLaunchSeconds;

  if (kernel == AttentionKernel::kFlash2 && gpu_.arch.family == "hopper") {
    // Measured on an H100 SXM5; a Hopper part with another peak (H100
    // PCIe, H800) runs the same kernel at its own clock and SM count.
    static const double measured_on = find_accelerator("H100").bf16_tflops;
    const double tflops = flash2_h100_tflops(seq, causal, backward) * gpu_.bf16_tflops / measured_on;
    return at_pace(SimTime::from_seconds(std::max(flops / (tflops * 1e12), ideal)));
  }
  ANATOMY_CHECK(kernel == AttentionKernel::kFlash || gpu_.arch.family == "ampere",
                "FlashAttention-2 is measured on Hopper and native on Ampere, not on " + gpu_.name);

  if (calibrated_) {
    // Flash attention parallelizes over batch x heads, so a batch of b runs at
    // the rate the table measured for b x heads heads (clamped to its range).
    const Point at = log2_point(seq, batch * heads, head_dim);
    const double tflops = std::exp(backward ? calibrated_->attn_bwd(at) : calibrated_->attn_fwd(at));
    const double measured = flops / (tflops * 1e12 * table_peak_scale_);
    return at_pace(SimTime::from_seconds(std::max(measured, ideal)));
  }

  return SimTime::from_seconds(
      attention_roofline_seconds(batch, seq, heads, head_dim, causal, window, backward, Precision::kBf16) /
      shape_->attention_roofline_over_measured(seq, batch * heads, head_dim, backward));
}

double ComputeModel::attention_roofline_seconds(int64_t batch, int64_t seq, int64_t heads, int64_t head_dim,
                                                bool causal, int64_t window, bool backward,
                                                Precision precision) const {
  const double b = static_cast<double>(batch), s = static_cast<double>(seq), h = static_cast<double>(heads),
               d = static_cast<double>(head_dim);
  const double flops = attention_flops(batch, seq, heads, head_dim, causal, backward, window);
  const bool fp8 = precision == Precision::kFp8;
  // Bytes a (batch, seq, head) row of width d: bf16 Q, K, V, O once
  // (forward); Q, K, V, O, dO in and dQ, dK, dV out (backward). FP8: Q, K,
  // V and dO at one byte, O and the gradients 16-bit (Transformer Engine
  // keeps the output 16-bit under current scaling, NVTE_DPA_FP8CS_O_in_F16).
  const double row_bytes = fp8 ? (backward ? 3 * 1 + 2 + 1 + 3 * 2 : 3 * 1 + 2) : (backward ? 8.0 : 4.0) * 2;
  const double bytes = row_bytes * b * s * h * d;
  const double hbm = hbm_Bps();
  // Attention's matmuls run on the same tensor pipes as a GEMM of their
  // precision, at its plateau (the measured one where a table of peaks gives it).
  const detail::RooflineShape& sh = *shape_;
  // Tensor FLOPs per score element: 4d forward, 10d backward; one exp each.
  // The exponentials run beside the matmuls, not after them: they issue on
  // another pipe while other warps' matmuls run, and the kernels schedule
  // it so: FlashAttention-3 ping-pongs two warpgroups so one's softmax
  // overlaps the other's GEMMs (arXiv 2407.08608, 3.1), and FlashAttention-4
  // on SM100 gives softmax its own warps beside the MMA warp and moves part
  // of the exp2s onto the FMA pipes (flash_attn/cute/flash_fwd_sm100.py:
  // num_regs_softmax, ex2_emu_freq). A tile costs the longer of the two; the
  // exp unit limits only where the matmul work per element is below what it
  // can feed (flops_per_exp, counted in BF16 tensor FLOPs: FP8 matmuls,
  // twice as many a clock, need twice the work per exponential). So priced,
  // the H200's shortfall lent to an MI300X lands within 5% of aiter's
  // kernels as its table measured them.
  // The exp unit's pace is the same at any matmul precision: the BF16
  // plateau's rate, scaled by the matmul work an exponential can feed.
  const double matmul_rate = peak_tflops(gpu_, precision) * 1e12 * sh.plateau(precision);
  const double matmul_per_element = (backward ? kBackwardFlopRatio : 1.0) * 4.0 * d;
  const double exp_rate =
      gpu_.bf16_tflops * 1e12 * sh.plateau(Precision::kBf16) * (matmul_per_element / sh.flops_per_exp);
  const double sm_rate = std::min(matmul_rate, exp_rate) / sh.sms;
  const int64_t ctas = batch * heads * ceil_div(seq, kAttentionBlock);
  const int64_t waves = ceil_div(ctas, sh.sms);
  const double cta_seconds = flops / static_cast<double>(ctas) / sm_rate + kTileFixedSeconds;
  const double compute = static_cast<double>(waves) * cta_seconds / tensor_pace_;
  const double memory = bytes / (hbm * kMemoryEfficiency);
  return std::max(compute, memory) + kLaunchSeconds;
}

SimTime ComputeModel::attention_dropout(int64_t batch, int64_t seq, int64_t heads, bool causal, int64_t window,
                                        bool backward) const {
  ANATOMY_CHECK(batch >= 0 && seq >= 0 && heads >= 0, "attention dimensions must be non-negative");
  ANATOMY_CHECK(shape_ != nullptr, "a ComputeModel comes from make_compute_model()");
  if (!table_) return SimTime::zero();
  const double per_score = backward ? table_->dropout_bwd_s_per_score : table_->dropout_fwd_s_per_score;
  const double s = static_cast<double>(seq);
  const double scores = static_cast<double>(batch) * static_cast<double>(heads) * s * s *
                        (causal ? 0.5 * sliding_window_tiles(seq, window) : 1.0);
  // The numbers are drawn on the SMs' ordinary pipes, not the tensor
  // cores: more SMs draw them faster (at a like clock).
  const double sms = table_->dropout_sms > 0 ? static_cast<double>(table_->dropout_sms) / shape_->sms : 1.0;
  return at_pace(SimTime::from_seconds(scores * per_score * sms));
}

int ComputeModel::compute_units() const { return shape_->sms; }

SimTime ComputeModel::elementwise(Kernel k, Bytes bytes_read_plus_written) const {
  const char* name = "";
  switch (k) {
    case Kernel::kNorm: name = "layernorm"; break;  // training uses fused norms (the table's rmsnorm is unfused)
    case Kernel::kResidualAdd: name = "residual_add"; break;
    case Kernel::kDropout: name = "dropout"; break;
    case Kernel::kGelu: name = "gelu"; break;
    case Kernel::kSiluMul: name = "silu_mul"; break;
    case Kernel::kSoftmax: name = "softmax"; break;
    case Kernel::kStream: return memory_bound(bytes_read_plus_written);
  }
  if (table_) {
    for (const auto& [op, gbps] : table_->elementwise_GBps) {
      if (op != name) continue;
      const double bytes = bytes_read_plus_written.as_double();
      if (bytes <= 0) return SimTime::zero();
      return SimTime::from_seconds(std::max(bytes / (gbps * 1e9 * table_hbm_scale_ * memory_pace_), kLaunchSeconds));
    }
    // A kernel at a fraction f of the streaming rate takes as long as a
    // stream of bytes / f.
    for (const auto& [op, fraction] : table_->elementwise_of_stream) {
      if (op != name) continue;
      return memory_bound(Bytes(static_cast<int64_t>(bytes_read_plus_written.as_double() / fraction)));
    }
  }
  return memory_bound(bytes_read_plus_written);
}

SimTime ComputeModel::cast_from_16bit(double elems, double copies, Precision p) const {
  if (p != Precision::kFp8 && p != Precision::kFp4) return SimTime::zero();
  SimTime t = memory_bound(Bytes(static_cast<int64_t>(elems * (2 + copies * bytes_of(p)))));
  if (p == Precision::kFp4 && gpu_.arch.nvfp4) t += memory_bound(Bytes(static_cast<int64_t>(elems * 2)));
  return t;
}

SimTime ComputeModel::memory_bound(Bytes bytes_read_plus_written) const {
  return memory_bound_at(bytes_read_plus_written, memory_pace_);
}

SimTime ComputeModel::stream_alone(Bytes bytes_read_plus_written) const {
  return memory_bound_at(bytes_read_plus_written, 1.0);
}

SimTime ComputeModel::memory_bound_at(Bytes bytes_read_plus_written, double pace) const {
  const double bytes = bytes_read_plus_written.as_double();
  ANATOMY_CHECK(bytes >= 0, "negative byte count");
  if (bytes == 0) return SimTime::zero();
  if (table_ && table_->memory_GBps_rw > 0) {
    // The table's in-place elementwise rate, scaled by HBM bandwidth; no
    // kernel ends before its launch does.
    const double rate = table_->memory_GBps_rw * 1e9 * table_hbm_scale_ * pace;
    return SimTime::from_seconds(std::max(bytes / rate, kLaunchSeconds));
  }
  return SimTime::from_seconds(bytes / (gpu_.hbm_bandwidth.bytes_per_second() * pace * kMemoryEfficiency) +
                               kLaunchSeconds);
}

SimTime ComputeModel::optimizer_step(int64_t params, OptimizerState state, OptimizerImpl impl) const {
  ANATOMY_CHECK(params >= 0, "negative parameter count");
  if (params == 0) return SimTime::zero();
  const double p = static_cast<double>(params);
  const bool bf16 = state == OptimizerState::kBf16;
  if (impl != OptimizerImpl::kFused) {
    ANATOMY_CHECK(state != OptimizerState::kBf16Moments, "bf16 moments are Transformer Engine's fused Adam");
    const double element = bf16 ? 2 : 4;
    SimTime t = SimTime::zero();
    auto passes = [&](const auto& accesses) {
      for (int a : accesses) t += memory_bound(Bytes(static_cast<int64_t>(p * a * element)));
    };
    if (impl == OptimizerImpl::kForeach)
      passes(kForeachAdamAccesses);
    else
      passes(kForLoopAdamAccesses);
    return t;
  }
  // bf16 moments: the fp32 step over the bytes each moves (not measured).
  const double moments = state == OptimizerState::kBf16Moments ? kAdamBf16MomentsBytesPerParam / kAdamBytesPerParam : 1;
  if (calibrated_) {
    // AdamW streams its state through HBM: it scales with HBM bandwidth.
    const double ns = bf16 ? calibrated_->optimizer_bf16_ns_per_param : calibrated_->optimizer_ns_per_param * moments;
    return SimTime::from_seconds(p * ns * 1e-9 / table_hbm_scale_);
  }
  const double bytes = bf16 ? kAdamBf16BytesPerParam : kAdamBytesPerParam * moments;
  return SimTime::from_seconds(p * bytes / (hbm_Bps() * kMemoryEfficiency) + kLaunchSeconds);
}

core::Bandwidth ComputeModel::device_to_host(core::Bandwidth link_per_direction) const {
  if (!table_ || table_->d2h_GBps <= 0 || table_->copy_link.empty()) return link_per_direction;
  const Link* copied_over = find_known_link(table_->copy_link);
  if (!copied_over || copied_over->per_direction.bps() != link_per_direction.bps()) return link_per_direction;
  return core::Bandwidth::bytes_per_s(std::min(table_->d2h_GBps * 1e9, link_per_direction.bytes_per_second()));
}

}  // namespace anatomy::hw
