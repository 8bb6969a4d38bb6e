#include "report/fleet_report.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "report/csv.h"
#include "report/html_page.h"
#include "report/schema.h"
#include "report/svg.h"
#include "report/xy_chart.h"

namespace anatomy::report {
namespace {

using fleet::FleetResult;
using fleet::JobOutcome;

std::string hours(double s) {
  if (s < 120) return fmt::format("{:.1f} s", s);
  if (s < 7200) return fmt::format("{:.1f} min", s / 60);
  if (s < 2 * 86400) return fmt::format("{:.2f} h", s / 3600);
  return fmt::format("{:.2f} d", s / 86400);
}

std::string shared_list(const JobOutcome& j, size_t most) {
  std::string out;
  for (size_t i = 0; i < j.shared_with.size() && i < most; ++i) out += (i ? " " : "") + j.shared_with[i];
  if (j.shared_with.size() > most) out += fmt::format(" (+{})", j.shared_with.size() - most);
  return out.empty() ? "-" : out;
}

// Jobs in the order a reader wants them: slowest (finished) first, then by id order.
std::vector<size_t> slowest_first(const FleetResult& r) {
  std::vector<size_t> idx(r.jobs.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return r.jobs[a].slowdown > r.jobs[b].slowdown; });
  return idx;
}

std::string scheduler_line(const scenario::Scenario& s, const FleetResult& r) {
  const fleet::SchedulerSpec& k = s.fleet->scheduler;
  const bool training = std::any_of(s.fleet->classes.begin(), s.fleet->classes.end(),
                                    [](const fleet::JobClass& c) { return !c.model.empty(); });
  const char* contention = !k.contention ? "off"
                           : training && k.resimulate
                               ? "on (max-min shares per link; training iterations re-simulated with what they leave)"
                               : "on (max-min shares per link)";
  return fmt::format("{} queue, {} placement{}{}; contention {}", r.policy, job::to_string(k.placement.policy),
                     k.placement.rack_power_kw > 0 ? fmt::format(", {:.1f} kW per rack", k.placement.rack_power_kw) : "",
                     k.policy == fleet::Policy::kPriority ? (k.preemption ? ", preemption" : ", no preemption") : "",
                     contention);
}

std::string stream_line(const FleetResult& r) {
  std::string line = fmt::format("{} jobs in the span", r.jobs.size());
  if (r.stream.rows > 0)
    line += fmt::format("; trace: {} rows read, {} skipped (no GPUs), {} rejected", r.stream.rows, r.stream.skipped,
                        r.stream.rejected);
  return line;
}

}  // namespace

