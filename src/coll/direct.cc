// Direct point-to-point patterns: all-to-all (every rank sends S/n to every
// other, all at once, at either fidelity: NCCL's and RCCL's all-to-all is one
// group of sends and receives to every peer, which their p2p scheduler
// spreads over channels so the peers proceed together. Across NVLink
// domains NCCL gives every peer a network peer's few channels (p2p_bound.h);
// on a fully connected mesh each peer has its own link, so running the n-1
// shifts one after another would use one of a GPU's n-1 links at a time)
// and send_recv (every rank sends S to its ring neighbour, as nccl-tests'
// sendrecv).
//
// Inside one NVLink domain NCCL's p2p channels, not the links, can be what
// bounds them: a peer's transfer rides a few channels (CTAs), each moving
// what one CTA can (p2p_plan.h), and the busiest channel runs its batches
// one after another; each batch after the first waits for its peers' first
// chunk, one hop. A part crosses the receiver's FIFO a chunk at a time, so
// the receiver's copy of the last chunk (at most 512 KiB) comes after the
// sender's and adds its own time. Up to 512 KiB a peer NCCL sends LL
// (p2p_plan.h), whose CTAs move a quarter of Simple's rate and whose flags
// double the bytes on the links; the schedule then says LL. Across domains
// the network bounds them instead, and under a CTA cap the capped channels;
// the proxy that posts a rank's network sends one at a time delays the
// last (proxy_post_delay).
//
// Alone on a flow network (Request::alone_on_flow_network), or past
// kMaxAllToAllFlows ranks, the all-to-all's n(n - 1) transfers are not run
// as flows: their routes are summed per link and the busiest link sets the
// time (link_load.h), which is the flow model's own time on a uniform
// all-to-all. Such a phase moves no bytes through the network model and does
// not see other traffic on it, so where it shares the network and is small
// enough the flows keep running.

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "coll/link_load.h"
#include "coll/p2p_bound.h"
#include "coll/p2p_plan.h"
#include "coll/pipeline.h"
#include "core/error.h"

