#include "report/xy_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace anatomy::report {
namespace {

constexpr double kLeft = 70, kRight = 24;

struct Scale {
  double lo = 0, hi = 1;
  bool log = false;
  double unit(double v) const {  // 0..1 along the axis
    if (log) return (std::log2(v) - std::log2(lo)) / (std::log2(hi) - std::log2(lo));
    return (v - lo) / (hi - lo);
  }
};

// The axis range and its ticks: powers of `base` on a log axis (rounded out
// to whole powers), nice linear ticks from 0 otherwise.
std::vector<double> ticks_for(double lo, double hi, bool log, double base, Scale& s) {
  s.log = log;
  std::vector<double> ticks;
  if (log) {
    int a = static_cast<int>(std::floor(std::log(lo) / std::log(base) + 1e-9));
    int b = static_cast<int>(std::ceil(std::log(hi) / std::log(base) - 1e-9));
    if (b <= a) b = a + 1;
    for (int k = a; k <= b; ++k) ticks.push_back(std::pow(base, k));
    s.lo = ticks.front();
    s.hi = ticks.back();
  } else {
    ticks = linear_ticks(hi, 6);
    s.lo = 0;
    s.hi = ticks.back();
  }
  return ticks;
}

}  // namespace

Svg draw_xy(const XyChart& c) {
  double xmin = std::numeric_limits<double>::max(), xmax = 0, ymin = std::numeric_limits<double>::max(), ymax = 0;
  for (const auto& pts : c.points)
    for (auto [x, y] : pts) {
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      ymin = std::min(ymin, y);
      ymax = std::max(ymax, y);
    }
  if (xmax <= 0) xmin = xmax = 1;
  if (ymax <= 0) ymin = ymax = 1;
  Scale sx, sy;
  const std::vector<double> xt = ticks_for(xmin, xmax, c.log_x, 2, sx);
  const std::vector<double> yt = ticks_for(ymin, ymax, c.log_y, 10, sy);
  const auto default_label = [](double step) { return [step](double v) { return tick_label(v, step); }; };
  const auto xl = c.x_label ? c.x_label : default_label(tick_step(xt));
  const auto yl = c.y_label ? c.y_label : default_label(tick_step(yt));

  Svg svg(c.width, c.height, c.title);
  double top = 8;
  if (c.series.size() > 1) top = draw_legend(svg, c.series, 8, 8, c.width - 16);
  if (!c.y_caption.empty()) {
    svg.text(8, top + 11, fit_text(c.y_caption, kTickFont, c.width - 16), kTickFont, Anchor::kStart, "#444");
    top += 18;
  }
  top += 6;
  const double x0 = kLeft, x1 = c.width - kRight;
  const double bottom = c.height - 22 - (c.x_caption.empty() ? 0 : 16) - 6;
  const auto px = [&](double v) { return x0 + (x1 - x0) * sx.unit(v); };
  const auto py = [&](double v) { return bottom - (bottom - top) * sy.unit(v); };

  // y ticks, thinned so labels stay at least 24 px apart (a label is 13 px
  // tall, and the lowest one is raised 7 px to clear the x axis' labels).
  size_t stride = 1;
  while (yt.size() > 1 && stride < yt.size() && (bottom - top) / (yt.size() - 1) * stride < 24) ++stride;
  for (size_t i = 0; i < yt.size(); ++i) {
    const double y = py(yt[i]);
    svg.line(x0, y, x1, y, "#e3e3e3");
    // The lowest label sits just above the x axis, clear of the first x label.
    if (i % stride == 0)
      svg.text(x0 - 6, i == 0 ? y - 3 : y + 4, fit_text(yl(yt[i]), kTickFont, x0 - 10), kTickFont, Anchor::kEnd,
               "#444");
  }
  svg.line(x0, top, x0, bottom, "#444");
  XAxis axis;
  axis.x0 = x0;
  axis.x1 = x1;
  axis.y = bottom;
  axis.grid_top = top;
  axis.to_px = px;
  axis.label = xl;
  axis.caption = c.x_caption;
  draw_x_axis(svg, axis, xt);

  for (size_t s = 0; s < c.points.size() && s < c.series.size(); ++s) {
    std::vector<double> xy;
    for (auto [x, y] : c.points[s]) {
      xy.push_back(px(x));
      xy.push_back(py(y));
    }
    const bool line = s >= c.markers_only.size() || !c.markers_only[s];
    if (line && xy.size() >= 4) svg.polyline(xy, c.series[s].color);
    for (size_t i = 0; i < c.points[s].size(); ++i) {
      const std::string tip = s < c.tooltips.size() && i < c.tooltips[s].size() ? c.tooltips[s][i] : "";
      svg.circle(px(c.points[s][i].first), py(c.points[s][i].second), 3.5, c.series[s].color, tip);
    }
  }
  return svg;
}

}  // namespace anatomy::report
