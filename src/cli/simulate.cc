#include <filesystem>

#include <fmt/format.h>

#include "cli/network_factory.h"
#include "cli/run_command.h"
#include "cli/setup.h"
#include "coll/library_model.h"
#include "core/error.h"
#include "hw/compute_model.h"
#include "topo/builders.h"

namespace anatomy::cli {
namespace {

// The calibration table a scenario uses: the one it names, else one shipped
// for a GPU of the same architecture (Hopper: the measured H200 table,
// scaled to the GPU's own peaks), else none (the roofline).
std::string calibration_for(const scenario::Scenario& s) {
  if (!s.calibration.empty()) return s.calibration;
  const std::string& gpu = s.cluster.system.gpu.name;
  if (gpu == "H100" || gpu == "H200") {
    const std::string shipped = std::string(ANATOMY_DATA_DIR) + "/data/calibration/h200.json";
    if (std::filesystem::exists(shipped)) return shipped;
  }
  return "";
}

}  // namespace

core::InputError not_an_iteration(const scenario::Scenario& s) {
  return scenario::locate_in_scenario(
      s, core::InputError({"", 0, "collective"}, "this scenario is a collective case, not a training job: "
                                                 "anatomy run and anatomy validate time it"));
}

std::unique_ptr<Setup> make_setup(const scenario::Scenario& s) {
  if (s.collective) throw not_an_iteration(s);
  auto setup = std::make_unique<Setup>();
  try {
    topo::ClusterSpec spec = s.cluster;
    if (s.placement) spec.gpus = s.placement_cluster_gpus;
    setup->topology = topo::build_cluster(spec);
    const std::string table_path = calibration_for(s);
    std::optional<hw::CalibrationTable> table;
    if (!table_path.empty()) table = hw::load_calibration(table_path);
    setup->compute.emplace(hw::make_compute_model(s.cluster.system.gpu, table ? &*table : nullptr));
    coll::register_builtin_algorithms(setup->registry);
    workload::IterationInputs& in = setup->inputs;
    in.model = &s.model;
    in.plan = &s.parallelism;
    in.training = &s.training;
    in.topology = &setup->topology;
    in.compute = &*setup->compute;
    in.library = coll::nccl_library(s.cluster.system);
    in.make_network = network_factory(s.network);
    in.algorithms = &setup->registry;
    in.enforce_memory = s.memory_check_is_error;
    if (s.placement) {
      setup->placement = job::place(*s.placement, setup->topology, s.parallelism, s.cluster.system.gpu.tdp_watts);
      in.rank_to_gpu = setup->placement->rank_to_gpu;
    }
  } catch (const core::InputError& e) {
    throw scenario::locate_in_scenario(s, e);
  }
  return setup;
}

workload::IterationResult simulate_scenario(const scenario::Scenario& s, std::string* topology_description,
                                            int link_samples) {
  const std::unique_ptr<Setup> setup = make_setup(s);
  setup->inputs.link_samples = link_samples;
  if (topology_description) {
    *topology_description = setup->topology.description;
    if (setup->placement) *topology_description += "; placed " + setup->placement->summary;
  }
  try {
    return workload::simulate_iteration(setup->inputs);
  } catch (const core::InputError& e) {
    throw scenario::locate_in_scenario(s, e);
  }
}

coll::CollectiveResult simulate_collective_case(const scenario::Scenario& s, std::string* topology_description) {
  try {
    const topo::Topology t = topo::build_cluster(s.cluster);
    if (topology_description) *topology_description = t.description;
    coll::AlgorithmRegistry reg;
    coll::register_builtin_algorithms(reg);
    coll::CollectiveRunner runner(t, reg, coll::nccl_library(s.cluster.system), network_factory(s.network));
    coll::Request r;
    r.op = s.collective->op;
    r.bytes = s.collective->bytes;
    return runner.run(coll::whole_topology(t), r, s.collective->algorithm);
  } catch (const core::InputError& e) {
    throw scenario::locate_in_scenario(s, e);
  }
}

}  // namespace anatomy::cli
