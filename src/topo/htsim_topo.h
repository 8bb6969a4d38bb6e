#pragma once
// htsim's fat-tree topology files (.topo), so that one experiment can run in
// anatomy and in htsim on the same input.
//
// The format (as htsim's FatTreeTopology reads it): keywords are
// case-insensitive, one per line with its value, '#' starts a comment. A
// header, then one section per tier, tier 0 being the top-of-rack switches:
//
//   Nodes 1024          hosts
//   Tiers 3             2 or 3
//   Podsize 64          hosts per pod
//   Tier 0
//   Downlink_speed_Gbps 100    links below this tier's switches
//   Radix_Down 8               down ports per switch
//   Radix_Up 8                 up ports (not on the top tier)
//   Downlink_Latency_ns 1000   one-way delay of the links below
//   Switch_Latency_ns 0        forwarding delay of this tier's switches
//   Oversubscribed 1           down:up ratio
//   Bundle 1                   parallel links per switch pair
//   Queue_Down / Queue_Up      queue bytes (htsim's; anatomy's buffers come from --network)
//
// anatomy builds it with its own Clos builder (hosts with one GPU and one
// NIC, a classic fat-tree), checks that the shape it built is the one the
// file describes (switches per tier), and then gives every link its tier's
// speed and latency: a link's latency is the cable's plus the forwarding
// delay of the switch it enters (topology.h). Bundles above 1 are refused:
// the builder does not make parallel switch links.
//
//   HtsimTopo t = read_htsim_topo("fat_tree_1024.topo");
//   Topology topo = build_htsim_fat_tree(t);

#include <string>
#include <string_view>

#include "topo/topology.h"

namespace anatomy::topo {

struct HtsimTier {
  Bandwidth downlink_speed;
  int radix_down = 0, radix_up = 0;
  int oversubscribed = 1, bundle = 1;
  SimTime downlink_latency, switch_latency;
  int line = 0;  // the "Tier k" line, for errors about the tier as a whole
};

struct HtsimTopo {
  std::string file;
  int nodes = 0, tiers = 0, podsize = 0;
  HtsimTier tier[3];
};

// Throws InputError `file:line: field: message` (field: the keyword) for
// anything the format does not allow or anatomy cannot build.
HtsimTopo parse_htsim_topo(std::string_view text, const std::string& file);
HtsimTopo read_htsim_topo(const std::string& path);
Topology build_htsim_fat_tree(const HtsimTopo& t);

}  // namespace anatomy::topo
