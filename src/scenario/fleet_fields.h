#pragma once
// Internal to scenario/: the `fleet:` section (fleet/fleet_spec.h), many
// jobs on one cluster under a scheduler, declared field by field like the
// rest.
//
//   fleet:
//     duration: 30d
//     dollars_per_gpu_hour: 2.5
//     heat_bins: 48
//     scheduler: {policy: fifo|backfill|gang|priority, placement: packed|spread|balanced,
//                 hosts_per_rack: 4, racks_per_feed: 8, rack_power_kw: 0, host_overhead_w: 2000,
//                 max_ranks_per_rack: 0, balanced_hosts_per_rack: 2,
//                 preemption: true, restart: 5min, startup: 2min, contention: true}
//     classes:
//       - {name: small, model: "", tp: 1, pp: 1, step: 1s, all_reduce: 2GiB,
//          checkpoint_interval: 1h, checkpoint_bytes: 4GB, priority: 0, weight: 1, min_gpus: 0, max_gpus: 0}
//     jobs: [{id: a, class: small, gpus: 64, arrival: 0s, duration: 2h, iterations: 0, priority: 0}]
//     generator: {jobs: 100, interarrival: 5min, sizes: "8:4,64:2,512:1",
//                 duration_median: 1h, duration_sigma: 1.0, duration_max: 7d}
//     trace: {format: philly|helios|alibaba-pai, file: trace.json, jobs_file: "", max_jobs: 0,
//             time_scale: 1, max_gpus: 0}
//     failures: {per_gpu_day: 0, recovery: 10min}

#include <vector>

#include "fleet/fleet_spec.h"
#include "scenario/scenario.h"
#include "scenario/scenario_fields.h"
#include "scenario/yaml_fields.h"

namespace anatomy::scenario::detail {

// Reads and checks the section; `gpus` is cluster.gpus (no job may need more).
fleet::FleetSpec read_fleet(const YAML::Node& node, int line, Context& ctx, int gpus);
// The fleet sections (scenario_fields.h), appended to `out`.
void add_fleet_sections(std::vector<Section>& out);

}  // namespace anatomy::scenario::detail
