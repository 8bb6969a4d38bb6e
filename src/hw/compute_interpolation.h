#pragma once
// Log-space interpolation of a measured rate over a 3-D shape, for the
// calibrated ComputeModel (GEMM efficiency by (m, n, k), attention rate by
// (seq, heads, head_dim)). A pure solver: samples in, values out.
//
//   LogInterpolator f;
//   f.add(log2_point(4096, 4096, 4096), std::log(0.66));  // measured efficiency
//   ...
//   f.finish();
//   double eff = std::exp(f(log2_point(4096, 5000, 4096)));
//
// Samples live at (log2 a, log2 b, log2 c) with value ln(rate). Samples whose
// three dimensions are powers of two form a lattice (the table's *_grid
// sections); between lattice points we interpolate trilinearly, renormalizing
// over the corners that were measured (the grids skip very small and very
// large products). Samples off the lattice (model shapes such as n = 1280)
// correct the lattice locally: their residual (measured - lattice) spreads
// over a ball of one octave by modified Shepard weights
//
//   a_i = (1 - d_i/R)^2 / d_i^2,   correction = (a_0 r_far + sum a_i r_i) / (a_0 + sum a_i),
//
// a_0 = 1/R^2, so every measured shape is reproduced exactly (a_i -> inf as
// d_i -> 0), lattice points pin their own residual of zero, and beyond R the
// lattice (or r_far) alone holds. Queries are clamped to the measured box:
// outside the table the edge's efficiency holds.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "core/error.h"

namespace anatomy::hw::detail {

using Point = std::array<double, 3>;

inline double distance(const Point& a, const Point& b) {
  double s = 0;
  for (int d = 0; d < 3; ++d) s += (a[d] - b[d]) * (a[d] - b[d]);
  return std::sqrt(s);
}

inline Point log2_point(int64_t a, int64_t b, int64_t c) {
  return {std::log2(static_cast<double>(a)), std::log2(static_cast<double>(b)), std::log2(static_cast<double>(c))};
}

// y at x on the polyline through (xs[i], ys[i]), xs ascending: linear
// between the two points around x, the end point's y beyond either end.
// For a rate measured along one axis (a kernel's by log2 sequence length).
inline double clamped_linear(std::span<const double> xs, std::span<const double> ys, double x) {
  ANATOMY_CHECK(!xs.empty() && xs.size() == ys.size(), "a polyline needs as many ys as xs, and at least one");
  if (x <= xs.front()) return ys.front();
  if (x >= xs.back()) return ys.back();
  size_t i = 1;
  while (xs[i] < x) ++i;  // xs[i - 1] < x <= xs[i]: never a zero-width span
  const double f = (x - xs[i - 1]) / (xs[i] - xs[i - 1]);
  return ys[i - 1] + f * (ys[i] - ys[i - 1]);
}

// Corrections known at scattered points, blended by the modified Shepard
// weights above; r_far (default 0) holds beyond every point's radius.
class ResidualField {
 public:
  static constexpr double kRadius = 1.0;  // octaves: one lattice spacing

  void add(const Point& x, double residual) { samples_.push_back({x, residual}); }
  void set_far(double r) { far_ = r; }
  double far() const { return far_; }
  bool empty() const { return samples_.empty(); }

  double operator()(const Point& x) const {
    const double a0 = 1.0 / (kRadius * kRadius);
    double num = a0 * far_, den = a0;
    for (const auto& [xi, ri] : samples_) {
      const double d = distance(x, xi);
      if (d < 1e-9) return ri;
      if (d >= kRadius) continue;
      const double t = 1.0 - d / kRadius;
      const double a = t * t / (d * d);
      num += a * ri;
      den += a;
    }
    return num / den;
  }

 private:
  std::vector<std::pair<Point, double>> samples_;
  double far_ = 0;
};

// The lattice (trilinear over power-of-two samples) plus the residual field
// of every sample: exact at each sample, smooth between them.
class LogInterpolator {
 public:
  void add(const Point& x, double value) { samples_.push_back({x, value}); }

  // Builds the lattice and the residual field; call once after the last add().
  void finish() {
    ANATOMY_CHECK(!samples_.empty(), "interpolator needs at least one sample");
    lo_ = hi_ = samples_.front().first;
    for (const auto& [x, v] : samples_) {
      for (int d = 0; d < 3; ++d) {
        lo_[d] = std::min(lo_[d], x[d]);
        hi_[d] = std::max(hi_[d], x[d]);
      }
      if (!on_lattice(x)) continue;
      std::array<int, 3> key;
      for (int d = 0; d < 3; ++d) key[d] = static_cast<int>(std::lround(x[d]));
      corners_[key] = v;
      for (int d = 0; d < 3; ++d) axes_[d].push_back(key[d]);
    }
    for (auto& a : axes_) {
      std::sort(a.begin(), a.end());
      a.erase(std::unique(a.begin(), a.end()), a.end());
    }
    for (const auto& [x, v] : samples_) residuals_.add(x, v - lattice(x));
  }

  double operator()(Point x) const {
    for (int d = 0; d < 3; ++d) x[d] = std::clamp(x[d], lo_[d], hi_[d]);
    return lattice(x) + residuals_(x);
  }

  // The box the samples span (log2 coordinates); queries clamp to it.
  Point clamp(Point x) const {
    for (int d = 0; d < 3; ++d) x[d] = std::clamp(x[d], lo_[d], hi_[d]);
    return x;
  }

 private:
  static bool on_lattice(const Point& x) {
    for (double c : x)
      if (std::fabs(c - std::round(c)) > 1e-9) return false;
    return true;
  }

  double lattice(const Point& x) const {
    if (!corners_.empty()) {
      std::array<int, 3> lo_idx{}, hi_idx{};
      std::array<double, 3> frac{};
      for (int d = 0; d < 3; ++d) {
        const auto& a = axes_[d];
        const double c = std::clamp(x[d], static_cast<double>(a.front()), static_cast<double>(a.back()));
        size_t i = 0;
        while (i + 1 < a.size() && a[i + 1] <= c) ++i;
        lo_idx[d] = a[i];
        hi_idx[d] = i + 1 < a.size() ? a[i + 1] : a[i];
        frac[d] = hi_idx[d] > lo_idx[d] ? (c - a[i]) / (hi_idx[d] - lo_idx[d]) : 0.0;
      }
      double sum = 0, wsum = 0;
      for (int corner = 0; corner < 8; ++corner) {
        std::array<int, 3> key;
        double w = 1;
        for (int d = 0; d < 3; ++d) {
          const bool up = (corner >> d) & 1;
          key[d] = up ? hi_idx[d] : lo_idx[d];
          w *= up ? frac[d] : 1.0 - frac[d];
        }
        if (w <= 0) continue;
        auto it = corners_.find(key);
        if (it == corners_.end()) continue;
        sum += w * it->second;
        wsum += w;
      }
      if (wsum > 1e-12) return sum / wsum;
    }
    // No measured corner around x (or no lattice at all): inverse-distance
    // weighting (power 4, so the nearest samples dominate) over every sample.
    double sum = 0, wsum = 0;
    for (const auto& [xi, v] : samples_) {
      const double d = distance(x, xi);
      if (d < 1e-9) return v;
      const double w = 1.0 / (d * d * d * d);
      sum += w * v;
      wsum += w;
    }
    return sum / wsum;
  }

  std::vector<std::pair<Point, double>> samples_;
  std::array<std::vector<int>, 3> axes_;
  std::map<std::array<int, 3>, double> corners_;
  ResidualField residuals_;
  Point lo_{}, hi_{};
};

}  // namespace anatomy::hw::detail
