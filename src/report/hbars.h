#pragma once
// Horizontal bars, one per row, each with its value written after it:
// the busiest links' utilization.
//
//   BarChart c;
//   c.rows = {{"gpu0 -> nic0 (pcie)", 42.0, "42.0%", "#4e79a7"}};
//   c.axis_max = 100;
//   c.axis_caption = "utilization over the iteration (%)";
//   Svg svg = draw_bars(c);

#include <string>
#include <vector>

#include "report/chart_parts.h"
#include "report/svg.h"

namespace anatomy::report {

struct Bar {
  std::string label;
  double value = 0;
  std::string value_text;  // written right of the bar
  std::string color;
  std::string tooltip;
};

struct BarChart {
  std::string title;
  std::vector<Bar> rows;
  std::vector<Series> legend;  // optional: what the colors mean
  double axis_max = 0;         // 0: the largest value
  std::string axis_caption;
  double label_column = 330;  // px for the row labels (truncated to fit)
  double width = 1120;
};

Svg draw_bars(const BarChart& c);

}  // namespace anatomy::report
