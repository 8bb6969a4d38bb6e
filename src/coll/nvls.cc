// NVLS: all-reduce with the reduction done in the NVSwitch (NVLink SHARP).
//
// Inside a domain each GPU owns a slice: multimem.ld_reduce pulls its slice
// from every GPU through the switch, which adds them; multimem.st pushes
// the result back, which the switch multicasts to every GPU. Per GPU each
// direction of its NVLink carries S(1 + 1/n) instead of a ring's
// 2S(n-1)/n, which is why NVLS bus bandwidth can exceed the link rate.
// NCCL discounts NVLS bandwidth by nvlsEfficiency (0.85 on Hopper) and
// charges a flat latency (25 us on NVLink). All-gather and reduce-scatter
// use the multicast store or the reducing load alone.
//
// Across domains (NCCL's NVLSTree): reduce-scatter inside each domain by
// NVLS, an all-reduce of each GPU's slice across domains on a double
// binary tree per rail, then an NVLS all-gather; the three stages pipeline,
// so they run as one concurrent phase.

#include <algorithm>
#include <cmath>

#include "coll/pipeline.h"
#include "core/error.h"

namespace anatomy::coll {
namespace {

using detail::Edge;

bool nvls_applicable(const Group& g, Op op) {
  if (op != Op::kAllReduce && op != Op::kAllGather && op != Op::kReduceScatter) return false;
  if (g.size() < 2) return false;
  for (const auto& d : g.domains) {
    const auto& dom = g.topo->domain(g.domain_of(d.front()));
    if (!dom.in_network_reduction || dom.switch_node == topo::kNoNode || d.size() < 2) return false;
  }
  if (g.domains.size() > 1 && (op != Op::kAllReduce || !g.uniform_domains())) return false;
  return true;
}

void add_switch_sends(Phase& p, const Group& g, const std::vector<uint32_t>& dom, double up_wire, double down_wire) {
  const NodeId sw = g.topo->domain(g.domain_of(dom.front())).switch_node;
  for (uint32_t r : dom) {
    if (up_wire > 0) p.sends.push_back(Send{g.node(r), sw, Bytes(std::llround(up_wire)), 0});
    if (down_wire > 0) p.sends.push_back(Send{sw, g.node(r), Bytes(std::llround(down_wire)), 0});
  }
}

Schedule build_nvls(const Group& g, const Request& r, const LibraryModel& lib) {
  if (!nvls_applicable(g, r.op))
    throw core::InputError({"", 0, "--algo"},
                           "nvls needs NVLink switches with in-network reduction (NVLS) and at least 2 GPUs per "
                           "domain; across domains only all_reduce with equal domains");
  Schedule s;
  s.algorithm = g.domains.size() > 1 ? "nvls-tree" : "nvls";
  s.protocol = "Simple";
  const double eff = lib.efficiency(Protocol::kSimple) * lib.nvls_efficiency;
  const double S = r.bytes.as_double();
  const Bytes chunk = lib.chunk(AlgoClass::kNvls, Protocol::kSimple);
  s.channels = 16;  // NCCL's NVLS channel count on Hopper (NCCL_NVLS_NCHANNELS)
  const SimTime nvls_lat = lib.hop_latency(LinkClass::kNvlink, AlgoClass::kNvls, Protocol::kSimple);

  // Per GPU, wire bytes up to the switch and down from it, for the whole op.
  const auto n = static_cast<double>(g.domains.front().size());
  double up = 0, down = 0;
  const double own = r.op == Op::kAllReduce ? S : S / g.size() * n;  // this domain's part of the data
  switch (r.op) {
    case Op::kAllReduce: up = down = S * (1.0 + 1.0 / n); break;
    case Op::kReduceScatter: up = own; down = own / n; break;  // S is the total input
    case Op::kAllGather: up = own / n; down = own; break;      // S is the total output
    default: break;
  }
  const int64_t loops = detail::loops_for(r, S / s.channels, chunk);
  Phase p;
  p.label = std::string(to_string(r.op)) + (g.domains.size() > 1 ? " NVLS + tree across domains" : " NVLS");
  p.repeat = r.fidelity == Fidelity::kBulk ? 1 : loops;
  for (const auto& d : g.domains) add_switch_sends(p, g, d, up / eff / p.repeat, down / eff / p.repeat);

  SimTime latency = std::max(nvls_lat, physical_latency(*g.topo, g.node(0), g.topo->domain(g.domain_of(0)).switch_node) * 2);
  if (g.domains.size() > 1) {
    // Each rail (same local index in every domain) all-reduces its S/n slice
    // on two trees, each carrying half.
    const int m = static_cast<int>(g.domains.size());
    std::vector<Edge> inter;
    for (size_t i = 0; i < g.domains.front().size(); ++i)
      for (int t = 0; t < 2; ++t) {
        const std::vector<int> parent = detail::btree_parents(m, t);
        for (int k = 0; k < m; ++k) {
          if (parent[k] < 0) continue;
          const uint32_t c = g.domains[k][i], q = g.domains[parent[k]][i];
          inter.push_back(Edge{c, q, detail::edge_hash(g, c, q, 2 * static_cast<int>(i) + t)});
          inter.push_back(Edge{q, c, detail::edge_hash(g, q, c, 2 * static_cast<int>(i) + t)});
        }
      }
    const double per_tree = S / n / 2.0 / lib.efficiency(Protocol::kSimple);
    for (const auto& e : inter) p.sends.push_back(Send{g.node(e.src), g.node(e.dst), Bytes(std::llround(per_tree / p.repeat)), e.hash});
    const SimTime inter_hop = detail::mean_hop_latency(g, inter, lib, AlgoClass::kTree, Protocol::kSimple);
    latency += inter_hop * (2 * detail::ceil_log2(m));
    s.steps = 2 * detail::ceil_log2(m) + 2;
  } else {
    s.steps = 2;
  }
  p.latency_after = latency;
  if (r.fidelity == Fidelity::kBulk) p.label += " (bulk)";
  s.phases.push_back(std::move(p));
  s.merge_sends();
  return s;
}

}  // namespace

Algorithm nvls_algorithm() {
  Algorithm a;
  a.name = "nvls";
  a.description = "in-switch reduction over NVLink SHARP (NCCL NVLS); across domains NVLS + per-rail trees (NVLSTree)";
  a.ops = {Op::kAllReduce, Op::kAllGather, Op::kReduceScatter};
  a.protocols = {Protocol::kSimple};
  a.applicable = nvls_applicable;
  a.build = build_nvls;
  return a;
}

}  // namespace anatomy::coll
