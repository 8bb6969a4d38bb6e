#include <fmt/format.h>

#include "report/format.h"
#include "report/palette.h"
#include "report/sections.h"
#include "report/stacked_bars.h"

namespace anatomy::report {

Section memory_section(const workload::IterationResult& r, core::Bytes hbm_capacity) {
  const workload::MemoryBreakdown& m = r.memory;
  const std::vector<core::Bytes> parts = {m.weights, m.gradients, m.optimizer, m.activations, m.workspace};
  StackedBarChart c;
  c.title = "memory per GPU";
  c.series = memory_series();
  c.unit = "GB";
  c.axis_caption = "memory per GPU (GB)";
  StackedBar bar;
  bar.label = fmt::format("pipeline stage {}", m.stage);
  for (core::Bytes b : parts) bar.values.push_back(b.as_double() / 1e9);
  c.bars.push_back(std::move(bar));
  if (hbm_capacity.count() > 0) {
    c.marker = hbm_capacity.as_double() / 1e9;
    c.marker_label = fmt::format("HBM capacity {}", human_gb(hbm_capacity));
  }
  Table t;
  t.header = {"kind", "per GPU", "share of HBM"};
  t.numeric = {false, true, true};
  const double cap = hbm_capacity.as_double();
  for (size_t i = 0; i < parts.size(); ++i)
    t.rows.push_back({c.series[i].name, human_gb(parts[i]), cap > 0 ? percent(parts[i].as_double() / cap) : "-"});
  t.rows.push_back({"total", human_gb(m.total()), cap > 0 ? percent(m.total().as_double() / cap) : "-"});
  t.row_class.assign(t.rows.size(), "");
  t.row_class.back() = "total";
  Section s;
  s.id = "memory";
  s.title = "Memory per GPU";
  s.intro_html = fmt::format(
      "<p>The memory model's estimate for the pipeline stage that needs the most (stage {}): weights, "
      "gradients and optimizer state as the ZeRO stage shards them, activations as the recomputation policy "
      "keeps them, and the library's workspace, against the GPU's HBM.</p>\n",
      m.stage);
  s.body_html = draw_stacked_bars(c).str() + html_table(t);
  if (!r.memory_warning.empty()) s.body_html += "<div class=\"warning\">" + escape_html(r.memory_warning) + "</div>\n";
  return s;
}

}  // namespace anatomy::report
