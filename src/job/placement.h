#pragma once
// Where a job's ranks land in a cluster that has more hosts than the job,
// some of them already busy — and what that choice costs.
//
// The inventory is the topology's hosts in cabling order, grouped into racks
// (hosts_per_rack), racks onto power feeds (racks_per_feed); each rack has a
// power budget its hosts' draw (GPUs at TDP plus host overhead) must stay
// under, and some hosts are busy with other jobs (a seeded draw). Fault
// domains: the host, the rack, the power feed, and the leaf switch (hosts
// whose NICs share a leaf).
//
// Policies (small strategies over the same inventory):
//  * packed: consecutive free hosts in cabling order — fills scale-up
//    domains and keeps the job's rails under the fewest leaves;
//  * spread: one host per rack in turn — the fewest ranks per fault domain;
//  * balanced: racks filled up to `balanced_hosts_per_rack`, trading hop
//    count against the blast radius of a rack.
// Ranks are laid out TP fastest (workload/layout.h): consecutive ranks fill
// a host, so a tensor-parallel group never leaves its scale-up domain.

#include <string>
#include <vector>

#include "topo/topology.h"
#include "workload/training.h"

namespace anatomy::job {

enum class PlacementPolicy { kPacked, kSpread, kBalanced };
const char* to_string(PlacementPolicy p);

struct PlacementSpec {
  PlacementPolicy policy = PlacementPolicy::kPacked;
  int hosts_per_rack = 4;
  int racks_per_feed = 8;
  double rack_power_kw = 0;          // 0: no budget
  double host_overhead_w = 2000;     // CPUs, NICs, fans, beyond the GPUs' TDP
  double busy_fraction = 0;          // hosts already running other jobs
  int max_ranks_per_rack = 0;        // fault-domain rule (0: none)
  int balanced_hosts_per_rack = 2;
  uint64_t seed = 1;
};

struct Placement {
  std::vector<uint32_t> rank_to_gpu;
  std::vector<uint32_t> hosts;       // hosts used, in rank order
  // What it costs: mean switch hops of the data-parallel ring edges, the
  // share of them that stay under one leaf, and the most ranks one fault
  // domain of each kind takes down.
  double dp_hops = 0;
  double rail_aligned = 0;
  int max_ranks_per_host = 0, max_ranks_per_rack = 0, max_ranks_per_feed = 0, max_ranks_per_leaf = 0;
  int racks_used = 0;
  std::string summary;
};

// Throws InputError (field "placement") saying why a request cannot be
// placed: not enough free hosts, power, or the fault-domain rule.
Placement place(const PlacementSpec& spec, const topo::Topology& t, const workload::ParallelPlan& plan,
                double gpu_tdp_w);
// The same on hosts whose busy flags are given (one per host: another job
// runs there) instead of the seeded busy_fraction draw: a scheduler
// placing job after job on one cluster.
Placement place_on(const PlacementSpec& spec, const topo::Topology& t, const workload::ParallelPlan& plan,
                   double gpu_tdp_w, std::vector<uint8_t> busy);

}  // namespace anatomy::job
