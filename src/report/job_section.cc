#include "report/job_section.h"

#include <fmt/format.h>

#include "report/format.h"
#include "report/job_text.h"
#include "report/palette.h"
#include "report/stacked_bars.h"

namespace anatomy::report {

Section job_section(const job::JobResult& r) {
  const auto buckets = r.time.named();
  StackedBarChart c;
  c.title = "where the job's GPU-hours go";
  c.unit = "GPU-h";
  c.axis_caption = "GPU-hours of the job's GPUs";
  StackedBar bar;
  bar.label = fmt::format("{} GPUs x {:.1f} days", r.gpus, r.wall.seconds() / 86400);
  for (size_t i = 0; i < buckets.size(); ++i) {
    c.series.push_back({buckets[i].first, series_color(i)});
    bar.values.push_back(r.hours_of(buckets[i].second));
  }
  c.bars.push_back(std::move(bar));

  Table t;
  const bool dollars = r.dollars_per_gpu_hour > 0;
  t.header = {"cause", "GPU-hours", "share"};
  t.numeric = {false, true, true};
  if (dollars) {
    t.header.push_back("dollars");
    t.numeric.push_back(true);
  }
  for (const auto& c : r.costs_by_cause()) {
    std::vector<std::string> row = {c.name, fmt::format("{:.0f}", c.gpu_hours),
                                    percent(c.per_gpu.seconds() / r.wall.seconds())};
    if (dollars) row.push_back(fmt::format("${:.0f}", c.dollars));
    t.rows.push_back(std::move(row));
  }
  if (r.spare_gpu_hours > 0) {
    std::vector<std::string> row = {"idle spares (beside the job)", fmt::format("{:.0f}", r.spare_gpu_hours), "-"};
    if (dollars) row.push_back(fmt::format("${:.0f}", r.spare_dollars()));
    t.rows.push_back(std::move(row));
  }

  Table causes;
  causes.header = {"category", "interruptions"};
  causes.numeric = {false, true};
  for (const auto& [k, v] : r.by_category) causes.rows.push_back({k, std::to_string(v)});

  Section s;
  s.id = "job";
  s.title = "The whole job: goodput and what the rest costs";
  const std::string mtbi = r.mtbi_hours > 0 ? fmt::format("MTBI {:.2f} h from the failure rates", r.mtbi_hours)
                                             : std::string("no failure rates given");
  const std::string optimum =
      r.young > core::SimTime::zero()
          ? fmt::format("; for this job's failure rate and checkpoint cost Young's optimum is {} and Daly's {}",
                        core::format_time(r.young), core::format_time(r.daly))
          : std::string();
  s.intro_html = fmt::format(
      "<p>{:.1f}% effective training time over {:.1f} days: {} interruptions ({}), "
      "{} iterations kept and {} lost and redone, {} checkpoints. Productive time is split as the steady iteration "
      "splits; checkpoint stalls include the slowdown of iterations a background write overlaps, and the wait for "
      "a write that outlasts the interval; recovery is detection, teardown, rescheduling or waiting for repair, "
      "and the restart with its checkpoint load.</p>"
      "<p>Checkpoint interval {}{}.</p>",
      100 * r.ettr, r.wall.seconds() / 86400, r.interruptions, mtbi, r.iterations_kept, r.iterations_lost,
      r.checkpoints, core::format_time(r.configured_interval), optimum);
  if (r.cascade && r.cascade->happened)
    s.intro_html += fmt::format(
        "<p>The congestion event at {:.2f} h {} and cost the job {} per GPU ({:.1f} GPU-hours), counted above{}.</p>",
        r.cascade->at.seconds() / 3600, r.cascade->failed_job ? "failed the job" : "was absorbed",
        core::format_time(r.cascade->total), r.hours_of(r.cascade->total),
        r.cascade->failed_job ? " as failure recovery and lost work" : " as exposed communication");
  s.body_html = draw_stacked_bars(c).str() + html_table(t) + (causes.rows.empty() ? "" : html_table(causes));
  if (r.adaptation) {
    const job::AdaptationResult& a = *r.adaptation;
    Table episodes;
    episodes.header = {"condition", "from", "to", "what"};
    episodes.numeric = {false, true, true, false};
    for (size_t i = 0; i < a.episodes.size() && i < 50; ++i)
      episodes.rows.push_back({job::to_string(a.episodes[i].kind), clock_time(a.episodes[i].start),
                               clock_time(a.episodes[i].end), a.episodes[i].what});
    Table decisions;
    decisions.header = {"time", "controller", "signal", "action", "effect"};
    decisions.numeric = {true, false, false, false, false};
    for (size_t i = 0; i < a.decisions.size() && i < 200; ++i) {
      const auto& d = a.decisions[i];
      decisions.rows.push_back({clock_time(d.at), d.controller, d.signal, d.action, d.effect});
    }
    Table chain;
    chain.header = {"time", "link of the chain", "what happened", "cost per GPU"};
    chain.numeric = {true, false, false, true};
    for (const auto& l : a.chain)
      chain.rows.push_back({clock_time(l.at), l.mechanism, l.what, core::format_time(l.cost)});
    s.body_html += fmt::format(
        "<h3>Conditions and controllers</h3><p>The conditions cost the job {:.1f} GPU-hours (exposed communication "
        "{:.1f}, waiting {:.1f}, checkpoint stalls {:.1f}, failure recovery {:.1f}, lost work {:.1f}), taken from "
        "productive training above; controllers' actions stopped training for {:.1f} of them. Tokens/s over the "
        "job: {:.0f} (steady iteration: {:.0f}).</p>",
        r.hours_of(a.total()), r.hours_of(a.communication), r.hours_of(a.waiting), r.hours_of(a.checkpoint),
        r.hours_of(a.recovery), r.hours_of(a.lost_work), r.hours_of(a.decisions_cost), r.tokens_per_s(),
        r.steady.tokens_per_s);
    s.body_html += html_table(episodes);
    s.body_html += "<h3>Controller decisions</h3>" +
                   (decisions.rows.empty() ? std::string("<p>No controller acted.</p>") : html_table(decisions));
    if (!chain.rows.empty())
      s.body_html += "<h3>The cascade, link by link</h3>" + html_table(chain) +
                     fmt::format("<p>Broken by: {}.</p>", a.chain_broken.empty() ? "no controller" : a.chain_broken);
  }
  return s;
}

}  // namespace anatomy::report
