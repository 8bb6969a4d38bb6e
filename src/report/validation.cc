#include "report/validation.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <map>

#include <fmt/format.h>

#include "core/stats.h"
#include "report/schema.h"

namespace anatomy::report {
namespace {

// Each kind of case: its JSON key prefix and the name its summary line has.
struct KindNames {
  CaseKind kind;
  const char* key;
  const char* name;
};
constexpr KindNames kKinds[] = {{CaseKind::kTraining, "training", "training throughput/MFU"},
                                {CaseKind::kCollective, "collective", "collectives (bandwidth, time)"},
                                {CaseKind::kKernel, "kernel", "single kernels (TFLOP/s, GB/s, time)"},
                                {CaseKind::kJob, "job", "whole jobs (interruptions, ETTR)"}};

const char* key_of(CaseKind kind) {
  for (const KindNames& k : kKinds)
    if (k.kind == kind) return k.key;
  return "";
}

ErrorSummary summarize(const std::vector<ValidationCase>& cases, CaseKind kind) {
  std::vector<double> abs_errors;
  ErrorSummary out;
  for (const auto& c : cases) {
    if (c.kind != kind) continue;
    if (c.ran)
      abs_errors.push_back(std::fabs(c.error()));
    else
      ++out.refused;
  }
  out.n = abs_errors.size();
  if (out.n > 0) {
    out.median = core::median(abs_errors);
    out.worst = *std::max_element(abs_errors.begin(), abs_errors.end());
  }
  return out;
}

// y = intercept + slope x through the points, by least squares. The caller
// passes at least two distinct x.
struct Line {
  double intercept = 0, slope = 0;
};
Line least_squares(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    mx += x[i] / n;
    my += y[i] / n;
  }
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  const double slope = sxy / sxx;
  return {my - slope * mx, slope};
}

}  // namespace

bool ValidationCase::bound_holds() const {
  return (bound == "at_least" && simulated >= published) || (bound == "at_most" && simulated <= published);
}

double ValidationCase::error() const { return bound_holds() ? 0 : (simulated - published) / published; }

bool is_time_metric(const std::string& metric) { return metric == "iteration_s" || metric == "time_us"; }

double ValidationCase::speed_error() const {
  if (bound_holds()) return 0;
  return is_time_metric(metric) && simulated > 0 ? published / simulated - 1 : error();
}

ErrorSummary Validation::summary(CaseKind kind) const { return summarize(cases, kind); }

std::vector<AcceleratorSummary> Validation::by_accelerator(CaseKind kind) const {
  if (kind == CaseKind::kJob) return {};
  std::map<std::string, std::vector<const ValidationCase*>> by_part;
  for (const auto& c : cases)
    if (c.kind == kind && c.ran) by_part[c.accelerator].push_back(&c);
  std::vector<AcceleratorSummary> out;
  for (const auto& [part, members] : by_part) {
    std::vector<double> speed, abs_errors;
    for (const ValidationCase* c : members) {
      if (!c->bound_holds() && c->simulated > 0) speed.push_back(c->speed_error());
      abs_errors.push_back(std::fabs(c->error()));
    }
    out.push_back({.accelerator = part,
                   .n = members.size(),
                   .bias_n = speed.size(),
                   .bias = speed.empty() ? 0.0 : core::median(speed),
                   .median = core::median(abs_errors),
                   .worst = *std::max_element(abs_errors.begin(), abs_errors.end())});
  }
  return out;
}