std::string fleet_text(const scenario::Scenario& s, const FleetResult& r, const std::string& topology) {
  std::string out = fmt::format("# anatomy run: {} (fleet of {} jobs over {})\n", s.name, r.jobs.size(), hours(r.span_s));
  out += fmt::format("# cluster: {}\n", topology);
  out += fmt::format("# scheduler: {}\n", scheduler_line(s, r));
  out += fmt::format("# jobs: {}\n", stream_line(r));
  for (const std::string& p : r.profiles) out += fmt::format("# step: {}\n", p);
  for (const std::string& e : r.stream.errors) out += fmt::format("# rejected: {}\n", e);
  if (r.stream.rejected > static_cast<int>(r.stream.errors.size()))
    out += fmt::format("# rejected: ... and {} more rows\n", r.stream.rejected - static_cast<int>(r.stream.errors.size()));
  out += "\n";
  out += fmt::format("GPU utilization   {:.1f}% (held by jobs); productive compute {:.1f}%\n", 100 * r.gpu_utilization,
                     100 * r.productive_share);
  out += fmt::format("jobs              {} finished, {} running at the end, {} waiting\n", r.finished, r.running, r.queued);
  out += fmt::format("queueing          mean {}\n", hours(r.mean_queue_s));
  out += fmt::format("slowdown          mean {:.3f}x, worst {:.3f}x; {} finished jobs slowed >= 1% by contention\n",
                     r.mean_slowdown, r.worst_slowdown, r.jobs_slowed);
  out += fmt::format("simulation        {} events, {} max-min shares of shared links worked out", r.events,
                     r.evaluations);
  if (r.iterations_run + r.iterations_cached > 0)
    out += fmt::format("; {} training iterations re-simulated on the cluster, {} looked up again", r.iterations_run,
                       r.iterations_cached);
  out += "\n\n";
  const double total = std::accumulate(r.causes.begin(), r.causes.end(), 0.0,
                                       [](double a, const fleet::Cause& c) { return a + c.gpu_hours; });
  out += "where the cluster's GPU-hours go:\n";
  for (const fleet::Cause& c : r.causes) {
    out += fmt::format("  {:<22} {:>14.1f} GPU-h {:>6.1f}%", c.name, c.gpu_hours, total > 0 ? 100 * c.gpu_hours / total : 0);
    if (r.dollars_per_gpu_hour > 0) out += fmt::format("  ${:>14.0f}", c.dollars);
    out += "\n";
  }
  out += fmt::format("  {:<22} {:>14.1f} GPU-h (= {} GPUs x {})\n\n", "total", total, r.gpus, hours(r.span_s));
  const std::vector<size_t> order = slowest_first(r);
  const size_t shown = std::min<size_t>(order.size(), 30);
  out += fmt::format("jobs (slowest first{}):\n", shown < order.size() ? fmt::format(", {} of {}", shown, order.size()) : "");
  size_t id_w = 4, class_w = 5;
  for (size_t i = 0; i < shown; ++i) {
    id_w = std::max(id_w, std::min<size_t>(40, r.jobs[order[i]].id.size()));
    class_w = std::max(class_w, std::min<size_t>(24, r.jobs[order[i]].job_class.size()));
  }
  out += fmt::format("  {:<{}} {:<{}} {:>6} {:<9} {:>11} {:>11} {:>11} {:>9} {:>7}  {}\n", "id", id_w, "class", class_w,
                     "gpus", "state", "queue", "jct", "alone", "slowdown", "peak", "shared links with");
  for (size_t i = 0; i < shown; ++i) {
    const JobOutcome& j = r.jobs[order[i]];
    out += fmt::format("  {:<{}} {:<{}} {:>6} {:<9} {:>11} {:>11} {:>11} {:>8.3f}x {:>6.3f}x  {}\n", j.id, id_w,
                       j.job_class, class_w, j.gpus, fleet::to_string(j.state), hours(j.queue_s),
                       j.jct_s > 0 ? hours(j.jct_s) : "-", hours(j.alone_s), j.slowdown, j.peak_slowdown,
                       shared_list(j, 6));
  }
  if (!r.heat.empty()) {
    out += "\nmost contended links (peak offered load / capacity while shared):\n";
    for (size_t i = 0; i < r.heat.size() && i < 8; ++i) {
      const double peak = *std::max_element(r.heat[i].load.begin(), r.heat[i].load.end());
      out += fmt::format("  {:<48} {:>6.2f}  (up to {} jobs)\n", r.heat[i].link, peak, r.heat[i].jobs);
    }
  }
  return out;
}

nlohmann::ordered_json fleet_json(const scenario::Scenario& s, const FleetResult& r, const std::string& topology) {
  nlohmann::ordered_json j = schema_header("run.fleet");
  j["scenario"] = s.name;
  j["topology"] = topology;
  j["scheduler"] = scheduler_line(s, r);
  j["steps"] = r.profiles;
  nlohmann::ordered_json jobs = nlohmann::ordered_json::array();
  for (const JobOutcome& o : r.jobs)
    jobs.push_back({{"id", o.id},
                    {"class", o.job_class},
                    {"gpus", o.gpus},
                    {"gpus_allocated", o.gpus_allocated},
                    {"priority", o.priority},
                    {"state", fleet::to_string(o.state)},
                    {"arrival_s", o.arrival_s},
                    {"start_s", o.start_s},
                    {"end_s", o.end_s},
                    {"queue_s", o.queue_s},
                    {"jct_s", o.jct_s},
                    {"alone_s", o.alone_s},
                    {"run_s", o.run_s},
                    {"slowdown", o.slowdown},
                    {"contention_s", o.contention_s},
                    {"peak_slowdown", o.peak_slowdown},
                    {"preemptions", o.preemptions},
                    {"failures", o.failures},
                    {"checkpoints", o.checkpoints},
                    {"shared_with", o.shared_with},
                    {"placement", o.placement}});
  j["jobs"] = jobs;
  nlohmann::ordered_json c;
  c["gpus"] = r.gpus;
  c["hosts"] = r.hosts;
  c["span_s"] = r.span_s;
  c["gpu_utilization"] = r.gpu_utilization;
  c["productive_share"] = r.productive_share;
  nlohmann::ordered_json gh, dollars;
  for (const fleet::Cause& x : r.causes) gh[x.name] = x.gpu_hours;
  c["gpu_hours"] = gh;
  if (r.dollars_per_gpu_hour > 0) {
    for (const fleet::Cause& x : r.causes) dollars[x.name] = x.dollars;
    c["dollars"] = dollars;
    c["dollars_per_gpu_hour"] = r.dollars_per_gpu_hour;
  }
  c["finished"] = r.finished;
  c["running"] = r.running;
  c["waiting"] = r.queued;
  c["mean_queue_s"] = r.mean_queue_s;
  c["mean_slowdown"] = r.mean_slowdown;
  c["worst_slowdown"] = r.worst_slowdown;
  c["jobs_slowed"] = r.jobs_slowed;
  c["bin_s"] = r.bin_s;
  c["utilization_series"] = r.utilization_series;
  c["productive_series"] = r.productive_series;
  nlohmann::ordered_json heat = nlohmann::ordered_json::array();
  for (const fleet::HeatRow& h : r.heat) heat.push_back({{"link", h.link}, {"most_jobs", h.jobs}, {"load", h.load}});
  c["contended_links"] = heat;
  c["events"] = r.events;
  c["link_share_evaluations"] = r.evaluations;
  c["iterations_resimulated"] = r.iterations_run;
  c["iterations_from_cache"] = r.iterations_cached;
  j["cluster"] = c;
  j["trace"] = {{"rows", r.stream.rows},
                {"skipped", r.stream.skipped},
                {"rejected", r.stream.rejected},
                {"errors", r.stream.errors}};
  return j;
}

