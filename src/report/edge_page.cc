#include "report/edge_page.h"

#include <fmt/format.h>

#include "report/format.h"
#include "report/html_page.h"

namespace anatomy::report {
namespace {

using job::edge::EdgeResult;
using job::edge::TierLatency;

std::string f1(double x) { return fmt::format("{:.1f}", x); }
std::string f2(double x) { return fmt::format("{:.2f}", x); }

std::vector<std::string> tier_cells(const std::string& name, const TierLatency& t) {
  return {name, f1(us_from_ps(t.p50_ps)), f1(us_from_ps(t.p99_ps)), f1(us_from_ps(t.p999_ps)), f1(us_from_ps(t.max_ps)), f1(100 * t.utilization)};
}

Section cycles_section(const EdgeResult& r) {
  Table t;
  t.header = {"cycle", "start (s)", "collect", "train", "validate", "package", "rollout", "rollback", "gap", ""};
  t.numeric = {true, true, true, true, true, true, true, true, true, false};
  for (const auto& c : r.cycles)
    t.rows.push_back({std::to_string(c.index), fmt::format("{:.0f}", c.start.seconds()), f2(c.collect.seconds()),
                      f2(c.train.seconds()), f2(c.validate.seconds()), f2(c.package.seconds()), f2(c.rollout.seconds()),
                      f2(c.rollback.seconds()), f2(c.coverage_gap.seconds()),
                      c.failed ? "failed in production, rolled back" : ""});
  t.caption = "seconds per phase; gap: wall time in the cycle with a production line uncovered";
  return {"cycles", "Retraining cycles",
          "<p>Each cycle stages the samples collected since the last one, trains, validates, packages and rolls the "
          "new version out to the serving nodes; a version that fails in production is rolled back to the last good "
          "one after the detection delay.</p>",
          html_table(t)};
}

Section tiers_section(const EdgeResult& r) {
  Table t;
  t.header = {"tier", "p50 (us)", "p99 (us)", "p99.9 (us)", "max (us)", "utilization (%)"};
  t.numeric = {false, true, true, true, true, true};
  t.rows = {tier_cells("sensor", r.sensor), tier_cells("training", r.training),
            tier_cells("coordination", r.coordination), tier_cells("end to end", r.end_to_end)};
  Table s;
  s.header = {"stream", "p50 (us)", "p99 (us)", "p99.9 (us)", "max (us)", "deadline", "misses", "lost"};
  s.numeric = {false, true, true, true, true, true, true, true};
  for (const auto& x : r.streams)
    s.rows.push_back({x.name, f1(us_from_ps(x.latency.p50_ps)), f1(us_from_ps(x.latency.p99_ps)), f1(us_from_ps(x.latency.p999_ps)),
                      f1(us_from_ps(x.latency.max_ps)),
                      x.deadline > core::SimTime::zero() ? core::format_time(x.deadline) : "-",
                      fmt::format("{:.0f}", x.misses), fmt::format("{:.0f}", x.lost)});
  s.caption = "the sensor tier by stream, over the whole period";
  return {"tiers", "Latency per network tier",
          "<p>Sensor messages from release to their last frame at the host, simulated frame by frame; the training "
          "tier's gradient all-reduce per step; control messages over the WAN; frame to decision end to end.</p>",
          html_table(t) + html_table(s)};
}

Section accelerators_section(const EdgeResult& r) {
  const double total = r.acc_inference_s + r.acc_training_s + r.acc_rollout_s + r.acc_down_s + r.acc_idle_s;
  Table t;
  t.header = {"use", "accelerator-seconds", "share (%)"};
  t.numeric = {false, true, true};
  const std::pair<const char*, double> rows[] = {{"inference", r.acc_inference_s}, {"training", r.acc_training_s},
                                                 {"rollout", r.acc_rollout_s},     {"down", r.acc_down_s},
                                                 {"idle", r.acc_idle_s}};
  for (const auto& [name, v] : rows)
    t.rows.push_back({name, fmt::format("{:.0f}", v), f1(total > 0 ? 100 * v / total : 0)});
  return {"accelerators", "Where the accelerators' time went",
          "<p>Every accelerator-second of the period: serving, training and validation, loading new versions, down "
          "with its host, or idle.</p>",
          html_table(t)};
}

Section registry_section(const EdgeResult& r) {
  Table t;
  t.header = {"version", "cycle", "status"};
  t.numeric = {true, true, false};
  for (const auto& v : r.registry)
    t.rows.push_back({std::to_string(v.version), v.cycle < 0 ? "base" : std::to_string(v.cycle), v.status});
  return {"registry", "Model registry", "<p>Every version the site produced and what became of it.</p>", html_table(t)};
}

}  // namespace

std::string edge_html(const scenario::Scenario& s, const EdgeResult& r, const EdgeContext& c) {
  HtmlPage page(s.name + ": edge site");
  page.add_fact("source", s.file.empty() ? "<built-in>" : s.file);
  page.add_fact("model", c.model->name + ", " + c.model->description);
  page.add_fact("cluster", c.topology);
  page.add_fact("compute", c.compute);
  page.add_figure("coverage gap", fmt::format("{:.3f} s", r.coverage_gap.seconds()),
                  fmt::format("{:.1f} line-seconds with no valid model", r.uncovered_line_s));
  page.add_figure("deadline misses", fmt::format("{:.0f}", r.deadline_misses));
  page.add_figure("end to end p99", fmt::format("{:.2f} ms", us_from_ps(r.end_to_end.p99_ps) * 1e-3),
                  "budget " + core::format_time(s.edge->serving.budget));
  page.add_figure("cycles", std::to_string(r.cycles.size()), core::format_time(r.simulated) + " simulated");
  if (r.end_to_end.p99_ps > s.edge->serving.budget.count_ps())
    page.add_warning("the end-to-end p99 is over the decision budget");
  page.add_section(cycles_section(r));
  page.add_section(tiers_section(r));
  page.add_section(accelerators_section(r));
  page.add_section(registry_section(r));
  return page.str();
}

}  // namespace anatomy::report
