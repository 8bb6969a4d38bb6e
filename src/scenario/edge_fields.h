#pragma once
// Internal to scenario/: the `edge:` section (job/edge/edge_spec.h), an edge
// site's tiers and lifecycle, declared field by field like the rest.
//
//   edge:
//     duration: 24h
//     model: resnet-50                 # resnet-50, vit-b16, or a transformer preset
//     sensor:
//       switched: true                 # false: a point-to-point link per sensor
//       link_speed: 10Gbps, uplink_speed: 10Gbps, link_latency: 500ns, switch_latency: 1us
//       shared_with_training: false, training_burst: 4MiB, training_period: 5ms, training_priority: 0
//       window: 1s
//       streams:
//         - {name: coating-camera, count: 4, message: 2MB, mtu: 9000, period: 33ms,
//            deadline: 5ms, priority: 5, transport: udp|reliable, inference: true}
//       shapers: [{class: 5, idle_slope: 6Gbps}]        # 802.1Qav
//       gates: [{duration: 100us, open: "7"}, {duration: 900us, open: "0-6"}]   # 802.1Qbv
//     serving: {nodes: 2, shared: false, priority: inference|training, budget: 100ms,
//               network_budget: 5ms, preemption_quantum: 2ms, lines: 4}
//     retrain: {interval: 1h, mode: full|frozen_backbone|lora, lora_rank: 16, samples: 20000, epochs: 1,
//               batch_per_gpu: 64, seq_len: 4096, bytes_per_sample: 200KB, staging_rate: 2GB/s,
//               validate_samples: 5000, package_rate: 1GB/s, package_overhead: 5s}
//     rollout: {strategy: rolling|canary|blue_green|naive, nodes: 0, max_unavailable: 1,
//               distribution_rate: 100Gbps, load_rate: 25GB/s, warmup: 2s, canary_soak: 5min, keep_versions: 5}
//     quality: {failure_probability: 0, detection_delay: 2min}
//     coordination: {wan_speed: 1Gbps, rtt: 20ms, loss: 0, sites: 24, registry_speed: 10Gbps,
//                    base_model: 0B, pull_at: 0s, qos: true, control_message: 2KB, control_period: 100ms}
//     faults:
//       frame_loss: 0, retransmit_after: 20us
//       link: {tier: sensor|training|coordination, at: 1h, switchover: 50ms, redundant: true, repair: 1h}
//       thermal: {at: 2h, duration: 10min, clock_fraction: 0.7}
//       power: {at: 3h, down: 5min, host: 0}

#include <vector>

#include "job/edge/edge_spec.h"
#include "scenario/scenario.h"
#include "scenario/scenario_fields.h"
#include "scenario/yaml_fields.h"

namespace anatomy::scenario::detail {

// Reads and checks the section; `gpus` is cluster.gpus (serving nodes must fit).
job::edge::EdgeSpec read_edge(const YAML::Node& node, int line, Context& ctx, int gpus);
// The edge sections (scenario_fields.h), appended to `out`.
void add_edge_sections(std::vector<Section>& out);

}  // namespace anatomy::scenario::detail
