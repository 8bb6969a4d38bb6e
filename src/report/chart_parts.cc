#include "report/chart_parts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace anatomy::report {

std::vector<double> linear_ticks(double max, int target) {
  if (!(max > 0) || target < 1) return {0, 1};
  const double raw = max / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  for (int i = 0;; ++i) {
    const double v = i * step;
    ticks.push_back(v);
    if (v >= max * (1 - 1e-12)) break;
  }
  return ticks;
}

double tick_step(const std::vector<double>& ticks) { return ticks.size() >= 2 ? ticks[1] - ticks[0] : 1; }

std::string tick_label(double v, double step) {
  int decimals = 0;
  while (decimals < 6 && std::fabs(step * std::pow(10.0, decimals) - std::round(step * std::pow(10.0, decimals))) >
                             1e-9 * std::pow(10.0, decimals))
    ++decimals;
  return fmt::format("{:.{}f}", std::fabs(v) < 1e-12 ? 0.0 : v, decimals);
}

const char* ink_on(const std::string& fill) {
  if (fill.size() != 7 || fill[0] != '#') return "#111";
  const auto channel = [&](int i) {
    const double c = std::stoi(fill.substr(1 + 2 * i, 2), nullptr, 16) / 255.0;
    return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
  };
  const double l = 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
  return l < 0.22 ? "#fff" : "#111";
}

double draw_legend(Svg& svg, const std::vector<Series>& series, double x, double y, double width) {
  constexpr double kSwatch = 12, kGap = 18, kLine = 18;
  double cx = x, cy = y;
  for (const auto& s : series) {
    const std::string name = fit_text(s.name, kLabelFont, width - kSwatch - 6);
    const double w = kSwatch + 5 + text_width(name, kLabelFont);
    if (cx > x && cx + w > x + width) {
      cx = x;
      cy += kLine;
    }
    svg.rect(cx, cy, kSwatch, kSwatch, s.color, {}, "#777");
    svg.text(cx + kSwatch + 5, cy + 10.5, name, kLabelFont, Anchor::kStart);
    cx += w + kGap;
  }
  return cy + kLine + 4;
}

double legend_bottom(const std::vector<Series>& series, double width) {
  Svg scratch(width, 1, "");
  return draw_legend(scratch, series, 8, 8, width - 16);
}

double below_x_axis(const std::string& caption) { return 22 + (caption.empty() ? 0 : 16) + 8; }

XAxis linear_axis(double x0, double x1, double y, double grid_top, std::function<double(double)> to_px,
                  const std::vector<double>& ticks, std::string caption) {
  XAxis axis;
  axis.x0 = x0;
  axis.x1 = x1;
  axis.y = y;
  axis.grid_top = grid_top;
  axis.to_px = std::move(to_px);
  const double step = tick_step(ticks);
  axis.label = [step](double v) { return tick_label(v, step); };
  axis.caption = std::move(caption);
  return axis;
}

double draw_x_axis(Svg& svg, const XAxis& axis, const std::vector<double>& ticks) {
  constexpr double kMinGap = 8;
  svg.line(axis.x0, axis.y, axis.x1, axis.y, "#444");
  std::vector<double> px;
  std::vector<std::string> labels;
  for (double t : ticks) {
    px.push_back(axis.to_px(t));
    labels.push_back(axis.label(t));
  }
  // The smallest stride k such that every k-th label clears its neighbour.
  size_t stride = 1;
  for (; stride < ticks.size(); ++stride) {
    bool clear = true;
    for (size_t i = stride; i < ticks.size() && clear; i += stride) {
      const double half_prev = text_width(labels[i - stride], kTickFont) / 2;
      const double half = text_width(labels[i], kTickFont) / 2;
      clear = px[i] - half - (px[i - stride] + half_prev) >= kMinGap;
    }
    if (clear) break;
  }
  for (size_t i = 0; i < ticks.size(); ++i) {
    if (axis.grid_top < axis.y) svg.line(px[i], axis.grid_top, px[i], axis.y, "#e3e3e3");
    svg.line(px[i], axis.y, px[i], axis.y + 4, "#444");
    if (i % stride != 0) continue;
    const double w = text_width(labels[i], kTickFont);
    Anchor a = Anchor::kMiddle;
    double x = px[i];
    if (x - w / 2 < 1) {
      a = Anchor::kStart;
      x = 1;
    } else if (x + w / 2 > svg.width() - 1) {
      a = Anchor::kEnd;
      x = svg.width() - 1;
    }
    svg.text(x, axis.y + 16, labels[i], kTickFont, a, "#444");
  }
  double below = axis.y + 22;
  if (!axis.caption.empty()) {
    const std::string cap = fit_text(axis.caption, kTickFont, axis.x1 - axis.x0);
    svg.text((axis.x0 + axis.x1) / 2, below + 10, cap, kTickFont, Anchor::kMiddle, "#444");
    below += 16;
  }
  return below;
}

}  // namespace anatomy::report
