#pragma once
// Helpers shared by the packet backend's tests: small fabrics of
// single-NIC hosts and a network built from a config.

#include <memory>
#include <string>

#include "hw/catalog.h"
#include "net/packet/packet_network.h"
#include "topo/builders.h"

namespace anatomy::net::packet::testing {

// A host with one GPU and one 400 Gb/s NIC (DGX H100's ConnectX-7), so a
// cluster of them is a classic fat-tree of hosts: no NVLink, no rails.
inline hw::System single_nic_host() {
  hw::System s = hw::find_system("dgx-h100");
  s.gpus_per_host = 1;
  s.nics_per_host = 1;
  s.scaleup.domain_gpus = 1;
  return s;
}

// `hosts` single-NIC hosts on a `tiers`-tier fat-tree of radix `radix`
// (radix 16, 3 tiers: the k = 16 fat-tree, 1,024 hosts).
inline topo::Topology fat_tree(int hosts, int radix, int tiers) {
  topo::ClusterSpec spec;
  spec.system = single_nic_host();
  spec.gpus = hosts;
  spec.fabric.radix = radix;
  spec.fabric.tiers = tiers;
  spec.fabric.rail_optimized = false;
  return topo::build_cluster(spec);
}

inline std::unique_ptr<PacketNetwork> make_packet(engine::Simulator& sim, const topo::Topology& t, PacketConfig c) {
  TransportRegistry reg;
  register_builtin_transports(reg);
  auto transport = reg.make(c.transport);
  auto buffers = make_buffer_policy(c);
  return std::make_unique<PacketNetwork>(sim, t, std::move(c), std::move(transport), std::move(buffers));
}

inline PacketConfig with_transport(const std::string& name) {
  PacketConfig c;
  c.transport = name;
  return c;
}

// Payload rate of a 400 Gb/s fabric link at a 4 KiB MTU: 400e9 x 4096 / 4178 bit/s.
inline double fabric_payload_bps() { return 400e9 * 4096.0 / 4178.0; }

}  // namespace anatomy::net::packet::testing
