#pragma once
// The optimal checkpoint interval (case C6 of validation/README.md).
//
// delta = time a checkpoint costs the job, M = mean time between
// interruptions, R = restart cost.
//   Young (1974):  tau = sqrt(2 delta M)
//   Daly (2006, eq. 37 as LLNL SCR implements it):
//     tau = sqrt(2 delta M) [1 + sqrt(delta / (2M)) / 3 + delta / (18 M)] - delta   if delta < 2M, else M
//   Expected waste of interval tau: delta / tau + (tau / 2 + R) / M.

#include "core/time.h"

namespace anatomy::job {

core::JobTime young_interval(core::JobTime delta, core::JobTime mtbi);
core::JobTime daly_interval(core::JobTime delta, core::JobTime mtbi);
double expected_waste(core::JobTime tau, core::JobTime delta, core::JobTime mtbi, core::JobTime restart);

}  // namespace anatomy::job
