#pragma once
// An edge site's run as a Chrome / Perfetto trace (Trace Event Format,
// JSON), for ui.perfetto.dev:
//   process 1 "site"  track "cycles": one complete event per cycle phase
//                     (collect, train, validate, package, rollout,
//                     rollback), named by phase, with the cycle and
//                     version in args;
//                     track "coverage": one event per interval a line
//                     had no valid model, with the lines uncovered.
// Times are microseconds written as exact decimals of the picosecond
// clock, one event per line: the same run gives the same bytes.

#include <string>

#include "job/edge/edge_site.h"

namespace anatomy::report {

std::string edge_trace(const job::edge::EdgeResult& r, const std::string& name);

}  // namespace anatomy::report