std::vector<SeriesFit> Validation::series() const {
  // A bound's published figure is not a step, so its case is left out; so
  // is a case whose metric the run cannot give (Megatron's TFLOP/s under
  // LoRA is 0, which implies no step).
  std::map<std::string, std::vector<const ValidationCase*>> by_name;
  for (const auto& c : cases)
    if (c.ran && !c.series.empty() && c.bound == "equal" && c.micro_batches > 0 && c.published_step_s > 0 &&
        c.simulated_time > core::SimTime::zero())
      by_name[c.series].push_back(&c);
  std::vector<SeriesFit> out;
  for (const auto& [name, members] : by_name) {
    std::vector<double> m, published, simulated;
    for (const ValidationCase* c : members) {
      m.push_back(static_cast<double>(c->micro_batches));
      published.push_back(c->published_step_s);
      simulated.push_back(c->simulated_time.seconds());
    }
    const auto [lo, hi] = std::minmax_element(m.begin(), m.end());
    if (*lo == *hi) continue;  // one micro-batch count: no line through it
    const Line p = least_squares(m, published), s = least_squares(m, simulated);
    // Every member's breakdown has the same buckets in the same order.
    std::vector<std::pair<std::string, double>> parts;
    for (size_t b = 0; b < members.front()->simulated_parts_s.size(); ++b) {
      std::vector<double> part;
      for (const ValidationCase* c : members) part.push_back(c->simulated_parts_s.at(b).second);
      parts.emplace_back(members.front()->simulated_parts_s[b].first, least_squares(m, part).intercept);
    }
    out.push_back({.name = name,
                   .cases = members.size(),
                   .min_micro_batches = static_cast<int64_t>(*lo),
                   .max_micro_batches = static_cast<int64_t>(*hi),
                   .published_fixed_s = p.intercept,
                   .published_per_micro_batch_s = p.slope,
                   .simulated_fixed_s = s.intercept,
                   .simulated_per_micro_batch_s = s.slope,
                   .simulated_fixed_parts_s = std::move(parts)});
  }
  return out;
}

nlohmann::ordered_json validation_json(const Validation& v) {
  const auto& cases = v.cases;
  nlohmann::ordered_json j = schema_header("validate");
  j["cases"] = nlohmann::json::array();
  for (const auto& c : cases) {
    nlohmann::ordered_json row;
    row["case"] = c.case_id;
    row["kind"] = key_of(c.kind);
    row["metric"] = c.metric;
    row["published"] = c.published;
    if (c.ran) {
      row["simulated"] = c.simulated;
      row["error_pct"] = 100 * c.error();
    } else {
      row["simulated"] = nullptr;
      row["error_pct"] = nullptr;
    }
    row["source"] = c.source;
    row["file"] = std::filesystem::path(c.file).filename().string();
    row["note"] = c.note;
    j["cases"].push_back(row);
  }
  for (const KindNames& n : kKinds) {
    const ErrorSummary e = v.summary(n.kind);
    const std::string k = n.key;
    j[k + "_median_abs_error_pct"] = 100 * e.median;
    j[k + "_worst_abs_error_pct"] = 100 * e.worst;
    j[k + "_cases_simulated"] = e.n;
    j[k + "_cases_not_simulated"] = e.refused;
  }
  j["by_accelerator"] = nlohmann::json::array();
  for (const KindNames& n : kKinds)
    for (const AcceleratorSummary& a : v.by_accelerator(n.kind))
      j["by_accelerator"].push_back({{"kind", n.key},
                                     {"accelerator", a.accelerator},
                                     {"cases_simulated", a.n},
                                     {"bias_cases", a.bias_n},
                                     {"bias_pct", 100 * a.bias},
                                     {"median_abs_error_pct", 100 * a.median},
                                     {"worst_abs_error_pct", 100 * a.worst}});
  j["series"] = nlohmann::json::array();
  for (const SeriesFit& f : v.series()) {
    nlohmann::ordered_json parts = nlohmann::ordered_json::object();
    for (const auto& [bucket, seconds] : f.simulated_fixed_parts_s) parts[bucket] = seconds;
    j["series"].push_back({{"series", f.name},
                           {"cases", f.cases},
                           {"min_micro_batches", f.min_micro_batches},
                           {"max_micro_batches", f.max_micro_batches},
                           {"published_fixed_s", f.published_fixed_s},
                           {"published_per_micro_batch_s", f.published_per_micro_batch_s},
                           {"simulated_fixed_s", f.simulated_fixed_s},
                           {"simulated_per_micro_batch_s", f.simulated_per_micro_batch_s},
                           {"simulated_fixed_parts_s", parts}});
  }
  return j;
}

