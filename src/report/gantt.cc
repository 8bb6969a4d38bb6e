#include "report/gantt.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace anatomy::report {
namespace {

constexpr double kLabelColumn = 180;
constexpr double kRightMargin = 30;
constexpr double kGanttRowHeight = 22, kGanttRowGap = 6;
constexpr double kMinSpanPx = 2;  // narrower spans are drawn by pixel column

// Draws back-to-back spans too narrow to see one by one (a long pipeline's
// thousands of steps): each 1 px column takes the color of the series that
// fills most of it, and neighbouring columns of one color become one rect.
// This bounds a row at one rect per pixel, whatever the number of spans.
void draw_dense(Svg& svg, const GanttChart& g, const std::vector<const GanttSpan*>& run,
                const std::function<double(double)>& to_px, double y) {
  if (run.empty()) return;
  const double a = to_px(run.front()->start), b = to_px(run.back()->end);
  const int c0 = static_cast<int>(std::floor(a)), c1 = static_cast<int>(std::ceil(b));
  std::vector<std::vector<double>> fill(static_cast<size_t>(c1 - c0), std::vector<double>(g.series.size(), 0.0));
  for (const GanttSpan* s : run) {
    const double p0 = to_px(s->start), p1 = to_px(s->end);
    const size_t k = static_cast<size_t>(s->series) % g.series.size();
    for (int c = static_cast<int>(std::floor(p0)); c < p1 && c < c1; ++c)
      fill[static_cast<size_t>(c - c0)][k] += std::min<double>(p1, c + 1) - std::max<double>(p0, c);
  }
  const auto dominant = [&](int c) {
    const auto& f = fill[static_cast<size_t>(c - c0)];
    return static_cast<size_t>(std::max_element(f.begin(), f.end()) - f.begin());
  };
  const auto from_px = [&](double px) {
    return run.front()->start + (run.back()->end - run.front()->start) * (px - a) / (b - a);
  };
  for (int c = c0; c < c1;) {
    const size_t k = dominant(c);
    int e = c + 1;
    while (e < c1 && dominant(e) == k) ++e;
    const double x0 = std::max<double>(a, c), x1 = std::min<double>(b, e);
    svg.rect(x0, y, x1 - x0, kGanttRowHeight, g.series[k].color,
             fmt::format("short intervals, mostly {}: {:.3f} – {:.3f} {}", g.series[k].name, from_px(x0), from_px(x1),
                         g.unit));
    c = e;
  }
}

}  // namespace

Svg draw_gantt(const GanttChart& g) {
  const std::vector<double> ticks = linear_ticks(g.axis_max, 10);
  // The axis ends at the iteration itself, not at the next round tick, so
  // the spans fill the plot; ticks beyond it are dropped.
  const double end = g.axis_max > 0 ? g.axis_max : 1;
  std::vector<double> shown;
  for (double t : ticks)
    if (t <= end * (1 + 1e-9)) shown.push_back(t);
  const double x0 = kLabelColumn, x1 = g.width - kRightMargin;
  const auto to_px = [&](double v) { return x0 + (x1 - x0) * v / end; };

  const double rows_top = legend_bottom(g.series, g.width) + 6;
  const double axis_y = rows_top + g.rows.size() * (kGanttRowHeight + kGanttRowGap);
  const double height = axis_y + below_x_axis(g.axis_caption);

  Svg svg(g.width, height, g.title);
  draw_legend(svg, g.series, 8, 8, g.width - 16);
  draw_x_axis(svg, linear_axis(x0, x1, axis_y, rows_top - 4, to_px, ticks, g.axis_caption), shown);
  for (size_t r = 0; r < g.rows.size(); ++r) {
    const GanttRow& row = g.rows[r];
    const double y = rows_top + r * (kGanttRowHeight + kGanttRowGap);
    svg.text(x0 - 8, y + kGanttRowHeight / 2 + 4, fit_text(row.label, kLabelFont, x0 - 14), kLabelFont, Anchor::kEnd);
    std::vector<const GanttSpan*> dense;
    for (const GanttSpan& s : row.spans) {
      const double px0 = to_px(std::clamp(s.start, 0.0, end)), px1 = to_px(std::clamp(s.end, 0.0, end));
      if (px1 <= px0) continue;
      if (px1 - px0 < kMinSpanPx) {
        dense.push_back(&s);
        continue;
      }
      draw_dense(svg, g, dense, to_px, y);
      dense.clear();
      const std::string& color = g.series[static_cast<size_t>(s.series) % g.series.size()].color;
      // A hairline of white between spans wide enough to spare it, so that
      // back-to-back steps of one kind (micro-batch after micro-batch) read apart.
      svg.rect(px0, y, px1 - px0, kGanttRowHeight, color, s.tooltip, px1 - px0 >= 4 ? "#fff" : "");
      if (!s.label.empty() && text_width(s.label, kSmallFont) + 4 <= px1 - px0)
        svg.text((px0 + px1) / 2, y + kGanttRowHeight / 2 + 3.5, s.label, kSmallFont, Anchor::kMiddle, ink_on(color));
    }
    draw_dense(svg, g, dense, to_px, y);
  }
  return svg;
}

}  // namespace anatomy::report
