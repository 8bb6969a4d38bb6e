#include "topo/topology.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "core/error.h"
#include "core/rng.h"

namespace anatomy::topo {
namespace {

constexpr uint8_t kNoFabric = 255;
constexpr uint32_t kNone32 = UINT32_MAX;

}  // namespace

const char* to_string(NodeKind k) {
  switch (k) {
    case NodeKind::kGpu: return "gpu";
    case NodeKind::kHost: return "host";
    case NodeKind::kNic: return "nic";
    case NodeKind::kScaleUpSwitch: return "scale-up switch";
    case NodeKind::kSwitch: return "switch";
    case NodeKind::kStorage: return "storage";
  }
  return "?";
}

const char* to_string(LinkKind k) {
  switch (k) {
    case LinkKind::kScaleUp: return "scale-up";
    case LinkKind::kPcie: return "pcie";
    case LinkKind::kFabric: return "fabric";
    case LinkKind::kStorage: return "storage";
  }
  return "?";
}

NodeId Topology::add_node(NodeKind kind, uint8_t level) {
  ANATOMY_CHECK(!finalized_, "topology is already finalized");
  kind_.push_back(kind);
  level_.push_back(level);
  fabric_.push_back(kNoFabric);
  range_lo_.push_back(kNone32);
  range_hi_.push_back(kNone32);
  return static_cast<NodeId>(kind_.size() - 1);
}

LinkId Topology::add_link(NodeId from, NodeId to, Bandwidth bw, SimTime latency, LinkKind kind) {
  ANATOMY_CHECK(!finalized_, "topology is already finalized");
  ANATOMY_CHECK(from < kind_.size() && to < kind_.size() && from != to, "link endpoints must be distinct nodes");
  ANATOMY_CHECK(bw.bps() > 0, "a link needs a positive bandwidth");
  links_.push_back(Link{from, to, bw, latency, kind});
  return static_cast<LinkId>(links_.size() - 1);
}

LinkId Topology::add_cable(NodeId a, NodeId b, Bandwidth bw, SimTime latency, LinkKind kind) {
  LinkId fwd = add_link(a, b, bw, latency, kind);
  add_link(b, a, bw, latency, kind);
  return fwd;
}

uint32_t Topology::add_domain(Domain d) {
  domains_.push_back(std::move(d));
  return static_cast<uint32_t>(domains_.size() - 1);
}

uint32_t Topology::add_gpu(NodeId node, uint32_t domain, uint32_t host) {
  ANATOMY_CHECK(kind_[node] == NodeKind::kGpu, "add_gpu needs a GPU node");
  gpu_node_.push_back(node);
  gpu_domain_.push_back(domain);
  gpu_host_.push_back(host);
  gpu_nic_.push_back({});
  gpu_hostlink_.push_back({});
  return static_cast<uint32_t>(gpu_node_.size() - 1);
}

uint32_t Topology::add_host(NodeId node) {
  host_node_.push_back(node);
  host_storage_nics_.emplace_back();
  return static_cast<uint32_t>(host_node_.size() - 1);
}

void Topology::attach_nic(uint32_t gpu, NodeId nic, LinkId gpu_to_nic, LinkId nic_to_gpu, uint32_t rail) {
  gpu_nic_[gpu] = GpuNic{nic, gpu_to_nic, nic_to_gpu, rail};
}

void Topology::add_storage_nic(uint32_t host, NodeId nic, LinkId host_to_nic, LinkId nic_to_host) {
  host_storage_nics_[host].push_back(StorageNic{nic, host_to_nic, nic_to_host});
}

void Topology::attach_host_gpu(uint32_t gpu, LinkId gpu_to_host, LinkId host_to_gpu) {
  gpu_hostlink_[gpu] = HostLinks{gpu_to_host, host_to_gpu};
}

void Topology::set_route_range(NodeId n, uint32_t lo, uint32_t hi) {
  range_lo_[n] = lo;
  range_hi_[n] = hi;
}

void Topology::set_fabric(NodeId n, uint8_t fabric) { fabric_[n] = fabric; }

void Topology::finalize() {
  ANATOMY_CHECK(!finalized_, "finalize() called twice");
  const size_t n = kind_.size();
  // Counting sort of links by source node, in three classes.
  std::vector<uint32_t> n_up(n, 0), n_down(n, 0), n_out(n, 0);
  auto is_up = [&](const Link& l) {
    return fabric_[l.from] != kNoFabric && fabric_[l.from] == fabric_[l.to] && level_[l.to] > level_[l.from];
  };
  auto is_down = [&](const Link& l) {
    return fabric_[l.from] != kNoFabric && fabric_[l.from] == fabric_[l.to] && level_[l.to] < level_[l.from];
  };
  for (const auto& l : links_) {
    ++n_out[l.from];
    if (is_up(l)) ++n_up[l.from];
    if (is_down(l)) ++n_down[l.from];
  }
  auto prefix = [n](const std::vector<uint32_t>& counts, std::vector<uint32_t>& begin) {
    begin.assign(n + 1, 0);
    for (size_t i = 0; i < n; ++i) begin[i + 1] = begin[i] + counts[i];
  };
  prefix(n_up, up_begin_);
  prefix(n_down, down_begin_);
  prefix(n_out, out_begin_);
  up_.resize(up_begin_[n]);
  down_.resize(down_begin_[n]);
  out_.resize(out_begin_[n]);
  std::vector<uint32_t> fill_up(up_begin_.begin(), up_begin_.end() - 1);
  std::vector<uint32_t> fill_down(down_begin_.begin(), down_begin_.end() - 1);
  std::vector<uint32_t> fill_out(out_begin_.begin(), out_begin_.end() - 1);
  for (LinkId id = 0; id < links_.size(); ++id) {
    const Link& l = links_[id];
    out_[fill_out[l.from]++] = id;
    if (is_up(l)) up_[fill_up[l.from]++] = id;
    if (is_down(l)) down_[fill_down[l.from]++] = id;
  }
  for (NodeId v = 0; v < n; ++v) {
    auto first = down_.begin() + down_begin_[v];
    auto last = down_.begin() + down_begin_[v + 1];
    std::stable_sort(first, last, [&](LinkId a, LinkId b) { return range_lo_[links_[a].to] < range_lo_[links_[b].to]; });
  }
  node_to_gpu_.assign(n, kNone32);
  for (uint32_t g = 0; g < gpu_node_.size(); ++g) node_to_gpu_[gpu_node_[g]] = g;
  node_to_host_.assign(n, kNone32);
  for (uint32_t h = 0; h < host_node_.size(); ++h) node_to_host_[host_node_[h]] = h;
  gpu_su_up_.assign(gpu_node_.size(), kNoLink);
  gpu_su_down_.assign(gpu_node_.size(), kNoLink);
  finalized_ = true;
  for (uint32_t g = 0; g < gpu_node_.size(); ++g) {
    const Domain& d = domains_[gpu_domain_[g]];
    if (d.kind != DomainKind::kSwitch || d.num_gpus < 2) continue;
    gpu_su_up_[g] = find_link(gpu_node_[g], d.switch_node);
    gpu_su_down_[g] = find_link(d.switch_node, gpu_node_[g]);
    ANATOMY_CHECK(gpu_su_up_[g] != kNoLink && gpu_su_down_[g] != kNoLink, "GPU is not cabled to its scale-up switch");
  }
}

void Topology::scale_link_bandwidth(LinkId l, double factor) {
  ANATOMY_CHECK(factor > 0, "a link keeps some bandwidth (use a small factor for an outage)");
  links_[l].bandwidth = links_[l].bandwidth * factor;
}

void Topology::set_link_bandwidth(LinkId l, Bandwidth bandwidth) {
  ANATOMY_CHECK(bandwidth.bps() > 0, "a link keeps some bandwidth (use a small one for an outage)");
  links_[l].bandwidth = bandwidth;
}

void Topology::set_link_latency(LinkId l, SimTime latency) {
  ANATOMY_CHECK(latency >= SimTime::zero(), "a link's latency is not negative");
  links_[l].latency = latency;
}

std::span<const LinkId> Topology::out_links(NodeId n) const {
  return {out_.data() + out_begin_[n], out_begin_[n + 1] - out_begin_[n]};
}

uint32_t Topology::gpu_index(NodeId n) const { return n < node_to_gpu_.size() ? node_to_gpu_[n] : kNone32; }

LinkId Topology::find_link(NodeId a, NodeId b) const {
  for (LinkId l : out_links(a))
    if (links_[l].to == b) return l;
  return kNoLink;
}

void Topology::route_in_domain(uint32_t s, uint32_t d, std::vector<LinkId>& out) const {
  const Domain& dom = domains_[gpu_domain_[s]];
  switch (dom.kind) {
    case DomainKind::kSwitch:
      out.push_back(gpu_su_up_[s]);
      out.push_back(gpu_su_down_[d]);
      return;
    case DomainKind::kMesh: {
      LinkId l = find_link(gpu_node_[s], gpu_node_[d]);
      ANATOMY_CHECK(l != kNoLink, "mesh domain lacks a direct link");
      out.push_back(l);
      return;
    }
    case DomainKind::kTorus: {
      // Dimension-ordered: fix dimension 0 first, each the shorter way round
      // (ties go the positive way), as torus routers commonly do.
      uint32_t cur = s - dom.first_gpu;
      const uint32_t dst = d - dom.first_gpu;
      uint32_t stride = 1;
      for (uint32_t size : dom.dims) {
        const uint32_t c = (cur / stride) % size;
        const uint32_t t = (dst / stride) % size;
        const uint32_t fwd = (t + size - c) % size;
        const bool positive = fwd <= size - fwd;
        const uint32_t hops = positive ? fwd : size - fwd;
        for (uint32_t h = 0; h < hops; ++h) {
          const uint32_t coord = (cur / stride) % size;
          const uint32_t next_coord = positive ? (coord + 1) % size : (coord + size - 1) % size;
          const uint32_t next = cur - coord * stride + next_coord * stride;
          LinkId l = find_link(gpu_node_[dom.first_gpu + cur], gpu_node_[dom.first_gpu + next]);
          ANATOMY_CHECK(l != kNoLink, "torus neighbours are not linked");
          out.push_back(l);
          cur = next;
        }
        stride *= size;
      }
      return;
    }
  }
}

std::span<const LinkId> Topology::down_towards(NodeId v, uint32_t rid) const {
  // Down links are sorted by their child's range: the candidates are the
  // links to the last child whose range starts at or before rid (parallel
  // links share a child), if that range holds rid.
  const auto b = down_.begin() + down_begin_[v], e = down_.begin() + down_begin_[v + 1];
  auto last = std::upper_bound(b, e, rid, [&](uint32_t r, LinkId l) { return r < range_lo_[links_[l].to]; });
  if (last == b || range_hi_[links_[*(last - 1)].to] <= rid) return {};
  const uint32_t lo = range_lo_[links_[*(last - 1)].to];
  auto first = last - 1;
  while (first != b && range_lo_[links_[*(first - 1)].to] == lo) --first;
  return {&*first, static_cast<size_t>(last - first)};
}

void Topology::route_fabric(NodeId src, NodeId dst, uint64_t flow_hash, std::vector<LinkId>& out) const {
  const uint32_t rid = range_lo_[dst];
  NodeId cur = src;
  int climb = 0;
  while (!covers(cur, rid)) {
    const uint32_t b = up_begin_[cur], e = up_begin_[cur + 1];
    if (b == e) throw std::logic_error(fmt::format("no up link from node {} towards endpoint {}", cur, dst));
    // Each tier hashes independently, as each switch's ECMP does.
    const LinkId l = up_[b + core::mix64(flow_hash + 0x51ed27 * static_cast<uint64_t>(++climb)) % (e - b)];
    out.push_back(l);
    cur = links_[l].to;
  }
  while (cur != dst) {
    const std::span<const LinkId> down = down_towards(cur, rid);
    if (down.empty()) throw std::logic_error(fmt::format("no down link from node {} towards endpoint {}", cur, dst));
    const auto n = static_cast<uint64_t>(down.size());
    const LinkId l = n == 1 ? down[0] : down[core::mix64(flow_hash ^ 0xd0e5) % n];
    out.push_back(l);
    cur = links_[l].to;
  }
}

Topology::Attachment Topology::attach(NodeId n, uint8_t fabric, uint64_t flow_hash, bool outbound) const {
  Attachment a;
  if (fabric_[n] == fabric) {
    a.endpoint = n;
    return a;
  }
  const uint32_t g = gpu_index(n);
  if (g != kNone32 && gpu_nic_[g].nic != kNoNode && fabric_[gpu_nic_[g].nic] == fabric) {
    a.endpoint = gpu_nic_[g].nic;
    a.hops[0] = outbound ? gpu_nic_[g].up : gpu_nic_[g].down;
    return a;
  }
  // Through host memory and one of the host's storage NICs.
  const uint32_t h = g != kNone32 ? gpu_host_[g] : (n < node_to_host_.size() ? node_to_host_[n] : kNone32);
  if (h == kNone32 || host_storage_nics_[h].empty())
    throw std::logic_error(fmt::format("node {} has no way onto fabric {}", n, fabric));
  const auto& nics = host_storage_nics_[h];
  const StorageNic& s = nics[core::mix64(flow_hash ^ 0x5709) % nics.size()];
  if (fabric_[s.nic] != fabric) throw std::logic_error(fmt::format("node {} has no NIC on fabric {}", n, fabric));
  a.endpoint = s.nic;
  if (g == kNone32) {
    a.hops[0] = outbound ? s.up : s.down;
  } else if (outbound) {  // GPU -> host -> NIC
    a.hops[0] = gpu_hostlink_[g].up;
    a.hops[1] = s.up;
  } else {  // NIC -> host -> GPU
    a.hops[0] = s.down;
    a.hops[1] = gpu_hostlink_[g].down;
  }
  return a;
}

void Topology::route(NodeId src, NodeId dst, uint64_t flow_hash, std::vector<LinkId>& out) const {
  ANATOMY_CHECK(finalized_, "route() on an unfinalized topology");
  if (src == dst) return;
  const uint32_t sg = gpu_index(src);
  const uint32_t dg = gpu_index(dst);
  if (sg != kNone32 && kind_[dst] == NodeKind::kScaleUpSwitch && domains_[gpu_domain_[sg]].switch_node == dst) {
    out.push_back(gpu_su_up_[sg]);  // into the domain's switch (NVLS reductions)
    return;
  }
  if (dg != kNone32 && kind_[src] == NodeKind::kScaleUpSwitch && domains_[gpu_domain_[dg]].switch_node == src) {
    out.push_back(gpu_su_down_[dg]);
    return;
  }
  if (sg != kNone32 && dg != kNone32) {
    if (gpu_domain_[sg] == gpu_domain_[dg]) {
      route_in_domain(sg, dg, out);
      return;
    }
    if (pxn && gpu_nic_[sg].rail != gpu_nic_[dg].rail) {
      // PXN: hand the data to the local GPU on the destination's rail.
      const Domain& dom = domains_[gpu_domain_[sg]];
      for (uint32_t p = dom.first_gpu; p < dom.first_gpu + dom.num_gpus; ++p) {
        if (gpu_host_[p] == gpu_host_[sg] && gpu_nic_[p].rail == gpu_nic_[dg].rail) {
          route_in_domain(sg, p, out);
          src = gpu_node_[p];
          break;
        }
      }
    }
  } else if (sg != kNone32 && node_to_host_[dst] != kNone32 && node_to_host_[dst] == gpu_host_[sg]) {
    out.push_back(gpu_hostlink_[sg].up);  // GPU -> its own host's memory
    return;
  } else if (dg != kNone32 && node_to_host_[src] != kNone32 && node_to_host_[src] == gpu_host_[dg]) {
    out.push_back(gpu_hostlink_[dg].down);
    return;
  }
  // The destination's fabric, else the source's: a GPU writing to storage
  // on the scale-out fabric leaves through its own NIC.
  uint8_t fabric = fabric_[dst] != kNoFabric ? fabric_[dst] : fabric_[src];
  if (fabric == kNoFabric) fabric = 0;
  const Attachment a = attach(src, fabric, flow_hash, true);
  const Attachment b = attach(dst, fabric, flow_hash, false);
  for (LinkId l : a.hops)
    if (l != kNoLink) out.push_back(l);
  route_fabric(a.endpoint, b.endpoint, flow_hash, out);
  for (LinkId l : b.hops)
    if (l != kNoLink) out.push_back(l);
}

std::vector<std::vector<LinkId>> Topology::fabric_paths(NodeId src, NodeId dst) const {
  std::vector<std::vector<LinkId>> paths;
  for_each_fabric_path(src, dst, [&](std::span<const LinkId> p) {
    paths.emplace_back(p.begin(), p.end());
    return true;
  });
  return paths;
}

void Topology::for_each_fabric_path(NodeId src, NodeId dst,
                                    const std::function<bool(std::span<const LinkId>)>& visit) const {
  // Depth-first over every up-link choice; the descent is unique per choice
  // of parallel links, which we also enumerate (those route() chooses among).
  std::vector<LinkId> cur;
  bool more = true;
  const uint32_t rid = range_lo_[dst];
  auto descend = [&](auto&& self, NodeId v) -> void {
    if (v == dst) {
      more = visit(cur);
      return;
    }
    for (const LinkId l : down_towards(v, rid)) {
      if (!more) break;
      cur.push_back(l);
      self(self, links_[l].to);
      cur.pop_back();
    }
  };
  auto climb = [&](auto&& self, NodeId v) -> void {
    if (covers(v, rid)) {
      descend(descend, v);
      return;
    }
    for (uint32_t i = up_begin_[v]; more && i < up_begin_[v + 1]; ++i) {
      cur.push_back(up_[i]);
      self(self, links_[up_[i]].to);
      cur.pop_back();
    }
  };
  climb(climb, src);
}

size_t Topology::memory_bytes() const {
  auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
  size_t total = bytes(kind_) + bytes(level_) + bytes(fabric_) + bytes(range_lo_) + bytes(range_hi_) +
                 bytes(links_) + bytes(up_begin_) + bytes(down_begin_) + bytes(out_begin_) + bytes(up_) +
                 bytes(down_) + bytes(out_) + bytes(gpu_node_) + bytes(gpu_domain_) + bytes(gpu_host_) +
                 bytes(gpu_nic_) + bytes(gpu_hostlink_) + bytes(host_node_) + bytes(node_to_gpu_) +
                 bytes(node_to_host_) + bytes(gpu_su_up_) + bytes(gpu_su_down_) + bytes(storage_);
  for (const auto& d : domains_) total += sizeof(d) + bytes(d.dims);
  for (const auto& h : host_storage_nics_) total += sizeof(h) + bytes(h);
  return total;
}

}  // namespace anatomy::topo
