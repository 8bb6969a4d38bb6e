#include <fmt/format.h>

#include "report/format.h"
#include "report/gantt.h"
#include "report/palette.h"
#include "report/sections.h"
#include "report/stages.h"

namespace anatomy::report {
namespace {

std::string span_label(const workload::Interval& iv, bool interleaved) {
  if (iv.micro_batch < 0) return "";
  if (iv.kind != workload::IntervalKind::kForward && iv.kind != workload::IntervalKind::kBackward) return "";
  return interleaved && iv.chunk >= 0 ? fmt::format("{}.{}", iv.micro_batch, iv.chunk)
                                      : fmt::format("{}", iv.micro_batch);
}

std::string tooltip(const workload::Interval& iv) {
  std::string what = workload::to_string(iv.kind);
  if (iv.micro_batch >= 0) what += fmt::format(" · micro-batch {}", iv.micro_batch);
  if (iv.chunk >= 0) what += fmt::format(" · chunk {}", iv.chunk);
  return fmt::format("{}: {:.3f} – {:.3f} ms ({:.3f} ms)", what, iv.start.millis(), iv.end.millis(),
                     (iv.end - iv.start).millis());
}

}  // namespace

Section timeline_section(const workload::IterationResult& r, const std::vector<uint32_t>& stage_gpus) {
  bool interleaved = false;
  for (const auto& stage : r.timeline)
    for (const auto& iv : stage) interleaved = interleaved || iv.chunk > 0;
  GanttChart g;
  g.title = "iteration timeline of each pipeline stage's representative GPU";
  g.series = kind_series();
  g.axis_max = r.iteration.millis();
  g.axis_caption = "time in the iteration (ms)";
  for (size_t s = 0; s < r.timeline.size(); ++s) {
    GanttRow row;
    row.label = stage_label(s, s < stage_gpus.size() ? stage_gpus[s] : 0);
    for (const auto& iv : r.timeline[s])
      row.spans.push_back(
          {iv.start.millis(), iv.end.millis(), static_cast<int>(iv.kind), span_label(iv, interleaved), tooltip(iv)});
    g.rows.push_back(std::move(row));
  }
  Section s;
  s.id = "timeline";
  s.title = "Iteration timeline";
  s.intro_html = fmt::format(
      "<p>What the GPU that represents each pipeline stage does, from the start of the iteration to its end "
      "({}). Forward and backward steps carry their micro-batch{} when they are wide enough; hover over a "
      "span for its kind, micro-batch and times. Idle time is a pipeline bubble until the upstream stage "
      "starts sending, then exposed PP communication; waiting on others is the time after a GPU has finished "
      "while the slowest stage has not, and the part of each step the mean GPU waits for the job's slowest GPU. The same intervals are in <code>--trace</code> (Perfetto) and "
      "<code>--csv</code> (timeline.csv).</p>\n",
      escape_html(human_time(r.iteration)), interleaved ? " and model chunk (micro-batch.chunk)" : "");
  s.body_html = draw_gantt(g).str();
  return s;
}

}  // namespace anatomy::report
