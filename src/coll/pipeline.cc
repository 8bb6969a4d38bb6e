#include "coll/pipeline.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "coll/mesh_rings.h"
#include "core/rng.h"

namespace anatomy::coll::detail {

uint64_t edge_hash(const Group& g, uint32_t src, uint32_t dst, int channel) {
  if (g.same_domain(src, dst)) return 0;
  return core::mix64((uint64_t{g.gpus[src]} << 32 | g.gpus[dst]) ^ (static_cast<uint64_t>(channel) * 0x9e3779b97f4a7c15ULL)) | 1;
}

namespace {

// The mesh rings of domain `d` of the group (ranks in rank order), or none
// when the domain is not a fully connected mesh.
const std::vector<std::vector<int>>* mesh_rings_of(const Group& g, const std::vector<uint32_t>& d) {
  if (d.size() < 3 || g.topo->domain(g.domain_of(d.front())).kind != topo::DomainKind::kMesh) return nullptr;
  const auto& rings = mesh_rings(static_cast<int>(d.size()));
  return rings.empty() ? nullptr : &rings;
}

}  // namespace

int default_channels(const Group& g) {
  if (g.domains.size() <= 1) {
    // A switched domain gives every GPU its whole bandwidth on one ring; a
    // mesh needs a ring per set of links.
    const auto* rings = g.domains.empty() ? nullptr : mesh_rings_of(g, g.domains.front());
    return rings ? static_cast<int>(rings->size()) : 1;
  }
  size_t nics = 0;
  for (const auto& d : g.domains) {
    std::set<topo::NodeId> distinct;
    for (uint32_t r : d) distinct.insert(g.topo->nic_of(g.gpus[r]));
    nics = std::max(nics, distinct.size());
  }
  return static_cast<int>(std::clamp<size_t>(nics, 1, 64));
}

void append_domain_order(const Group& g, const std::vector<uint32_t>& d, int channel, std::vector<uint32_t>& order) {
  const size_t n = d.size();
  const size_t off = static_cast<size_t>(channel) % n;
  if (const auto* rings = mesh_rings_of(g, d)) {
    // Channel c follows mesh ring c, entered at the same
    // rotated GPU as on a switched domain.
    const std::vector<int>& cyc = (*rings)[static_cast<size_t>(channel) % rings->size()];
    const size_t at = static_cast<size_t>(std::find(cyc.begin(), cyc.end(), static_cast<int>(off)) - cyc.begin());
    for (size_t i = 0; i < n; ++i) order.push_back(d[static_cast<size_t>(cyc[(at + i) % n])]);
    return;
  }
  for (size_t i = 0; i < n; ++i) order.push_back(d[(off + i) % n]);
}

std::vector<uint32_t> ring_order(const Group& g, int channel) {
  std::vector<uint32_t> order;
  order.reserve(g.gpus.size());
  for (size_t k = 0; k < g.domains.size(); ++k) {
    const auto& d = g.domains[k];
    const auto& paths = mesh_paths(static_cast<int>(d.size()));
    if (g.domains.size() > 1 && mesh_rings_of(g, d) && !paths.empty()) {
      // Across hosts: channel c crosses each mesh on path c, forward in
      // even domains and reversed in odd ones, so it leaves a host from
      // the GPU (and rail) it enters the next one on.
      const std::vector<int>& path = paths[static_cast<size_t>(channel) % paths.size()];
      for (size_t i = 0; i < d.size(); ++i)
        order.push_back(d[static_cast<size_t>(path[k % 2 == 0 ? i : d.size() - 1 - i])]);
      continue;
    }
    append_domain_order(g, d, channel, order);
  }
  return order;
}

namespace {

Send make_send(const Group& g, const Edge& e, double wire) {
  return Send{g.node(e.src), g.node(e.dst), Bytes(std::llround(wire)), e.hash};
}

}  // namespace

void add_ring_pipeline(Schedule& s, const Group& g, const std::vector<Edge>& edges, double step_wire_bytes,
                       int64_t nsteps, int64_t loops, Fidelity f, const std::string& label) {
  if (edges.empty() || nsteps <= 0) return;
  if (f == Fidelity::kBulk) {
    Phase p;
    p.label = label + " (bulk)";
    for (const auto& e : edges) p.sends.push_back(make_send(g, e, step_wire_bytes * nsteps * loops));
    s.phases.push_back(std::move(p));
    return;
  }
  const int64_t waves = nsteps + loops - 1;
  int64_t w = 0;
  while (w < waves) {
    const int64_t a = std::min({w + 1, loops, nsteps, waves - w});
    int64_t end = w + 1;
    while (end < waves && std::min({end + 1, loops, nsteps, waves - end}) == a) ++end;
    Phase p;
    p.label = label;
    p.repeat = end - w;
    for (const auto& e : edges) p.sends.push_back(make_send(g, e, step_wire_bytes * a));
    s.phases.push_back(std::move(p));
    w = end;
  }
}

void add_chain_pipeline(Schedule& s, const Group& g, const std::vector<std::vector<Edge>>& chains,
                        double chunk_wire_bytes, int64_t loops, Fidelity f, const std::string& label) {
  size_t longest = 0;
  for (const auto& c : chains) longest = std::max(longest, c.size());
  if (longest == 0) return;
  if (f == Fidelity::kBulk) {
    Phase p;
    p.label = label + " (bulk)";
    for (const auto& c : chains)
      for (const auto& e : c) p.sends.push_back(make_send(g, e, chunk_wire_bytes * loops));
    s.phases.push_back(std::move(p));
    return;
  }
  const int64_t waves = static_cast<int64_t>(longest) + loops - 1;
  // Edge k is busy in waves [k, k + loops): the active window is
  // [max(0, w - loops + 1), min(w, len - 1)], which stops changing once it
  // covers every edge.
  auto window = [&](int64_t w) {
    return std::pair<int64_t, int64_t>{std::max<int64_t>(0, w - loops + 1), std::min<int64_t>(w, longest - 1)};
  };
  int64_t w = 0;
  while (w < waves) {
    const auto win = window(w);
    int64_t end = w + 1;
    while (end < waves && window(end) == win) ++end;
    Phase p;
    p.label = label;
    p.repeat = end - w;
    for (const auto& c : chains)
      for (int64_t k = win.first; k <= win.second && k < static_cast<int64_t>(c.size()); ++k)
        p.sends.push_back(make_send(g, c[k], chunk_wire_bytes));
    s.phases.push_back(std::move(p));
    w = end;
  }
}

void add_parallel_edges(Schedule& s, const Group& g, const std::vector<Edge>& edges, double wire_bytes,
                        int64_t loops, Fidelity f, const std::string& label) {
  if (edges.empty()) return;
  Phase p;
  const bool bulk = f == Fidelity::kBulk || loops <= 1;
  p.label = bulk && f == Fidelity::kBulk ? label + " (bulk)" : label;
  p.repeat = bulk ? 1 : loops;
  const double per = bulk ? wire_bytes : wire_bytes / static_cast<double>(loops);
  for (const auto& e : edges) p.sends.push_back(make_send(g, e, per));
  s.phases.push_back(std::move(p));
}

namespace {

// max(the library's hop over the edge's path (LibraryModel::hop_on_path),
// floor) of an even, deterministic sample of kHopSampleEdges edges.
template <typename Fold>
void for_each_hop_latency(const Group& g, const std::vector<Edge>& edges, const LibraryModel& lib, AlgoClass a,
                          Protocol p, SimTime floor, Fold fold) {
  const size_t stride = std::max<size_t>(1, edges.size() / static_cast<size_t>(kHopSampleEdges));
  for (size_t i = 0; i < edges.size(); i += stride) {
    const Edge& e = edges[i];
    const SimTime phys = physical_latency(*g.topo, g.node(e.src), g.node(e.dst));
    fold(std::max(lib.hop_on_path(link_class(g, e.src, e.dst), a, p, phys), floor));
  }
}

}  // namespace

SimTime mean_hop_latency(const Group& g, const std::vector<Edge>& edges, const LibraryModel& lib, AlgoClass a,
                         Protocol p, SimTime floor) {
  if (edges.empty()) return SimTime::zero();
  long double sum = 0;
  size_t n = 0;
  for_each_hop_latency(g, edges, lib, a, p, floor, [&](SimTime t) {
    sum += static_cast<long double>(t.count_ps());
    ++n;
  });
  return SimTime::ps(static_cast<int64_t>(std::llround(sum / n)));
}

SimTime slowest_hop_latency(const Group& g, const std::vector<Edge>& edges, const LibraryModel& lib, AlgoClass a,
                            Protocol p) {
  SimTime slowest = SimTime::zero();
  for_each_hop_latency(g, edges, lib, a, p, SimTime::zero(), [&](SimTime t) { slowest = std::max(slowest, t); });
  return slowest;
}

int64_t loops_for(const Request& r, double payload_per_loop_unit, Bytes chunk) {
  if (r.chunks > 0) return r.chunks;
  const double c = static_cast<double>(std::max<int64_t>(1, chunk.count()));
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(payload_per_loop_unit / c)));
}

