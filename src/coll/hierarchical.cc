// Hierarchical all-reduce: reduce-scatter inside each scale-up domain,
// all-reduce each GPU's 1/n slice with the same-index GPUs of the other
// domains (one ring per rail, so the scale-out fabric carries only S/n per
// GPU per direction x 2(m-1)/m), then all-gather inside each domain. The
// stages run one after another (no cross-stage pipelining), each with its
// ring's latency terms. Falls back to a flat ring inside a single domain.

#include "coll/pipeline.h"
#include "core/error.h"

namespace anatomy::coll {
namespace {

using detail::Edge;

bool hierarchical_applicable(const Group& g, Op op) {
  return op == Op::kAllReduce && g.uniform_domains();
}

Schedule build_hierarchical(const Group& g, const Request& r, const LibraryModel& lib) {
  if (!hierarchical_applicable(g, r.op))
    throw core::InputError({"", 0, "--algo"}, "hierarchical implements all_reduce on equal-size domains");
  Schedule s;
  s.algorithm = "hierarchical";
  s.protocol = to_string(r.protocol);
  s.base_latency = lib.base_latency(AlgoClass::kRing, r.protocol);
  s.channels = 1;
  if (g.size() <= 1) return s;
  const double eff = lib.efficiency(r.protocol);
  const Bytes chunk = lib.chunk(AlgoClass::kRing, r.protocol);
  const int n = static_cast<int>(g.domains.front().size());
  const int m = static_cast<int>(g.domains.size());
  const double S = r.bytes.as_double();

  // Stage 1 and 3: a ring inside every domain, all domains together.
  std::vector<Edge> intra;
  for (const auto& d : g.domains)
    for (int i = 0; i < n && n > 1; ++i) intra.push_back(Edge{d[i], d[(i + 1) % n], 0});
  // Stage 2: a ring per rail across domains.
  std::vector<Edge> inter;
  for (int i = 0; i < n && m > 1; ++i)
    for (int k = 0; k < m; ++k) {
      const uint32_t a = g.domains[k][i], b = g.domains[(k + 1) % m][i];
      inter.push_back(Edge{a, b, detail::edge_hash(g, a, b, i)});
    }
  const SimTime intra_hop = detail::mean_hop_latency(g, intra, lib, AlgoClass::kRing, r.protocol);
  const SimTime inter_hop = detail::mean_hop_latency(g, inter, lib, AlgoClass::kRing, r.protocol);

  auto stage = [&](const std::vector<Edge>& edges, int ranks, double buffer, int64_t nsteps, SimTime hop,
                   const std::string& label) {
    if (edges.empty() || nsteps <= 0) return;
    const double slice = buffer / ranks;
    const int64_t loops = detail::loops_for(r, slice, chunk);
    detail::add_ring_pipeline(s, g, edges, slice / loops / eff, nsteps, loops, r.fidelity, label);
    s.phases.back().latency_after = hop * nsteps;
    s.steps += nsteps;
  };
  stage(intra, n, S, n - 1, intra_hop, "reduce_scatter inside domains");
  stage(inter, m, S / n, 2 * (m - 1), inter_hop, "all_reduce across domains, per rail");
  stage(intra, n, S, n - 1, intra_hop, "all_gather inside domains");
  s.merge_sends();
  return s;
}

}  // namespace

Algorithm hierarchical_algorithm() {
  Algorithm a;
  a.name = "hierarchical";
  a.description = "reduce-scatter in each scale-up domain, per-rail ring all-reduce across domains, all-gather";
  a.ops = {Op::kAllReduce};
  a.protocols = {Protocol::kLL, Protocol::kLL128, Protocol::kSimple};
  a.applicable = hierarchical_applicable;
  a.build = build_hierarchical;
  a.in_auto = false;  // not one of NCCL's algorithms
  return a;
}

}  // namespace anatomy::coll