std::string validation_text(const Validation& v) {
  const auto& cases = v.cases;
  const std::string& dir = v.dir;
  std::string out;
  const auto to = std::back_inserter(out);
  fmt::format_to(to, "# anatomy validate: {} published cases from {}\n", cases.size(), dir);
  fmt::format_to(to, "{:<22} {:<24} {:>11} {:>11} {:>8}  {}\n", "case", "metric", "published", "simulated", "error",
                 "notes");
  for (const auto& c : cases) {
    if (c.ran)
      fmt::format_to(to, "{:<22} {:<24} {:>11.4g} {:>11.4g} {:>+7.1f}%  {}{}\n", c.case_id, c.metric, c.published,
                     c.simulated, 100 * c.error(),
                     c.bound == "at_least"  ? "(published: at least) "
                     : c.bound == "at_most" ? "(published: at most) "
                                            : "",
                     c.note);
    else
      fmt::format_to(to, "{:<22} {:<24} {:>11.4g} {:>11} {:>8}  not simulated: {}\n", c.case_id, c.metric, c.published,
                     "-", "-", c.note);
  }
  // The training line always (the targets start there); the others where the directory has such cases.
  for (const KindNames& n : kKinds) {
    const ErrorSummary e = v.summary(n.kind);
    if (n.kind != CaseKind::kTraining && e.n == 0 && e.refused == 0) continue;
    fmt::format_to(to, "\n{}: median |error| {:.1f}%, worst {:.1f}% over {} simulated cases", n.name,
                   100 * e.median, 100 * e.worst, e.n);
    if (e.refused > 0) fmt::format_to(to, "; {} not simulated (see notes)", e.refused);
  }
  out += '\n';
  // |error| drops the sign: rows that all run fast and rows that miss both
  // ways can read the same median |error|; the bias tells them apart.
  std::string parts;
  for (const KindNames& n : kKinds)
    for (const AcceleratorSummary& a : v.by_accelerator(n.kind))
      parts += fmt::format("{:<12} {:<12} {:>5} {:>+8.1f}% {:>9.1f}% {:>9.1f}%\n", n.key,
                           a.accelerator.empty() ? "-" : a.accelerator, a.n,
                           100 * a.bias, 100 * a.median, 100 * a.worst);
  if (!parts.empty())
    fmt::format_to(to,
                   "\nby accelerator: bias is the median case's speed in anatomy against its source's (+ faster, - "
                   "slower)\n{:<12} {:<12} {:>5} {:>9} {:>10} {:>10}\n{}",
                   "kind", "accelerator", "cases", "bias", "med |err|", "max |err|", parts);
  const std::vector<SeriesFit> fits = v.series();
  if (fits.empty()) return out;
  fmt::format_to(to,
                 "\nseries: each step fitted as fixed + per mb x m, m the micro-batches a pipeline runs a step "
                 "(least squares over the series' cases)\n{:<22} {:>5} {:>9}  {:>22}  {:>22}  {}\n",
                 "series", "cases", "m", "published fixed, per mb", "simulated fixed, per mb", "per mb error");
  for (const SeriesFit& f : fits) {
    // Noisy published steps can fit a slope of zero or less: no relative error then.
    const double per_mb_s = f.published_per_micro_batch_s;
    fmt::format_to(to, "{:<22} {:>5} {:>9}  {:>7.3f} s, {:>8.1f} ms  {:>7.3f} s, {:>8.1f} ms  {:>8}\n", f.name,
                   f.cases, fmt::format("{}-{}", f.min_micro_batches, f.max_micro_batches), f.published_fixed_s,
                   1e3 * per_mb_s, f.simulated_fixed_s, 1e3 * f.simulated_per_micro_batch_s,
                   per_mb_s > 0 ? fmt::format("{:+.1f}%", 100 * (f.simulated_per_micro_batch_s - per_mb_s) / per_mb_s)
                                : std::string("-"));
  }
  // What the simulated fixed parts are made of; buckets under 10 ms either way are left out.
  constexpr double kShownPart_s = 0.010;
  fmt::format_to(to, "\nsimulated fixed part by bucket (s):\n");
  for (const SeriesFit& f : fits) {
    std::string parts;
    for (const auto& [bucket, seconds] : f.simulated_fixed_parts_s)
      if (std::fabs(seconds) >= kShownPart_s)
        parts += fmt::format("{}{} {:.3f}", parts.empty() ? "" : ", ", bucket, seconds);
    fmt::format_to(to, "{:<22} {}\n", f.name, parts.empty() ? "-" : parts);
  }
  return out;
}

}  // namespace anatomy::report
