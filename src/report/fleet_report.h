#pragma once
// Many jobs on one cluster as `anatomy run` prints them for a scenario with
// a `fleet:` section (fleet/fleet_sim.h):
//  * text: the cluster, scheduler and job stream; GPU-hours and dollars
//    by cause; queueing, slowdown and contention; the jobs, slowest first;
//  * JSON: `jobs` (each id, class, gpus, state, arrival_s, start_s, end_s,
//    queue_s, jct_s, alone_s, run_s, slowdown, contention_s, preemptions,
//    failures, checkpoints, shared_with) and `cluster` (gpu_utilization,
//    productive_share, gpu_hours and dollars by cause, utilization_series,
//    the most contended links' load over time), `trace` (rows, skipped,
//    rejected, errors);
//  * jobs.csv (--csv DIR): one row per job;
//  * HTML (--report): utilization over time, GPU-hours by cause, the
//    per-link contention heat map over time, the jobs.

#include <nlohmann/json.hpp>
#include <string>

#include "fleet/fleet_sim.h"
#include "scenario/scenario.h"

namespace anatomy::report {

std::string fleet_text(const scenario::Scenario& s, const fleet::FleetResult& r, const std::string& topology);
nlohmann::ordered_json fleet_json(const scenario::Scenario& s, const fleet::FleetResult& r, const std::string& topology);
std::string fleet_jobs_csv(const fleet::FleetResult& r);
std::string fleet_html(const scenario::Scenario& s, const fleet::FleetResult& r, const std::string& topology);

}  // namespace anatomy::report
