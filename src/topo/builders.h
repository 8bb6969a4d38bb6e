#pragma once
// Builders: turn a cluster description into a Topology.
//
// A cluster is `gpus` GPUs of one system preset (hw/catalog.h), grouped in
// hosts and scale-up domains as the preset says, with a scale-out fabric
// joining the hosts' NICs and, optionally, storage servers on a separate
// or shared fabric.
//
// The scale-out fabric is a folded Clos (a multi-rooted tree):
//  * tiers = 2: leaves and spines; every leaf has one link to every spine.
//  * tiers = 3: leaves and spines grouped in pods (every leaf to every spine
//    of its pod), and spine j of every pod linked to core group j.
//  * rail_optimized: NIC r of every host in a scalable unit (the hosts under
//    one leaf per rail) goes to that unit's rail-r leaf, so same-rail
//    traffic between nearby hosts crosses one switch. Otherwise all of a
//    host's NICs share a leaf (a classic fat-tree).
//  * oversubscription: a leaf has down:up port ratio `oversubscription`:1
//    (1 = non-blocking); `spine_oversubscription` likewise at the spine in
//    3-tier fabrics (Llama 3's 1:7 at the aggregation layer is 7).
//  * planes: each NIC splits into `planes` ports of nic_speed / planes, one
//    per independent copy of the fabric (multi-plane), hashed per flow.
// A classic k-ary fat-tree is tiers = 3, radix k, no rails, one NIC per
// host: k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 cores.
//
// Links carry payload bandwidth: the line rate times the payload efficiency
// (NVLink and Infinity Fabric from the system preset, the scale-out fabric
// from its MTU and per-packet overhead). PCIe links are taken at line rate.
//
// The ring/torus builder makes N devices with direct neighbour links, the
// network ASTRA-sim's analytical backend assumes, so both can be run on the
// same input.

#include <cstdint>
#include <string>
#include <vector>

#include "hw/system.h"
#include "topo/topology.h"

namespace anatomy::topo {

struct FabricSpec {
  int tiers = 0;                       // 2, 3, or 0 = the fewest that hold the cluster
  int radix = 0;                       // ports per switch; 0 = 51.2 Tb/s worth of ports (clamped to 32..128)
  double oversubscription = 1.0;       // leaf down:up
  double spine_oversubscription = 1.0; // spine down:up (3 tiers)
  bool rail_optimized = true;
  int planes = 1;
  // The switches reduce in the network (SHARP on InfiniBand, Spectrum-X):
  // off unless the fabric has it and NCCL's CollNet plugin uses it.
  bool in_network_reduction = false;
  Bandwidth nic_speed;                 // 0 = the system preset's NIC speed
  Bandwidth link_speed;                // switch-to-switch links; 0 = the NIC port speed
  SimTime switch_latency = SimTime::ns(600);  // forwarding delay per switch
  SimTime cable_latency = SimTime::ns(25);    // propagation per cable (~5 m of fibre)
  // MTU and per-packet overhead (topology.h): the one place they are set;
  // the built Topology keeps them for the packet backend.
  Framing framing;
};

struct StorageSpec {
  int servers = 0;                 // 0 = no storage nodes
  int nics_per_server = 2;
  Bandwidth nic_speed = Bandwidth::gbps(400);
  bool shared_with_compute = false;  // on the scale-out fabric instead of a separate one
  // Host storage NICs for a separate fabric; 0 = the preset's.
  int host_nics = 0;
  Bandwidth host_nic_speed;
};

struct ClusterSpec {
  hw::System system;
  int gpus = 8;
  FabricSpec fabric;
  StorageSpec storage;
};

// Throws InputError for impossible requests (a fabric too small for the
// hosts at this radix, zero GPUs, ...), naming the field.
Topology build_cluster(const ClusterSpec& spec);

// N = product(dims) devices in a ring (one dim) or torus; each device has a
// cable to its +1 and -1 neighbour in every dimension of size > 1 (a
// dimension of size 2 has one cable between the pair).
Topology build_torus(const std::vector<uint32_t>& dims, Bandwidth link_bandwidth, SimTime hop_latency);

// The fabric shape a spec resolves to (for reports and errors).
struct FabricShape {
  int tiers = 0;
  int radix = 0;
  int leaf_down = 0, leaf_up = 0;
  int hosts_per_unit = 0;     // hosts under one leaf (per rail, if rail-optimized)
  int leaves = 0, spines = 0, cores = 0;  // per plane
  int pods = 0;
};
FabricShape fabric_shape(const FabricSpec& f, int hosts, int nics_per_host, Bandwidth port_speed);

}  // namespace anatomy::topo
