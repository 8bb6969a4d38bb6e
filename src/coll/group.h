#pragma once
// Group: the ranks of one communicator and where they sit.
//
// Rank r is GPU gpus[r] of the topology. Algorithms that care about the
// hierarchy (hierarchical, NVLS, tree, multi-channel rings) read the ranks
// grouped by scale-up domain, each group in rank order.

#include <cstdint>
#include <memory>
#include <vector>

#include "coll/library_model.h"
#include "topo/topology.h"

namespace anatomy::coll {

using topo::NodeId;

namespace detail {
struct AllToAllPairsMemo;  // link_load.h
}

struct Group {
  const topo::Topology* topo = nullptr;
  std::vector<uint32_t> gpus;                  // rank -> GPU index
  std::vector<std::vector<uint32_t>> domains;  // ranks by scale-up domain, in rank order

  int size() const { return static_cast<int>(gpus.size()); }
  NodeId node(uint32_t rank) const { return topo->gpu_node(gpus[rank]); }
  uint32_t domain_of(uint32_t rank) const { return topo->domain_of(gpus[rank]); }
  bool same_domain(uint32_t a, uint32_t b) const { return domain_of(a) == domain_of(b); }
  // True when every domain holds the same number of ranks.
  bool uniform_domains() const;
  // Set by make_group: where the all-to-all's per-link pair counts
  // (link_load.h) are kept once counted, so a sweep of sizes counts them
  // once; copies share it, and a copy whose ranks changed counts afresh.
  std::shared_ptr<detail::AllToAllPairsMemo> all_to_all_pairs;
};

// Throws InputError if a GPU is out of range or listed twice.
Group make_group(const topo::Topology& t, std::vector<uint32_t> gpus);
// Every GPU of the topology, rank = GPU index.
Group whole_topology(const topo::Topology& t);

// Link class of the hop between two ranks (for the library's latency table).
LinkClass link_class(const Group& g, uint32_t a, uint32_t b);
// One-way latency of the routed path between two nodes, from the topology.
SimTime physical_latency(const topo::Topology& t, NodeId a, NodeId b);
// Bandwidth of rank r's way out to the fabric, bytes/s: the narrower of its
// path to its NIC (PCIe) and the NIC's port; 0 when it has no NIC.
double nic_Bps(const Group& g, uint32_t r);

}  // namespace anatomy::coll
