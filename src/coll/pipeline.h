#pragma once
// Internal to coll/: pieces every algorithm shares — edges, the pipelined
// wave structure of a chunked ring or chain, and latency averaging.

#include <vector>

#include "coll/algorithm.h"

namespace anatomy::coll::detail {

struct Edge {
  uint32_t src = 0;  // ranks
  uint32_t dst = 0;
  uint64_t hash = 0;
};

// Flow hash for an edge: 0 inside a scale-up domain (no ECMP there), else a
// per-channel value, as NCCL's per-channel connections hash differently.
uint64_t edge_hash(const Group& g, uint32_t src, uint32_t dst, int channel);

// Default channel count: inside one switched domain the channels share the
// same links, so one suffices for a fluid model; inside one mesh, one per
// mesh ring (mesh_rings.h), the rings loading every link equally; across
// domains, one per NIC of a domain (capped at NCCL's 64) so every rail
// carries a ring.
int default_channels(const Group& g);

// A collective's channels when the request leaves them to the library:
// `channels` (its default) within the library's CTA limits
// (LibraryModel::clamp_ctas). Inside one NVLink-switch domain the fluid
// model runs one channel and cap_by_channel_ctas bounds what the CTAs
// carry, so the count is left as it is there.
int library_channels(const Group& g, const LibraryModel& lib, int channels);

// Appends the ranks of domain `d` (in rank order) to `order` in channel c's
// order: rotated by c so the channel leaves the domain from a different GPU
// (and NIC) than its neighbours; inside a mesh, along mesh ring c so the
// channels spread over every link.
void append_domain_order(const Group& g, const std::vector<uint32_t>& d, int channel, std::vector<uint32_t>& order);

// Ring order of channel c: domains in order, each rotated by c so the
// channel leaves a domain from a different GPU (and NIC) than its neighbours;
// inside a mesh domain, along mesh ring c so the channels spread over every
// link, and across mesh domains along mesh path c (mesh_rings.h), reversed in
// every other domain, so channel c enters and leaves each host on one rail.
std::vector<uint32_t> ring_order(const Group& g, int channel);

// A chunked ring pipeline: every edge moves `step_wire_bytes` per step,
// `nsteps` steps per loop and `loops` loops. Step fidelity emits the waves
// (loops overlap: wave w carries a(w) = min(w+1, loops, nsteps, W-w) chunks
// on every edge, W = nsteps + loops - 1); bulk emits one phase in which
// each edge carries its whole volume.
void add_ring_pipeline(Schedule& s, const Group& g, const std::vector<Edge>& edges, double step_wire_bytes,
                       int64_t nsteps, int64_t loops, Fidelity f, const std::string& label);

// A chain pipeline (broadcast/reduce): edge k (0 = nearest the root) carries
// `loops` chunks of `chunk_wire_bytes`, starting one wave after edge k-1.
void add_chain_pipeline(Schedule& s, const Group& g, const std::vector<std::vector<Edge>>& chains,
                        double chunk_wire_bytes, int64_t loops, Fidelity f, const std::string& label);

// Every edge carries `wire_bytes` in total, all edges busy together: one
// phase (bulk) or `loops` equal waves (step).
void add_parallel_edges(Schedule& s, const Group& g, const std::vector<Edge>& edges, double wire_bytes,
                        int64_t loops, Fidelity f, const std::string& label);

// The hop latencies below are read from an even, deterministic sample of at
// most about this many edges, which keeps 100k-rank rings (and all-to-alls
// answered without flows) from routing every edge just to find a latency.
inline constexpr int64_t kHopSampleEdges = 4096;

// max(the library's hop over the edge's path (LibraryModel::hop_on_path),
// floor), averaged over the edges.
SimTime mean_hop_latency(const Group& g, const std::vector<Edge>& edges, const LibraryModel& lib, AlgoClass a,
                         Protocol p, SimTime floor = SimTime::zero());

// The same, the largest over the edges: where every edge carries its own
// transfer at once (an all-to-all's peers), the last one ends the phase.
SimTime slowest_hop_latency(const Group& g, const std::vector<Edge>& edges, const LibraryModel& lib, AlgoClass a,
                            Protocol p);

// NCCL-style double binary tree over m nodes: parent of each (-1 = root).
std::vector<int> btree_parents(int m, int tree);

// The edges of channel `channel` (of `channels`) of a tree all-reduce over
// g (tree.cc says which NIC and tree each channel takes); sets the longest
// chain inside a domain and the tree's depth across domains when asked.
std::vector<Edge> tree_edges(const Group& g, int channel, int channels, int* intra_hops, int* inter_hops);

int64_t loops_for(const Request& r, double payload_per_loop_unit, Bytes chunk);
int ceil_log2(int64_t n);

// Bounds a ring's or tree's bus bandwidth by what its CTAs carry: inside one
// NVLink-switch domain NCCL runs LibraryModel::nvlink_coll_channels channels,
// one CTA each, so Simple and LL128 put at most that many times one CTA's
// rate on the wire (LL has its own, lower cap). Across domains NCCL's own
// channel count is not modelled, so the bound holds only when the
// communicator caps its CTAs (LibraryModel::max_ctas): every channel still
// crosses the NVLink hops inside each domain it passes through, one CTA
// writing each, wherever some domain holds two or more of the ranks. LL is
// bounded only under such a cap (at LL's rate a CTA): at NCCL's own
// channels its llMaxBws cap stands for them. A no-op where the library
// does not know a CTA's rate, or on a mesh.
void cap_by_channel_ctas(Schedule& s, const Group& g, const LibraryModel& lib, Protocol p, double efficiency);

}  // namespace anatomy::coll::detail