std::string fleet_jobs_csv(const FleetResult& r) {
  std::string out =
      "id,class,gpus,gpus_allocated,priority,state,arrival_s,start_s,end_s,queue_s,jct_s,alone_s,run_s,slowdown,"
      "contention_s,peak_slowdown,preemptions,failures,checkpoints,shared_with\n";
  for (const JobOutcome& o : r.jobs) {
    std::string shared;
    for (size_t i = 0; i < o.shared_with.size(); ++i) shared += (i ? " " : "") + o.shared_with[i];
    out += fmt::format("{},{},{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{},{},{},{}\n",
                       csv_field(o.id), csv_field(o.job_class), o.gpus, o.gpus_allocated, o.priority,
                       fleet::to_string(o.state), o.arrival_s, o.start_s, o.end_s, o.queue_s, o.jct_s, o.alone_s,
                       o.run_s, o.slowdown, o.contention_s, o.peak_slowdown, o.preemptions, o.failures, o.checkpoints,
                       csv_field(shared));
  }
  return out;
}

namespace {

// White (no load) through orange to dark red (twice the capacity offered and beyond).
std::string heat_colour(double load) {
  const double x = std::clamp(load / 2, 0.0, 1.0);
  const int r = static_cast<int>(std::lround(255 - 90 * x)), g = static_cast<int>(std::lround(250 - 220 * x)),
            b = static_cast<int>(std::lround(240 - 215 * x));
  return fmt::format("#{:02x}{:02x}{:02x}", r, g, b);
}

Section heat_section(const FleetResult& r) {
  Section sec{"contention", "Contention per link over time",
              "<p>The most contended links of the fabric and storage paths, one row each, one column per time bin: "
              "the load offered to the link (other jobs' collectives at their mean rate, checkpoint writes at their "
              "rate alone) over its capacity, while two or more jobs shared it. Above 1 the link is oversubscribed "
              "and every job on it gets its max-min share.</p>",
              ""};
  if (r.heat.empty()) {
    sec.body_html = "<p>No link was shared by two jobs at once.</p>";
    return sec;
  }
  const double label_w = 300, cell_w = std::max(4.0, 560.0 / static_cast<double>(r.heat.front().load.size())),
               cell_h = 16;
  const double w = label_w + cell_w * static_cast<double>(r.heat.front().load.size()) + 10;
  const double h = cell_h * static_cast<double>(r.heat.size()) + 30;
  Svg svg(w, h, "offered load per link over time");
  for (size_t i = 0; i < r.heat.size(); ++i) {
    const double y = 5 + cell_h * static_cast<double>(i);
    svg.text(label_w - 6, y + cell_h - 4, fit_text(r.heat[i].link, 10, label_w - 10), 10, Anchor::kEnd);
    for (size_t b = 0; b < r.heat[i].load.size(); ++b)
      svg.rect(label_w + cell_w * static_cast<double>(b), y, cell_w, cell_h - 1, heat_colour(r.heat[i].load[b]),
               fmt::format("{}: {:.2f} x capacity in [{}, {})", r.heat[i].link, r.heat[i].load[b],
                           hours(r.bin_s * static_cast<double>(b)), hours(r.bin_s * static_cast<double>(b + 1))));
  }
  svg.text(label_w, h - 6, "0", 10, Anchor::kStart);
  svg.text(w - 10, h - 6, hours(r.span_s), 10, Anchor::kEnd);
  sec.body_html = svg.str();
  return sec;
}

Section utilization_section(const FleetResult& r) {
  XyChart c;
  c.title = "GPU utilization over time";
  c.series = {{"held by jobs", "#4e79a7"}, {"productive compute", "#59a14f"}};
  c.points.resize(2);
  for (size_t b = 0; b < r.utilization_series.size(); ++b) {
    const double t = r.bin_s * (static_cast<double>(b) + 0.5) / 3600;
    c.points[0].push_back({t, 100 * r.utilization_series[b]});
    c.points[1].push_back({t, 100 * r.productive_series[b]});
  }
  c.x_caption = "hours";
  c.y_caption = "% of the cluster's GPUs";
  return {"utilization", "GPU utilization over time",
          "<p>The share of the cluster's GPUs held by jobs, and the share doing productive compute, per time bin.</p>",
          draw_xy(c).str()};
}

Section causes_section(const FleetResult& r) {
  Table t;
  t.header = {"cause", "GPU-hours", "share"};
  if (r.dollars_per_gpu_hour > 0) t.header.push_back("dollars");
  t.numeric = {false, true, true, true};
  double total = 0;
  for (const fleet::Cause& c : r.causes) total += c.gpu_hours;
  for (const fleet::Cause& c : r.causes) {
    std::vector<std::string> row = {c.name, fmt::format("{:.1f}", c.gpu_hours),
                                    fmt::format("{:.1f}%", total > 0 ? 100 * c.gpu_hours / total : 0)};
    if (r.dollars_per_gpu_hour > 0) row.push_back(fmt::format("{:.0f}", c.dollars));
    t.rows.push_back(std::move(row));
  }
  return {"causes", "Where the GPU-hours go",
          "<p>Every GPU-hour of the span, by cause: idle with nothing waiting, idle while jobs waited (queued), and "
          "each phase of the jobs that held GPUs.</p>",
          html_table(t)};
}

Section jobs_section(const FleetResult& r) {
  Table t;
  t.header = {"id", "class", "GPUs", "state", "queue", "JCT", "alone", "slowdown", "peak", "shared links with"};
  t.numeric = {false, false, true, false, true, true, true, true, true, false};
  const std::vector<size_t> order = slowest_first(r);
  for (size_t i = 0; i < order.size() && i < 200; ++i) {
    const JobOutcome& j = r.jobs[order[i]];
    t.rows.push_back({j.id, j.job_class, std::to_string(j.gpus), fleet::to_string(j.state), hours(j.queue_s),
                      j.jct_s > 0 ? hours(j.jct_s) : "-", hours(j.alone_s), fmt::format("{:.3f}x", j.slowdown),
                      fmt::format("{:.3f}x", j.peak_slowdown), shared_list(j, 8)});
  }
  if (order.size() > 200) t.caption = fmt::format("the 200 slowest of {} jobs (all of them: --csv)", order.size());
  return {"jobs", "Jobs", "<p>Queueing delay, completion time, running time alone and slowdown, slowest first.</p>",
          html_table(t)};
}

}  // namespace

