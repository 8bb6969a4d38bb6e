#pragma once
// Pieces every chart shares: series (a name and a color), the legend, nice
// axis ticks and an x axis whose labels never overlap.
//
//   std::vector<double> ticks = linear_ticks(1310.2, 8);   // 0, 200, ..., 1400
//   double below = draw_legend(svg, series, 10, 16, 1100); // y under the legend
//   draw_x_axis(svg, axis, ticks);

#include <functional>
#include <string>
#include <vector>

#include "report/svg.h"

namespace anatomy::report {

struct Series {
  std::string name;
  std::string color;  // "#rrggbb"
};

inline constexpr double kLabelFont = 12;  // row labels, legend
inline constexpr double kTickFont = 11;   // axis tick labels
inline constexpr double kSmallFont = 10;  // labels inside bars

// Ticks 0, s, 2s, ... up to the first >= max, where s is 1, 2 or 5 x 10^k
// chosen so there are about `target` intervals. max <= 0 gives {0, 1}.
std::vector<double> linear_ticks(double max, int target);

// The tick step of linear_ticks' result (for choosing decimals).
double tick_step(const std::vector<double>& ticks);

// A tick value with as many decimals as the step needs: "0", "250", "0.5", "0.25".
std::string tick_label(double v, double step);

// Draws a legend (swatch + name per series) from (x, y) left to right,
// wrapping before `width`; returns the y just below it.
double draw_legend(Svg& svg, const std::vector<Series>& series, double x, double y, double width);

// The y just below the legend draw_legend(svg, series, 8, 8, width - 16)
// would draw at the top of a chart `width` wide, before the chart exists
// (its height depends on it).
double legend_bottom(const std::vector<Series>& series, double width);

// Height below an x axis drawn by draw_x_axis: ticks, labels, the caption
// if any, and a margin.
double below_x_axis(const std::string& caption);

// A text color that reads on `fill` ("#rrggbb"): near-black on light
// colors, white on dark ones (by relative luminance).
const char* ink_on(const std::string& fill);

struct XAxis {
  double x0 = 0, x1 = 0;                     // pixel extent of the plotted range
  double y = 0;                              // pixel row of the axis line
  double grid_top = 0;                       // grid lines run from here down to y (no grid when equal to y)
  std::function<double(double)> to_px;       // value to pixel
  std::function<std::string(double)> label;  // tick label
  std::string caption;                       // e.g. "time in the iteration (ms)", centred below
};

// Draws the axis line, ticks, grid and labels; a label that would touch its
// neighbour is left out (every other one, then every third, ...), and the
// first and last are kept inside [0, svg width]. Returns the y below it.
double draw_x_axis(Svg& svg, const XAxis& axis, const std::vector<double>& ticks);

// The value axis of a horizontal chart over [x0, x1] from linear_ticks'
// `ticks`, labelled with as many decimals as their step needs, its grid
// reaching up to grid_top.
XAxis linear_axis(double x0, double x1, double y, double grid_top, std::function<double(double)> to_px,
                  const std::vector<double>& ticks, std::string caption);

}  // namespace anatomy::report
