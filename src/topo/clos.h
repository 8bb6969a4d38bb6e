#pragma once
// Internal to topo/: the folded-Clos construction shared by the scale-out
// and storage fabrics (see builders.h for the shapes it makes).

#include <vector>

#include "topo/topology.h"

namespace anatomy::topo::detail {

// The endpoints under one leaf (per plane), in route-id order. Groups with
// the same `unit` are kept in one pod.
struct LeafGroup {
  std::vector<NodeId> endpoints;
  int unit = 0;
  int links_per_endpoint = 1;  // parallel endpoint->leaf links, per plane
  Bandwidth port_speed;        // per link; 0 = ClosParams::port_speed
};

struct ClosParams {
  int tiers = 2;
  int radix = 64;
  int leaf_up = 32;   // uplink ports per leaf
  int spine_up = 0;   // uplink ports per spine (3 tiers)
  int leaves_per_pod = 0;  // 3 tiers: spine down ports
  int planes = 1;
  Bandwidth port_speed;        // endpoint <-> leaf, per plane
  Bandwidth link_speed;        // switch <-> switch
  SimTime switch_latency;
  SimTime cable_latency;
  LinkKind kind = LinkKind::kFabric;
};

struct ClosCounts {
  int leaves = 0, spines = 0, cores = 0, pods = 0;  // per plane
};

// Adds the switches and cables of one fabric and numbers its endpoints.
// Throws InputError (field `field`) when the groups do not fit the radix.
ClosCounts build_clos(Topology& t, uint8_t fabric, const std::vector<LeafGroup>& groups, const ClosParams& p,
                      const std::string& field);

}  // namespace anatomy::topo::detail
