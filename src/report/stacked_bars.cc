#include "report/stacked_bars.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace anatomy::report {
namespace {

constexpr double kLabelColumn = 170;  // row labels
constexpr double kValueColumn = 110;  // totals, right of the bars
constexpr double kStackBarHeight = 20, kStackRowGap = 8;

std::string value_text(double v, const std::string& unit) {
  return v >= 100 ? fmt::format("{:.0f} {}", v, unit) : fmt::format("{:.3g} {}", v, unit);
}

}  // namespace

Svg draw_stacked_bars(const StackedBarChart& c) {
  double longest = c.marker;
  for (const auto& b : c.bars) longest = std::max(longest, std::accumulate(b.values.begin(), b.values.end(), 0.0));
  const double axis_max = c.axis_max > 0 ? c.axis_max : longest;
  const std::vector<double> ticks = linear_ticks(axis_max, 8);
  const double top = ticks.back();
  const double x0 = kLabelColumn, x1 = c.width - kValueColumn;
  const auto to_px = [&](double v) { return x0 + (x1 - x0) * (top > 0 ? v / top : 0); };

  const double bars_top = legend_bottom(c.series, c.width) + 6 + (c.marker > 0 ? 16 : 0);
  const double axis_y = bars_top + c.bars.size() * (kStackBarHeight + kStackRowGap);
  const double height = axis_y + below_x_axis(c.axis_caption);

  Svg svg(c.width, height, c.title);
  draw_legend(svg, c.series, 8, 8, c.width - 16);
  draw_x_axis(svg, linear_axis(x0, x1, axis_y, bars_top - 4, to_px, ticks, c.axis_caption), ticks);
  for (size_t i = 0; i < c.bars.size(); ++i) {
    const StackedBar& b = c.bars[i];
    const double y = bars_top + i * (kStackBarHeight + kStackRowGap);
    svg.text(x0 - 8, y + kStackBarHeight / 2 + 4, fit_text(b.label, kLabelFont, x0 - 14), kLabelFont, Anchor::kEnd);
    const double total = std::accumulate(b.values.begin(), b.values.end(), 0.0);
    double at = 0;
    for (size_t s = 0; s < b.values.size() && s < c.series.size(); ++s) {
      const double v = b.values[s];
      if (v <= 0) continue;
      const double px0 = to_px(at), px1 = to_px(at + v);
      svg.rect(
          px0, y, px1 - px0, kStackBarHeight, c.series[s].color,
          fmt::format("{}: {} ({:.1f}%)", c.series[s].name, value_text(v, c.unit), total > 0 ? 100 * v / total : 0));
      if (c.share_labels && total > 0) {
        const std::string share = fmt::format("{:.0f}%", 100 * v / total);
        if (text_width(share, kSmallFont) + 6 <= px1 - px0)
          svg.text((px0 + px1) / 2, y + kStackBarHeight / 2 + 3.5, share, kSmallFont, Anchor::kMiddle,
                   ink_on(c.series[s].color));
      }
      at += v;
    }
    svg.text(to_px(total) + 6, y + kStackBarHeight / 2 + 4,
             fit_text(value_text(total, c.unit), kLabelFont, c.width - to_px(total) - 10), kLabelFont, Anchor::kStart);
  }
  if (c.marker > 0) {
    const double mx = to_px(c.marker);
    svg.line(mx, bars_top - 14, mx, axis_y, "#b00", 1.5, true);
    const std::string label = fit_text(c.marker_label, kTickFont, c.width - 8);
    const double w = text_width(label, kTickFont);
    const bool left = mx + 4 + w > c.width - 4;
    svg.text(left ? mx - 4 : mx + 4, bars_top - 4, label, kTickFont, left ? Anchor::kEnd : Anchor::kStart, "#b00");
  }
  return svg;
}

}  // namespace anatomy::report
