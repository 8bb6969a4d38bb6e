#pragma once
// Published cases beside what anatomy simulates (`anatomy validate`): one
// row per case, and the error summaries the validation targets are stated
// in, one per kind of case — training throughput/MFU, collectives, single
// kernels, whole jobs — since a target for one says nothing of another.
// Errors are (simulated - published) / published, except that a published
// bound that holds has no error. Per accelerator, the cases of each kind but
// whole jobs are also summarized by their bias: the median of how much
// faster (positive) or slower anatomy runs a case than its source did, the
// sign |error| drops.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/time.h"

namespace anatomy::report {

// What a case measures, by its metric: a training iteration's throughput,
// TFLOP/s or MFU; a collective's bus bandwidth or time; one kernel's
// TFLOP/s; a whole job's interruptions or effective training time ratio.
enum class CaseKind { kTraining, kCollective, kKernel, kJob };

struct ValidationCase {
  std::string file, case_id, metric, source, note, bound = "equal";
  double published = 0, simulated = 0;
  bool ran = false;  // false: the model refused the case (e.g. it does not fit in memory); `note` says why
  core::SimTime simulated_time;  // what the case simulated (for a progress line)
  // What the case runs, from its scenario (a kernel timed in microseconds is
  // a kernel case, not a collective), which sets the summary it counts in.
  CaseKind kind = CaseKind::kTraining;
  // The accelerator the case runs on (hw::Accelerator::name, e.g. "H100"),
  // for the per-accelerator summaries.
  std::string accelerator;
  // A training iteration's: its series (Expected::series, "" = none), the
  // micro-batches a pipeline runs a step, and the step in seconds as
  // published (read back from the metric: every training metric but
  // iteration_s is a rate, the inverse of the step); the simulated step is
  // simulated_time.
  std::string series;
  int64_t micro_batches = 0;
  double published_step_s = 0;
  // The simulated step's mean breakdown, bucket by bucket in report order
  // ("forward compute", "exposed DP comm", ...), in seconds; they add up to
  // simulated_time.
  std::vector<std::pair<std::string, double>> simulated_parts_s;
  // A published bound (at_least, at_most) that the simulated figure meets.
  bool bound_holds() const;
  double error() const;
  // How much faster (positive) or slower (negative) anatomy runs the case
  // than its source did: a rate's error() (throughput, TFLOP/s, MFU, bus
  // bandwidth), and for a time (iteration_s, time_us) published over
  // simulated, less one. 0 where a published bound holds.
  double speed_error() const;
};

// The runs of one series differ only in their GPU count and global batch,
// so each step is close to a fixed part plus a part per micro-batch of a
// pipeline: the optimizer, the exposed gradient and parameter traffic and
// the pipeline's fill and drain, against each micro-batch's compute and
// its model-parallel communication. Both lines are least-squares fits over
// the series' simulated cases of equal bound. Where they differ says which
// part of a step the model misses, which the rows' errors cannot: a fast
// micro-batch and a slow fixed part cancel at one scale and not at another.
struct SeriesFit {
  std::string name;
  size_t cases = 0;
  int64_t min_micro_batches = 0, max_micro_batches = 0;
  double published_fixed_s = 0, published_per_micro_batch_s = 0;
  double simulated_fixed_s = 0, simulated_per_micro_batch_s = 0;
  // The simulated fixed part bucket by bucket: each bucket's own line
  // through the same points. Least squares is linear in the steps, so these
  // add up to simulated_fixed_s: which of the model's costs it is made of.
  std::vector<std::pair<std::string, double>> simulated_fixed_parts_s;
};

struct ErrorSummary {
  size_t n = 0, refused = 0;  // cases simulated, and refused by the model
  double median = 0, worst = 0;  // of |error|
};

// Metrics that are a time (iteration_s, time_us), where a larger figure is
// slower; every other metric is a rate or a ratio.
bool is_time_metric(const std::string& metric);

// One accelerator's simulated cases of one kind: how many, the median and
// worst |error| as ErrorSummary has them for the whole kind, and the bias:
// the median speed_error (+ the part runs fast in anatomy, - slow) over the
// bias_n cases that have one. A bound that holds says only that the case is
// no slower (or no faster) than the bound, and a case that simulated no
// rate (0) has no speed: both count in |error|, not in the bias.
struct AcceleratorSummary {
  std::string accelerator;
  size_t n = 0, bias_n = 0;
  double bias = 0, median = 0, worst = 0;
};

struct Validation {
  std::string dir;
  std::vector<ValidationCase> cases;
  ErrorSummary summary(CaseKind kind) const;
  // Each accelerator's summary for `kind`, by accelerator name. A whole
  // job's interruptions and ETTR are not a speed, so kJob gives none.
  std::vector<AcceleratorSummary> by_accelerator(CaseKind kind) const;
  // Each series whose cases ran at two or more micro-batch counts, by name.
  std::vector<SeriesFit> series() const;
};

std::string validation_text(const Validation& v);
nlohmann::ordered_json validation_json(const Validation& v);

}  // namespace anatomy::report
