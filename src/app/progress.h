#pragma once
// How a use case reports that one step (an iteration, a case, a size) is
// done, without printing: the front end decides whether to draw a bar.

#include <cstdint>
#include <functional>

#include "core/time.h"

namespace anatomy::app {

// Called once per finished step with the simulated time that step covered
// and the number of steps in all.
using OnStep = std::function<void(core::JobTime simulated, int64_t total)>;

}  // namespace anatomy::app
