#include "report/replay_report.h"

#include <fmt/format.h>

#include <iterator>

#include "report/format.h"
#include "report/iteration_text.h"
#include "report/schema.h"

namespace anatomy::report {
namespace {

size_t nodes(const workload::trace::TraceGraph& g) {
  size_t n = 0;
  for (const auto& r : g.ranks) n += r.nodes.size();
  return n;
}

}  // namespace

std::string replay_text(const ReplayView& v) {
  const workload::IterationResult& r = v.replay->result;
  std::string out;
  auto to = std::back_inserter(out);
  fmt::format_to(to, "# anatomy replay: {} ({})\n", v.trace->source, v.trace->format);
  fmt::format_to(to, "# trace: {} ranks, {} nodes; replayed on {} ranks\n", v.trace->size(), nodes(*v.trace), v.ranks);
  if (!v.source_machine.empty()) fmt::format_to(to, "# recorded on: {}\n", v.source_machine);
  fmt::format_to(to, "# replayed on: {}: {}\n", v.target_label, v.target->cluster.system.gpu.name);
  fmt::format_to(to, "# cluster: {}\n", v.topology);
  fmt::format_to(to, "# compute: {}\n", r.compute_source);
  fmt::format_to(to, "# network: {} model; library: {}; largest collective: {}\n", net::to_string(v.target->network),
                 r.library, r.dp_algorithm);
  for (const std::string& a : v.assumptions) fmt::format_to(to, "# assumption: {}\n", a);
  fmt::format_to(to, "\nstep time         {}\n", human_time(r.iteration));
  fmt::format_to(to, "host time         {} per rank between operators (in compute, kept as measured)\n",
                 human_time(v.replay->host_time));
  fmt::format_to(to, "collectives       {} per rank\n", v.replay->collectives);
  fmt::format_to(to, "\nwhere each rank's step goes (mean over ranks):\n");
  for (auto [name, t] : r.mean.buckets())
    fmt::format_to(to, "  {:<20} {:>12}  {:5.1f}%\n", name, human_time(t),
                   r.iteration > core::SimTime() ? 100.0 * t.seconds() / r.iteration.seconds() : 0.0);
  fmt::format_to(to, "  {:<20} {:>12}  (residue {} ps; per rank the buckets add up exactly)\n", "total",
                 human_time(r.mean.total()), (r.iteration - r.mean.total()).count_ps());
  fmt::format_to(to, "\nper rank (ms):\n  {:<6}", "rank");
  for (auto [name, t] : r.mean.buckets()) fmt::format_to(to, " {:>9}", std::string(name).substr(0, 9));
  fmt::format_to(to, "\n");
  const size_t shown = std::min<size_t>(r.stages.size(), 16);
  for (size_t i = 0; i < shown; ++i) {
    fmt::format_to(to, "  {:<6}", i);
    for (auto [name, t] : r.stages[i].buckets()) fmt::format_to(to, " {:>9.3f}", t.seconds() * 1e3);
    fmt::format_to(to, "\n");
  }
  if (shown < r.stages.size()) fmt::format_to(to, "  ... {} more ranks (--format json lists all)\n", r.stages.size() - shown);
  return out;
}

nlohmann::ordered_json replay_json(const ReplayView& v) {
  const workload::IterationResult& r = v.replay->result;
  nlohmann::ordered_json j = schema_header("replay.step");
  j["trace"] = v.trace->source;
  j["format"] = v.trace->format;
  j["trace_ranks"] = v.trace->size();
  j["ranks"] = v.ranks;
  j["recorded_on"] = v.source_machine;
  j["replayed_on"] = v.target_label;
  j["accelerator"] = v.target->cluster.system.gpu.name;
  j["iteration_s"] = r.iteration.seconds();
  j["breakdown_s"] = breakdown_json(r.mean);
  j["host_time_s"] = v.replay->host_time.seconds();
  j["compute_scale"] = v.replay->compute_scale;
  j["collectives_per_rank"] = v.replay->collectives;
  nlohmann::ordered_json ranks = nlohmann::json::array();
  for (const auto& b : r.stages) ranks.push_back(breakdown_json(b));
  j["ranks_breakdown_s"] = ranks;
  j["compute_model"] = r.compute_source;
  j["library"] = r.library;
  j["largest_collective"] = r.dp_algorithm;
  j["assumptions"] = v.assumptions;
  return j;
}

PageInfo replay_page_info(const ReplayView& v) {
  PageInfo info;
  info.title = fmt::format("replay of {} on {}", v.trace->source, v.target->cluster.system.gpu.name);
  info.source = v.trace->source;
  info.facts = {{"trace", fmt::format("{}: {} ranks, {} nodes", v.trace->format, v.trace->size(), nodes(*v.trace))},
                {"replayed on", fmt::format("{} ({} ranks)", v.target_label, v.ranks)},
                {"cluster", v.topology},
                {"compute", v.replay->result.compute_source},
                {"network", fmt::format("{}; {}", net::to_string(v.target->network), v.replay->result.library)}};
  info.inputs = {{"replay", "trace", v.trace->source, true},
                 {"replay", "recorded on", v.source_machine.empty() ? "not given" : v.source_machine},
                 {"replay", "on", v.target_label},
                 {"replay", "ranks", std::to_string(v.ranks)},
                 {"cluster", "system", v.target->cluster.system.name},
                 {"cluster", "accelerator", v.target->cluster.system.gpu.name},
                 {"cluster", "gpus", std::to_string(v.target->cluster.gpus)},
                 {"network", "model", net::to_string(v.target->network)}};
  for (size_t i = 0; i < v.assumptions.size(); ++i)
    info.inputs.push_back({"assumptions", fmt::format("{}", i + 1), v.assumptions[i], false, true});
  return info;
}

}  // namespace anatomy::report
