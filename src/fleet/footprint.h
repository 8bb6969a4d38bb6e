#pragma once
// A placed job's traffic on the shared links: which fabric and storage
// links its data-parallel all-reduce and its checkpoint writes cross, with
// how many flows and how many bytes per step (or per checkpoint).
//
// All-reduce: NCCL's rings cross each host boundary once per channel, one
// channel per NIC, so every rail r carries a ring over the job's hosts in
// rank order, GPU r of host i sending to GPU r of host i+1. A ring
// all-reduce of S bytes over N ranks sends 2 (N-1)/N x S per rank; over a
// host boundary that is the host's share, 2 (N-1)/N x S / g per NIC
// (g GPUs per host). Routes come from the topology (ECMP on a per-job
// flow hash). Links inside a host or a scale-up domain are the job's own
// and left out.
// Checkpoint: every GPU writes its shard through its host to the storage
// server of its host (host i to server (job + i) mod servers), over the
// storage links and, where storage shares the compute fabric, the
// fabric's: one flow per GPU.

#include <cstdint>
#include <vector>

#include "core/units.h"
#include "topo/topology.h"

namespace anatomy::fleet {

struct LinkUse {
  topo::LinkId link = topo::kNoLink;
  int flows = 0;
  double bytes = 0;  // per step (all-reduce) or per checkpoint
};

// Sorted by link, one entry per link.
using Footprint = std::vector<LinkUse>;

// `hosts` in rank order; `gpus_per_host` the GPUs the job uses on each;
// `bytes_per_nic` = 2 (N-1)/N x S / g per step (see above).
Footprint ring_footprint(const topo::Topology& t, const std::vector<uint32_t>& hosts, int gpus_per_host,
                         double bytes_per_nic, uint64_t salt);
// Empty when the cluster has no storage servers.
Footprint checkpoint_footprint(const topo::Topology& t, const std::vector<uint32_t>& hosts, int gpus_per_host,
                               double bytes_per_gpu, uint64_t salt);

// Fluid time of a footprint alone: its busiest link's bytes over its
// bandwidth (seconds); 0 for an empty footprint.
double alone_seconds(const topo::Topology& t, const Footprint& f);

}  // namespace anatomy::fleet
