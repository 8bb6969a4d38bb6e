#include "report/validation.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>

#include <fmt/format.h>

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
  std::vector<double> sorted;
  ErrorSummary out;
  for (const auto& c : cases) {
    if (c.kind != kind) continue;
    if (c.ran)
      sorted.push_back(std::fabs(c.error()));
    else
      ++out.refused;
  }
  std::sort(sorted.begin(), sorted.end());
  out.n = sorted.size();
  if (out.n > 0) {
    out.median = out.n % 2 ? sorted[out.n / 2] : (sorted[out.n / 2 - 1] + sorted[out.n / 2]) / 2;
    out.worst = sorted.back();
  }
  return out;
}

}  // namespace

double ValidationCase::error() const {
  if (bound == "at_least" && simulated >= published) return 0;
  if (bound == "at_most" && simulated <= published) return 0;
  return (simulated - published) / published;
}

ErrorSummary Validation::summary(CaseKind kind) const { return summarize(cases, kind); }

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
  return out;
}

}  // namespace anatomy::report
