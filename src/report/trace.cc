#include "report/trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "report/format.h"
#include "report/stages.h"

namespace anatomy::report {
namespace {

constexpr int kJobPid = 0, kGpuPid = 1, kLinkPid = 2;

// Not-UTF-8 bytes become U+FFFD (report/schema.h's json_text).
std::string json_string(std::string_view s) {
  return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A metadata event; ts is not used by viewers but every event carries it.
std::string meta(const char* what, int pid, int64_t tid, const std::string& args) {
  return fmt::format(R"({{"name":"{}","ph":"M","ts":0,"pid":{},"tid":{},"args":{{{}}}}})", what, pid, tid, args);
}

}  // namespace

std::string chrome_trace(const workload::IterationResult& r, const std::vector<uint32_t>& stage_gpus,
                         const TraceOptions& o) {
  std::vector<int> stages = o.stages;
  if (stages.empty())
    for (size_t s = 0; s < r.timeline.size(); ++s) stages.push_back(static_cast<int>(s));
  std::vector<std::string> ev;
  ev.push_back(meta("process_name", kJobPid, 0, R"("name":)" + json_string(o.name + ": job")));
  ev.push_back(meta("process_sort_index", kJobPid, 0, R"("sort_index":0)"));
  ev.push_back(meta("thread_name", kJobPid, 0, R"("name":"iterations")"));
  ev.push_back(fmt::format(R"({{"name":"iteration","cat":"job","ph":"X","ts":0.000000,"dur":{},"pid":{},"tid":0,)"
                           R"("args":{{"iteration":1,"micro_batches":{}}}}})",
                           exact_micros(r.iteration), kJobPid, r.micro_batches));
  if (o.lifecycle && !o.lifecycle->empty()) {
    ev.push_back(meta("thread_name", kJobPid, 1, R"("name":"lifecycle")"));
    for (const job::JobPhase& ph : *o.lifecycle)
      ev.push_back(fmt::format(R"({{"name":"{}","cat":"lifecycle","ph":"X","ts":{},"dur":{},"pid":{},"tid":1}})",
                               ph.kind, exact_micros(ph.start), exact_micros(ph.end - ph.start), kJobPid));
  }
  if (o.adaptation) {
    const job::AdaptationResult& a = *o.adaptation;
    ev.push_back(meta("thread_name", kJobPid, 2, R"("name":"conditions")"));
    for (const auto& e : a.episodes)
      ev.push_back(fmt::format(R"({{"name":{},"cat":"condition","ph":"X","ts":{},"dur":{},"pid":{},"tid":2,)"
                               R"("args":{{"what":{}}}}})",
                               json_string(job::to_string(e.kind)), exact_micros(e.start),
                               exact_micros(e.end - e.start), kJobPid, json_string(e.what)));
    ev.push_back(meta("thread_name", kJobPid, 3, R"("name":"cascade")"));
    for (const auto& c : a.chain)
      ev.push_back(fmt::format(R"({{"name":{},"cat":"cascade","ph":"i","s":"t","ts":{},"pid":{},"tid":3,)"
                               R"("args":{{"what":{},"cost_s":{:.6f}}}}})",
                               json_string(c.mechanism), exact_micros(c.at), kJobPid, json_string(c.what),
                               c.cost.seconds()));
    std::vector<std::string> controllers;
    for (const auto& d : a.decisions)
      if (std::find(controllers.begin(), controllers.end(), d.controller) == controllers.end())
        controllers.push_back(d.controller);
    for (size_t k = 0; k < controllers.size(); ++k)
      ev.push_back(meta("thread_name", kJobPid, 10 + static_cast<int64_t>(k),
                        R"("name":)" + json_string("controller: " + controllers[k])));
    for (const auto& d : a.decisions) {
      const auto k = std::find(controllers.begin(), controllers.end(), d.controller) - controllers.begin();
      ev.push_back(fmt::format(R"({{"name":{},"cat":"controller","ph":"i","s":"t","ts":{},"pid":{},"tid":{},)"
                               R"("args":{{"signal":{},"action":{},"effect":{}}}}})",
                               json_string(d.action), exact_micros(d.at), kJobPid, 10 + k, json_string(d.signal),
                               json_string(d.action), json_string(d.effect)));
    }
  }
  ev.push_back(
      meta("process_name", kGpuPid, 0, R"("name":)" + json_string(o.name + ": GPUs (one per pipeline stage)")));
  ev.push_back(meta("process_sort_index", kGpuPid, 0, R"("sort_index":1)"));
  for (int s : stages) {
    if (s < 0 || static_cast<size_t>(s) >= r.timeline.size()) continue;
    const uint32_t gpu = static_cast<size_t>(s) < stage_gpus.size() ? stage_gpus[s] : 0;
    ev.push_back(meta("thread_name", kGpuPid, gpu, R"("name":)" + json_string(stage_label(s, gpu))));
    ev.push_back(meta("thread_sort_index", kGpuPid, gpu, fmt::format(R"("sort_index":{})", s)));
    for (const auto& iv : r.timeline[s]) {
      const bool compute = iv.kind == workload::IntervalKind::kForward ||
                           iv.kind == workload::IntervalKind::kBackward ||
                           iv.kind == workload::IntervalKind::kOptimizer;
      const bool idle = iv.kind == workload::IntervalKind::kBubble || iv.kind == workload::IntervalKind::kWaiting;
      const char* category = compute ? "compute" : idle ? "idle" : "communication";
      ev.push_back(fmt::format(R"({{"name":"{}","cat":"{}","ph":"X","ts":{},"dur":{},"pid":{},"tid":{},)"
                               R"("args":{{"stage":{},"micro_batch":{},"chunk":{}}}}})",
                               workload::to_string(iv.kind), category, exact_micros(iv.start),
                               exact_micros(iv.end - iv.start), kGpuPid, gpu, s, iv.micro_batch, iv.chunk));
    }
  }
  const size_t links = std::min(r.busiest_links.size(), static_cast<size_t>(std::max(0, o.links)));
  if (links > 0) {
    const bool sampled = !r.busiest_links[0].utilization_series.empty();
    ev.push_back(meta("process_name", kLinkPid, 0,
                      R"("name":)" + json_string(o.name + (sampled ? ": busiest links (utilization, %)"
                                                                   : ": busiest links (mean utilization over the "
                                                                     "iteration, %)"))));
    ev.push_back(meta("process_sort_index", kLinkPid, 0, R"("sort_index":2)"));
  }
  for (size_t i = 0; i < links; ++i) {
    const auto& l = r.busiest_links[i];
    const std::string name = json_string(fmt::format("{} ({})", l.name, l.kind));
    // One value per sampled interval, from its start; the mean over the
    // whole iteration when the run was not sampled.
    const std::vector<double> values =
        l.utilization_series.empty() ? std::vector<double>{l.utilization} : l.utilization_series;
    const int64_t n = static_cast<int64_t>(values.size());
    for (int64_t k = 0; k < n; ++k)
      ev.push_back(fmt::format(R"({{"name":{},"ph":"C","ts":{},"pid":{},"tid":0,"args":{{"utilization_pct":{:.3f}}}}})",
                               name, exact_micros(core::SimTime::ps(r.iteration.count_ps() / n * k)), kLinkPid,
                               100 * values[k]));
    ev.push_back(fmt::format(R"({{"name":{},"ph":"C","ts":{},"pid":{},"tid":0,"args":{{"utilization_pct":0}}}})", name,
                             exact_micros(r.iteration), kLinkPid));
  }
  std::string out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  for (size_t i = 0; i < ev.size(); ++i) out += ev[i] + (i + 1 < ev.size() ? ",\n" : "\n");
  out += "]}\n";
  return out;
}

std::vector<int> parse_stage_list(std::string_view text, int stages, std::string_view flag) {
  const auto fail = [&](const std::string& why) { throw core::InputError({"", 0, std::string(flag)}, why); };
  const auto number = [&](std::string_view t) {
    int v = -1;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size() || v < 0)
      fail(fmt::format("'{}' is not a stage number (write e.g. 0,3 or 0-7)", t));
    if (v >= stages)
      fail(fmt::format("stage {} does not exist (the pipeline has {} stages: 0-{})", v, stages, stages - 1));
    return v;
  };
  std::vector<int> out;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view part = text.substr(at, comma - at);
    const size_t dash = part.find('-');
    if (dash == std::string_view::npos) {
      out.push_back(number(part));
    } else {
      const int a = number(part.substr(0, dash)), b = number(part.substr(dash + 1));
      if (b < a) fail(fmt::format("range '{}' runs backwards", part));
      for (int v = a; v <= b; ++v) out.push_back(v);
    }
    at = comma + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace anatomy::report
