#pragma once
// A Gantt chart: one row per track (a pipeline stage's representative GPU),
// one colored span per interval, a legend above and a time axis below.
// A span wide enough for its label (e.g. the micro-batch it computes)
// carries it inside; every span has a hover tooltip.
//
//   GanttChart g;
//   g.series = {{"forward", "#4e79a7"}, {"bubble", "#bab0ac"}};
//   g.rows = {{"stage 0 · GPU 0", {{0.0, 12.5, 0, "0", "forward mb 0: 0–12.5 ms"}}}};
//   g.axis_max = 1310.3;
//   g.axis_caption = "time in the iteration (ms)";
//   Svg svg = draw_gantt(g);

#include <string>
#include <vector>

#include "report/chart_parts.h"
#include "report/svg.h"

namespace anatomy::report {

struct GanttSpan {
  double start = 0, end = 0;  // in axis units
  int series = 0;             // index into the chart's series (its color)
  std::string label;          // written inside when it fits ("" for none)
  std::string tooltip;
};

struct GanttRow {
  std::string label;
  std::vector<GanttSpan> spans;
};

struct GanttChart {
  std::string title;
  std::vector<Series> series;
  std::vector<GanttRow> rows;
  double axis_max = 0;      // the end of the time axis (the iteration)
  std::string unit = "ms";  // of the axis, in tooltips
  std::string axis_caption;
  double width = 1120;
};

Svg draw_gantt(const GanttChart& g);

}  // namespace anatomy::report
