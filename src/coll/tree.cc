// Tree: NCCL's double binary tree all-reduce.
//
// Across scale-up domains, two binary trees over the domains (the second
// the mirror of the first, so a domain that is an interior node in one is a
// leaf in the other); inside a domain, a chain. Data is reduced up the
// tree and broadcast back down, pipelined in chunks, so every edge carries
// its channel's share once in each direction. Latency (NCCL's model):
// base + 2((ppn-1) intra hops + ceil(log2 domains) inter hops), and at each
// inter hop the wait for the channel's first step that NCCL's proxy posts
// only once the GPU has filled it.
//
// Which NIC carries which tree: NCCL's tree graph has a channel per NIC,
// and connectTrees (graph/connect.cc) turns each graph channel c into two
// channels on that same NIC, c on tree 0 and c + nChannels on tree 1. So
// every NIC of a domain carries the domain's role in both trees: with three
// domains (trees 0 -> 2 -> 1 and 1 -> 0 -> 2) the middle domain of one tree
// sends 2 shares on that tree's channel and 1 on the other's, 3 shares a
// NIC, where a NIC holding one tree alone would send 2 or 1 and the busier
// NIC would pace the whole all-reduce. Across domains the channels are
// therefore two per NIC: channel c on the NIC of graph channel c mod G, on
// tree c / G (G = channels / 2).

#include <algorithm>

#include "coll/pipeline.h"
#include "core/error.h"

