#include "app/iteration.h"

#include <memory>

#include "app/setup.h"
#include "core/error.h"

namespace anatomy::app {

IterationRun run_iteration(const scenario::Scenario& s, int link_samples) {
  const std::unique_ptr<Setup> setup = make_setup(s);
  setup->inputs.link_samples = link_samples;
  IterationRun run;
  run.topology = setup->description();
  try {
    run.result = workload::simulate_iteration(setup->inputs);
  } catch (const core::InputError& e) {
    throw scenario::locate_in_scenario(s, e);
  }
  return run;
}

const char* default_scenario_yaml() {
  return R"(# The built-in default: a 70B-parameter model on 512 GB200 superchips
# (1,024 B200 GPUs in NVL72 racks) over an 800 Gb/s rail-optimized
# Ethernet fabric.
name: llama3-70b on 512 GB200 (1024 B200), 800G rail-optimized Ethernet
model: llama3-70b
cluster:
  system: gb200-nvl72
  gpus: 1024
  fabric:
    nic_speed: 800Gbps
    rail_optimized: true
parallelism:
  tp: 4
  pp: 4
  virtual_stages: 5
  zero_stage: 1
  tp_comm_overlap: true
  overlap_p2p_comm: true
training:
  seq_len: 8192
  global_batch: 512
  micro_batch: 1
  precision: bf16
  recompute: selective
)";
}

scenario::Scenario load_or_default(const std::string& file, const std::vector<scenario::Override>& overrides) {
  return file.empty() ? scenario::parse_scenario(default_scenario_yaml(), "<built-in default>", overrides)
                      : scenario::load_scenario(file, overrides);
}

}  // namespace anatomy::app
