#pragma once
// Use case: every published case in a folder of validation scenarios
// (each with an `expected:` section), simulated and set beside the
// published figure (`anatomy validate`).

#include <string>
#include <vector>

#include "app/progress.h"
#include "report/validation.h"
#include "scenario/overrides.h"

namespace anatomy::app {

// One case file. A case the model refuses (it does not fit, say) comes back
// with ran = false and the reason in its note; a malformed file throws.
report::ValidationCase validate_case(const std::string& path, const std::vector<scenario::Override>& overrides = {});

// Every .yaml in `dir` ("" = the shipped validation cases), in name order.
// `overrides` (--set, --seed) apply to every case. The cases run on
// `threads` workers (0: one a hardware thread); the result does not depend
// on how many.
report::Validation validate_folder(const std::string& dir, const std::vector<scenario::Override>& overrides = {},
                                   const OnStep& on_case = {}, int threads = 0);

// What a front end is given: one case file (its folder named as the
// validation's), a folder of them, or "" for the shipped cases.
report::Validation validate_path(const std::string& path, const std::vector<scenario::Override>& overrides = {},
                                 const OnStep& on_case = {}, int threads = 0);

}  // namespace anatomy::app
