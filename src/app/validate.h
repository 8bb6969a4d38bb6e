#pragma once
// Use case: every published case in a folder of validation scenarios
// (each with an `expected:` section), simulated and set beside the
// published figure (`anatomy validate`).

#include <string>

#include "app/progress.h"
#include "report/validation.h"

namespace anatomy::app {

// One case file. A case the model refuses (it does not fit, say) comes back
// with ran = false and the reason in its note; a malformed file throws.
report::ValidationCase validate_case(const std::string& path);

// Every .yaml in `dir` ("" = the shipped validation cases), in name order.
report::Validation validate_folder(const std::string& dir, const OnStep& on_case = {});

}  // namespace anatomy::app
