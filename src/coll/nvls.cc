// NVLS: all-reduce with the reduction done in the NVSwitch (NVLink SHARP).
//
// Inside a domain the buffer is cut among h heads (NCCL's NVLS graph: one
// head per channel of the graph, h = min(32, GPUs of the smallest domain),
// nvls_plan.h). Every GPU copies its data into the heads' NVLS buffers;
// each head multimem.ld_reduce-s its slice (the switch reads that slice
// from every GPU and adds) and multimem.st-s the sum (the switch writes it
// to every GPU). So each GPU's NVLink carries S each way — its
// contribution read, the sums written — and a head S/h more (its reduced
// slice in, its store out): S(1 + 1/h), not a ring's 2S(n-1)/n, which is
// why NVLS bus bandwidth exceeds the link rate. NCCL discounts NVLS
// bandwidth by nvlsEfficiency (0.85 on Hopper, 0.74 on Blackwell) and
// charges a flat 25 us on NVLink. All-gather and reduce-scatter use the
// multicast store or the reducing load alone, on one domain of at most 32
// GPUs (NCCL's NVLS arity).
//
// Size: the buffer goes through in loops of channels x heads x chunk
// (nvls_plan.h), each crossing a pipeline of scatter, reduce/multicast
// and gather; filling and draining it costs a loop's time through every
// stage but the slowest (the scatter's and the gather's copies on one
// domain), so a buffer of a few loops (an NVL72 rack's loop is 24 x 32 x
// 64 KiB = 48 MiB) is far from the asymptote. The copies move the whole
// buffer whatever the head count, at no more than the CTAs' rate: on a
// Blackwell rack that, not NVLink, is the ceiling.
//
// Across domains (NCCL's NVLSTree): the heads' slices are all-reduced
// across domains on a double binary tree per head (head i of every domain,
// its NIC), each tree carrying half; the tree adds 2 ceil(log2 m) stages
// and NCCL's NVLSTree NET latency (20.9 us) per level, and NCCL's per-head ceiling on
// NVLSTree bus bandwidth (perChMaxNVLSTreeBws) holds. Only the h heads use
// their NICs: on NVL72 that is 32 of 72, so each carries S/32 and the
// NIC's speed shows when heads are few. With in-network reduction on the
// fabric (SHARP, NCCL's NVLS + CollNet) each head sends its slice up to
// the switches once and takes the sum back — S/h each way on its NIC,
// moved here as a shift by one domain along the head's rail — with one
// NET latency instead of a tree's.
// Domains of unequal size are fine: NCCL keeps NVLS and the smallest
// domain's head count (init.cc, the minimum of the graphs' channels).

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "coll/nvls_plan.h"
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
  if (op == Op::kAllReduce) return true;
  // All-gather and reduce-scatter: one domain, of at most NCCL_MAX_NVLS_ARITY
  // GPUs. NCCL 2.27 and later skip NVLS for any collective but all-reduce
  // where a node has more local ranks than that (enqueue.cc, the algorithm
  // table: func != ncclFuncAllReduce && localRanks > NCCL_MAX_NVLS_ARITY),
  // and a multi-node NVLink clique is one node: 64 GPUs of an NVL72 rack
  // gather on a ring.
  return g.domains.size() == 1 && g.domains.front().size() <= static_cast<size_t>(kMaxNvlsArity);
}

void add_switch_send(Phase& p, const Group& g, uint32_t r, double up_wire, double down_wire) {
  const NodeId sw = g.topo->domain(g.domain_of(r)).switch_node;
  if (up_wire > 0) p.sends.push_back(Send{g.node(r), sw, Bytes(std::llround(up_wire)), 0});
  if (down_wire > 0) p.sends.push_back(Send{sw, g.node(r), Bytes(std::llround(down_wire)), 0});
}

// Payload bandwidth of a GPU's link into its domain's switch (0 when it
// has none); its way out to the fabric is nic_Bps (group.h).
double scaleup_Bps(const Group& g, uint32_t r) {
  thread_local std::vector<topo::LinkId> path;
  path.clear();
  g.topo->route(g.node(r), g.topo->domain(g.domain_of(r)).switch_node, 0, path);
  return path.empty() ? 0.0 : g.topo->link(path.front()).bandwidth.bytes_per_second();
}

