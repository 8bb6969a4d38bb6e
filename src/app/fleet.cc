#include "app/fleet.h"

#include <map>
#include <memory>

#include <fmt/format.h>

#include "app/setup.h"
#include "core/error.h"
#include "job/checkpoint.h"
#include "net/flow/flow_network.h"
#include "topo/builders.h"
#include "workload/model.h"
#include "workload/params.h"
#include "workload/step_cost.h"

namespace anatomy::app {
namespace {

// A training class on `gpus` GPUs: the scenario's system, fabric and
// training settings with the class's model and plan, its global batch
// rounded to a whole number of micro-batches per DP rank, and the setup
// the iteration model runs on (the job alone on a cluster of its size).
struct ClassRun {
  scenario::Scenario one;
  std::unique_ptr<Setup> setup;
  std::string dp_algorithm;  // what auto chose for the gradients alone ("" = auto)
};

// Per step, what one rank sends across hosts (fleet/footprint.h): the
// stage's gradients through its share of the host's NICs; activations to
// the next stage and gradients back, a micro-batch at a time; its token
// all-to-alls to each other EP rank; and the TP group's ring of
// activations (fleet/footprint.h counts it only when the group spans
// hosts): per layer and micro-batch, forward two all-gathers and two
// reduce-scatters of T x h x 2 bytes (two all-reduces without sequence
// parallelism: the same bytes), backward as many, a ring rank sending
// (t - 1)/t of each (full recomputation's replay left out).
fleet::PlanTraffic plan_traffic(const scenario::Scenario& one, const workload::StepCostModel& cost) {
  const workload::ParallelPlan& p = one.parallelism;
  const workload::ModelSpec& m = one.model;
  const int gph = one.cluster.system.gpus_per_host;
  const int gpus = p.gpus();
  fleet::PlanTraffic t;
  t.tp = p.tp;
  t.pp = p.pp;
  t.ep = p.ep;
  // The gradients a stage reduces: every weight's, or under LoRA the adapters'.
  const double trained = static_cast<double>(
      one.training.lora_rank > 0 ? workload::lora_params(m, one.training.lora_rank) : m.params());
  const double stage_bytes = 2.0 * trained / p.pp;
  t.dp_bytes_per_nic = p.dp > 1 ? 2.0 * (p.dp - 1) / p.dp * stage_bytes / std::max(p.tp, std::min(gph, gpus)) : 0;
  const double micro_batches = static_cast<double>(one.training.micro_batches(p));
  double activation = 0, all_to_alls = 0;
  for (int s = 0; s < p.pp; ++s) {
    const workload::StageCost c = cost.stage(s);
    activation = std::max(activation, static_cast<double>(c.activation_bytes.count()));
    for (const auto& step : c.forward) all_to_alls += static_cast<double>(step.ep_all_to_alls);
    for (const auto& step : c.backward) all_to_alls += static_cast<double>(step.ep_all_to_alls);
  }
  t.pp_bytes_per_gpu = p.pp > 1 ? micro_batches * activation : 0;
  // Balanced routing: 1/ep of each all-to-all's buffer to each other rank (step_cost.h).
  t.ep_bytes_per_pair = p.ep > 1 ? all_to_alls / p.pp * micro_batches *
                                       static_cast<double>(cost.ep_all_to_all_bytes().count()) / p.ep
                                 : 0;
  const double tokens = static_cast<double>(one.training.micro_batch * one.training.seq_len);
  const double layers = static_cast<double>(m.layers) / p.pp;
  t.tp_bytes_per_gpu = p.tp > 1 ? layers * micro_batches * 8.0 * (p.tp - 1) / p.tp * tokens * m.hidden * 2 : 0;
  return t;
}

// The training classes' iterations: alone on a cluster of their size (the
// step profile), and again on the fleet's own cluster at a job's placement
// with links cut to what the other jobs leave (fleet_sim.h).
class TrainingIterations {
 public:
  TrainingIterations(const scenario::Scenario& s, const topo::Topology& cluster) : s_(s), cut_(cluster) {}