std::string fleet_html(const scenario::Scenario& s, const FleetResult& r, const std::string& topology) {
  HtmlPage page(s.name + ": fleet");
  page.add_fact("source", s.file.empty() ? "<built-in>" : s.file);
  page.add_fact("cluster", topology);
  page.add_fact("scheduler", scheduler_line(s, r));
  page.add_fact("jobs", stream_line(r));
  for (const std::string& p : r.profiles) page.add_fact("step", p);
  page.add_figure("GPU utilization", fmt::format("{:.1f}%", 100 * r.gpu_utilization),
                  fmt::format("productive {:.1f}%", 100 * r.productive_share));
  page.add_figure("mean queueing", hours(r.mean_queue_s));
  page.add_figure("mean slowdown", fmt::format("{:.3f}x", r.mean_slowdown), fmt::format("worst {:.3f}x", r.worst_slowdown));
  page.add_figure("jobs", fmt::format("{} finished", r.finished), fmt::format("{} running, {} waiting", r.running, r.queued));
  for (const std::string& e : r.stream.errors) page.add_warning("trace row rejected: " + e);
  page.add_section(utilization_section(r));
  page.add_section(causes_section(r));
  page.add_section(heat_section(r));
  page.add_section(jobs_section(r));
  return page.str();
}

}  // namespace anatomy::report
