#include "report/validation.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>

#include <fmt/format.h>

#include "report/schema.h"

namespace anatomy::report {
namespace {

ErrorSummary summarize(const std::vector<ValidationCase>& cases, bool training) {
  std::vector<double> sorted;
  ErrorSummary out;
  for (const auto& c : cases) {
    if (c.is_training() != training) continue;
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

bool ValidationCase::is_training() const {
  return metric != "busbw_GBps" && metric != "time_us" && metric != "interruptions" && metric != "ettr" &&
         metric != "tflops";
}

ErrorSummary Validation::training() const { return summarize(cases, true); }
ErrorSummary Validation::other() const { return summarize(cases, false); }

nlohmann::ordered_json validation_json(const Validation& v) {
  const ErrorSummary train = v.training(), colls = v.other();
  const auto& cases = v.cases;
  nlohmann::ordered_json j = schema_header("validate");
  j["cases"] = nlohmann::json::array();
  for (const auto& c : cases) {
    nlohmann::ordered_json row;
    row["case"] = c.case_id;
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
  j["training_median_abs_error_pct"] = 100 * train.median;
  j["training_worst_abs_error_pct"] = 100 * train.worst;
  j["training_cases_simulated"] = train.n;
  j["training_cases_not_simulated"] = train.refused;
  j["collective_median_abs_error_pct"] = 100 * colls.median;
  j["collective_worst_abs_error_pct"] = 100 * colls.worst;
  j["collective_cases_simulated"] = colls.n;
  return j;
}

std::string validation_text(const Validation& v) {
  const ErrorSummary train = v.training(), colls = v.other();
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
  fmt::format_to(to, "\ntraining throughput/MFU: median |error| {:.1f}%, worst {:.1f}% over {} simulated cases",
                 100 * train.median, 100 * train.worst, train.n);
  if (train.refused > 0) fmt::format_to(to, "; {} not simulated (see notes)", train.refused);
  fmt::format_to(to, "\nother cases (collectives, kernels, whole jobs): median |error| {:.1f}%, worst {:.1f}% over {} cases\n",
                 100 * colls.median, 100 * colls.worst, colls.n);
  return out;
}

}  // namespace anatomy::report
