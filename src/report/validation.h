#pragma once
// Published cases beside what anatomy simulates (`anatomy validate`): one
// row per case, and the error summaries the validation targets are stated
// in, one per kind of case — training throughput/MFU, collectives, single
// kernels, whole jobs — since a target for one says nothing of another.
// Errors are (simulated - published) / published, except that a published
// bound that holds has no error.

#include <nlohmann/json.hpp>
#include <string>
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
  double error() const;
};

struct ErrorSummary {
  size_t n = 0, refused = 0;  // cases simulated, and refused by the model
  double median = 0, worst = 0;  // of |error|
};

struct Validation {
  std::string dir;
  std::vector<ValidationCase> cases;
  ErrorSummary summary(CaseKind kind) const;
};

std::string validation_text(const Validation& v);
nlohmann::ordered_json validation_json(const Validation& v);

}  // namespace anatomy::report
