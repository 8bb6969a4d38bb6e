#include "report/job_text.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "core/units.h"
#include "report/scenario_page.h"
#include "report/schema.h"

namespace anatomy::report {
namespace {

std::string h(core::JobTime t) { return fmt::format("{:.1f} h", t.seconds() / 3600); }

// An interval in whole iterations, as checkpoints can only be taken between them.
std::string iterations_in(core::JobTime interval, core::SimTime iteration) {
  const int64_t n = std::max<int64_t>(1, std::llround(interval.seconds() / iteration.seconds()));
  return fmt::format("every {} iteration{}", n, n == 1 ? "" : "s");
}

}  // namespace

std::string clock_time(core::JobTime t) {
  const int64_t ms = static_cast<int64_t>(std::llround(t.seconds() * 1000));
  const int64_t h = ms / 3'600'000, m = ms / 60'000 % 60, sec = ms / 1000 % 60, milli = ms % 1000;
  return h > 0 ? fmt::format("{}:{:02}:{:02}.{:03}", h, m, sec, milli) : fmt::format("{:02}:{:02}.{:03}", m, sec, milli);
}

std::string adaptation_text(const job::JobResult& r) {
  const job::AdaptationResult& a = *r.adaptation;
  std::string out;
  const auto to = std::back_inserter(out);
  fmt::format_to(to, "\nconditions ({} episode{}):\n", a.episodes.size(), a.episodes.size() == 1 ? "" : "s");
  for (size_t i = 0; i < a.episodes.size() && i < 20; ++i)
    fmt::format_to(to, "  {:>12} - {:<12} {}\n", clock_time(a.episodes[i].start),
                   clock_time(a.episodes[i].end), a.episodes[i].what);
  if (a.episodes.size() > 20) fmt::format_to(to, "  ... {} more\n", a.episodes.size() - 20);
  fmt::format_to(to,
                 "what they cost: {:.1f} GPU-hours (exposed communication {:.1f}, waiting {:.1f}, checkpoint stalls "
                 "{:.1f}, failure recovery {:.1f}, lost work {:.1f}; controller actions {:.1f} of it)\n",
                 r.hours_of(a.total()), r.hours_of(a.communication), r.hours_of(a.waiting), r.hours_of(a.checkpoint),
                 r.hours_of(a.recovery), r.hours_of(a.lost_work), r.hours_of(a.decisions_cost));
  fmt::format_to(to, "tokens/s over the job    {:.0f} (steady {:.0f}); tokens per step {}{}\n", r.tokens_per_s(),
                 r.steady.tokens_per_s, a.tokens_per_iteration,
                 a.max_tokens_per_iteration > a.tokens_per_iteration
                     ? fmt::format(", up to {} for {} (a larger global batch: convergence per token is not modelled)",
                                   a.max_tokens_per_iteration, core::format_time(a.larger_batch_time))
                     : std::string());
  fmt::format_to(to, "\ncontroller decisions ({}):\n", a.decisions.size());
  if (a.decisions.empty()) fmt::format_to(to, "  none\n");
  for (size_t i = 0; i < a.decisions.size() && i < 30; ++i) {
    const auto& d = a.decisions[i];
    fmt::format_to(to, "  {:>12}  {:<16} {} -> {}; {}\n", clock_time(d.at), d.controller, d.signal, d.action,
                   d.effect);
  }
  if (a.decisions.size() > 30) fmt::format_to(to, "  ... {} more\n", a.decisions.size() - 30);
  if (!a.chain.empty()) {
    fmt::format_to(to, "\ncascade, link by link:\n");
    for (size_t i = 0; i < a.chain.size() && i < 40; ++i)
      fmt::format_to(to, "  {:>12}  {}: {}{}\n", clock_time(a.chain[i].at), a.chain[i].mechanism, a.chain[i].what,
                     a.chain[i].cost > core::JobTime::zero()
                         ? fmt::format(" (costs {} per GPU)", core::format_time(a.chain[i].cost))
                         : std::string());
    fmt::format_to(to, "  broken by: {}\n", a.chain_broken.empty() ? "no controller" : a.chain_broken);
  }
  return out;
}

nlohmann::ordered_json job_json(const scenario::Scenario& s, const job::JobResult& r) {
  const std::optional<job::CascadeResult>& cascade = r.cascade;
  const std::vector<job::CauseCost> causes = r.costs_by_cause();
  nlohmann::ordered_json j = schema_header("run.job");
  j["scenario"] = s.name;
  j["gpus"] = r.gpus;
  j["wall_hours"] = r.wall.seconds() / 3600;
  j["iteration_s"] = r.steady.iteration.seconds();
  j["ettr"] = r.ettr;
  j["interruptions"] = r.interruptions;
  j["iterations_kept"] = r.iterations_kept;
  j["iterations_lost"] = r.iterations_lost;
  j["checkpoints"] = r.checkpoints;
  nlohmann::ordered_json gh;
  for (const auto& c : causes) gh[c.name] = c.gpu_hours;
  j["gpu_hours"] = gh;
  j["spare_gpu_hours"] = r.spare_gpu_hours;
  if (r.dollars_per_gpu_hour > 0) {
    nlohmann::ordered_json d;
    for (const auto& c : causes) d[c.name] = c.dollars;
    d["idle spares"] = r.spare_dollars();
    j["dollars"] = d;
  }
  j["by_component"] = r.by_component;
  j["by_category"] = r.by_category;
  j["mtbi_hours"] = r.mtbi_hours > 0 ? nlohmann::ordered_json(r.mtbi_hours) : nlohmann::ordered_json();
  j["checkpoint_stall_s"] = r.checkpoint.stall.seconds();
  j["checkpoint_cost_s"] = r.checkpoint_cost().seconds();
  j["checkpoint_interval_s"] = r.configured_interval.seconds();
  j["young_interval_s"] = r.young.seconds();
  j["daly_interval_s"] = r.daly.seconds();
  if (cascade) {
    nlohmann::ordered_json chain = nlohmann::json::array();
    for (const auto& step : cascade->chain)
      chain.push_back({{"mechanism", step.mechanism}, {"what", step.what}, {"cost_s", step.cost.seconds()}});
    j["cascade"] = {{"at_hours", cascade->at.seconds() / 3600},
                    {"happened", cascade->happened},
                    {"chain", chain},
                    {"total_s", cascade->total.seconds()},
                    {"failed_job", cascade->failed_job}};
  }
  if (r.adaptation) {
    const job::AdaptationResult& a = *r.adaptation;
    nlohmann::ordered_json decisions = nlohmann::json::array();
    for (const auto& d : a.decisions)
      decisions.push_back({{"t_s", d.at.seconds()},
                           {"controller", d.controller},
                           {"signal", d.signal},
                           {"action", d.action},
                           {"effect", d.effect}});
    j["controller_decisions"] = decisions;
    nlohmann::ordered_json episodes = nlohmann::json::array();
    for (const auto& e : a.episodes)
      episodes.push_back({{"condition", e.condition},
                          {"kind", job::to_string(e.kind)},
                          {"start_s", e.start.seconds()},
                          {"end_s", e.end.seconds()},
                          {"what", e.what}});
    j["conditions"] = episodes;
    nlohmann::ordered_json chain = nlohmann::json::array();
    for (const auto& c : a.chain)
      chain.push_back({{"t_s", c.at.seconds()}, {"mechanism", c.mechanism}, {"what", c.what}, {"cost_s", c.cost.seconds()}});
    j["chain"] = chain;
    j["chain_broken_by"] = a.chain_broken;
    j["adaptation_cost_gpu_hours"] = {{"exposed communication", r.hours_of(a.communication)},
                                      {"waiting", r.hours_of(a.waiting)},
                                      {"checkpoint stalls", r.hours_of(a.checkpoint)},
                                      {"failure recovery", r.hours_of(a.recovery)},
                                      {"lost work", r.hours_of(a.lost_work)},
                                      {"controller actions", r.hours_of(a.decisions_cost)}};
    j["tokens_per_iteration"] = a.tokens_per_iteration;
    j["max_tokens_per_iteration"] = a.max_tokens_per_iteration;
    j["tokens_per_s"] = r.tokens_per_s();
  }
  return j;
}

std::string job_text(const scenario::Scenario& s, const job::JobResult& r, const std::string& topology) {
  const std::optional<job::CascadeResult>& cascade = r.cascade;
  const double gpu_hours = r.gpu_hours();
  std::string out;
  const auto to = std::back_inserter(out);
  fmt::format_to(to, "# anatomy run: {} ({})\n", s.name, s.file.empty() ? "built-in" : s.file);
  fmt::format_to(to, "# cluster: {}\n", topology);
  fmt::format_to(to, "# model: {}, plan: {}; one iteration {:.3f} s ({:.1f}% MFU)\n", s.model.name,
                 plan_text(s.parallelism), r.steady.iteration.seconds(), 100 * r.steady.mfu);
  fmt::format_to(to, "# checkpoint: {} every {} iterations ({}); costs the job {} each\n",
                 s.job->checkpoint.enabled ? r.checkpoint.how : "disabled", r.checkpoint_every,
                 core::format_time(r.configured_interval), core::format_time(r.checkpoint_cost()));
  fmt::format_to(to, "# startup: {}", core::format_time(r.first_start.total()));
  for (const auto& p : r.first_start.phases) fmt::format_to(to, " | {} {}", p.name, core::format_time(p.duration));
  fmt::format_to(to, "\n# restart: {}", core::format_time(r.restart.total()));
  for (const auto& p : r.restart.phases) fmt::format_to(to, " | {} {}", p.name, core::format_time(p.duration));
  fmt::format_to(to, "\n\n");
  fmt::format_to(to, "wall time               {} ({:.1f} days) on {} GPUs\n", h(r.wall), r.wall.seconds() / 86400,
                 r.gpus);
  fmt::format_to(to, "effective training time {:.1f}% (productive training / wall time)\n", 100 * r.ettr);
  fmt::format_to(to, "interruptions           {} ({})\n", r.interruptions,
                 r.mtbi_hours > 0 ? fmt::format("MTBI from the failure rates: {:.2f} h", r.mtbi_hours)
                                  : std::string("no failure rates given"));
  fmt::format_to(to, "iterations              {} kept, {} lost and redone, {} checkpoints\n", r.iterations_kept,
                 r.iterations_lost, r.checkpoints);
  if (r.young > core::SimTime::zero())
    fmt::format_to(to,
                   "checkpoint interval     {} configured; Young {}, Daly {} ({}) for this job's failure rate and "
                   "checkpoint cost\n",
                   core::format_time(r.configured_interval), core::format_time(r.young), core::format_time(r.daly),
                   iterations_in(r.daly, r.steady.iteration));
  fmt::format_to(to, "\nGPU-hours by cause ({:.0f} in all{}):\n", gpu_hours,
                 r.dollars_per_gpu_hour > 0 ? fmt::format(", at ${:.2f} per GPU-hour", r.dollars_per_gpu_hour) : "");
  for (const auto& c : r.costs_by_cause()) {
    fmt::format_to(to, "  {:<22} {:>12.0f}  {:5.1f}%", c.name, c.gpu_hours, 100 * c.per_gpu.seconds() / r.wall.seconds());
    if (r.dollars_per_gpu_hour > 0) fmt::format_to(to, "  ${:>14.0f}", c.dollars);
    fmt::format_to(to, "\n");
  }
  const core::JobTime residue = r.wall - r.time.total();
  fmt::format_to(to, "  {:<22} {:>12.0f}  (residue {} ps)\n", "total", gpu_hours, static_cast<int64_t>(residue.count_ps()));
  if (r.spare_gpu_hours > 0)
    fmt::format_to(
        to, "  {:<22} {:>12.0f}  (spare hosts held in reserve, beside the job){}\n", "idle spares", r.spare_gpu_hours,
        r.dollars_per_gpu_hour > 0 ? fmt::format(" ${:.0f}", r.spare_dollars()) : "");
  if (!r.by_category.empty()) {
    fmt::format_to(to, "\ninterruptions by category:");
    for (const auto& [k, v] : r.by_category) fmt::format_to(to, "  {} {}", k, v);
    fmt::format_to(to, "\ninterruptions by component:\n");
    for (const auto& [k, v] : r.by_component) fmt::format_to(to, "  {:<32} {}\n", k, v);
  }
  if (cascade) {
    fmt::format_to(to, "\ncongestion cascade at {:.2f} h ({}):\n", cascade->at.seconds() / 3600,
                   !cascade->happened ? "it did not strike" : cascade->failed_job ? "it fails the job" : "absorbed");
    for (size_t i = 0; i < cascade->chain.size(); ++i)
      fmt::format_to(to, "  {}. {}: {}\n", i + 1, cascade->chain[i].mechanism, cascade->chain[i].what);
    fmt::format_to(to, "  total cost to the job: {} per GPU, {:.1f} GPU-hours (in the GPU-hours by cause above)\n",
                   core::format_time(cascade->total), r.hours_of(cascade->total));
  }
  if (r.adaptation) out += adaptation_text(r);
  if (!r.events.empty()) {
    fmt::format_to(to, "\nfirst interruptions:\n");
    for (size_t i = 0; i < r.events.size() && i < 5; ++i) fmt::format_to(to, "  {}\n", r.events[i].what);
  }
  return out;
}

}  // namespace anatomy::report
