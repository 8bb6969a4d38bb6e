#pragma once
// Side-by-side comparison of training iterations (`anatomy compare`):
// every figure of each run, and its difference from the first (the
// baseline), as a text table, JSON or an HTML page.
//
//   std::vector<CompareRun> runs = {{"A", info_a, result_a}, {"B", info_b, result_b}};
//   std::vector<CompareMetric> m = compare_metrics(runs);
//   // m[0]: iteration_s, values {1.310, 1.402}; diff(1) = 0.092; diff_pct(1) = 7.0
//   std::fputs(compare_text(runs, m).c_str(), stdout);
//
// Differences are B - A (absolute, in the metric's unit) and 100 (B - A) / A.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "job/lifecycle.h"
#include "report/page_info.h"
#include "workload/iteration.h"

namespace anatomy::report {

struct CompareRun {
  std::string label;  // "A", "B", ...
  PageInfo info;
  workload::IterationResult result;
  std::optional<job::JobResult> job;  // when the scenario runs a whole job (result is then its steady iteration)
};

struct CompareMetric {
  std::string key;      // JSON key with its unit: "iteration_s", "exposed_DP_comm_s", "mfu"
  std::string name;     // "iteration time", "exposed DP comm", "MFU"
  std::string unit;     // as shown in the table: "ms", "%", "GB"
  double shown = 1;     // value x shown = the table's figure (s -> ms: 1000)
  int decimals = 3;     // in the table
  bool bucket = false;  // one of the iteration's time buckets
  bool higher_is_better = false;
  std::vector<double> values;  // per run, in the key's unit

  double diff(size_t i) const { return values[i] - values[0]; }
  // nullopt when the baseline is 0 (and the run differs from it).
  std::optional<double> diff_pct(size_t i) const;
};

// Iteration time, every bucket of the mean breakdown (and recomputation),
// tokens/s, TFLOP/s per GPU, MFU and memory per GPU; when every run is a
// whole job, also its effective training time, interruptions, checkpoint
// cost, GPU-hours per cause and (with a price) dollars per cause.
std::vector<CompareMetric> compare_metrics(const std::vector<CompareRun>& runs);

// The inputs whose values differ between runs: (section.field, value per
// run; "" where absent), leaving out those that only name the run or
// follow from other inputs.
std::vector<std::pair<std::string, std::vector<std::string>>> differing_inputs(const std::vector<CompareRun>& runs);

std::string compare_text(const std::vector<CompareRun>& runs, const std::vector<CompareMetric>& metrics);
nlohmann::ordered_json compare_json(const std::vector<CompareRun>& runs, const std::vector<CompareMetric>& metrics);
std::string compare_report_html(const std::vector<CompareRun>& runs, const std::vector<CompareMetric>& metrics);

}  // namespace anatomy::report
