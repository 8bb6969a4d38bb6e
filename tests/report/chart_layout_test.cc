// Charts lay out every label inside the chart and apart from every other
// label, with long labels, many rows and many ticks (the report is read at
// 1280 px; the browser test measures the real page as well).

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "report/chart_parts.h"
#include "report/gantt.h"
#include "report/hbars.h"
#include "report/stacked_bars.h"
#include "report/xy_chart.h"

namespace anatomy::report {
namespace {

void expect_clean_layout(const Svg& svg) {
  const auto& boxes = svg.text_boxes();
  ASSERT_FALSE(boxes.empty());
  for (const auto& b : boxes) {
    EXPECT_GE(b.x0, 0) << b.text;
    EXPECT_LE(b.x1, svg.width()) << b.text;
    EXPECT_GE(b.y0, 0) << b.text;
    EXPECT_LE(b.y1, svg.height()) << b.text;
  }
  for (size_t i = 0; i < boxes.size(); ++i)
    for (size_t j = i + 1; j < boxes.size(); ++j) {
      const auto& a = boxes[i];
      const auto& b = boxes[j];
      const bool apart = a.x1 <= b.x0 || b.x1 <= a.x0 || a.y1 <= b.y0 || b.y1 <= a.y0;
      EXPECT_TRUE(apart) << "'" << a.text << "' overlaps '" << b.text << "'";
    }
}

std::vector<Series> eight_series() {
  std::vector<Series> s;
  for (int i = 0; i < 8; ++i) s.push_back({"a rather long series name number " + std::to_string(i), "#4e79a7"});
  return s;
}

TEST(LinearTicks, AreOneTwoOrFiveTimesAPowerOfTen) {
  // 1310 / 8 = 164 per interval -> step 200, up to the first tick >= 1310.
  EXPECT_EQ(linear_ticks(1310, 8), (std::vector<double>{0, 200, 400, 600, 800, 1000, 1200, 1400}));
  EXPECT_EQ(linear_ticks(0.9, 4), (std::vector<double>{0, 0.5, 1}));
  EXPECT_EQ(linear_ticks(0, 4), (std::vector<double>{0, 1}));
}

TEST(TickLabel, HasTheDecimalsTheStepNeeds) {
  EXPECT_EQ(tick_label(400, 200), "400");
  EXPECT_EQ(tick_label(0.5, 0.5), "0.5");
  EXPECT_EQ(tick_label(0.75, 0.25), "0.75");
}

TEST(InkOn, IsWhiteOnDarkAndDarkOnLight) {
  EXPECT_STREQ(ink_on("#1f1f1f"), "#fff");
  EXPECT_STREQ(ink_on("#d7d7d7"), "#111");
}

TEST(ChartLayout, StackedBarsWithLongLabelsAndManyRows) {
  StackedBarChart c;
  c.series = eight_series();
  for (int i = 0; i < 40; ++i)
    c.bars.push_back({"stage " + std::to_string(i) + " · GPU " + std::to_string(i * 4096) + " of a long named cluster",
                      {100, 200, 1, 3, 5, 50, 120, 30}});
  c.unit = "ms";
  c.axis_caption = "time in one iteration (ms)";
  c.marker = 700;
  c.marker_label = "HBM capacity 186.0 GB, a label long enough to be pushed left of the line";
  expect_clean_layout(draw_stacked_bars(c));
}

TEST(ChartLayout, GanttWithSixtyFourStagesAndLabelledSpans) {
  GanttChart g;
  g.series = eight_series();
  g.axis_max = 1310.26;
  g.axis_caption = "time in the iteration (ms)";
  for (int s = 0; s < 64; ++s) {
    GanttRow row;
    row.label = "stage " + std::to_string(s) + " · GPU " + std::to_string(s * 1024);
    for (int k = 0; k < 200; ++k)  // narrow spans, then wide ones whose labels fit
      row.spans.push_back(k < 190 ? GanttSpan{k * 3.0, k * 3.0 + 3.0, k % 8, std::to_string(k), ""}
                                  : GanttSpan{570 + (k - 190) * 70.0, 640 + (k - 190) * 70.0, k % 8,
                                              std::to_string(k) + "." + std::to_string(k % 5), ""});
    g.rows.push_back(std::move(row));
  }
  expect_clean_layout(draw_gantt(g));
}

TEST(ChartLayout, BarsWithLongLinkNames) {
  BarChart c;
  c.legend = {{"scale-up", "#4e79a7"}, {"fabric", "#f28e2b"}};
  for (int i = 0; i < 16; ++i)
    c.rows.push_back(
        {"leaf switch 17 on rail 3 of plane 1 → spine switch 12 of plane 1 (port " + std::to_string(i) + ")", 100.0 - i,
         "100.0%", "#4e79a7", ""});
  c.axis_caption = "mean utilization over the iteration, %";
  expect_clean_layout(draw_bars(c));
}

TEST(ChartLayout, XyChartOverThirtyFourSizesFrom1K) {
  XyChart c;
  c.series = {{"all_reduce", "#4e79a7"}, {"all_gather", "#f28e2b"}};
  c.points.resize(2);
  for (int k = 0; k <= 33; ++k) {
    c.points[0].push_back({std::ldexp(1.0, k + 10), 10 + std::ldexp(1.0, k) / 1e3});
    c.points[1].push_back({std::ldexp(1.0, k + 10), 12 + std::ldexp(1.0, k) / 2e3});
  }
  c.log_x = c.log_y = true;
  // Labels as the collective report writes them ("1K", "64M"): the first x
  // label is wider than the gap to the y axis' labels.
  c.x_label = [](double v) {
    const char* suffix[] = {"", "K", "M", "G"};
    int i = 0;
    while (v >= 1024 && i < 3) v /= 1024, ++i;
    return std::to_string(static_cast<long long>(v)) + suffix[i];
  };
  c.y_label = [](double v) { return std::to_string(static_cast<long long>(v)) + " us"; };
  c.x_caption = "message size (bytes)";
  c.y_caption = "time per collective (us)";
  expect_clean_layout(draw_xy(c));
}

TEST(ChartLayout, XyChartThinsDenseLogTicks) {
  // Twenty decades on a 320 px chart: every other power of ten is labelled.
  XyChart c;
  c.series = {{"t", "#4e79a7"}};
  c.points = {{{1, 1}, {2, 1e20}}};
  c.log_x = c.log_y = true;
  c.y_label = [](double v) { return std::to_string(static_cast<int>(std::round(std::log10(v)))) + " us"; };
  const Svg svg = draw_xy(c);
  expect_clean_layout(svg);
}

TEST(ChartLayout, XAxisLeavesOutLabelsThatWouldTouch) {
  Svg svg(300, 60, "axis");
  XAxis axis;
  axis.x0 = 10;
  axis.x1 = 290;
  axis.y = 20;
  axis.grid_top = 20;
  axis.to_px = [](double v) { return 10 + 280 * v / 100; };
  axis.label = [](double v) { return std::to_string(static_cast<int>(v)) + " ms"; };
  std::vector<double> ticks;
  for (int i = 0; i <= 100; i += 5) ticks.push_back(i);
  draw_x_axis(svg, axis, ticks);
  EXPECT_LT(svg.text_boxes().size(), ticks.size());
  EXPECT_EQ(svg.text_boxes().front().text, "0 ms");
  expect_clean_layout(svg);
}

}  // namespace
}  // namespace anatomy::report
