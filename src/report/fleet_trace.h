#pragma once
// Many jobs on one cluster as a Chrome / Perfetto trace (Trace Event
// Format, JSON), for ui.perfetto.dev:
//   process 1 "cluster"  counter "GPUs held" and "GPUs productive": the
//                        share of the cluster's GPUs in each time bin;
//   process 2 "jobs"     one track per job (id, class, GPUs), one complete
//                        event per phase it ran (startup, restart, train,
//                        checkpoint, failure recovery), split where its
//                        slowdown moved by 10% or more (a neighbour's
//                        checkpoint), with its slowdown over the event in
//                        args;
//   process 3 "links"    one counter per most contended link: its offered
//                        load over capacity while jobs shared it, per bin.
// Times are microseconds, to the nanosecond of the fleet's clock, one
// event per line: the same run gives the same bytes.
//
//   write_file("fleet.json", report::fleet_trace(run.result, scenario.name));

#include <string>

#include "fleet/fleet_sim.h"

namespace anatomy::report {

std::string fleet_trace(const fleet::FleetResult& r, const std::string& name);

}  // namespace anatomy::report
