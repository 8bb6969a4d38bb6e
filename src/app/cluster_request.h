#pragma once
// A cluster described by name and numbers, as a command line or a script
// gives it: a system preset on a Clos fabric, or a ring / torus of devices;
// and the collective library model that goes with it. Rates, sizes and
// times are text with units ("800Gbps", "50GB/s", "600ns"); errors name the
// command-line flag of the field ("--nic-speed").
//
//   app::ClusterRequest r;
//   r.system = "dgx-b200";
//   r.gpus = 64;
//   const topo::Topology t = app::build_topology(r);

#include <string>

#include "coll/library_model.h"
#include "topo/topology.h"

namespace anatomy::app {

struct ClusterRequest {
  std::string topology = "cluster";  // cluster | ring | torus
  std::string system = "dgx-h100";
  int gpus = 8;
  bool gpus_given = false;  // ring/torus: --dims must then hold exactly gpus devices
  // Scale-out fabric.
  int tiers = 0;
  int radix = 0;
  double oversubscription = 1.0;
  double spine_oversubscription = 1.0;
  bool no_rails = false;
  int planes = 1;
  bool in_network_reduction = false;  // SHARP: the fabric's switches reduce
  std::string nic_speed;   // "" = the system's
  std::string link_speed;  // "" = the NIC port speed
  std::string switch_latency = "600ns";
  // Ring / torus.
  std::string dims;  // "1024", "32x32"; "" = gpus in a ring
  std::string link_bandwidth = "50GB/s";
  std::string hop_latency = "500ns";
  std::string library;  // nccl | ideal; "" = nccl for clusters, ideal for ring/torus
};

// Throws InputError naming the flag of a bad value.
topo::Topology build_topology(const ClusterRequest& r);
coll::LibraryModel library_model(const ClusterRequest& r);

}  // namespace anatomy::app
