#include <filesystem>

#include <fmt/format.h>

#include "cli/network_factory.h"
#include "cli/run_command.h"
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

workload::IterationResult simulate_scenario(const scenario::Scenario& s, std::string* topology_description) {
  topo::ClusterSpec spec = s.cluster;
  const topo::Topology topology = topo::build_cluster(spec);
  if (topology_description) *topology_description = topology.description;
  const std::string table_path = calibration_for(s);
  std::optional<hw::CalibrationTable> table;
  if (!table_path.empty()) table = hw::load_calibration(table_path);
  const hw::ComputeModel compute = hw::make_compute_model(s.cluster.system.gpu, table ? &*table : nullptr);
  coll::AlgorithmRegistry registry;
  coll::register_builtin_algorithms(registry);
  workload::IterationInputs in;
  in.model = &s.model;
  in.plan = &s.parallelism;
  in.training = &s.training;
  in.topology = &topology;
  in.compute = &compute;
  in.library = coll::nccl_library(s.cluster.system);
  in.make_network = network_factory(s.network_model);
  in.algorithms = &registry;
  in.enforce_memory = s.memory_check_is_error;
  try {
    return workload::simulate_iteration(in);
  } catch (const core::InputError& e) {
    if (!e.where().file.empty() || s.file.empty()) throw;
    throw e.with_location(s.file, 0);
  }
}

}  // namespace anatomy::cli
