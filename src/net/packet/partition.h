#pragma once
// Partition: the packet network's nodes split into parts that can run on
// separate threads (net/packet/parallel_run.h).
//
// Each part owns a set of nodes and the egress ports of their links; what
// crosses from one part to another is a packet on a link (or a PFC pause
// frame), which takes at least the link's latency. The smallest such
// latency is the lookahead: no event in a window [T, T + lookahead) can
// cause one in another part before T + lookahead, so parts may run such a
// window independently (conservative synchronization, Chandy-Misra style
// with a global window, as in YAWNS).
//
// The split is a fixed function of the topology and the part count, never
// of the thread count, so every thread count gives the same results.
// Hosts (GPU nodes) go to parts in contiguous blocks of their index, which
// on a fat tree keeps pods (and their edge and aggregation switches)
// together; every other node joins the part most of its already-placed
// neighbours are in, ties to the part with the fewest such nodes yet (so a
// fat tree's core switches, whose neighbours are spread evenly, are dealt
// round robin).
//
//   Partition p = partition_nodes(topology, 8);
//   p.owner[node];   // 0..7
//   p.lookahead;     // smallest latency of a link between two parts

#include <cstdint>
#include <vector>

#include "net/packet/config.h"
#include "topo/topology.h"

namespace anatomy::net::packet {

struct Partition {
  uint16_t parts = 1;
  std::vector<uint16_t> owner;  // by node
  core::SimTime lookahead = core::SimTime::max();  // max(): no link crosses parts
  size_t cut_links = 0;         // links whose ends are in different parts
};

// Whether a network so configured can run in more than one part: not a
// switch-scheduled fabric, whose requests and grants cross parts without a
// link (so without a lookahead).
inline bool runs_in_parts(const PacketConfig& c) { return c.fabric == FabricKind::kEndpoint; }

// The part count a run uses unless told: one part per 256 hosts, at least
// 8 (so that up to 8 cores have parts to share) and at most 64, never more
// than the hosts. Smaller parts keep the state one window of one part
// touches in a core's cache: the 8,192-host permutation ran 13.0 s on one
// thread as 32 parts, 14.9 s as 8 and 18.4 s as one (bench/README.md).
// A function of the topology alone, so every machine runs the same parts.
int default_partitions(uint32_t hosts);

// `parts` >= 1, at most the number of hosts. Throws InputError when two
// parts are joined by a link without latency (there is no lookahead).
Partition partition_nodes(const topo::Topology& t, int parts);

}  // namespace anatomy::net::packet
