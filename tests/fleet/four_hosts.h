#pragma once
// The fleet tests' cluster: four DGX H100 hosts (8 GPUs, 8 NICs of 400
// Gb/s each), two per leaf: radix 17 at 16:1 is 16 ports down and one
// 400 Gb/s port up to the one spine. Leaf 0 holds hosts 0-1, leaf 1 hosts
// 2-3. No packet overhead, so links carry their line rate. With storage
// servers, they sit on the compute fabric under a leaf of their own.

#include "hw/catalog.h"
#include "topo/builders.h"

namespace anatomy::fleet::test_cluster {

inline topo::Topology four_hosts(int storage_servers = 0) {
  topo::ClusterSpec c;
  c.system = hw::find_system("dgx-h100");
  c.gpus = 32;
  c.fabric.tiers = 2;
  c.fabric.radix = 17;
  c.fabric.framing.overhead_bytes = 0;
  c.fabric.oversubscription = 16;
  c.fabric.rail_optimized = false;
  c.storage.servers = storage_servers;
  c.storage.shared_with_compute = true;
  return topo::build_cluster(c);
}

}  // namespace anatomy::fleet::test_cluster
