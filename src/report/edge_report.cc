#include "report/edge_report.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/time.h"
#include "hw/precision.h"
#include "report/format.h"
#include "report/schema.h"

namespace anatomy::report {
namespace {

using job::edge::CycleResult;
using job::edge::EdgeResult;
using job::edge::TierLatency;


nlohmann::ordered_json tier_json(const TierLatency& t) {
  return {{"p50_us", us_from_ps(t.p50_ps)},       {"p99_us", us_from_ps(t.p99_ps)}, {"p999_us", us_from_ps(t.p999_ps)},
          {"max_us", us_from_ps(t.max_ps)},       {"messages", t.samples}, {"utilization", t.utilization}};
}

std::string tier_row(const char* name, const TierLatency& t, const std::string& what) {
  return fmt::format("  {:<14}{:>11.1f}{:>11.1f}{:>11.1f}{:>11.1f}{:>7.1f}%  {}\n", name, us_from_ps(t.p50_ps), us_from_ps(t.p99_ps),
                     us_from_ps(t.p999_ps), us_from_ps(t.max_ps), 100 * t.utilization, what);
}

}  // namespace

std::string retrain_precision(const scenario::Scenario& s) {
  const std::string p = hw::to_string(s.training.precision);
  return p + (s.training.fp8_attention ? " with FP8 attention" : "") +
         (s.edge && s.edge->retrain.quantized_weights ? ", weights kept in " + p : "");
}

std::string edge_text(const scenario::Scenario& s, const EdgeResult& r, const EdgeContext& c) {
  const job::edge::EdgeSpec& e = *s.edge;
  const workload::EdgeModel& m = *c.model;
  std::string out;
  out += fmt::format("# anatomy run: edge site, {} on {} x {} ({})\n", m.name, s.cluster.gpus, s.cluster.system.gpu.name,
                     s.file.empty() ? "<built-in>" : s.file);
  out += fmt::format("# model: {} ({:.1f}M parameters, {:.2f} GFLOPs forward per {}), {}\n", m.name, m.params() * 1e-6,
                     m.forward_flops() * 1e-9, m.sample, m.description);
  out += fmt::format("# cluster: {}\n# compute: {}; collectives: {}\n", c.topology, c.compute, c.library);
  out += fmt::format(
      "# serving: {} node(s){}, {} lines, budget {} (network {}); inference {} per frame (batch 1), load {:.1f}%\n",
      e.serving.nodes, e.serving.shared ? (e.serving.inference_priority ? " shared, inference first" : " shared, training first") : " dedicated",
      e.serving.lines, core::format_time(e.serving.budget), core::format_time(e.serving.network_budget),
      core::format_time(r.inference_time), 100 * r.serving_load);
  out += fmt::format(
      "# retrain: every {}, {} in {} on {} GPU(s), {} samples x {} epoch(s), batch {}/{}; step {} ({}all-reduce {} of "
      "{} trainable parameters)\n",
      core::format_time(e.retrain.interval), workload::to_string(e.retrain.mode), retrain_precision(s), r.training_gpus,
      e.retrain.samples,
      e.retrain.epochs, e.retrain.batch_per_gpu,
      e.retrain.context_parallel > 1
          ? fmt::format("{} GPUs (context parallel, {})", e.retrain.context_parallel,
                        workload::to_string(e.retrain.context_parallel_comm))
          : "GPU",
      core::format_time(r.step_time),
      r.cp_all_to_all_time > core::SimTime::zero()
          ? "CP all-to-alls " + core::format_time(r.cp_all_to_all_time) + ", "
          : "",
      core::format_time(r.allreduce_time), m.trainable_params(e.retrain.mode, e.retrain.lora_rank));
  out += fmt::format("# rollout: {} to {} node(s), package {}, weights {} ({}), warmup {}\n",
                     job::edge::to_string(e.rollout.strategy), e.rollout.nodes ? e.rollout.nodes : e.serving.nodes,
                     human_gb(r.package_bytes), human_gb(r.model_bytes),
                     r.hot_swap ? "two copies fit: hot swap" : "one copy fits: a node stops to load",
                     core::format_time(e.rollout.warmup));
  out += fmt::format("# sensor network: {}, {} stream kind(s){}; simulated frame by frame, {} per traffic state "
                     "({} events)\n\n",
                     e.sensor.switched ? "switched TSN segment" : "point-to-point links", e.sensor.streams.size(),
                     e.sensor.shared_with_training ? ", training traffic on the hosts' port" : "",
                     core::format_time(e.sensor.window), r.frame_events);

  out += fmt::format("simulated          {} ({} cycles)\n", human_time(r.simulated), r.cycles.size());
  out += fmt::format("coverage gap       {:.3f} s  ({:.1f} line-seconds with no valid model)\n", r.coverage_gap.seconds(),
                     r.uncovered_line_s);
  out += fmt::format("bad version served {:.1f} s  (until a failed version was noticed)\n", r.bad_version.seconds());
  out += fmt::format("deadline misses    {:.0f}  (network {:.0f}, end to end {:.0f}, no model {:.0f})\n",
                     r.deadline_misses, r.misses_network, r.misses_inference, r.misses_uncovered);
  if (r.base_pull > core::SimTime::zero())
    out += fmt::format("base-model pull    {} per site ({} sites at once)\n", core::format_time(r.base_pull),
                       e.coordination.sites);

  out += "\nlatency per tier (us):\n";
  out += fmt::format("  {:<14}{:>11}{:>11}{:>11}{:>11}{:>8}  {}\n", "tier", "p50", "p99", "p99.9", "max", "util", "what");
  out += tier_row("sensor", r.sensor, "sensor message, release to last frame at the host");
  out += tier_row("training", r.training, "gradient all-reduce per step");
  out += tier_row("coordination", r.coordination, "control message over the WAN");
  out += tier_row("end to end", r.end_to_end, fmt::format("frame to decision (budget {})", core::format_time(e.serving.budget)).c_str());
  out += "\nsensor streams (us):\n";
  out += fmt::format("  {:<24}{:>11}{:>11}{:>11}{:>11}{:>10}{:>12}{:>10}\n", "stream", "p50", "p99", "p99.9", "max", "deadline",
                     "misses", "lost");
  for (const job::edge::StreamLatency& s : r.streams)
    out += fmt::format("  {:<24}{:>11.1f}{:>11.1f}{:>11.1f}{:>11.1f}{:>10}{:>12.0f}{:>10.0f}\n", s.name, us_from_ps(s.latency.p50_ps),
                       us_from_ps(s.latency.p99_ps), us_from_ps(s.latency.p999_ps), us_from_ps(s.latency.max_ps),
                       s.deadline > core::SimTime::zero() ? core::format_time(s.deadline) : "-", s.misses, s.lost);

  out += "\ncycles (s):\n";
  out += fmt::format("  {:>5}{:>10}{:>9}{:>10}{:>10}{:>9}{:>10}{:>10}{:>9}  {}\n", "cycle", "start", "collect", "train",
                     "validate", "package", "rollout", "rollback", "gap", "");
  // A site retrained every few seconds for months has 100,000s of cycles:
  // the text shows the first ones and counts the rest (JSON lists each).
  constexpr size_t kMaxCycleRows = 60;
  const size_t rows_shown = std::min(r.cycles.size(), kMaxCycleRows);
  for (size_t i = 0; i < rows_shown; ++i) {
    const CycleResult& cy = r.cycles[i];
    out += fmt::format("  {:>5}{:>10.0f}{:>9.2f}{:>10.2f}{:>10.2f}{:>9.2f}{:>10.2f}{:>10.2f}{:>9.2f}  {}\n", cy.index,
                       cy.start.seconds(), cy.collect.seconds(), cy.train.seconds(), cy.validate.seconds(),
                       cy.package.seconds(), cy.rollout.seconds(), cy.rollback.seconds(), cy.coverage_gap.seconds(),
                       cy.failed ? "failed in production, rolled back" : "");
  }
  if (rows_shown < r.cycles.size()) {
    size_t failed = 0;
    for (size_t i = rows_shown; i < r.cycles.size(); ++i) failed += r.cycles[i].failed;
    out += fmt::format("  ... {} more cycles ({} failed in production); --format json lists every cycle\n",
                       r.cycles.size() - rows_shown, failed);
  }

  const double total = r.acc_inference_s + r.acc_training_s + r.acc_rollout_s + r.acc_down_s + r.acc_idle_s;
  out += fmt::format("\naccelerator-seconds ({:.0f} in all):\n", total);
  const std::pair<const char*, double> rows[] = {{"inference", r.acc_inference_s}, {"training", r.acc_training_s},
                                                 {"rollout", r.acc_rollout_s},     {"down", r.acc_down_s},
                                                 {"idle", r.acc_idle_s}};
  for (const auto& [name, v] : rows) out += fmt::format("  {:<12}{:>12.0f}  {:>6.1f}%\n", name, v, total > 0 ? 100 * v / total : 0);

  out += "\nregistry:";
  constexpr int kMaxRegistryNames = 20;
  int named = 0, unnamed = 0;
  for (const auto& v : r.registry)
    if (v.status != "superseded" && v.status != "pruned") {
      // The serving versions are always named; failed ones only up to a limit.
      if (v.status == "serving" || named < kMaxRegistryNames) {
        out += fmt::format(" v{} {};", v.version, v.status);
        ++named;
      } else {
        ++unnamed;
      }
    }
  if (unnamed > 0) out += fmt::format(" {} more failed (rolled back);", unnamed);
  int pruned = 0;
  for (const auto& v : r.registry) pruned += v.status == "pruned";
  out += fmt::format(" {} kept, {} pruned\n", static_cast<int>(r.registry.size()) - pruned, pruned);
  return out;
}

nlohmann::ordered_json edge_json(const scenario::Scenario& s, const EdgeResult& r, const EdgeContext& c) {
  const job::edge::EdgeSpec& e = *s.edge;
  nlohmann::ordered_json j = schema_header("run.edge");
  j["scenario"] = s.name;
  j["gpus"] = s.cluster.gpus;
  nlohmann::ordered_json ed;
  ed["model"] = c.model->name;
  ed["simulated_s"] = r.simulated.seconds();
  nlohmann::ordered_json cycles = nlohmann::ordered_json::array();
  for (const CycleResult& cy : r.cycles)
    cycles.push_back({{"cycle", cy.index},
                      {"version", cy.version},
                      {"start_s", cy.start.seconds()},
                      {"collect_s", cy.collect.seconds()},
                      {"train_s", cy.train.seconds()},
                      {"validate_s", cy.validate.seconds()},
                      {"package_s", cy.package.seconds()},
                      {"rollout_s", cy.rollout.seconds()},
                      {"rollback_s", cy.rollback.seconds()},
                      {"steps", cy.steps},
                      {"failed", cy.failed},
                      {"coverage_gap_s", cy.coverage_gap.seconds()}});
  ed["cycles"] = cycles;
  ed["coverage_gap_s"] = r.coverage_gap.seconds();
  ed["uncovered_line_s"] = r.uncovered_line_s;
  ed["bad_version_s"] = r.bad_version.seconds();
  ed["deadline_misses"] = r.deadline_misses;
  ed["deadline_misses_by_cause"] = {
      {"network", r.misses_network}, {"end_to_end", r.misses_inference}, {"no_model", r.misses_uncovered}};
  ed["tiers"] = {{"sensor", tier_json(r.sensor)},
                 {"training", tier_json(r.training)},
                 {"coordination", tier_json(r.coordination)}};
  ed["end_to_end"] = tier_json(r.end_to_end);
  nlohmann::ordered_json streams = nlohmann::ordered_json::array();
  for (const job::edge::StreamLatency& s : r.streams) {
    nlohmann::ordered_json one = tier_json(s.latency);
    one["name"] = s.name;
    one["deadline_us"] = s.deadline.micros();
    one["deadline_misses"] = s.misses;
    one["lost"] = s.lost;
    streams.push_back(one);
  }
  ed["streams"] = streams;
  ed["budget_us"] = e.serving.budget.micros();
  ed["accelerator_s"] = {{"inference", r.acc_inference_s},
                         {"training", r.acc_training_s},
                         {"rollout", r.acc_rollout_s},
                         {"idle", r.acc_idle_s},
                         {"down", r.acc_down_s}};
  ed["inference_s"] = r.inference_time.seconds();
  ed["step_s"] = r.step_time.seconds();
  ed["allreduce_s"] = r.allreduce_time.seconds();
  ed["cp_all_to_all_s"] = r.cp_all_to_all_time.seconds();
  ed["serving_load"] = r.serving_load;
  ed["base_pull_s"] = r.base_pull.seconds();
  nlohmann::ordered_json reg = nlohmann::ordered_json::array();
  for (const auto& v : r.registry) reg.push_back({{"version", v.version}, {"cycle", v.cycle}, {"status", v.status}});
  ed["registry"] = reg;
  ed["inputs"] = {{"topology", c.topology}, {"compute", c.compute}, {"library", c.library}, {"model", c.model->description}};
  j["edge"] = ed;
  return j;
}

}  // namespace anatomy::report
