#pragma once
// Topology: the cluster as a graph of nodes and directed links, plus the
// routing that maps a (source, destination, flow hash) to a path.
//
// Nodes are GPUs, hosts (CPU memory), NICs, scale-up switches, fabric
// switches and storage servers. Every physical cable is two directed links,
// each with its own bandwidth (per direction) and one-way latency
// (propagation plus the forwarding delay of the node it enters).
//
// Routing has two parts:
//  * inside a scale-up domain (NVSwitch node, NVL72 rack, Infinity Fabric
//    mesh, ring/torus): through the domain's switch, over the direct mesh
//    link, or dimension-ordered around the torus;
//  * across a fabric (the scale-out Clos/fat-tree, or a storage fabric):
//    up*/down* routing on a leveled multi-rooted tree. Each fabric endpoint
//    (NIC or storage port) has a route id, and each switch covers a
//    contiguous range of them; a packet climbs, choosing among equal-cost
//    uplinks by the flow hash (ECMP), until it reaches a switch whose range
//    holds the destination, then descends deterministically. Builders
//    number endpoints so every switch's range is contiguous.
//
// A GPU reaches the fabric through its NIC; when the destination NIC is on
// another rail, NCCL's PXN forwards over the scale-up domain to the local
// GPU on the destination's rail first, which keeps rail-optimized traffic
// under one leaf. RCCL leaves PXN off by default, so its cross-rail traffic
// climbs the fabric from the sender's own NIC. Storage traffic goes GPU ->
// host memory -> storage NIC.
//
// A Topology is immutable once built and may be shared across runs.
//
//   Topology t = build_cluster(spec);
//   std::vector<LinkId> path;
//   t.route(t.gpu_node(0), t.gpu_node(9), /*flow_hash=*/17, path);

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/units.h"

namespace anatomy::topo {

using core::Bandwidth;
using core::Bytes;
using core::SimTime;

using NodeId = uint32_t;
using LinkId = uint32_t;
inline constexpr NodeId kNoNode = UINT32_MAX;
inline constexpr LinkId kNoLink = UINT32_MAX;

enum class NodeKind : uint8_t { kGpu, kHost, kNic, kScaleUpSwitch, kSwitch, kStorage };
enum class LinkKind : uint8_t { kScaleUp, kPcie, kFabric, kStorage };

const char* to_string(NodeKind k);
const char* to_string(LinkKind k);

struct Link {
  NodeId from = kNoNode;
  NodeId to = kNoNode;
  Bandwidth bandwidth;  // per direction
  SimTime latency;      // one way: propagation + forwarding at `to`
  LinkKind kind = LinkKind::kFabric;
};

// How the scale-out and storage fabrics frame data: payload bytes per
// packet (the MTU) and the bytes each packet adds on the wire. RoCEv2 at a
// 4 KiB MTU adds 82 B (preamble 8, Ethernet 14 + FCS 4, inter-frame gap 12,
// IPv4 20, UDP 8, BTH 12, ICRC 4). Fabric links carry payload bandwidth,
// line rate x mtu / (mtu + overhead); the packet backend sends packets of
// this MTU and recovers the line rate the same way, so both read this one
// record of the built topology and cannot disagree.
struct Framing {
  int mtu_bytes = 4096;
  int overhead_bytes = 82;
  double payload_efficiency() const { return static_cast<double>(mtu_bytes) / (mtu_bytes + overhead_bytes); }
};

enum class DomainKind : uint8_t { kSwitch, kMesh, kTorus };

// A scale-up domain: the GPUs that talk without the scale-out fabric.
struct Domain {
  DomainKind kind = DomainKind::kSwitch;
  uint32_t first_gpu = 0;  // GPUs of a domain are numbered contiguously
  uint32_t num_gpus = 0;
  NodeId switch_node = kNoNode;  // kSwitch
  std::vector<uint32_t> dims;    // kTorus: sizes per dimension (product = num_gpus)
  bool in_network_reduction = false;
};

class Topology {
 public:
  // --- building (used by the builders in this folder) ---
  NodeId add_node(NodeKind kind, uint8_t level = 0);
  LinkId add_link(NodeId from, NodeId to, Bandwidth bw, SimTime latency, LinkKind kind);
  // Two directed links; returns the forward one (the reverse is forward + 1).
  LinkId add_cable(NodeId a, NodeId b, Bandwidth bw, SimTime latency, LinkKind kind);
  uint32_t add_domain(Domain d);
  // Declares GPU `node` (GPU index = order of calls) in `domain`, on `host`.
  uint32_t add_gpu(NodeId node, uint32_t domain, uint32_t host);
  uint32_t add_host(NodeId node);
  // Attaches a NIC to a GPU: GPU<->NIC links and the rail number.
  void attach_nic(uint32_t gpu, NodeId nic, LinkId gpu_to_nic, LinkId nic_to_gpu, uint32_t rail);
  void add_storage_nic(uint32_t host, NodeId nic, LinkId host_to_nic, LinkId nic_to_host);
  void attach_host_gpu(uint32_t gpu, LinkId gpu_to_host, LinkId host_to_gpu);
  // Fabric structure: an endpoint's route id, a switch's covered range, and
  // which fabric a node belongs to (0 = scale-out, 1 = storage).
  void set_route_range(NodeId n, uint32_t lo, uint32_t hi);
  void set_fabric(NodeId n, uint8_t fabric);
  // Sorts adjacency for routing; call once when every link is added.
  void finalize();
  // What-if analyses (a degraded or failed link): scale one link's
  // bandwidth on a copy of a built topology. Routing is unchanged.
  void scale_link_bandwidth(LinkId l, double factor);
  // ... and set it back exactly (a copy reused for many what-ifs).
  void set_link_bandwidth(LinkId l, Bandwidth bandwidth);
  // Per-link latency (a topology read from a file that gives each tier's
  // cable and switch delay): one way, propagation plus forwarding at `to`.
  void set_link_latency(LinkId l, SimTime latency);

