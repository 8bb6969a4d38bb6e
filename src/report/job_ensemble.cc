#include "report/job_ensemble.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "report/job_text.h"

namespace anatomy::report {

Spread spread_of(const std::vector<double>& values) {
  Spread s;
  if (values.empty()) return s;
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(values.size());
  double squares = 0;
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  s.stdev = values.size() > 1 ? std::sqrt(squares / static_cast<double>(values.size() - 1)) : 0;
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  return s;
}

std::vector<EnsembleFigure> ensemble_figures(const std::vector<job::JobResult>& results) {
  std::vector<EnsembleFigure> out;
  const auto add = [&](std::string key, std::string name, auto of) {
    std::vector<double> v;
    for (const job::JobResult& r : results) v.push_back(static_cast<double>(of(r)));
    out.push_back({std::move(key), std::move(name), spread_of(v)});
  };
  add("interruptions", "interruptions", [](const job::JobResult& r) { return r.interruptions; });
  add("ettr", "effective training time", [](const job::JobResult& r) { return r.ettr; });
  add("iterations_lost", "iterations lost and redone", [](const job::JobResult& r) { return r.iterations_lost; });
  add("wall_hours", "wall time (h)", [](const job::JobResult& r) { return r.wall.seconds() / 3600; });
  if (results.empty()) return out;
  const size_t causes = results.front().costs_by_cause().size();
  for (size_t i = 0; i < causes; ++i) {
    std::string key = results.front().costs_by_cause()[i].name;
    std::replace(key.begin(), key.end(), ' ', '_');
    add(key + "_gpu_hours", std::string(results.front().costs_by_cause()[i].name) + ", GPU-hours",
        [i](const job::JobResult& r) { return r.costs_by_cause()[i].gpu_hours; });
  }
  return out;
}

std::string ensemble_text(const std::vector<job::JobResult>& results, uint64_t first_seed) {
  std::string out;
  const auto to = std::back_inserter(out);
  fmt::format_to(to, "\nover {} seeds ({} to {}): mean, standard deviation and range\n", results.size(), first_seed,
                 first_seed + results.size() - 1);
  fmt::format_to(to, "  {:<36} {:>14} {:>12} {:>14} {:>14}\n", "figure", "mean", "std dev", "min", "max");
  for (const EnsembleFigure& f : ensemble_figures(results)) {
    const bool percent = f.key == "ettr";
    const auto num = [percent](double v) { return percent ? fmt::format("{:.2f}%", 100 * v) : fmt::format("{:.1f}", v); };
    fmt::format_to(to, "  {:<36} {:>14} {:>12} {:>14} {:>14}\n", f.name, num(f.spread.mean), num(f.spread.stdev),
                   num(f.spread.min), num(f.spread.max));
  }
  return out;
}

nlohmann::ordered_json ensemble_json(const std::vector<job::JobResult>& results, uint64_t first_seed) {
  nlohmann::ordered_json j;
  j["seeds"] = results.size();
  j["first_seed"] = first_seed;
  for (const EnsembleFigure& f : ensemble_figures(results))
    j["figures"][f.key] = {{"mean", f.spread.mean}, {"stdev", f.spread.stdev}, {"min", f.spread.min}, {"max", f.spread.max}};
  return j;
}

std::string jobs_text(const scenario::Scenario& s, const std::vector<job::JobResult>& results,
                      const std::string& topology, bool ensemble) {
  std::string out = job_text(s, results.front(), topology);
  if (ensemble) out += ensemble_text(results, s.seed);
  return out;
}

nlohmann::ordered_json jobs_json(const scenario::Scenario& s, const std::vector<job::JobResult>& results,
                                 bool ensemble) {
  nlohmann::ordered_json j = job_json(s, results.front());
  if (ensemble) j["ensemble"] = ensemble_json(results, s.seed);
  return j;
}

}  // namespace anatomy::report
