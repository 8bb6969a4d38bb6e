#pragma once
// Horizontal stacked bars: one row per bar (a label on the left, the total
// on the right), one colored segment per series, a legend above and a
// value axis below. Used for "where the time goes" (a bar for the mean GPU
// and one per pipeline stage) and for memory per GPU.
//
//   StackedBarChart c;
//   c.title = "where the time goes";
//   c.series = {{"forward compute", "#4e79a7"}, {"backward compute", "#a0cbe8"}};
//   c.bars = {{"mean", {373.6, 770.3}}, {"stage 0 · GPU 0", {368.5, 759.8}}};
//   c.unit = "ms";
//   Svg svg = draw_stacked_bars(c);

#include <string>
#include <vector>

#include "report/chart_parts.h"
#include "report/svg.h"

namespace anatomy::report {

struct StackedBar {
  std::string label;
  std::vector<double> values;  // one per series, in the chart's unit, >= 0
};

struct StackedBarChart {
  std::string title;  // the chart's accessible name
  std::vector<Series> series;
  std::vector<StackedBar> bars;
  std::string unit;          // "ms", "GB"
  std::string axis_caption;  // below the axis
  double axis_max = 0;       // 0: the longest bar
  double marker = 0;         // > 0: a dashed line at this value (e.g. HBM capacity)
  std::string marker_label;
  bool share_labels = true;  // write each segment's share of its bar inside it when it fits
  double width = 1120;
};

Svg draw_stacked_bars(const StackedBarChart& c);

}  // namespace anatomy::report