  // --- structure ---
  size_t num_nodes() const { return kind_.size(); }
  size_t num_links() const { return links_.size(); }
  NodeKind kind(NodeId n) const { return kind_[n]; }
  uint8_t level(NodeId n) const { return level_[n]; }
  const Link& link(LinkId l) const { return links_[l]; }
  std::span<const Link> links() const { return links_; }
  std::span<const LinkId> out_links(NodeId n) const;
  // The same out-links, every node's after the last's: node n's k-th is
  // out_link(out_begin(n) + k) (a packet's compact route names links so).
  uint32_t out_begin(NodeId n) const { return out_begin_[n]; }
  LinkId out_link(uint32_t i) const { return out_[i]; }

  // Which fabric a node is on: 0 the scale-out fabric, 1 a separate storage
  // fabric, 255 none (GPUs, hosts, scale-up switches).
  uint8_t fabric_of(NodeId n) const { return fabric_[n]; }

  uint32_t num_gpus() const { return static_cast<uint32_t>(gpu_node_.size()); }
  NodeId gpu_node(uint32_t gpu) const { return gpu_node_[gpu]; }
  // GPU index of a GPU node, or UINT32_MAX.
  uint32_t gpu_index(NodeId n) const;
  uint32_t domain_of(uint32_t gpu) const { return gpu_domain_[gpu]; }
  uint32_t host_of(uint32_t gpu) const { return gpu_host_[gpu]; }
  const Domain& domain(uint32_t d) const { return domains_[d]; }
  uint32_t num_domains() const { return static_cast<uint32_t>(domains_.size()); }
  uint32_t num_hosts() const { return static_cast<uint32_t>(host_node_.size()); }
  NodeId host_node(uint32_t h) const { return host_node_[h]; }
  // The GPU's scale-out NIC (kNoNode when it has none) and its rail.
  NodeId nic_of(uint32_t gpu) const { return gpu_nic_[gpu].nic; }
  uint32_t rail_of(uint32_t gpu) const { return gpu_nic_[gpu].rail; }
  const std::vector<NodeId>& storage_nodes() const { return storage_; }
  void add_storage_node(NodeId n) { storage_.push_back(n); }

  std::string name;         // e.g. "rail-clos 2-tier, 128 hosts"
  std::string description;  // multi-line summary for reports

