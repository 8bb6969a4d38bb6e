#pragma once
// Internal to scenario/: the `job:` section (job/job_spec.h), its field
// tables declared once like the rest of the schema.
//
//   job:
//     duration: 54d
//     cost: {dollars_per_gpu_hour: 2.5}
//     startup: {image_size: 20GB, registry_bandwidth: 100Gbps, image_cached: true, peer_to_peer: false,
//               bootstrap_per_rank: 20us, topology_discovery: 2s, connect_per_peer: 2ms, framework_init: 60s}
//     checkpoint: {policy: synchronous|asynchronous|hierarchical, interval: 30min | interval_iterations: 100,
//                  compression_ratio: 1, compression_rate: 0, host_copy_rate: 0, local_nvme_rate: 6GB/s, enabled: true}
//     failures:
//       watchdog_timeout: 10min, crash_detection: 30s, teardown: 60s, reschedule: 2min, repair: 4h,
//       spare_hosts: 16, planned_interval: 0s
//       classes:
//         - {name: Faulty GPU, category: GPU, per: gpu|host|nic|switch|job, rate_per_day: 1.67e-4,
//            hangs: false, needs_replacement: true}

#include <vector>

#include "job/job_spec.h"
#include "job/placement.h"
#include "scenario/scenario.h"
#include "scenario/scenario_fields.h"
#include "scenario/yaml_fields.h"

namespace anatomy::scenario::detail {

job::JobSpec read_job(const YAML::Node& node, int line, Context& ctx);
// placement: {cluster_gpus, policy: packed|spread|balanced, hosts_per_rack, racks_per_feed,
//             rack_power_kw, host_overhead_w, busy_fraction, max_ranks_per_rack, balanced_hosts_per_rack}
job::PlacementSpec read_placement(const YAML::Node& node, int line, Context& ctx, int* cluster_gpus);
// The sections job: and placement: (scenario_fields.h), appended to `out`.
void add_job_sections(std::vector<Section>& out);

}  // namespace anatomy::scenario::detail
