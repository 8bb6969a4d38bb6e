#pragma once
// Internal to scenario/: hardware described in a scenario — cluster.system
// as a preset name, a preset with overrides, or a whole definition — read
// against one field table per record (system, its scale-up domain, its
// accelerator), the same tables that print the presets (hardware_yaml.h).
//
//   cluster:
//     system: dgx-h100                      # a preset
//     system: {preset: dgx-b200, nic_speed: 1600Gbps, gpu_nic_link: pcie-gen6,
//              gpu: {preset: B200, hbm_capacity: 192GB}}
//     system:                               # a whole definition
//       name: my-box
//       gpu: {name: X1, architecture: hopper, bf16_tflops: 1200, ...}
//       gpus_per_host: 8
//       scaleup: {kind: switch, domain_gpus: 8, ...}
//       nic_speed: 800Gbps
//       gpu_nic_link: pcie-gen6
//
// With a preset, absent keys keep the preset's values; in a definition they
// take the field's default, and a required one is an error.

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "hw/switch.h"
#include "hw/system.h"
#include "scenario/yaml_fields.h"

namespace anatomy::scenario::detail {

const std::vector<Field<hw::System>>& system_fields();
const std::vector<Field<hw::ScaleUp>>& scaleup_fields();
const std::vector<Field<hw::Accelerator>>& accelerator_fields();
const std::vector<Field<hw::Switch>>& switch_fields();

// Reads the value of `path` (cluster.system), whose key is on `line`.
hw::System read_system(const YAML::Node& node, const std::string& path, int line, Context& ctx);
// Reads cluster.fabric.switch, a mapping.
hw::Switch read_switch(const YAML::Node& node, const std::string& path, int line, Context& ctx);

}  // namespace anatomy::scenario::detail
