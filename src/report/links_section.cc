#include <fmt/format.h>

#include <algorithm>

#include "report/format.h"
#include "report/hbars.h"
#include "report/xy_chart.h"
#include "report/palette.h"
#include "report/sections.h"

namespace anatomy::report {
namespace {

// One color per kind of link, in the order they first appear.
std::string kind_color_of(const std::string& kind, std::vector<Series>& legend) {
  for (const auto& s : legend)
    if (s.name == kind) return s.color;
  legend.push_back({kind, series_color(legend.size())});
  return legend.back().color;
}

// The busiest links' utilization interval by interval, when the run was
// sampled: where in the iteration each link is loaded.
std::string over_time(const std::vector<workload::LinkLoad>& links, core::SimTime iteration) {
  constexpr size_t kShown = 6;
  XyChart c;
  c.title = "utilization of the busiest links through the iteration";
  c.x_caption = "time in the iteration (ms)";
  c.y_caption = "utilization, %";
  c.width = 1100;
  c.height = 300;
  for (const auto& l : links) {
    if (l.utilization_series.empty() || c.series.size() == kShown) continue;
    const double step_ms = iteration.seconds() * 1e3 / static_cast<double>(l.utilization_series.size());
    c.series.push_back({l.name, series_color(c.series.size())});
    std::vector<std::pair<double, double>> pts;
    for (size_t k = 0; k < l.utilization_series.size(); ++k)
      pts.emplace_back((static_cast<double>(k) + 0.5) * step_ms, 100 * l.utilization_series[k]);
    c.points.push_back(std::move(pts));
  }
  return c.series.empty() ? std::string() : draw_xy(c).str();
}

}  // namespace

Section links_section(const workload::IterationResult& r) {
  BarChart c;
  c.title = "utilization of the busiest links";
  c.axis_caption = "mean utilization over the iteration: bytes carried / (bandwidth × iteration time), %";
  Table t;
  t.header = {"link", "kind", "carried", "utilization"};
  t.numeric = {false, false, true, true};
  // In the model's one ranking (IterationResult::busiest_links), which the
  // trace's counter tracks follow too.
  const std::vector<workload::LinkLoad>& links = r.busiest_links;
  for (const auto& l : links) {
    Bar b;
    b.label = l.name;
    b.value = 100 * l.utilization;
    b.value_text = percent(l.utilization);
    b.color = kind_color_of(l.kind, c.legend);
    b.tooltip = fmt::format("{} ({}): {:.2f} GB, {}", b.label, l.kind, l.bytes.as_double() / 1e9, b.value_text);
    c.rows.push_back(std::move(b));
    t.rows.push_back(
        {l.name, l.kind, fmt::format("{:.2f} GB", l.bytes.as_double() / 1e9), percent(l.utilization)});
  }
  Section s;
  s.id = "links";
  s.title = "Busiest links";
  s.intro_html =
      "<p>The links of highest mean utilization over the iteration (pipeline sends between the stages' "
      "representative GPUs, expert-parallel all-to-alls and every data-parallel communicator's gradient and "
      "parameter collectives, run together on the shared network), the eight busiest of each kind, and, below, "
      "their utilization through the iteration; the trace's link tracks follow the same ranking. Tensor- and "
      "context-parallel collectives inside a step are timed in isolation on the network and memoized, so they "
      "do <em>not</em> appear in these link loads.</p>\n";
  if (r.busiest_links.empty()) {
    s.body_html = "<p><em>No link carried traffic in the simulated iteration.</em></p>\n";
  } else {
    s.body_html = draw_bars(c).str() + over_time(links, r.iteration) + html_table(t);
  }
  return s;
}

}  // namespace anatomy::report
