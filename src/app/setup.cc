#include "app/setup.h"

#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "app/data_dir.h"
#include "app/network_factory.h"
#include "coll/library_model.h"
#include "core/error.h"
#include "core/input_file.h"
#include "hw/compute_model.h"
#include "hw/sync_pace.h"
#include "topo/builders.h"

namespace anatomy::app {
namespace {

// What a table did not measure and the shipped H200 table did: the
// memory-bound kernels' fractions of the streaming rate, and for a table of
// peaks the GEMMs' shortfall shape by shape; where the scenario's flash
// attention has dropout (`dropout`), that dropout's cost; and for a table
// of peaks without fp8 or fp4 rows, those precisions' plateaus over bf16's
// from the table the GPU's generation names
// (Architecture::precision_ratio_table). Flash attention a table of peaks
// measured on its own part, or its family's table did, is kept, and the
// H200's shortfall carries it to the shapes those rows did not measure.
hw::CalibrationTable with_borrowed_rates(hw::CalibrationTable t, const hw::Accelerator& gpu, bool dropout) {
  if (t.peaks_only && !gpu.arch.precision_ratio_table.empty()) {
    // The B200's own table is its family's ratio table: nothing to lend it.
    const std::string ratios = shipped_calibration(gpu.arch.precision_ratio_table);  // data_dir.h
    if (!ratios.empty() && ratios != t.source) hw::borrow_precision_ratios(t, hw::load_calibration(ratios));
  }
  // A table of peaks that measured its own flash attention prices it from
  // those rows; one that did not takes its family's shipped table's where
  // that one measured attention (MI325X the MI300X's: the same die and
  // kernels), else the H200's shortfall below.
  hw::own_attention_shortfall(t);
  std::optional<hw::CalibrationTable> family;
  if (t.peaks_only && t.attention.empty() && !gpu.arch.calibration_table.empty()) {
    const std::string table = shipped_calibration(gpu.arch.calibration_table);
    if (!table.empty() && table != t.source) family = hw::load_calibration(table);
  }
  const bool needs_kernels = t.elementwise_GBps.empty() || t.peaks_only;
  const bool needs_dropout = dropout && !t.dropout_measured;
  if (!needs_kernels && !needs_dropout) return t;
  const std::string reference = shipped_measured_table();  // data_dir.h
  if (reference.empty()) return t;
  const hw::CalibrationTable measured = hw::load_calibration(reference);
  if (needs_kernels) {
    hw::borrow_kernel_rates(t, measured);
    // Keeps attention measured on the part, and lends the H200's shortfall
    // beside it to carry those rows to the shapes they did not measure.
    hw::borrow_roofline_shortfall(t, measured);
    if (family) hw::borrow_attention_shortfall(t, *family);
  }
  if (needs_dropout) hw::borrow_dropout_cost(t, measured);
  return t;
}

// Only a training job's flash kernels draw dropout's numbers (an edge
// site's models have no dropout; unfused attention prices its dropout as a
// memory-bound pass).
bool flash_attention_dropout(const scenario::Scenario& s) {
  return !s.edge && !s.kernel && s.model.dropout && s.training.flash_attention;
}

}  // namespace

std::optional<hw::CalibrationTable> calibration_of(const scenario::Scenario& s) {
  const bool dropout = flash_attention_dropout(s);
  if (s.calibration.empty()) {
    const std::string shipped = shipped_calibration_for(s.cluster.system.gpu);  // data_dir.h
    if (shipped.empty()) return std::nullopt;
    return with_borrowed_rates(hw::load_calibration(shipped), s.cluster.system.gpu, dropout);
  }
  try {
    return with_borrowed_rates(hw::load_calibration(s.calibration), s.cluster.system.gpu, dropout);
  } catch (const core::InputError& e) {
    throw core::as_error_of_field(e, "compute.calibration");
  }
}

hw::ComputeModel compute_model_of(const scenario::Scenario& s) {
  const hw::Accelerator& gpu = s.cluster.system.gpu;
  const std::optional<hw::CalibrationTable> table = calibration_of(s);
  const hw::ComputeModel model = hw::make_compute_model(gpu, table ? &*table : nullptr);
  const std::string& shipped = gpu.calibration_table.empty() ? gpu.arch.calibration_table : gpu.calibration_table;
  if (table || shipped.empty()) return model;
  const std::string dir = data_dir();  // data_dir.h
  return model.noted(
      dir.empty() ? fmt::format("the shipped table {} was not found: no data folder beside the binary (share/anatomy), "
                                "and ANATOMY_DATA_DIR is unset",
                                shipped)
                  : fmt::format("the shipped table {} was not found in {}/calibration", shipped, dir));
}

core::InputError not_an_iteration(const scenario::Scenario& s) {
  const char* section = s.kernel ? "kernel" : "collective";
  return scenario::locate_in_scenario(
      s, core::InputError({"", 0, section}, fmt::format("this scenario is a {} case, not a training job: "
                                                        "anatomy run and anatomy validate time it",
                                                        section)));
}

std::unique_ptr<Setup> make_setup(const scenario::Scenario& s) {
  if (s.collective || s.kernel) throw not_an_iteration(s);
  auto setup = std::make_unique<Setup>();
  try {
    topo::ClusterSpec spec = s.cluster;
    if (s.placement) spec.gpus = s.placement_cluster_gpus;
    setup->topology = topo::build_cluster(spec);
    setup->compute.emplace(compute_model_of(s));
    // The job's GPUs, not spec.gpus: placed, the cluster is larger than the job.
    pace_for_gpus(s, *setup, s.cluster.gpus);
    coll::register_builtin_algorithms(setup->registry);
    workload::IterationInputs& in = setup->inputs;
    in.model = &s.model;
    in.plan = &s.parallelism;
    in.training = &s.training;
    in.topology = &setup->topology;
    in.compute = &*setup->compute;
    in.library = coll::nccl_library(s.cluster.system);
    in.library.fabric_reduction = s.cluster.fabric.in_network_reduction;
    in.make_network = network_factory(s.network);
    in.choose_network = choice_network_factory(s.network);
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

void pace_for_gpus(const scenario::Scenario& s, Setup& setup, int64_t gpus) {
  if (!s.gpu_rate_spread) return;
  const hw::Accelerator& gpu = s.cluster.system.gpu;
  const double pace = hw::synchronous_pace(gpu, gpus);
  setup.compute.emplace(setup.compute->paced(pace, hw::synchronous_pace_text(gpu, gpus)));
  // The mean GPU of a busy node computes at its own rate and waits for the slowest.
  if (pace < 1.0) setup.compute_mean.emplace(setup.compute->paced(hw::busy_node_pace(gpu, gpus), ""));
  else setup.compute_mean.reset();
  setup.inputs.compute_mean = setup.compute_mean ? &*setup.compute_mean : nullptr;
}

std::string Setup::description() const {
  return placement ? topology.description + "; placed " + placement->summary : topology.description;
}

}  // namespace anatomy::app
