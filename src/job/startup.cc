#include "job/startup.h"

#include <algorithm>

#include <fmt/format.h>

#include "coll/collective.h"
#include "workload/layout.h"
#include "workload/params.h"
#include "workload/step_cost.h"

namespace anatomy::job {

SimTime StartupCost::total() const {
  SimTime t;
  for (const auto& p : phases) t += p.duration;
  return t;
}

StartupCost startup_cost(const StartupSpec& spec, const workload::IterationInputs& base, bool restart,
                         int new_hosts, SimTime checkpoint_load) {
  StartupCost out;
  const topo::Topology& t = *base.topology;
  const auto& p = *base.plan;
  const int gpus = p.gpus();
  const int gpus_per_host = std::max<int>(1, static_cast<int>(t.num_gpus() / std::max<uint32_t>(1, t.num_hosts())));
  const int hosts = (gpus + gpus_per_host - 1) / gpus_per_host;

  // 1. Image pull.
  const int pulling = restart ? new_hosts : (spec.image_cached ? 0 : hosts);
  SimTime pull;
  std::string pull_how = "image cached on every host";
  if (pulling > 0) {
    // A host receives at its NIC's fabric port rate.
    Bandwidth host_nic = spec.registry_bandwidth;
    if (t.nic_of(0) != topo::kNoNode)
      for (topo::LinkId l : t.out_links(t.nic_of(0)))
        if (t.kind(t.link(l).to) == topo::NodeKind::kSwitch) host_nic = t.link(l).bandwidth;
    if (spec.peer_to_peer) {
      pull = core::transfer_time(spec.image_size, spec.registry_bandwidth) + core::transfer_time(spec.image_size, host_nic);
      pull_how = fmt::format("{} hosts, {} image, peer to peer: one registry copy ({}) relayed down a tree",
                             pulling, core::format_bytes(spec.image_size), core::format_bytes_rate(spec.registry_bandwidth));
    } else {
      pull = core::transfer_time(spec.image_size * pulling, spec.registry_bandwidth);
      pull_how = fmt::format("{} hosts x {} image through a {} registry", pulling, core::format_bytes(spec.image_size),
                             core::format_bytes_rate(spec.registry_bandwidth));
    }
  }
  out.phases.push_back({"image pull", pull, pull_how});
  out.phases.push_back({"framework start", spec.framework_init, "process launch, imports, model build (input)"});

  // 3. Communicator initialization, one communicator after another: TP,
  // CP, DP (x CP), PP; each connects its ranks to 2 ring peers per channel.
  struct Comm {
    const char* name;
    int size;
  };
  const Comm comms[] = {{"TP", p.tp}, {"CP", p.cp}, {"DP", p.dp * p.cp}, {"PP", p.pp}};
  int64_t connects = 0;
  std::string comm_list;
  for (const auto& c : comms) {
    if (c.size <= 1) continue;
    const int channels = 16;  // NCCL's typical collective channel count on these systems
    connects += int64_t{2} * channels;
    comm_list += (comm_list.empty() ? "" : ", ") + fmt::format("{} of {}", c.name, c.size);
  }
  const SimTime init = spec.bootstrap_per_rank * gpus + spec.topology_discovery + spec.connect_per_peer * connects;
  out.phases.push_back({"NCCL init", init,
                        fmt::format("{} ranks x {} bootstrap + {} topology discovery + {} peer connections x {} ({})", gpus,
                                    core::format_time(spec.bootstrap_per_rank), core::format_time(spec.topology_discovery),
                                    connects, core::format_time(spec.connect_per_peer),
                                    comm_list.empty() ? "no communicators" : comm_list)});

  // 4. State.
  const bool lora = base.training->lora_rank > 0;
  if (restart) {
    out.phases.push_back({"checkpoint load", checkpoint_load,
                          lora ? "every GPU reads its adapters' shard and its frozen base weights from storage at once, "
                                 "measured on the network"
                               : "every GPU reads its shard from storage at once, measured on the network"});
  } else if (checkpoint_load > SimTime::zero()) {
    out.phases.push_back({"base model load", checkpoint_load,
                          "every GPU reads its frozen base weights from storage at once, measured on the network"});
  } else if (p.dp > 1) {
    // DDP broadcasts the initial parameters from each replica group's first rank.
    coll::CollectiveRunner runner(t, *base.algorithms, base.library, base.make_network, base.choose_network);
    // Every stage's groups broadcast at once and the job waits for the
    // slowest: the one of the stage holding the most (stages differ by
    // their layers' kinds, the embedding and the output layer).
    int stage = 0;
    for (int s = 1; s < p.pp; ++s)
      if (workload::stage_params(*base.model, p, s).total() > workload::stage_params(*base.model, p, stage).total())
        stage = s;
    const workload::Layout layout(p);
    std::vector<uint32_t> group;
    for (uint32_t r : layout.dp_group({0, 0, 0, stage})) group.push_back(base.rank_to_gpu.empty() ? r : base.rank_to_gpu[r]);
    coll::Request req;
    req.op = coll::Op::kBroadcast;
    const workload::GpuParams held = workload::stage_params(*base.model, p, stage);
    const double weight_bytes = workload::state_bytes_per_param(*base.training, p).weights;
    req.bytes = Bytes(static_cast<int64_t>(static_cast<double>(held.total()) * weight_bytes));
    req.fidelity = coll::Fidelity::kBulk;
    const coll::CollectiveResult r = runner.run(coll::make_group(t, group), req, "auto");
    out.phases.push_back({"initial broadcast", r.time,
                          fmt::format("{} of parameters ({:g} B each) from rank 0 of each data-parallel group of {}{}, {}",
                                      core::format_bytes(req.bytes), weight_bytes, p.dp,
                                      p.pp > 1 ? fmt::format(" (pipeline stage {}, the largest)", stage) : "",
                                      r.algorithm + "/" + r.protocol)});
  }
  return out;
}

}  // namespace anatomy::job
