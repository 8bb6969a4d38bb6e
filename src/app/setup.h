#pragma once
// Everything a scenario's simulation needs, built once in one place: the
// topology (the whole cluster when the job is placed in a larger one), the
// compute model, the collective algorithms, the placement, and the
// iteration's inputs pointing at them. Not copyable: the inputs point into it.
// This is the one place that names concrete implementations and wires them.
//
//   const std::unique_ptr<app::Setup> setup = app::make_setup(scenario);
//   workload::simulate_iteration(setup->inputs);

#include <memory>
#include <optional>
#include <string>

#include "coll/algorithm.h"
#include "hw/compute_model.h"
#include "job/placement.h"
#include "scenario/scenario.h"
#include "topo/topology.h"
#include "workload/iteration.h"

namespace anatomy::app {

struct Setup {
  topo::Topology topology;
  std::optional<hw::ComputeModel> compute;
  // The mean GPU's model when compute runs at the slowest GPU's pace
  // (IterationInputs::compute_mean).
  std::optional<hw::ComputeModel> compute_mean;
  coll::AlgorithmRegistry registry;
  std::optional<job::Placement> placement;
  workload::IterationInputs inputs;
  Setup() = default;
  Setup(const Setup&) = delete;
  Setup& operator=(const Setup&) = delete;

  // The built cluster in one line, with where the job was placed in it.
  std::string description() const;
};

// Throws InputError (with the scenario's file) on what cannot be built or placed.
// Its compute model runs at the pace of the slowest of the job's
// cluster.gpus GPUs (hw/sync_pace.h) unless compute.gpu_rate_spread is off.
std::unique_ptr<Setup> make_setup(const scenario::Scenario& s);

// Re-paces `setup`'s compute model for a job of `gpus` GPUs of the
// scenario's part (a replay runs its own rank count); no-op when the
// scenario turns the spread off.
void pace_for_gpus(const scenario::Scenario& s, Setup& setup, int64_t gpus);

// The calibration table the scenario's compute model reads: the one its
// compute.calibration names, else the one shipped for its GPU, else none;
// what it did not measure and the shipped H200 table did, it borrows
// (data_dir.h: shipped_measured_table).
// A named table that cannot be read is an error of compute.calibration.
std::optional<hw::CalibrationTable> calibration_of(const scenario::Scenario& s);

// The scenario's GPU's compute model on calibration_of's table. Where the
// GPU has a shipped table and it was not found (no data folder beside the
// binary, data_dir.h), its description says so: the numbers are then the
// generic roofline's, not what the report would otherwise print.
hw::ComputeModel compute_model_of(const scenario::Scenario& s);

// The error for a collective case given where a training job is needed.
core::InputError not_an_iteration(const scenario::Scenario& s);

}  // namespace anatomy::app
