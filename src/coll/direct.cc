// Direct point-to-point patterns: all-to-all (every rank sends S/n to every
// other, all at once, at either fidelity: NCCL's and RCCL's all-to-all is one
// group of sends and receives to every peer, which their p2p scheduler
// spreads over channels so the peers proceed together. Across NVLink
// domains NCCL 2.28 shrinks the channels per peer "to fit all the peers
// within a single round" (graph/paths.cc, ncclTopoComputeP2pChannels); on a
// fully connected mesh each peer has its own link, so running the n-1
// shifts one after another would use one of a GPU's n-1 links at a time)
// and send_recv (every rank sends S to its ring neighbour, as nccl-tests'
// sendrecv).

#include <fmt/format.h>

#include "coll/pipeline.h"
#include "core/error.h"

namespace anatomy::coll {
namespace {

using detail::Edge;

constexpr int kMaxAllToAllRanks = 2048;

bool direct_applicable(const Group& g, Op op) {
  return op == Op::kSendRecv || (op == Op::kAllToAll && g.size() <= kMaxAllToAllRanks);
}

Schedule build_direct(const Group& g, const Request& r, const LibraryModel& lib) {
  const int n = g.size();
  if (r.op == Op::kAllToAll && n > kMaxAllToAllRanks)
    throw core::InputError({"", 0, "--gpus"}, fmt::format("all_to_all is modelled flow by flow (n^2 flows) up to {} "
                                                          "ranks, not {}",
                                                          kMaxAllToAllRanks, n));
  if (r.op != Op::kAllToAll && r.op != Op::kSendRecv)
    throw core::InputError({"", 0, "--op"}, "direct implements all_to_all and send_recv");
  Schedule s;
  s.algorithm = "direct";
  s.protocol = to_string(r.protocol);
  s.base_latency = lib.base_latency(AlgoClass::kRing, r.protocol);
  s.channels = 1;
  if (n <= 1) return s;
  const double eff = lib.efficiency(r.protocol);
  const Bytes chunk = lib.chunk(AlgoClass::kRing, r.protocol);
  std::vector<Edge> all;
  if (r.op == Op::kSendRecv) {
    for (int i = 0; i < n; ++i) {
      const auto a = static_cast<uint32_t>(i), b = static_cast<uint32_t>((i + 1) % n);
      all.push_back(Edge{a, b, detail::edge_hash(g, a, b, 0)});
    }
    const int64_t loops = detail::loops_for(r, r.bytes.as_double(), chunk);
    detail::add_parallel_edges(s, g, all, r.bytes.as_double() / eff, loops, r.fidelity, "send_recv to ring neighbour");
    s.steps = 1;
  } else {
    const double per_peer = r.bytes.as_double() / n / eff;
    for (int k = 1; k < n; ++k)
      for (int i = 0; i < n; ++i) {
        const auto a = static_cast<uint32_t>(i), b = static_cast<uint32_t>((i + k) % n);
        all.push_back(Edge{a, b, detail::edge_hash(g, a, b, 0)});
      }
    detail::add_parallel_edges(s, g, all, per_peer, 1, r.fidelity, "all_to_all");
    s.steps = 1;
  }
  // Every pair's transfer runs at once, so the slowest pair's hop (across
  // domains: the network's) ends the collective, not the average pair's.
  const SimTime hop = detail::slowest_hop_latency(g, all, lib, AlgoClass::kRing, r.protocol);
  for (auto& p : s.phases) p.latency_after = hop;
  s.merge_sends();
  return s;
}

}  // namespace

Algorithm direct_algorithm() {
  Algorithm a;
  a.name = "direct";
  a.description = "point-to-point: all_to_all to every peer at once, send_recv to the ring neighbour";
  a.ops = {Op::kAllToAll, Op::kSendRecv};
  a.protocols = {Protocol::kSimple};
  a.applicable = direct_applicable;
  a.build = build_direct;
  return a;
}

}  // namespace anatomy::coll