namespace anatomy::coll {
namespace {

using detail::Edge;

// Flow by flow up to here where the collective shares the network: 2,048
// ranks are 4.2 million flows, about 12 s and 2 GB for one size.
constexpr int kMaxAllToAllFlows = 2048;
// Every ordered pair's route is summed to find the busiest link, O(n^2):
// 16,384 ranks route 268 million pairs, about a minute a size.
constexpr int kMaxAllToAllRanks = 16384;

// NCCL's p2p channels bound the group inside one switched NVLink domain
// (p2p_bound.h); elsewhere the network does.
P2pBound in_domain_p2p_bound(const Group& g, const Request& r, const LibraryModel& lib, Bytes per_peer, SimTime hop) {
  const int n = g.size();
  if (n < 2 || g.domains.size() != 1 || g.topo->domain(g.domain_of(0)).switch_node == topo::kNoNode) return {};
  return p2p_channel_bound(lib, {.ranks = n}, per_peer,
                           r.op == Op::kAllToAll ? all_to_all_rounds(n) : std::vector<int>{1}, hop);
}

// Inside one Infinity Fabric mesh each peer has its own link, and RCCL's
// channels to that peer can carry less than it (LibraryModel::
// mesh_p2p_peer_GBps): a rank's transfer to one peer takes at least its
// payload at that rate.
SimTime in_mesh_peer_bound(const Group& g, const LibraryModel& lib, Bytes per_peer) {
  if (lib.mesh_p2p_peer_GBps <= 0 || g.size() < 2 || g.domains.size() != 1 ||
      g.topo->domain(g.domain_of(0)).kind != topo::DomainKind::kMesh)
    return SimTime::zero();
  return SimTime::from_seconds(per_peer.as_double() / (lib.mesh_p2p_peer_GBps * 1e9));
}

// Across NVLink domains, under a communicator's CTA cap
// (LibraryModel::max_ctas), every send of a rank goes through at most that
// many channels, one CTA each at its p2p rate (as a ring's channels do,
// pipeline.h cap_by_channel_ctas): a rank's payload to its `peers` takes at
// least its bytes at that rate. Without a cap NCCL's own channels across
// domains are not modelled, and the network bounds the transfers.
SimTime capped_ctas_bound(const Group& g, const LibraryModel& lib, Protocol p, Bytes per_peer, int peers) {
  if (lib.max_ctas <= 0 || lib.cta_GBps(p) <= 0 || g.domains.size() < 2) return SimTime::zero();
  return SimTime::from_seconds(per_peer.as_double() * peers / (lib.max_ctas * lib.cta_GBps(p) * 1e9));
}

// Across domains a rank's network sends are posted by one proxy thread, one
// after another, each at NCCL's cost to post a network operation
// (LibraryModel::net_overhead_us, tuning.cc getNetOverhead); the receives
// are posted ahead, while the kernel launches. The network hop's latency
// covers one post, so the send to the last of a rank's k peers outside its
// domain leaves (k - 1) posts late, and the all-to-all ends with it. With
// PXN a send to a peer on another rail is posted by the proxy of the local
// GPU on that rail, which so posts the local GPUs' sends to its rail's
// peers: k again.
SimTime proxy_post_delay(const Group& g, const LibraryModel& lib) {
  if (g.domains.size() < 2) return SimTime::zero();
  size_t smallest = g.domains.front().size();
  for (const auto& d : g.domains) smallest = std::min(smallest, d.size());
  return lib.net_posts(g.size() - static_cast<int>(smallest) - 1);
}

// Any size: past kMaxAllToAllRanks the builder says why it stops.
bool direct_applicable(const Group&, Op op) { return op == Op::kSendRecv || op == Op::kAllToAll; }

Schedule build_direct(const Group& g, const Request& r, const LibraryModel& lib) {
  const int n = g.size();
  if (r.op == Op::kAllToAll && n > kMaxAllToAllRanks)
    throw core::InputError({"", 0, "--gpus"}, fmt::format("all_to_all routes every pair (n^2 of them) and is "
                                                          "modelled up to {} ranks, not {}",
                                                          kMaxAllToAllRanks, n));
  if (r.op != Op::kAllToAll && r.op != Op::kSendRecv)
    throw core::InputError({"", 0, "--op"}, "direct implements all_to_all and send_recv");
  Schedule s;
  s.algorithm = "direct";
  s.protocol = to_string(r.protocol);
  s.base_latency = lib.base_latency(AlgoClass::kRing, r.protocol);
  s.channels = 1;
  if (n <= 1) return s;
  s.steps = 1;
  const bool a2a = r.op == Op::kAllToAll;
  const bool as_flows = !a2a || (!r.alone_on_flow_network && n <= kMaxAllToAllFlows);
  // The pairs in order, a shift k at a time (send_recv: the ring neighbour
  // alone); without flows only the sample the slowest hop is read from.
  const int64_t pairs = a2a ? int64_t{n} * (n - 1) : n;
  const int64_t stride = as_flows ? 1 : std::max<int64_t>(1, pairs / detail::kHopSampleEdges);
  std::vector<Edge> all;
  all.reserve(static_cast<size_t>(pairs / stride + 1));
  for (int64_t e = 0; e < pairs; e += stride) {
    const auto a = static_cast<uint32_t>(e % n);
    const auto b = static_cast<uint32_t>((a + e / n + 1) % n);
    all.push_back(Edge{a, b, detail::edge_hash(g, a, b, 0)});
  }
  // Every pair's transfer runs at once, so the slowest pair's hop (across
  // domains: the network's) ends the collective, not the average pair's.
  const SimTime hop = detail::slowest_hop_latency(g, all, lib, AlgoClass::kRing, r.protocol);
  // What a rank sends each peer (send_recv: its one neighbour).
  const Bytes per_peer = a2a ? Bytes(r.bytes.count() / n) : r.bytes;
  const P2pBound bound = in_domain_p2p_bound(g, r, lib, per_peer, hop);
  // Where NCCL sends the transfers LL, their flags cross the links too.
  const Protocol wire_protocol = bound.ll ? Protocol::kLL : r.protocol;
  s.protocol = to_string(wire_protocol);
  const double eff = lib.efficiency(wire_protocol);
  if (a2a && !as_flows) {
    Phase p;
    p.label = "all_to_all (busiest link of every pair's route, not run as flows)";
    p.min_duration = detail::all_to_all_link_load(g, Bytes(std::llround(r.bytes.as_double() / n / eff))).time;
    s.phases.push_back(std::move(p));
  } else if (a2a) {
    detail::add_parallel_edges(s, g, all, r.bytes.as_double() / n / eff, 1, r.fidelity, "all_to_all");
  } else {
    const int64_t loops = detail::loops_for(r, r.bytes.as_double(), lib.chunk(AlgoClass::kRing, r.protocol));
    detail::add_parallel_edges(s, g, all, r.bytes.as_double() / eff, loops, r.fidelity, "send_recv to ring neighbour");
  }
  const SimTime mesh_bound = in_mesh_peer_bound(g, lib, per_peer);
  const SimTime cta_bound = capped_ctas_bound(g, lib, wire_protocol, per_peer, a2a ? n - 1 : 1);
  const SimTime posts = a2a ? proxy_post_delay(g, lib) : SimTime::zero();
  for (auto& p : s.phases) {
    p.latency_after = hop + posts;
    p.min_duration = std::max({p.min_duration, bound.time / p.repeat, mesh_bound / p.repeat, cta_bound / p.repeat});
  }
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
