#pragma once
// A placed job's traffic on the shared links: which fabric and storage
// links its collectives and its checkpoint writes cross, with how many
// flows and how many bytes per step (or per checkpoint).
//
// The job's ranks sit on its hosts in rank order (rank r on GPU r mod g of
// host r / g, g GPUs per host), laid out as workload/layout.h says: TP
// fastest, then DP, then PP. Per step, across hosts:
//  DP   NCCL's rings cross each host boundary once per channel, one channel
//       per NIC, so every rail r carries a ring over the stage's hosts in
//       rank order, GPU r of host i sending to GPU r of host i+1 (when a
//       TP group spans k > 1 hosts, k rings per rail, over every k-th
//       host: a DP group holds one TP rank). A ring all-reduce of S bytes
//       over N ranks sends 2 (N-1)/N x S per rank; over a host boundary
//       that is the host's share: 2 (N-1)/N x S / max(g, TP) per NIC,
//       S the stage's gradients (PlanTraffic::dp_bytes_per_nic).
//  PP   every rank of stage s sends its activations to the rank in its
//       place in stage s+1, and the gradients come back: one flow each
//       way per rank (pp_bytes_per_gpu each way). (The iteration itself
//       sends one representative pair per boundary: a cut on another
//       rank's path reaches it only through the equal-cost group.)
//  EP   every rank of an EP group (ep consecutive DP ranks) sends each
//       other its share of the token all-to-alls: one flow per ordered
//       pair (ep_bytes_per_pair).
//  TP   when a TP group spans hosts, its ring: rank i to rank i+1 of the
//       group (tp_bytes_per_gpu); edges inside a host stay off the fabric.
// Each (source, destination) pair takes its connection's path
// (net::connection_hash), as a network that routes by connection does. A
// re-simulated iteration's collectives hash NCCL's channels instead, so
// where a switch has several equal-cost links its bytes spread over the
// same group of links, not onto the same ones (equal_cost_group). Links
// inside a host or a scale-up domain are the job's own and left out.
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
  double bytes = 0;  // per step (collectives) or per checkpoint
};

// Sorted by link, one entry per link.
using Footprint = std::vector<LinkUse>;

// What one rank of a job sends across hosts per step, by parallel
// dimension (see above). A light job is DP only.
struct PlanTraffic {
  int tp = 1, pp = 1, ep = 1;
  double dp_bytes_per_nic = 0;
  double pp_bytes_per_gpu = 0;   // each way, per rank and stage boundary
  double ep_bytes_per_pair = 0;  // per ordered pair of an EP group
  double tp_bytes_per_gpu = 0;   // per TP ring edge
};

// `hosts` in rank order; `gpus_per_host` the GPUs the job uses on each
// (the cluster's GPUs per host for a job of several hosts).
Footprint plan_footprint(const topo::Topology& t, const std::vector<uint32_t>& hosts, int gpus_per_host,
                         const PlanTraffic& traffic);
// Empty when the cluster has no storage servers.
Footprint checkpoint_footprint(const topo::Topology& t, const std::vector<uint32_t>& hosts, int gpus_per_host,
                               double bytes_per_gpu, uint64_t salt);

// Fluid time of a footprint alone: its busiest link's bytes over its
// bandwidth (seconds); 0 for an empty footprint.
double alone_seconds(const topo::Topology& t, const Footprint& f);

// GPUs on each host of the cluster (hosts are alike; those of host 0).
uint32_t gpus_on_a_host(const topo::Topology& t);

// The links ECMP chooses among with `l`: a switch's links up to every
// switch of the next tier (parallel cables included), or the links down
// into a switch from every switch of the tier above it; a link that does
// not join two switches is a group of its own. Sorted by link.
std::vector<topo::LinkId> equal_cost_group(const topo::Topology& t, topo::LinkId l);

}  // namespace anatomy::fleet
