#pragma once
// An x-y line chart with optionally logarithmic axes: collective time and
// bus bandwidth by message size (sizes double or grow 8x per row, so the
// x axis is log2; times span decades, so the y axis may be log10).
//
//   XyChart c;
//   c.series = {{"all_reduce", "#4e79a7"}};
//   c.points = {{{1 << 20, 26.3}, {1 << 23, 54.9}}};
//   c.log_x = c.log_y = true;
//   c.x_label = [](double v) { return format_size(v); };
//   Svg svg = draw_xy(c);

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "report/chart_parts.h"
#include "report/svg.h"

namespace anatomy::report {

struct XyChart {
  std::string title;
  std::vector<Series> series;
  std::vector<std::vector<std::pair<double, double>>> points;  // per series, increasing x, > 0 on log axes
  std::vector<std::vector<std::string>> tooltips;              // optional, per point
  std::vector<bool> markers_only;  // optional, per series: points without a line (a scatter; any x order)
  bool log_x = false, log_y = false;
  std::function<std::string(double)> x_label;  // tick labels; default: the number
  std::function<std::string(double)> y_label;
  std::string x_caption, y_caption;
  double width = 550, height = 320;
};

Svg draw_xy(const XyChart& c);

}  // namespace anatomy::report
