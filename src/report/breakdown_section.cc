#include <fmt/format.h>

#include "report/format.h"
#include "report/palette.h"
#include "report/sections.h"
#include "report/stacked_bars.h"
#include "report/stages.h"

namespace anatomy::report {
namespace {

std::vector<double> bucket_ms(const workload::TimeBreakdown& b) {
  std::vector<double> out;
  for (auto [name, t] : b.buckets()) out.push_back(t.millis());
  return out;
}

}  // namespace

Section breakdown_section(const workload::IterationResult& r, const std::vector<uint32_t>& stage_gpus) {
  StackedBarChart c;
  c.title = "where each GPU's iteration goes";
  c.series = bucket_series();
  c.unit = "ms";
  c.axis_caption = "time in one iteration (ms)";
  c.bars.push_back({"mean over all GPUs", bucket_ms(r.mean)});
  for (size_t s = 0; s < r.stages.size(); ++s)
    c.bars.push_back({stage_label(s, s < stage_gpus.size() ? stage_gpus[s] : 0), bucket_ms(r.stages[s])});

  // One row per GPU (the mean, then each stage's), one column per bucket:
  // as wide for 64 stages as for 4.
  Table t;
  t.css_class = "kv";
  t.header = {"GPU"};
  t.numeric = {false};
  for (const auto& sr : c.series) {
    t.header.push_back(sr.name + " (ms)");
    t.numeric.push_back(true);
  }
  t.header.push_back("total (ms)");
  t.numeric.push_back(true);
  const double iteration = r.iteration.seconds();
  const auto row_of = [&](const std::string& label, const workload::TimeBreakdown& b) {
    std::vector<std::string> row = {label};
    for (auto [name, v] : b.buckets()) row.push_back(fmt::format("{:.2f}", v.millis()));
    row.push_back(fmt::format("{:.2f}", b.total().millis()));
    return row;
  };
  t.rows.push_back(row_of("mean over all GPUs", r.mean));
  std::vector<std::string> share = {"mean, share of the iteration"};
  for (auto [name, v] : r.mean.buckets()) share.push_back(percent(iteration > 0 ? v.seconds() / iteration : 0));
  share.push_back(percent(iteration > 0 ? r.mean.total().seconds() / iteration : 0));
  t.rows.push_back(std::move(share));
  t.row_class = {"", "total"};
  for (size_t st = 0; st < r.stages.size(); ++st) {
    t.rows.push_back(row_of(stage_label(st, st < stage_gpus.size() ? stage_gpus[st] : 0), r.stages[st]));
    t.row_class.push_back("");
  }

  Section s;
  s.id = "time";
  s.title = "Where the time goes";
  s.intro_html = fmt::format(
      "<p>Every GPU's {} iteration, split into buckets that add up to it exactly (integer picoseconds). "
      "One bar for the mean over all GPUs, then one per pipeline stage for the GPU that represents it: every "
      "data-parallel, tensor-parallel and context-parallel rank of a stage does the same work at the same time. "
      "Backward compute includes {} of recomputation{}{}.</p>\n",
      escape_html(human_time(r.iteration)), escape_html(human_time(r.mean.recompute)),
      r.mean.on_slowest > core::SimTime::zero()
          ? "; waiting on others, " + escape_html(human_time(r.mean.on_slowest)) + " for the slowest GPU's compute"
          : std::string(),
      r.mean.on_collective_sms > core::SimTime::zero()
          ? "; exposed communication, " + escape_html(human_time(r.mean.on_collective_sms)) +
                " of compute held back by the collectives beside it"
          : std::string());
  s.body_html = draw_stacked_bars(c).str() + html_table(t);
  return s;
}

}  // namespace anatomy::report