namespace anatomy::coll {
namespace {

using detail::Edge;

// The tree graph's channels across domains: one per NIC of a domain
// (default_channels), but NCCL's ring graph search stops at MAXCHANNELS / 2
// = 32 channels and the tree's at the ring's (init.cc), so a domain's NICs
// beyond 32 carry no tree.
int tree_graph_channels(const Group& g) { return std::min(detail::default_channels(g), 32); }

// The graph channels a run of `channels` uses across domains: all of them,
// or the first `channels` when fewer are asked for.
int graph_channels_used(const Group& g, int channels) {
  return std::max(1, std::min(channels, tree_graph_channels(g)));
}

// In-order binary tree over [lo, hi]: the node with the largest power-of-two
// factor is the root, each half recurses. Sets parent[] (-1 = none).
int build_inorder(int lo, int hi, std::vector<int>& parent, int up) {
  if (lo > hi) return -1;
  int64_t p = 1;
  while (true) {
    const int64_t next = p * 2;
    const int64_t m = (lo + next - 1) / next * next;
    if (m > hi) break;
    p = next;
  }
  const int root = static_cast<int>((lo + p - 1) / p * p);
  parent[root] = up;
  build_inorder(lo, root - 1, parent, root);
  build_inorder(root + 1, hi, parent, root);
  return root;
}

}  // namespace

namespace detail {

// Parent of each domain in NCCL-style double binary tree `t` (0 or 1) over m
// domains: tree 0 roots at 0 with an in-order tree over 1..m-1 below it;
// tree 1 mirrors it (m even) or shifts it by one (m odd).
std::vector<int> btree_parents(int m, int t) {
  std::vector<int> p0(m, -1);
  if (m > 1) build_inorder(1, m - 1, p0, 0);
  if (t == 0) return p0;
  std::vector<int> p1(m, -1);
  auto map = [&](int k) { return m % 2 == 0 ? m - 1 - k : (k + 1) % m; };
  for (int k = 0; k < m; ++k)
    if (p0[k] >= 0) p1[map(k)] = map(p0[k]);
  return p1;
}

// Edges of one channel of a tree all-reduce: chain in each domain from the
// channel's representative, and tree edges between representatives; each
// returned in both directions (reduce up, broadcast down). Channel c of
// `channels` runs on graph channel (NIC) c mod G and tree (c / G) mod 2,
// G the graph's channels (tree_graph_channels), or fewer when fewer
// channels are asked for: NCCL doubles the graph's channels into
// trees 0 and 1 (connectTrees) and a channel cap keeps the first ones,
// tree 0 on every NIC first. One domain: the chain alone, rotated by c.
std::vector<Edge> tree_edges(const Group& g, int channel, int channels, int* intra_hops, int* inter_hops) {
  const int m = static_cast<int>(g.domains.size());
  const int graph_channels = m > 1 ? graph_channels_used(g, channels) : channels;
  const int tree = m > 1 ? (channel / graph_channels) % 2 : channel % 2;
  const std::vector<int> parent = btree_parents(m, tree);
  const int nic_channel = m > 1 ? channel % graph_channels : channel;
  std::vector<uint32_t> rep(m);
  std::vector<Edge> edges;
  int longest_chain = 0;
  std::vector<uint32_t> d;
  for (int k = 0; k < m; ++k) {
    d.clear();
    append_domain_order(g, g.domains[k], nic_channel, d);
    const size_t n = d.size();
    rep[k] = d[0];
    for (size_t i = 0; i + 1 < n; ++i) {
      const uint32_t a = d[i], b = d[i + 1];
      edges.push_back(Edge{b, a, 0});  // reduce toward the representative
      edges.push_back(Edge{a, b, 0});  // broadcast away from it
    }
    longest_chain = std::max(longest_chain, static_cast<int>(n) - 1);
  }
  for (int k = 0; k < m; ++k) {
    if (parent[k] < 0) continue;
    const uint32_t c = rep[k], p = rep[parent[k]];
    edges.push_back(Edge{c, p, edge_hash(g, c, p, channel)});
    edges.push_back(Edge{p, c, edge_hash(g, p, c, channel)});
  }
  if (intra_hops) *intra_hops = longest_chain;
  if (inter_hops) *inter_hops = ceil_log2(m);
  return edges;
}

}  // namespace detail

namespace {

Schedule build_tree(const Group& g, const Request& r, const LibraryModel& lib) {
  if (r.op != Op::kAllReduce) throw core::InputError({"", 0, "--op"}, "tree implements all_reduce only");
  Schedule s;
  s.algorithm = "tree";
  s.protocol = to_string(r.protocol);
  // One graph channel per NIC, each run on both trees (two channels a NIC)
  // across domains; inside one domain, at least the two trees' channels.
  const int nics = tree_graph_channels(g);
  const int channels =
      r.channels > 0 ? r.channels
                     : detail::library_channels(g, lib, g.domains.size() > 1 ? 2 * nics : std::max(2, nics));
  s.channels = channels;
  s.base_latency = lib.base_latency(AlgoClass::kTree, r.protocol);
  if (g.size() <= 1) return s;
  const double per_channel = r.bytes.as_double() / channels;
  const int64_t loops = detail::loops_for(r, per_channel, lib.chunk(AlgoClass::kTree, r.protocol));
  std::vector<Edge> edges, intra, inter;
  int intra_hops = 0, inter_hops = 0;
  for (int c = 0; c < channels; ++c) {
    auto e = detail::tree_edges(g, c, channels, &intra_hops, &inter_hops);
    edges.insert(edges.end(), e.begin(), e.end());
  }
  for (const auto& e : edges) (g.same_domain(e.src, e.dst) ? intra : inter).push_back(e);
  const int nodes = static_cast<int>(g.domains.size());
  const double eff = lib.tree_efficiency(r.protocol, nodes);
  detail::add_parallel_edges(s, g, edges, per_channel / eff, loops, r.fidelity, "all_reduce double binary tree");
  const SimTime intra_hop = detail::mean_hop_latency(g, intra, lib, AlgoClass::kTree, r.protocol);
  const SimTime inter_hop = detail::mean_hop_latency(g, inter, lib, AlgoClass::kTree, r.protocol);
  s.steps = 2 * (intra_hops + inter_hops);
  s.phases.back().latency_after = (intra_hop * intra_hops + inter_hop * inter_hops) * 2;
  // A network hop forwards whole steps: NCCL's proxy hands a step to the NIC
  // only once the GPU has filled it (transport/net.cc sendProxyProgress
  // waits for the step's tail, and for LL for every line's flag), so each of
  // the 2 ceil(log2 m) network hops a channel's data climbs and descends
  // holds its first step, at most the protocol's step of the channel's
  // share, for the time that step takes at the channel's share of its NIC
  // (channel c on NIC c mod G, so the busiest NIC carries ceil(channels /
  // G); every GPU's NIC taken as rank 0's). A library without software
  // (ideal) has no proxy.
  const double nic = nic_Bps(g, 0);
  if (inter_hops > 0 && nic > 0 && !lib.ideal) {
    const int nic_channels = graph_channels_used(g, channels);
    const double step_wire =
        std::min(per_channel, lib.chunk(AlgoClass::kTree, r.protocol).as_double()) / lib.efficiency(r.protocol);
    const double channel_Bps = nic / ((channels + nic_channels - 1) / nic_channels);
    s.phases.back().latency_after += SimTime::from_seconds(2.0 * inter_hops * step_wire / channel_Bps);
  }
  if (r.protocol == Protocol::kLL)
    s.cap_bus_bandwidth(g.size(), eff, Bandwidth::gigabytes_per_s(lib.ll_max_busbw_GBps(nodes)));
  detail::cap_by_channel_ctas(s, g, lib, r.protocol, eff);
  s.merge_sends();
  return s;
}


}  // namespace

Algorithm tree_algorithm() {
  Algorithm a;
  a.name = "tree";
  a.description = "double binary tree across domains, chain inside (NCCL Tree): log-depth latency";
  a.ops = {Op::kAllReduce};
  a.protocols = {Protocol::kLL, Protocol::kLL128, Protocol::kSimple};
  a.applicable = any_group;
  a.build = build_tree;
  return a;
}

}  // namespace anatomy::coll