  fleet::StepProfile profile(const fleet::JobClass& c, int gpus) {
    ClassRun& run = class_run(c, gpus);
    const scenario::Scenario& one = run.one;
    workload::IterationResult it;
    try {
      it = workload::simulate_iteration(run.setup->inputs);
    } catch (const core::InputError& e) {
      throw core::InputError({"", 0, "fleet.classes"}, fmt::format("class {}: {} on {} GPUs: {}", c.name, c.model, gpus, e.message()));
    }
    // NCCL's choice comes from its model of the idle fabric, not from what
    // other tenants leave: re-simulations keep it (as job/adaptation.cc does).
    if (it.dp_algorithm.find('/') != std::string::npos && it.dp_algorithm.find(' ') == std::string::npos)
      run.dp_algorithm = it.dp_algorithm;
    fleet::StepProfile p;
    const double t = it.iteration.seconds();
    const workload::TimeBreakdown& m = it.mean;
    p.step_s = t;
    p.compute = m.compute().seconds() / t;
    p.communication = m.communication().seconds() / t;
    p.bubble = m.bubble.seconds() / t;
    p.waiting = std::max(0.0, 1 - p.compute - p.communication - p.bubble);
    const workload::StepCostModel cost(one.model, one.parallelism, one.training, *run.setup->compute,
                                       [](workload::Communicator, coll::Op, core::Bytes, const std::vector<uint32_t>&) { return core::SimTime::zero(); });
    p.traffic = plan_traffic(one, cost);
    p.checkpoint_bytes_per_gpu =
        c.checkpoint_bytes.count() > 0
            ? static_cast<double>(c.checkpoint_bytes.count())
            : static_cast<double>(job::shard_bytes(one.model, one.parallelism, one.training, 0).count());
    const workload::ParallelPlan& plan = one.parallelism;
    p.source = fmt::format("{} TP{} PP{}{} DP{}: {:.3f} s per step alone (anatomy's iteration model, {} network), "
                           "{:.0f}% compute, {:.0f}% exposed communication, {:.0f}% bubble, {:.0f}% waiting",
                           c.model, plan.tp, plan.pp, plan.ep > 1 ? fmt::format(" EP{}", plan.ep) : std::string(), plan.dp, t,
                           !it.network_transfers                              ? "no"
                           : s_.network.model == net::NetworkModel::kPacket ? "packet"
                                                                            : "flow",
                           100 * p.compute, 100 * p.communication, 100 * p.bubble, 100 * p.waiting);
    return p;
  }

  double iteration(const fleet::JobClass& c, const std::vector<uint32_t>& rank_to_gpu,
                   const std::vector<std::pair<topo::LinkId, double>>& kept) {
    ClassRun& run = class_run(c, static_cast<int>(rank_to_gpu.size()));
    workload::IterationInputs in = run.setup->inputs;
    in.topology = &cut_;
    in.rank_to_gpu = rank_to_gpu;
    // At packet level (network.model: packet) the run is packet by packet
    // on the cut links, with the scenario's transport: the other jobs are
    // the bandwidth they leave, not packets in the same queues. On the flow
    // model each connection keeps one path, as the footprint routes it.
    if (s_.network.model != net::NetworkModel::kPacket)
      in.make_network = [](engine::Simulator& sim, const topo::Topology& t) -> std::unique_ptr<net::Network> {
        net::FlowNetwork::Options o;
        o.route_by_connection = true;
        return std::make_unique<net::FlowNetwork>(sim, t, o);
      };
    in.choose_network = {};
    in.dp_algorithm = run.dp_algorithm;
    in.enforce_memory = false;
    in.link_samples = 0;
    in.telemetry = nullptr;
    in.domain_collectives = &domain_collectives_;
    in.rank_links = false;
    std::vector<core::Bandwidth> saved;
    saved.reserve(kept.size());
    for (const auto& [l, share] : kept) {
      saved.push_back(cut_.link(l).bandwidth);
      cut_.scale_link_bandwidth(l, share);
    }
    workload::IterationResult it;
    try {
      it = workload::simulate_iteration(in);
    } catch (...) {
      restore(kept, saved);
      throw;
    }
    restore(kept, saved);
    return it.iteration.seconds();
  }

 private:
  void restore(const std::vector<std::pair<topo::LinkId, double>>& kept, const std::vector<core::Bandwidth>& saved) {
    for (size_t i = 0; i < kept.size(); ++i) cut_.set_link_bandwidth(kept[i].first, saved[i]);
  }

