#include "app/fleet.h"

#include <memory>

#include <fmt/format.h>

#include "app/setup.h"
#include "core/error.h"
#include "job/checkpoint.h"
#include "topo/builders.h"
#include "workload/model.h"

namespace anatomy::app {
namespace {

// A training class on `gpus` GPUs, alone: the scenario's system, fabric
// and training settings with the class's model and plan, its global batch
// rounded to a whole number of micro-batches per DP rank.
fleet::StepProfile training_profile(const scenario::Scenario& s, const fleet::JobClass& c, int gpus) {
  if (gpus % (c.tp * c.pp) != 0)
    throw core::InputError({"", 0, "fleet.classes"},
                           fmt::format("class {}: a job of {} GPUs cannot run TP{} x PP{} (not a multiple of {})", c.name, gpus, c.tp,
                                       c.pp, c.tp * c.pp));
  scenario::Scenario one = s;
  one.fleet.reset();
  one.model = workload::find_model(c.model);
  one.cluster.gpus = gpus;
  one.cluster.storage.servers = 0;
  one.parallelism.tp = c.tp;
  one.parallelism.pp = c.pp;
  one.parallelism.dp = gpus / (c.tp * c.pp);
  one.parallelism.cp = 1;
  one.parallelism.ep = 1;
  one.parallelism.virtual_stages = 1;
  const int64_t per_step = one.training.micro_batch * one.parallelism.dp;
  one.training.global_batch = std::max(per_step, (one.training.global_batch + per_step - 1) / per_step * per_step);
  std::unique_ptr<Setup> setup;
  workload::IterationResult it;
  try {
    workload::validate_plan(one.model, one.parallelism, one.training, gpus);
    setup = make_setup(one);
    it = workload::simulate_iteration(setup->inputs);
  } catch (const core::InputError& e) {
    throw core::InputError({"", 0, "fleet.classes"}, fmt::format("class {}: {} on {} GPUs: {}", c.name, c.model, gpus, e.message()));
  }
  fleet::StepProfile p;
  const double t = it.iteration.seconds();
  const workload::TimeBreakdown& m = it.mean;
  p.step_s = t;
  p.compute = (m.forward_compute + m.backward_compute + m.optimizer).seconds() / t;
  p.communication = (m.tp_comm + m.ep_comm + m.dp_comm + m.pp_comm).seconds() / t;
  p.bubble = std::max(0.0, 1 - p.compute - p.communication);
  // The data-parallel all-reduce of bf16 gradients: each stage's share of
  // the parameters, 2 (dp-1)/dp of it per rank, a host's share per NIC.
  const int dp = one.parallelism.dp;
  const int gph = one.cluster.system.gpus_per_host;
  const double stage_bytes = 2.0 * static_cast<double>(one.model.params()) / c.pp;
  p.grad_bytes_per_nic = dp > 1 ? 2.0 * (dp - 1) / dp * stage_bytes / std::max(1, std::min(gph, gpus)) : 0;
  p.checkpoint_bytes_per_gpu =
      c.checkpoint_bytes.count() > 0
          ? static_cast<double>(c.checkpoint_bytes.count())
          : static_cast<double>(job::shard_bytes(one.model, one.parallelism, one.training, 0).count());
  p.source = fmt::format("{} TP{} PP{} DP{}: {:.3f} s per step alone (anatomy's iteration model, {} network), "
                         "{:.0f}% compute, {:.0f}% exposed communication, {:.0f}% bubble",
                         c.model, c.tp, c.pp, dp, t, it.network_transfers ? "flow" : "no", 100 * p.compute,
                         100 * p.communication, 100 * p.bubble);
  return p;
}

}  // namespace

FleetRun run_fleet(const scenario::Scenario& s) {
  if (s.network.model == net::NetworkModel::kPacket)
    throw scenario::locate_in_scenario(
        s, core::InputError({"", 0, "network.model"},
                            "a fleet shares links as the flow model does (max-min); packet-level contention between "
                            "jobs is not modelled yet: use network.model: flow"));
  FleetRun run;
  topo::Topology t;
  try {
    t = topo::build_cluster(s.cluster);
  } catch (const core::InputError& e) {
    throw scenario::locate_in_scenario(s, e);
  }
  run.topology = t.description;
  const fleet::ProfileFn profile = [&s](const fleet::JobClass& c, int gpus) { return training_profile(s, c, gpus); };
  try {
    run.result = fleet::simulate_fleet(*s.fleet, t, s.cluster.system.gpu.tdp_watts, profile);
  } catch (const core::InputError& e) {
    throw scenario::locate_in_scenario(s, e);
  }
  return run;
}

}  // namespace anatomy::app
