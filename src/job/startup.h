#pragma once
// Job startup, phase by phase: what happens between "submit" and the
// first iteration, and again after every restart.
//
//  1. image pull: every host that lacks the container image fetches it.
//     From a registry, the registry's egress is shared by all of them:
//     hosts x image / registry bandwidth; peer to peer, the registry sends
//     one copy and hosts relay chunks down a tree, so the time is about
//     image / registry bandwidth + image / host NIC bandwidth.
//  2. framework start: process launch, imports, building the model.
//  3. communicator initialization (NCCL/RCCL): the bootstrap root gathers
//     every rank's address (ranks x bootstrap_per_rank), every host probes
//     its topology in parallel, then each communicator connects every rank
//     to its ring/tree peers on every channel (peers x channels x
//     connect_per_peer), communicators one after another.
//  4. state: on a restart, every GPU reads its checkpoint shard at once from
//     storage (the load storm, measured on the network); on the first
//     start, data-parallel replicas receive the initial parameters by a
//     broadcast from their first rank (as PyTorch DDP does), measured on the
//     network.

#include <string>
#include <vector>

#include "job/job_spec.h"
#include "workload/iteration.h"

namespace anatomy::job {

struct StartupPhase {
  std::string name;
  SimTime duration;
  std::string inputs;  // what it was computed from
};

struct StartupCost {
  std::vector<StartupPhase> phases;
  SimTime total() const;
};

// `restart`: the image is cached on all but `new_hosts` hosts, and state
// comes from the checkpoint (`checkpoint_load`, measured by the caller). A
// first start with a `checkpoint_load` (a LoRA job reading its base model)
// reads that instead of broadcasting the initial parameters.
StartupCost startup_cost(const StartupSpec& spec, const workload::IterationInputs& base, bool restart,
                         int new_hosts, SimTime checkpoint_load);

}  // namespace anatomy::job