  ClassRun& class_run(const fleet::JobClass& c, int gpus) {
    const auto key = std::make_pair(c.name, gpus);
    if (auto it = runs_.find(key); it != runs_.end()) return it->second;
    if (gpus % (c.tp * c.pp) != 0)
      throw core::InputError({"", 0, "fleet.classes"},
                             fmt::format("class {}: a job of {} GPUs cannot run TP{} x PP{} (not a multiple of {})", c.name, gpus,
                                         c.tp, c.pp, c.tp * c.pp));
    ClassRun run;
    scenario::Scenario& one = run.one;
    one = s_;
    one.fleet.reset();
    one.model = workload::find_model(c.model);
    one.cluster.gpus = gpus;
    one.cluster.storage.servers = 0;
    one.parallelism.tp = c.tp;
    one.parallelism.pp = c.pp;
    one.parallelism.dp = gpus / (c.tp * c.pp);
    one.parallelism.cp = 1;  // and so none of CP's exchanges, which cp 1 refuses
    one.parallelism.cp_all_to_all = false;
    one.parallelism.cp_a2a_size = 1;
    one.parallelism.ep = c.ep;
    one.parallelism.virtual_stages = 1;
    one.parallelism.expert_tp = 0;  // classes name TP, PP and EP only
    one.parallelism.ep_comm_overlap = false;
    // The base scenario's dispatcher where the class can use it (its
    // experts inherit its TP); otherwise NCCL all-to-all.
    if (!workload::flex_refusal(one.model, one.parallelism).empty())
      one.parallelism.moe_dispatcher = workload::MoeDispatcher::kAllToAll;
    // A split of the base scenario's layers by hand was made for its PP and
    // model, not the class's; the recomputed modules the class's model lacks
    // would make its plan invalid.
    one.parallelism.layout = {};
    one.parallelism.first_stage_layers = one.parallelism.last_stage_layers = 0;
    one.parallelism.embedding_in_split = one.parallelism.loss_in_split = false;
    one.training.recompute_modules = workload::applicable_modules(one.model, one.training.recompute_modules);
    const int64_t per_step = one.training.micro_batch * one.parallelism.dp;
    one.training.global_batch = std::max(per_step, (one.training.global_batch + per_step - 1) / per_step * per_step);
    try {
      workload::validate_plan(one.model, one.parallelism, one.training, gpus);
    } catch (const core::InputError& e) {
      throw core::InputError({"", 0, "fleet.classes"}, fmt::format("class {}: {} on {} GPUs: {}", c.name, c.model, gpus, e.message()));
    }
    const auto it = runs_.emplace(key, std::move(run)).first;
    // make_setup points the inputs at the scenario: build it where the scenario now lives.
    try {
      it->second.setup = make_setup(it->second.one);
    } catch (const core::InputError& e) {
      runs_.erase(it);
      throw core::InputError({"", 0, "fleet.classes"}, fmt::format("class {}: {} on {} GPUs: {}", c.name, c.model, gpus, e.message()));
    }
    return it->second;
  }

  const scenario::Scenario& s_;
  topo::Topology cut_;  // the fleet's cluster: links cut for one run, restored after
  std::map<std::pair<std::string, int>, ClassRun> runs_;
  // TP collectives inside a host, timed once for every re-simulation: cuts
  // are on fabric and storage links only (fleet/footprint.h).
  workload::DomainCollectives domain_collectives_;
};

}  // namespace

FleetRun run_fleet(const scenario::Scenario& s, bool phases) {
  FleetRun run;
  topo::Topology t;
  try {
    t = topo::build_cluster(s.cluster);
  } catch (const core::InputError& e) {
    throw scenario::locate_in_scenario(s, e);
  }
  run.topology = t.description;
  TrainingIterations iterations(s, t);
  const fleet::ProfileFn profile = [&](const fleet::JobClass& c, int gpus) { return iterations.profile(c, gpus); };
  const fleet::IterationFn iteration = [&](const fleet::JobClass& c, const std::vector<uint32_t>& rank_to_gpu,
                                           const std::vector<std::pair<topo::LinkId, double>>& kept) {
    return iterations.iteration(c, rank_to_gpu, kept);
  };
  try {
    fleet::FleetSpec spec = *s.fleet;
    spec.record_phases = phases;
    run.result = fleet::simulate_fleet(spec, t, s.cluster.system.gpu.tdp_watts, profile, iteration);
  } catch (const core::InputError& e) {
    throw scenario::locate_in_scenario(s, e);
  }
  return run;
}

}  // namespace anatomy::app
