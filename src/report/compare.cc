#include "report/compare.h"

#include <fmt/format.h>

#include "report/schema.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace anatomy::report {
namespace {

std::string json_key(std::string name) {
  for (auto& c : name)
    if (c == ' ') c = '_';
  return name;
}


// Appends metric `m` with its value in each run, of_run(run).
template <typename OfRun>
void add_metric(std::vector<CompareMetric>& out, const std::vector<CompareRun>& runs, CompareMetric m, OfRun of_run) {
  for (const auto& r : runs) m.values.push_back(of_run(r));
  out.push_back(std::move(m));
}

// The whole job's figures: what the cluster's time became, and its cost.
void add_job_metrics(const std::vector<CompareRun>& runs, std::vector<CompareMetric>& out) {
  const auto add = [&](std::string key, std::string name, std::string unit, double shown, int decimals,
                       bool higher_is_better, auto value_of) {
    add_metric(out, runs, {std::move(key), std::move(name), std::move(unit), shown, decimals, false, higher_is_better, {}},
               [&](const CompareRun& r) { return value_of(*r.job); });
  };
  add("ettr", "effective training time", "%", 100, 2, true, [](const job::JobResult& j) { return j.ettr; });
  add("interruptions", "interruptions", "", 1, 0, false,
      [](const job::JobResult& j) { return static_cast<double>(j.interruptions); });
  add("checkpoint_cost_s", "cost of one checkpoint", "ms", 1e3, 3, false,
      [](const job::JobResult& j) { return j.checkpoint_cost().seconds(); });
  // Static against adaptive: the goodput in tokens and what the controllers did.
  if (std::any_of(runs.begin(), runs.end(), [](const CompareRun& r) { return r.job->adaptation.has_value(); })) {
    add("job_tokens_per_s", "tokens/s over the job (goodput)", "", 1, 0, true,
        [](const job::JobResult& j) { return j.tokens_per_s(); });
    add("condition_cost_gpu_hours", "what the conditions cost, GPU-hours", "", 1, 1, false,
        [](const job::JobResult& j) { return j.adaptation ? j.hours_of(j.adaptation->total()) : 0.0; });
    add("controller_decisions", "controller decisions", "", 1, 0, false, [](const job::JobResult& j) {
      return j.adaptation ? static_cast<double>(j.adaptation->decisions.size()) : 0.0;
    });
  }
  const bool priced = std::all_of(runs.begin(), runs.end(), [](const CompareRun& r) {
    return r.job->dollars_per_gpu_hour > 0;
  });
  const size_t causes = job::JobBuckets{}.named().size();
  for (size_t i = 0; i < causes; ++i) {
    const std::string cause = job::JobBuckets{}.named()[i].first;
    add(json_key(cause) + "_gpu_hours", cause + ", GPU-hours", "", 1, 0, false,
        [i](const job::JobResult& j) { return j.costs_by_cause()[i].gpu_hours; });
    if (priced)
      add(json_key(cause) + "_dollars", cause + ", cost", "$", 1, 0, false,
          [i](const job::JobResult& j) { return j.costs_by_cause()[i].dollars; });
  }
  if (priced)
    add("total_dollars", "total cost", "$", 1, 0, false, [](const job::JobResult& j) { return j.dollars(); });
}

}  // namespace

std::optional<double> CompareMetric::diff_pct(size_t i) const {
  if (values[0] == 0) return values[i] == 0 ? std::optional<double>(0.0) : std::nullopt;
  return 100 * (values[i] - values[0]) / values[0];
}

std::vector<CompareMetric> compare_metrics(const std::vector<CompareRun>& runs) {
  std::vector<CompareMetric> out;
  const auto add = [&](std::string key, std::string name, std::string unit, double shown, int decimals, bool bucket,
                       bool higher_is_better, auto value_of) {
    add_metric(out, runs, {std::move(key), std::move(name), std::move(unit), shown, decimals, bucket, higher_is_better, {}},
               [&](const CompareRun& r) { return value_of(r.result); });
  };
  add("iteration_s", "iteration time", "ms", 1e3, 3, false, false,
      [](const workload::IterationResult& r) { return r.iteration.seconds(); });
  const auto names = workload::TimeBreakdown{}.buckets();
  for (size_t i = 0; i < names.size(); ++i)
    add(json_key(names[i].first) + "_s", names[i].first, "ms", 1e3, 3, true, false,
        [i](const workload::IterationResult& r) { return r.mean.buckets()[i].second.seconds(); });
  add("recompute_s", "recompute, within backward", "ms", 1e3, 3, false, false,
      [](const workload::IterationResult& r) { return r.mean.recompute.seconds(); });
  add("tokens_per_s", "tokens/s", "", 1, 0, false, true,
      [](const workload::IterationResult& r) { return r.tokens_per_s; });
  add("tflops_per_gpu", "TFLOP/s per GPU", "", 1, 1, false, true,
      [](const workload::IterationResult& r) { return r.tflops_per_gpu; });
  add("mfu", "MFU", "%", 100, 2, false, true, [](const workload::IterationResult& r) { return r.mfu; });
  add("memory_per_gpu_GB", "memory per GPU", "GB", 1, 2, false, false,
      [](const workload::IterationResult& r) { return r.memory.total().as_double() / 1e9; });
  if (!runs.empty() && std::all_of(runs.begin(), runs.end(), [](const CompareRun& r) { return r.job.has_value(); }))
    add_job_metrics(runs, out);
  return out;
}