  // --- routing ---
  // Appends the links from src to dst (GPU, host or storage nodes) to `out`.
  // Equal-cost choices are made by `flow_hash`. Throws std::logic_error if
  // no route exists (a builder bug, not user input).
  void route(NodeId src, NodeId dst, uint64_t flow_hash, std::vector<LinkId>& out) const;
  // Every equal-cost fabric path between two fabric endpoints (for tests
  // and for spraying); a path is a list of links.
  std::vector<std::vector<LinkId>> fabric_paths(NodeId src_endpoint, NodeId dst_endpoint) const;
  // The same paths in the same order, each shown to `visit` in a buffer
  // reused for the next (no allocation per path: a k = 32 fat tree has 256
  // between two hosts); `visit` returns false to stop.
  void for_each_fabric_path(NodeId src_endpoint, NodeId dst_endpoint,
                            const std::function<bool(std::span<const LinkId>)>& visit) const;
  // The direct link from a to b, or kNoLink.
  LinkId find_link(NodeId a, NodeId b) const;
  // Names a person recognises, for reports and traces (labels.cc): "host 3
  // gpu 2", "host 3 nic 2" (its rail), "host 3 storage nic 0", "leaf 5",
  // "spine 12", "core 1" (numbered within their tier; "storage leaf 0" on a
  // storage fabric), "scale-up switch of domain 4", "storage server 7".
  // Each call scans the topology: for the few nodes a report names.
  std::string node_label(NodeId n) const;
  // A link by its ends and its switch port: "host 3 nic 2 -> leaf 5 port 3",
  // "leaf 5 port 17 -> spine 2" (ports numbered from 1 in the order the
  // switch's links were built), "host 3 gpu 2 -> host 3 nic 2".
  std::string link_label(LinkId l) const;
  // Bytes of memory the structure uses (for the scale benchmark).
  size_t memory_bytes() const;

  Framing framing;  // of the fabric links (kFabric, kStorage): what their bandwidth was derated by
  bool pxn = true;  // NCCL PXN: cross-rail traffic hops to the peer GPU on the destination's rail (RCCL: off)

 private:
  struct GpuNic {
    NodeId nic = kNoNode;
    LinkId up = kNoLink;    // GPU -> NIC
    LinkId down = kNoLink;  // NIC -> GPU
    uint32_t rail = 0;
  };
  struct HostLinks {
    LinkId up = kNoLink;    // GPU -> host
    LinkId down = kNoLink;  // host -> GPU
  };
  struct StorageNic {
    NodeId nic = kNoNode;
    LinkId up = kNoLink;
    LinkId down = kNoLink;
  };

  void route_in_domain(uint32_t src_gpu, uint32_t dst_gpu, std::vector<LinkId>& out) const;
  void route_fabric(NodeId src, NodeId dst, uint64_t flow_hash, std::vector<LinkId>& out) const;
  // The fabric endpoint through which node `n` reaches fabric `fabric`, and
  // the (at most two) links between them, in the direction n -> endpoint.
  struct Attachment {
    NodeId endpoint = kNoNode;
    LinkId hops[2] = {kNoLink, kNoLink};
  };
  Attachment attach(NodeId n, uint8_t fabric, uint64_t flow_hash, bool outbound) const;
  bool covers(NodeId n, uint32_t rid) const { return range_lo_[n] <= rid && rid < range_hi_[n]; }
  // The down links from v that lead towards route id rid (parallel links to one child); empty if none.
  std::span<const LinkId> down_towards(NodeId v, uint32_t rid) const;

  std::vector<NodeKind> kind_;
  std::vector<uint8_t> level_;
  std::vector<uint8_t> fabric_;
  std::vector<uint32_t> range_lo_, range_hi_;
  std::vector<Link> links_;
  // CSR adjacency built by finalize(): up links (to a higher level) and
  // down links (sorted by the child's range), then all out links.
  std::vector<uint32_t> up_begin_, down_begin_, out_begin_;
  std::vector<LinkId> up_, down_, out_;

  std::vector<NodeId> gpu_node_;
  std::vector<uint32_t> gpu_domain_, gpu_host_;
  std::vector<GpuNic> gpu_nic_;
  std::vector<HostLinks> gpu_hostlink_;
  std::vector<Domain> domains_;
  std::vector<NodeId> host_node_;
  std::vector<std::vector<StorageNic>> host_storage_nics_;
  std::vector<uint32_t> node_to_gpu_;  // built by finalize()
  std::vector<uint32_t> node_to_host_;
  std::vector<LinkId> gpu_su_up_, gpu_su_down_;  // GPU <-> scale-up switch, for kSwitch domains
  std::vector<NodeId> storage_;
  bool finalized_ = false;
};

}  // namespace anatomy::topo
