#include "job/checkpoint.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "workload/layout.h"
#include "workload/params.h"
#include "workload/step_cost.h"

namespace anatomy::job {
namespace {

uint32_t gpu_of(const workload::IterationInputs& in, uint32_t rank) {
  return in.rank_to_gpu.empty() ? rank : in.rank_to_gpu[rank];
}

// Runs `transfers` alone on a fresh network; returns when the last arrives.
SimTime run_transfers(const workload::IterationInputs& in, const coll::NetworkFactory& bulk,
                      const std::vector<workload::IterationInputs::Background>& transfers) {
  engine::Simulator sim;
  auto net = bulk(sim, *in.topology);
  SimTime last;
  for (const auto& t : transfers) net->transfer(t.src, t.dst, t.bytes, [&] { last = sim.now(); });
  sim.run();
  return last;
}

const std::vector<topo::NodeId>& storage_of(const workload::IterationInputs& in) {
  const auto& st = in.topology->storage_nodes();
  if (st.empty())
    throw core::InputError({"", 0, "cluster.storage.servers"},
                           "checkpoints need storage servers in the cluster (cluster.storage.servers > 0)");
  return st;
}

// One write (or read) per GPU, GPUs spread round-robin over the servers.
// When storage has its own fabric, a host's GPUs reach it through the same
// host memory and storage NICs, so their shards travel as one flow per
// host (the host's storage NICs and the fabric see the same bytes; 8x
// fewer flows to solve).
std::vector<workload::IterationInputs::Background> shard_transfers(const workload::IterationInputs& in,
                                                                   double ratio, bool read) {
  const auto& storage = storage_of(in);
  // Storage on its own fabric is reached through host memory and the hosts'
  // storage NICs; storage on the training fabric from the GPUs' own NICs
  // (GPUDirect Storage), where it meets the collectives.
  const bool separate = in.topology->fabric_of(storage.front()) == 1;
  const workload::Layout layout(*in.plan);
  std::vector<workload::IterationInputs::Background> out;
  std::vector<int64_t> host_bytes(separate ? in.topology->num_hosts() : 0, 0);
  for (uint32_t r = 0; r < static_cast<uint32_t>(in.plan->gpus()); ++r) {
    const int stage = layout.coord(r).pp;
    const double shard = shard_bytes(*in.model, *in.plan, *in.training, stage).as_double() * ratio;
    const Bytes b = Bytes(static_cast<int64_t>(std::llround(shard))) +
                    (read ? frozen_weight_bytes(*in.model, *in.plan, *in.training, stage) : Bytes(0));
    const uint32_t gpu = gpu_of(in, r);
    if (separate) {
      host_bytes[in.topology->host_of(gpu)] += b.count();
      continue;
    }
    const topo::NodeId local = in.topology->gpu_node(gpu);
    const topo::NodeId server = storage[r % storage.size()];
    out.push_back(read ? workload::IterationInputs::Background{server, local, b}
                       : workload::IterationInputs::Background{local, server, b});
  }
  // Two streams per host (hosts have two storage NICs on the DGX presets),
  // to consecutive servers.
  constexpr int kStreams = 2;
  for (uint32_t h = 0; h < host_bytes.size(); ++h) {
    if (host_bytes[h] == 0) continue;
    const topo::NodeId local = in.topology->host_node(h);
    for (int k = 0; k < kStreams; ++k) {
      const topo::NodeId server = storage[(size_t{h} * kStreams + k) % storage.size()];
      const Bytes b(host_bytes[h] / kStreams + (k == 0 ? host_bytes[h] % kStreams : 0));
      out.push_back(read ? workload::IterationInputs::Background{server, local, b}
                         : workload::IterationInputs::Background{local, server, b});
    }
  }
  return out;
}

}  // namespace

const char* to_string(CheckpointPolicy p) {
  switch (p) {
    case CheckpointPolicy::kSynchronous: return "synchronous";
    case CheckpointPolicy::kAsynchronous: return "asynchronous";
    case CheckpointPolicy::kHierarchical: return "hierarchical";
  }
  return "?";
}

SimTime CheckpointCost::cost(SimTime steady, int64_t every) const {
  // Past `every` iterations the next checkpoint waits for the write instead.
  const int64_t slowed = std::clamp<int64_t>(slowed_iterations, 0, every);
  const SimTime extra = slowed_iteration > steady ? (slowed_iteration - steady) * slowed : SimTime::zero();
  const SimTime between = slowed_iteration * slowed + steady * (every - slowed);
  const SimTime backlog = background > between ? background - between : SimTime::zero();
  return stall + extra + backlog;
}

Bytes frozen_weight_bytes(const workload::ModelSpec& m, const workload::ParallelPlan& p,
                          const workload::TrainingSpec& t, int stage) {
  if (t.lora_rank <= 0) return Bytes(0);
  return Bytes(workload::stage_params(m, p, stage).total() * workload::element_bytes(t));
}

Bytes shard_bytes(const workload::ModelSpec& m, const workload::ParallelPlan& p, const workload::TrainingSpec& t, int stage) {
  const int64_t shards = int64_t{p.dp} * p.cp;
  const double bytes = static_cast<double>(workload::trained_stage_params(m, p, t, stage).total()) *
                       workload::checkpoint_bytes_per_param(t);
  return Bytes(static_cast<int64_t>(bytes) / shards);
}

CheckpointCost measure_checkpoint(const CheckpointSpec& spec, const workload::IterationInputs& base,
                                  const workload::IterationResult& steady, const coll::NetworkFactory& bulk) {
  CheckpointCost c;
  const auto& m = *base.model;
  const auto& p = *base.plan;
  const double ratio = std::clamp(spec.compression_ratio, 0.0, 1.0);
  for (int s = 0; s < p.pp; ++s) {
    const Bytes b = shard_bytes(m, p, *base.training, s);
    c.bytes_per_gpu = std::max(c.bytes_per_gpu, b);
    c.bytes_total += b * (int64_t{p.tp} * p.dp * p.cp);
  }
  c.bytes_written = Bytes(std::llround(c.bytes_total.as_double() * ratio));
  // Compressing the shard on the GPU before it leaves.
  const SimTime compress = spec.compression_rate.bps() > 0 && ratio < 1.0
                               ? core::transfer_time(c.bytes_per_gpu, spec.compression_rate)
                               : SimTime::zero();
  const Bytes stored(static_cast<int64_t>(std::llround(c.bytes_per_gpu.as_double() * ratio)));
  if (spec.policy == CheckpointPolicy::kSynchronous) {
    c.stall = compress + run_transfers(base, bulk, shard_transfers(base, ratio, false));
    c.slowed_iteration = steady.iteration;
    c.how = fmt::format("synchronous: {} per GPU ({} in all) written to {} storage servers, measured on the network",
                        core::format_bytes(stored), core::format_bytes(c.bytes_total),
                        base.topology->storage_nodes().size());
    return c;
  }
  // The snapshot: to host memory over the GPU-host link, or to local NVMe
  // (the host's GPUs share its drives).
  // Unless the scenario gives a rate, a pinned copy over the GPU-host link:
  // at the GPU's measured device-to-host rate where its calibration table
  // measured copies over this kind of link (hw::ComputeModel::device_to_host).
  const Bandwidth link = base.topology->link(base.topology->find_link(
                                                 base.topology->gpu_node(gpu_of(base, 0)),
                                                 base.topology->host_node(base.topology->host_of(gpu_of(base, 0)))))
                             .bandwidth;
  const Bandwidth host_copy = spec.host_copy_rate.bps() > 0 ? spec.host_copy_rate : base.compute->device_to_host(link);
  SimTime snapshot = core::transfer_time(stored, host_copy);
  if (spec.policy == CheckpointPolicy::kHierarchical) {
    const int64_t gpus_per_host = std::max<int64_t>(1, base.topology->num_gpus() / std::max<uint32_t>(1, base.topology->num_hosts()));
    snapshot = std::max(snapshot, core::transfer_time(stored * gpus_per_host, spec.local_nvme_rate));
  }
  c.stall = compress + snapshot;
  const auto writes = shard_transfers(base, ratio, false);
  const bool separate = base.topology->fabric_of(base.topology->storage_nodes().front()) == 1;
  workload::IterationResult slowed;
  if (separate) {
    // Host memory to a separate storage fabric shares no link with
    // training: the iterations run as in steady state.
    c.background = run_transfers(base, bulk, writes);
    slowed = steady;
  } else {
    // The write shares the training fabric: re-simulate an iteration with it.
    workload::IterationInputs with = base;
    with.background = writes;
    with.make_network = bulk;
    slowed = workload::simulate_iteration(with);
    c.background = slowed.background_finished;
  }
  c.slowed_iteration = slowed.iteration;
  const double per = std::max(1e-12, slowed.iteration.seconds());
  c.slowed_iterations = static_cast<int64_t>(std::ceil(c.background.seconds() / per));
  const std::string meanwhile =
      slowed.iteration > steady.iteration
          ? fmt::format("iterations meanwhile take {} instead of {}", core::format_time(slowed.iteration),
                        core::format_time(steady.iteration))
          : std::string("iterations meanwhile unslowed");
  c.how = fmt::format("{}: {} per GPU snapshot to {} in {}, then written to {} storage servers in the background "
                      "over {} ({})",
                      to_string(spec.policy), core::format_bytes(stored),
                      spec.policy == CheckpointPolicy::kHierarchical ? "local NVMe" : "host memory",
                      core::format_time(snapshot), base.topology->storage_nodes().size(), core::format_time(c.background),
                      meanwhile);
  return c;
}

SimTime measure_checkpoint_load(const workload::IterationInputs& base, double compression_ratio,
                                const coll::NetworkFactory& bulk) {
  return run_transfers(base, bulk, shard_transfers(base, std::clamp(compression_ratio, 0.0, 1.0), true));
}

}  // namespace anatomy::job
