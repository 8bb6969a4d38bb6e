#pragma once
// Rings over a fully connected mesh (AMD's Infinity Fabric: every GPU of an
// 8-GPU MI300X platform has a direct link to each of the other seven).
//
// One ring uses one outgoing link per GPU, so a ring library that wants the
// mesh's bandwidth runs its channels on different links: each channel a
// directed Hamiltonian cycle, the cycles together loading every directed
// link equally. The complete directed graph on n vertices splits into n - 1
// cycles that use each link once, except for n = 4 and 6 (Tillson, "A
// Hamiltonian decomposition of K*_2m, 2m >= 8", J. Combin. Theory B 29,
// 1980); there 2(n - 1) cycles use each link twice, each at half its rate
// (for n = 4, all 6 directed Hamiltonian cycles), as NCCL's ring search
// lets channels share a link's bandwidth. A bounded search finds them;
// where it finds neither it takes the most link-disjoint cycles it can,
// and where that is fewer than the stride cycles i -> i + s (s coprime to
// n), those.

#include <vector>

namespace anatomy::coll {

// Directed Hamiltonian cycles of the complete directed graph on vertices
// 0..n-1 that load every directed link equally (once, or twice for n = 4
// and 6), each listed from vertex 0 in travel order. Empty for
// n < 3 (a pair or a single GPU needs no ring). Deterministic; cached.
const std::vector<std::vector<int>>& mesh_rings(int n);

// Across hosts a ring enters a mesh on one GPU (from its NIC) and leaves
// from another (to its NIC), so each channel crosses the mesh on a
// Hamiltonian path, not a cycle. For even n, Walecki's zig-zag paths
// i, i+1, i-1, i+2, i-2, ..., i+n/2 (mod n), i < n/2, each also taken in
// reverse, are n arc-disjoint directed Hamiltonian paths: every one of the
// n(n-1) links carries exactly one channel, and every GPU is the first of
// one path and the last of another, so every NIC carries one channel each
// way (RCCL's one NIC per GPU on MI300X platforms). Path i + n/2 is path i
// reversed. Empty for odd n or n < 2. Deterministic; cached.
const std::vector<std::vector<int>>& mesh_paths(int n);

}  // namespace anatomy::coll