Schedule build_nvls(const Group& g, const Request& r, const LibraryModel& lib) {
  if (!nvls_applicable(g, r.op))
    throw core::InputError({"", 0, "--algo"},
                           fmt::format("nvls needs NVLink switches with in-network reduction (NVLS) and at least 2 "
                                       "GPUs per domain; across domains only all_reduce, and all_gather or "
                                       "reduce_scatter on at most {} GPUs",
                                       kMaxNvlsArity));
  const int m = static_cast<int>(g.domains.size());
  const bool sharp = m > 1 && lib.fabric_reduction;
  Schedule s;
  s.algorithm = m == 1 ? "nvls" : sharp ? "nvls-sharp" : "nvls-tree";
  s.protocol = "Simple";
  double eff = lib.efficiency(Protocol::kSimple) * lib.nvls_efficiency;
  const double eff_default_chunk = eff;
  const double S = r.bytes.as_double();
  size_t min_n = g.domains.front().size();
  for (const auto& d : g.domains) min_n = std::min(min_n, d.size());
  const double nic = nic_Bps(g, 0);
  const NvlsPlan plan = nvls_plan({.compute_capability = lib.compute_capability,
                                   .min_domain_gpus = static_cast<int>(min_n),
                                   .domains = m,
                                   .nic_GBps = nic / 1e9,
                                   .in_network_reduction = sharp,
                                   .min_ctas = lib.min_ctas,
                                   .max_ctas = lib.max_ctas},
                                  r.bytes);
  const int h = plan.heads;
  s.channels = plan.channels;
  const double link = scaleup_Bps(g, g.domains.front().front());
  // Every chunk a CTA moves is a step with a fixed cost (its flags) beside
  // the chunk's own time at the link's pace; nvls_efficiency holds at
  // NCCL's default 128 KiB chunk, and a smaller chunk pays that cost more
  // often: f(c) = t0 x rate / (channels x c x (1 + 1/h)) of the step. So
  // the steps of a loop (one chunk per head on every channel) cost
  // h x t0 / (1 + f(128 KiB)) of its time. The kernel runs every head's step
  // of a partial loop too, its chunks shrunk (device/all_reduce.h,
  // lastChunkSize), so a buffer that is not a whole number of loops pays
  // the rest of its last loop's steps.
  double step_per_loop_s = 0;
  if (link > 0 && lib.nvls_step_us > 0) {
    const auto f = [&](double chunk) {
      return lib.nvls_step_us * 1e-6 * eff * link / (plan.channels * chunk * (1.0 + 1.0 / h));
    };
    const double f_default = f(kNvlsDefaultChunk.as_double());
    step_per_loop_s = h * lib.nvls_step_us * 1e-6 / (1 + f_default);
    eff *= (1 + f_default) / (1 + f(plan.chunk.as_double()));
  }

  Phase p;
  p.label = std::string(to_string(r.op)) + (m == 1 ? " NVLS" : sharp ? " NVLS + SHARP across domains" : " NVLS + tree across domains");
  p.repeat = r.fidelity == Fidelity::kBulk ? 1 : std::max<int64_t>(1, static_cast<int64_t>(std::ceil(plan.loops)));
  const double reps = static_cast<double>(p.repeat);
  for (const auto& d : g.domains) {
    const auto n = static_cast<double>(d.size());
    for (size_t i = 0; i < d.size(); ++i) {
      const bool head = static_cast<int>(i) < h;
      double up = 0, down = 0;
      switch (r.op) {
        case Op::kAllReduce: up = down = S * (1.0 + (head ? 1.0 / h : 0.0)); break;
        case Op::kReduceScatter: up = S; down = S / n; break;  // S is the total input
        case Op::kAllGather: up = S / n; down = S; break;      // S is the total output
        default: break;
      }
      add_switch_send(p, g, d[i], up / eff / reps, down / eff / reps);
    }
  }

  // Stage times for one loop. Only the reduce crosses NVLink: the scatter
  // writes into this GPU's own NVLS buffer and the gather reads out of its
  // own (transport/nvls.cc: their connections are the buffer's unicast
  // mapping, the reduce's the multicast one). So the reduce moves a loop's
  // chunks of every head at the link's pace with the chunk steps' waits,
  // which cross GPUs; the scatter and gather are copies on the GPU's own
  // warps that wait on no other GPU, and keep the pace all three have at
  // NCCL's default 128 KiB chunk (no source measures the copy warps' own
  // rate: the stages are taken as balanced there) when smaller chunks slow
  // the reduce. A network stage moves one chunk per channel over a head's
  // NIC, once per tree level each way, or up to the switches and back with
  // SHARP.
  const double loop_payload = static_cast<double>(plan.channels) * h * plan.chunk.as_double();
  const double nvl_stage_s = link > 0 ? loop_payload * (1.0 + 1.0 / h) / eff / link : 0.0;
  // A channel is one CTA, and its copy warps move its share of the whole
  // buffer (all-reduce: S in and S out; a gather's S out, a scatter's S in,
  // whatever the head count) no faster than a CTA moves data anywhere else
  // (LibraryModel::cta_GBps, read off p2p transfers; rings take the same
  // bound). Where that is slower than the link, it paces the copy stages
  // and the whole buffer: channels x 20.4 GB/s of algorithm bandwidth on
  // Blackwell, 489.6 on a rack's 24, under the link's 534.1 / (1 + 1/h)
  // at NCCL's default chunk from 12 heads up.
  const double cta_Bps = lib.cta_GBps(Protocol::kSimple) * 1e9 * plan.channels;  // 0 for an ideal library
  const double copy_stage_s = std::max(link > 0 ? loop_payload / eff_default_chunk / link : 0.0,
                                       cta_Bps > 0 ? loop_payload / cta_Bps : 0.0);
  if (cta_Bps > 0) p.min_duration = SimTime::from_seconds(S / cta_Bps / reps);
  const double net_stage_s = nic > 0 ? loop_payload / h / lib.efficiency(Protocol::kSimple) / nic : 0.0;
  int net_stages = 0;
  const SimTime to_switch = physical_latency(*g.topo, g.node(0), g.topo->domain(g.domain_of(0)).switch_node);
  SimTime latency = lib.hop_on_path(LinkClass::kNvlink, AlgoClass::kNvls, Protocol::kSimple, to_switch * 2);
  s.steps = 2;
  if (m > 1) {
    const double slice = S / h / lib.efficiency(Protocol::kSimple);  // one head's share, on the wire
    std::vector<Edge> inter;
    if (sharp) {
      for (int i = 0; i < h; ++i)
        for (int k = 0; k < m; ++k) {
          const uint32_t a = g.domains[k][i], b = g.domains[(k + 1) % m][i];
          inter.push_back(Edge{a, b, detail::edge_hash(g, a, b, i)});
        }
      for (const auto& e : inter) p.sends.push_back(Send{g.node(e.src), g.node(e.dst), Bytes(std::llround(slice / reps)), e.hash});
      // NCCL's NVLS latency across nodes: its NVLink term plus one NET term.
      latency += std::max(lib.hop_latency(LinkClass::kNet, AlgoClass::kNvls, Protocol::kSimple),
                          detail::mean_hop_latency(g, inter, lib, AlgoClass::kNvls, Protocol::kSimple));
      net_stages = plan.stages - 3;
      s.steps = 4;
    } else {
      // Head i of every domain all-reduces its slice on two trees, each
      // carrying half: an interior node sends half up and half to each of
      // two children, so a head's NIC moves 2 slices per all-reduce.
      for (int i = 0; i < h; ++i)
        for (int t = 0; t < 2; ++t) {
          const std::vector<int> parent = detail::btree_parents(m, t);
          for (int k = 0; k < m; ++k) {
            if (parent[k] < 0) continue;
            const uint32_t c = g.domains[k][i], q = g.domains[parent[k]][i];
            inter.push_back(Edge{c, q, detail::edge_hash(g, c, q, 2 * i + t)});
            inter.push_back(Edge{q, c, detail::edge_hash(g, q, c, 2 * i + t)});
          }
        }
      for (const auto& e : inter) p.sends.push_back(Send{g.node(e.src), g.node(e.dst), Bytes(std::llround(slice / 2.0 / reps)), e.hash});
      const SimTime inter_hop = std::max(lib.nvls_tree_net_latency(),
                                         detail::mean_hop_latency(g, inter, lib, AlgoClass::kTree, Protocol::kSimple));
      latency += inter_hop * (2 * detail::ceil_log2(m));
      net_stages = plan.stages - 3;  // 2 ceil(log2 m) tree levels
      s.steps = 2 * detail::ceil_log2(m) + 2;
      // NCCL's own ceiling per head (tuning.cc perChMaxNVLSTreeBws): what a
      // head's reduce-and-send and receive-and-multicast warps sustain. As
      // bus bandwidth h x cap, i.e. algbw h x cap x n / (2(n - 1)).
      const double cap_Bps = lib.nvls_tree_max_per_head_GBps(m) * 1e9 * h;
      if (cap_Bps > 0) {
        const double n = g.size();
        const double min_s = S / (cap_Bps * n / (2.0 * (n - 1)));
        p.min_duration = std::max(p.min_duration, SimTime::from_seconds(min_s / reps));
      }
    }
  }
  // Pipeline fill and drain: a loop's way through every stage beyond the
  // slowest one, which the network already paces (a partial loop's share
  // when the buffer is less than one loop).
  const double through_s = 2 * copy_stage_s + nvl_stage_s + net_stages * net_stage_s;
  const double slowest_s = std::max({copy_stage_s, nvl_stage_s, net_stages > 0 ? net_stage_s : 0.0});
  const double fill_s = (through_s - slowest_s) * std::min(1.0, plan.loops);
  const double last_loop_steps_s = (std::ceil(plan.loops) - plan.loops) * step_per_loop_s;
  p.latency_after = latency + SimTime::from_seconds(fill_s + last_loop_steps_s);
  if (r.fidelity == Fidelity::kBulk) p.label += " (bulk)";
  s.phases.push_back(std::move(p));
  s.merge_sends();
  return s;
}

}  // namespace

Algorithm nvls_algorithm() {
  Algorithm a;
  a.name = "nvls";
  a.description =
      "in-switch reduction over NVLink SHARP (NCCL NVLS); across domains NVLS + per-head trees (NVLSTree), or "
      "NVLS + SHARP when the fabric reduces";
  a.ops = {Op::kAllReduce, Op::kAllGather, Op::kReduceScatter};
  a.protocols = {Protocol::kSimple};
  a.applicable = nvls_applicable;
  a.build = build_nvls;
  return a;
}

}  // namespace anatomy::coll
