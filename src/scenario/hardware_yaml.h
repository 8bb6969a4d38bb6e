#pragma once
// The hardware presets printed as a scenario writes them: each system as a
// whole definition of cluster.system, each accelerator as one of
// cluster.system.gpu, from the same field tables that read them, so a user
// copies one, edits it and reads back the same figures.
//
//   anatomy list --format yaml     # presets_yaml()
//   systems:
//     - name: dgx-h100
//       gpu: {name: H100, architecture: hopper, bf16_tflops: 989, ...}
//       nic_speed: 400Gbps
//       ...

#include <string>

#include "hw/system.h"

namespace anatomy::scenario {

// Every catalog accelerator and system, in one YAML document with a
// comment on top saying where each goes.
std::string presets_yaml();
// One system as the value of cluster.system; one accelerator as the value
// of cluster.system.gpu.
std::string system_yaml(const hw::System& s);
std::string accelerator_yaml(const hw::Accelerator& a);

}  // namespace anatomy::scenario