int ceil_log2(int64_t n) {
  int k = 0;
  while ((int64_t{1} << k) < n) ++k;
  return k;
}

int library_channels(const Group& g, const LibraryModel& lib, int channels) {
  const bool one_switched = g.domains.size() == 1 && !mesh_rings_of(g, g.domains.front());
  return one_switched ? channels : lib.clamp_ctas(channels);
}

void cap_by_channel_ctas(Schedule& s, const Group& g, const LibraryModel& lib, Protocol p, double efficiency) {
  if (g.domains.empty() || (p == Protocol::kLL && lib.max_ctas == 0)) return;
  for (const auto& d : g.domains)
    if (mesh_rings_of(g, d)) return;
  // LL's CTAs write at their own rate (LibraryModel::cta_GBps); at NCCL's
  // own channel count its llMaxBws cap stands for them.
  const double cta_GBps = lib.cta_GBps(p);
  double busbw_GBps = 0;
  if (g.domains.size() == 1) {
    busbw_GBps = p != Protocol::kLL && lib.nvlink_coll_channels > 0 ? lib.nvlink_channels_busbw_GBps()
                                                                    : lib.max_ctas * cta_GBps;
  } else if (lib.max_ctas > 0) {
    bool nvlink_hops = false;
    for (const auto& d : g.domains) nvlink_hops = nvlink_hops || d.size() > 1;
    if (nvlink_hops) busbw_GBps = lib.max_ctas * cta_GBps;
  }
  // The CTAs' stores bound the wire bytes, so LL128 carries its payload share of them.
  s.cap_bus_bandwidth(g.size(), efficiency, Bandwidth::gigabytes_per_s(busbw_GBps * efficiency));
}

}  // namespace anatomy::coll::detail