std::vector<std::pair<std::string, std::vector<std::string>>> differing_inputs(const std::vector<CompareRun>& runs) {
  // Every input named by any run, in the order first seen.
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> values;
  for (size_t i = 0; i < runs.size(); ++i)
    for (const auto& in : runs[i].info.inputs) {
      if (in.names_run || in.derived) continue;
      const std::string key = in.section + "." + in.field;
      auto [it, fresh] = values.try_emplace(key, std::vector<std::string>(runs.size()));
      if (fresh) order.push_back(key);
      it->second[i] = in.value;
    }
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const auto& key : order) {
    const auto& v = values[key];
    if (std::any_of(v.begin(), v.end(), [&](const std::string& x) { return x != v[0]; })) out.emplace_back(key, v);
  }
  return out;
}

std::string compare_text(const std::vector<CompareRun>& runs, const std::vector<CompareMetric>& metrics) {
  std::string out = fmt::format("# anatomy compare: {} runs, differences against {}\n", runs.size(),
                                runs.empty() ? "" : runs[0].label);
  for (const auto& r : runs)
    out += fmt::format("# {}: {}{}\n", r.label, r.info.title, r.info.source.empty() ? "" : " (" + r.info.source + ")");
  for (const auto& [key, v] : differing_inputs(runs)) {
    out += "# differs: " + key + ":";
    for (size_t i = 0; i < runs.size(); ++i)
      out += fmt::format(" {} {}{}", runs[i].label, v[i].empty() ? "-" : v[i], i + 1 < runs.size() ? "," : "");
    out += "\n";
  }
  out += "\n";
  out += fmt::format("{:<36}", "metric");
  for (size_t i = 0; i < runs.size(); ++i) {
    out += fmt::format(" {:>14}", runs[i].label);
    if (i > 0) {
      out += fmt::format(" {:>12}", runs[i].label + "-" + runs[0].label);
      out += fmt::format(" {:>9}", runs[i].label + "-" + runs[0].label + " %");
    }
  }
  out += "\n";
  for (const auto& m : metrics) {
    const std::string name = m.unit.empty() ? m.name : fmt::format("{} ({})", m.name, m.unit);
    out += fmt::format("{:<36}", name);
    for (size_t i = 0; i < m.values.size(); ++i) {
      out += fmt::format(" {:>14.{}f}", m.values[i] * m.shown, m.decimals);
      if (i > 0) {
        out += fmt::format(" {:>12}", signed_fixed(m.diff(i) * m.shown, m.decimals));
        const auto pct = m.diff_pct(i);
        out += fmt::format(" {:>9}", pct ? signed_fixed(*pct, 2) + "%" : "-");
      }
    }
    out += "\n";
  }
  return out;
}

nlohmann::ordered_json compare_json(const std::vector<CompareRun>& runs, const std::vector<CompareMetric>& metrics) {
  nlohmann::ordered_json j = schema_header("compare");
  j["baseline"] = runs.empty() ? "" : runs[0].label;
  j["runs"] = nlohmann::ordered_json::array();
  for (const auto& r : runs) {
    nlohmann::ordered_json x;
    x["label"] = r.label;
    x["scenario"] = r.info.title;
    x["file"] = r.info.source;
    j["runs"].push_back(x);
  }
  j["metrics"] = nlohmann::ordered_json::array();
  for (const auto& m : metrics) {
    nlohmann::ordered_json x;
    x["metric"] = m.key;
    x["name"] = m.name;
    x["values"] = m.values;
    x["diff"] = nlohmann::ordered_json::array();
    x["diff_pct"] = nlohmann::ordered_json::array();
    for (size_t i = 0; i < m.values.size(); ++i) {
      x["diff"].push_back(m.diff(i));
      const auto pct = m.diff_pct(i);
      if (pct)
        x["diff_pct"].push_back(*pct);
      else
        x["diff_pct"].push_back(nullptr);
    }
    j["metrics"].push_back(x);
  }
  j["inputs_that_differ"] = nlohmann::ordered_json::array();
  for (const auto& [key, v] : differing_inputs(runs)) {
    nlohmann::ordered_json x;
    x["input"] = key;
    x["values"] = v;
    j["inputs_that_differ"].push_back(x);
  }
  return j;
}

}  // namespace anatomy::report
