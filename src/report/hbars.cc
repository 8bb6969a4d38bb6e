#include "report/hbars.h"

#include <algorithm>

namespace anatomy::report {
namespace {

constexpr double kValueColumn = 90;
constexpr double kHbarBarHeight = 16, kHbarRowGap = 6;

}  // namespace

Svg draw_bars(const BarChart& c) {
  double largest = c.axis_max;
  for (const auto& b : c.rows) largest = std::max(largest, b.value);
  const std::vector<double> ticks = linear_ticks(largest, 10);
  const double top = ticks.back();
  const double x0 = c.label_column, x1 = c.width - kValueColumn;
  const auto to_px = [&](double v) { return x0 + (x1 - x0) * (top > 0 ? std::max(0.0, v) / top : 0); };

  const double rows_top = c.legend.empty() ? 8 : legend_bottom(c.legend, c.width) + 6;
  const double axis_y = rows_top + c.rows.size() * (kHbarBarHeight + kHbarRowGap);
  const double height = axis_y + below_x_axis(c.axis_caption);

  Svg svg(c.width, height, c.title);
  if (!c.legend.empty()) draw_legend(svg, c.legend, 8, 8, c.width - 16);
  draw_x_axis(svg, linear_axis(x0, x1, axis_y, rows_top - 4, to_px, ticks, c.axis_caption), ticks);
  for (size_t i = 0; i < c.rows.size(); ++i) {
    const Bar& b = c.rows[i];
    const double y = rows_top + i * (kHbarBarHeight + kHbarRowGap);
    svg.text(x0 - 8, y + kHbarBarHeight / 2 + 4, fit_text(b.label, kLabelFont, x0 - 14), kLabelFont, Anchor::kEnd);
    const double px = to_px(b.value);
    svg.rect(x0, y, std::max(1.0, px - x0), kHbarBarHeight, b.color.empty() ? "#4e79a7" : b.color,
             b.tooltip.empty() ? b.label : b.tooltip);
    svg.text(std::max(x0 + 1, px) + 6, y + kHbarBarHeight / 2 + 4,
             fit_text(b.value_text, kLabelFont, c.width - std::max(x0 + 1, px) - 10), kLabelFont, Anchor::kStart);
  }
  return svg;
}

}  // namespace anatomy::report
