// Ring: NCCL's bandwidth-optimal ring, per channel.
//
// All-reduce is a reduce-scatter then an all-gather around the ring:
// 2(n-1) steps, each moving 1/n of the channel's buffer over every edge,
// so each rank sends 2(n-1)/n of the buffer — the most any
// point-to-point algorithm needs (nccl-tests' busbw factor). All-gather and
// reduce-scatter are n-1 such steps; broadcast and reduce pipeline chunks
// along the ring as a chain from the root. The buffer is split over
// channels (rings rotated within each domain) and each channel into loops
// of the protocol's chunk size, which pipeline around the ring.
// Latency: NCCL's base latency plus one hop latency per step (the chunk's
// critical path), with the hops averaged around the ring.

#include <algorithm>

#include "coll/pipeline.h"
#include "core/error.h"

namespace anatomy::coll {
namespace {

using detail::Edge;

Schedule build_ring(const Group& g, const Request& r, const LibraryModel& lib) {
  Schedule s;
  s.algorithm = "ring";
  s.protocol = to_string(r.protocol);
  const int n = g.size();
  const int channels = r.channels > 0 ? r.channels : detail::library_channels(g, lib, detail::default_channels(g));
  s.channels = channels;
  s.base_latency = lib.base_latency(AlgoClass::kRing, r.protocol);
  if (n <= 1) return s;
  const double eff = lib.efficiency(r.protocol);
  const double per_channel = r.bytes.as_double() / channels;
  const Bytes chunk = lib.chunk(AlgoClass::kRing, r.protocol);

  std::vector<Edge> edges;
  std::vector<std::vector<Edge>> chains;
  for (int c = 0; c < channels; ++c) {
    std::vector<uint32_t> order = detail::ring_order(g, c);
    if (r.op == Op::kBroadcast || r.op == Op::kReduce) {
      // A chain starting (broadcast) or ending (reduce) at the root.
      auto at = std::find(order.begin(), order.end(), r.root);
      std::rotate(order.begin(), at, order.end());
      std::vector<Edge> chain;
      for (int i = 0; i + 1 < n; ++i) {
        const uint32_t a = order[i], b = order[i + 1];
        chain.push_back(r.op == Op::kBroadcast ? Edge{a, b, detail::edge_hash(g, a, b, c)}
                                               : Edge{b, a, detail::edge_hash(g, b, a, c)});
      }
      if (r.op == Op::kReduce) std::reverse(chain.begin(), chain.end());
      chains.push_back(std::move(chain));
      continue;
    }
    for (int i = 0; i < n; ++i) {
      const uint32_t a = order[i], b = order[(i + 1) % n];
      edges.push_back(Edge{a, b, detail::edge_hash(g, a, b, c)});
    }
  }

  std::vector<Edge> all_edges = edges;
  for (const auto& ch : chains) all_edges.insert(all_edges.end(), ch.begin(), ch.end());
  // NCCL (tuning.cc): with one rank per node "latencies are fully
  // exposed", so a ring's network hops take the tree's network latency
  // (LL 5.0 and LL128 8.5 us instead of 2.7 and 4.0; Simple 14 either way).
  // Broadcast and reduce chains keep the ring's.
  const bool whole_ring = r.op == Op::kAllReduce || r.op == Op::kAllGather || r.op == Op::kReduceScatter;
  const bool one_per_node = g.domains.size() == static_cast<size_t>(n) && n > 1;
  const bool exposed = one_per_node && whole_ring;
  const SimTime floor =
      whole_ring ? lib.ring_step_floor(r.protocol, static_cast<int>(g.domains.size())) : SimTime::zero();
  const SimTime hop =
      detail::mean_hop_latency(g, all_edges, lib, exposed ? AlgoClass::kTree : AlgoClass::kRing, r.protocol, floor);
  int64_t nsteps = 0;
  switch (r.op) {
    case Op::kAllReduce:
    case Op::kAllGather:
    case Op::kReduceScatter: {
      // All-reduce: per loop, each edge moves one of n slices per step.
      // All-gather / reduce-scatter: S is the total, so a rank's share is S/n
      // and each step moves one share per edge.
      nsteps = r.op == Op::kAllReduce ? 2 * (n - 1) : n - 1;
      const double slice_total = per_channel / n;  // bytes per edge per step, all loops together
      const int64_t loops = detail::loops_for(r, slice_total, chunk);
      detail::add_ring_pipeline(s, g, edges, slice_total / loops / eff, nsteps, loops, r.fidelity,
                                std::string(to_string(r.op)) + " ring");
      break;
    }
    case Op::kBroadcast:
    case Op::kReduce: {
      nsteps = n - 1;
      const int64_t loops = detail::loops_for(r, per_channel, chunk);
      detail::add_chain_pipeline(s, g, chains, per_channel / loops / eff, loops, r.fidelity,
                                 std::string(to_string(r.op)) + " chain");
      break;
    }
    default:
      throw core::InputError({"", 0, "--op"}, std::string("ring does not implement ") + to_string(r.op));
  }
  s.steps = nsteps;
  if (!s.phases.empty()) s.phases.back().latency_after = hop * nsteps;
  if (r.protocol == Protocol::kLL)
    s.cap_bus_bandwidth(n, eff, Bandwidth::gigabytes_per_s(lib.ll_max_busbw_GBps(static_cast<int>(g.domains.size()))));
  detail::cap_by_channel_ctas(s, g, lib, r.protocol, eff);
  s.merge_sends();
  return s;
}


}  // namespace

Algorithm ring_algorithm() {
  Algorithm a;
  a.name = "ring";
  a.description = "bandwidth-optimal ring per channel (NCCL Ring): 2(n-1) steps for all-reduce, chunks pipelined";
  a.ops = {Op::kAllReduce, Op::kAllGather, Op::kReduceScatter, Op::kBroadcast, Op::kReduce};
  a.protocols = {Protocol::kLL, Protocol::kLL128, Protocol::kSimple};
  a.applicable = any_group;
  a.build = build_ring;
  return a;
}

}  // namespace anatomy::coll
