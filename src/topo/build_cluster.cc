#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "topo/builders.h"
#include "topo/clos.h"

namespace anatomy::topo {
namespace {

using core::InputError;

int ceil_div(int a, int b) { return (a + b - 1) / b; }

// Ports of a 51.2 Tb/s switch ASIC at this port speed (Tomahawk 5,
// Spectrum-4: 64 x 800G or 128 x 400G), clamped to 32..128.
int default_radix(Bandwidth port) {
  const int r = static_cast<int>(51.2e12 / port.bps());
  return std::clamp(r, 32, 128);
}

void check_fabric(const FabricSpec& f) {
  if (f.tiers != 0 && f.tiers != 2 && f.tiers != 3)
    throw InputError({"", 0, "fabric.tiers"}, fmt::format("must be 2 or 3 (or 0 for automatic), not {}", f.tiers));
  if (f.radix != 0 && f.radix < 4) throw InputError({"", 0, "fabric.radix"}, "must be at least 4");
  if (!(f.oversubscription >= 1.0)) throw InputError({"", 0, "fabric.oversubscription"}, "must be >= 1 (down:up ratio)");
  if (!(f.spine_oversubscription >= 1.0))
    throw InputError({"", 0, "fabric.spine_oversubscription"}, "must be >= 1 (down:up ratio)");
  if (f.planes < 1 || f.planes > 8) throw InputError({"", 0, "fabric.planes"}, "must be 1 to 8");
  if (f.nic_speed.bps() < 0) throw InputError({"", 0, "fabric.nic_speed"}, "must be positive");
  if (f.link_speed.bps() < 0) throw InputError({"", 0, "fabric.link_speed"}, "must be positive");
}

}  // namespace

FabricShape fabric_shape(const FabricSpec& f, int hosts, int nics_per_host, Bandwidth port_speed) {
  FabricShape s;
  s.radix = f.radix > 0 ? f.radix : default_radix(port_speed);
  s.leaf_up = std::max(1, static_cast<int>(std::ceil(s.radix / (1.0 + f.oversubscription))));
  s.leaf_down = s.radix - s.leaf_up;
  if (f.rail_optimized) {
    s.hosts_per_unit = s.leaf_down;
  } else {
    s.hosts_per_unit = s.leaf_down / nics_per_host;
    if (s.hosts_per_unit < 1)
      throw InputError({"", 0, "fabric.radix"}, fmt::format("a leaf with {} down ports cannot take a host's {} NICs",
                                                            s.leaf_down, nics_per_host));
  }
  const int units = ceil_div(hosts, s.hosts_per_unit);
  s.leaves = units * (f.rail_optimized ? nics_per_host : 1);
  return s;
}

Topology build_cluster(const ClusterSpec& spec) {
  const hw::System& sys = spec.system;
  if (spec.gpus < 1) throw InputError({"", 0, "gpus"}, "must be at least 1");
  if (spec.gpus > 1'048'576) throw InputError({"", 0, "gpus"}, "must be at most 1,048,576");
  check_fabric(spec.fabric);
  const int G = sys.gpus_per_host;
  const int R = sys.nics_per_host;
  const int D = sys.scaleup.domain_gpus;
  if (R > G || G % R != 0)
    throw InputError({"", 0, "system.nics_per_host"}, fmt::format("{} NICs per host do not divide {} GPUs", R, G));
  const int hosts = ceil_div(spec.gpus, G);
  const bool scale_out = hosts > 1;

  Topology t;
  t.name = fmt::format("{} x{}", sys.name, spec.gpus);

  // Hosts, GPUs and scale-up domains.
  std::vector<NodeId> host_node(hosts);
  for (int h = 0; h < hosts; ++h) {
    host_node[h] = t.add_node(NodeKind::kHost);
    t.add_host(host_node[h]);
  }
  const int domains = ceil_div(spec.gpus, D);
  std::vector<NodeId> gpu(spec.gpus);
  for (int d = 0; d < domains; ++d) {
    Domain dom;
    dom.kind = sys.scaleup.kind == hw::ScaleUpKind::kMesh ? DomainKind::kMesh : DomainKind::kSwitch;
    dom.first_gpu = static_cast<uint32_t>(d * D);
    dom.num_gpus = static_cast<uint32_t>(std::min(D, spec.gpus - d * D));
    dom.in_network_reduction = sys.scaleup.in_network_reduction;
    if (dom.kind == DomainKind::kSwitch && dom.num_gpus > 1) dom.switch_node = t.add_node(NodeKind::kScaleUpSwitch);
    const uint32_t di = t.add_domain(dom);
    for (uint32_t i = 0; i < dom.num_gpus; ++i) {
      const int g = static_cast<int>(dom.first_gpu + i);
      gpu[g] = t.add_node(NodeKind::kGpu);
      t.add_gpu(gpu[g], di, static_cast<uint32_t>(g / G));
      const LinkId up = t.add_cable(gpu[g], host_node[g / G], sys.host_link.per_direction, SimTime::ns(500), LinkKind::kPcie);
      t.attach_host_gpu(static_cast<uint32_t>(g), up, up + 1);
      if (dom.kind == DomainKind::kSwitch && dom.num_gpus > 1)
        t.add_cable(gpu[g], dom.switch_node, sys.scaleup.per_gpu * sys.scaleup.payload_efficiency,
                    sys.scaleup.hop_latency / 2, LinkKind::kScaleUp);
    }
    if (dom.kind == DomainKind::kMesh)
      for (uint32_t i = 0; i < dom.num_gpus; ++i)
        for (uint32_t j = i + 1; j < dom.num_gpus; ++j)
          t.add_cable(gpu[dom.first_gpu + i], gpu[dom.first_gpu + j],
                      sys.scaleup.per_link * sys.scaleup.payload_efficiency, sys.scaleup.hop_latency,
                      LinkKind::kScaleUp);
  }

  const FabricSpec& f = spec.fabric;
  const Bandwidth nic_speed = f.nic_speed.bps() > 0 ? f.nic_speed : sys.nic_speed;
  const double fabric_eff = f.framing.payload_efficiency();
  t.framing = f.framing;
  const Bandwidth port_speed = nic_speed / f.planes;
  std::vector<detail::LeafGroup> groups;
  FabricShape shape;
  if (scale_out) {
    shape = fabric_shape(f, hosts, R, port_speed);
    // NICs, one per rail per host; GPUs share a NIC when there are fewer.
    std::vector<NodeId> nic(static_cast<size_t>(hosts) * R);
    for (int h = 0; h < hosts; ++h)
      for (int r = 0; r < R; ++r) nic[static_cast<size_t>(h) * R + r] = t.add_node(NodeKind::kNic);
    for (int g = 0; g < spec.gpus; ++g) {
      const int h = g / G, local = g % G, r = local * R / G;
      const NodeId n = nic[static_cast<size_t>(h) * R + r];
      const LinkId up = t.add_cable(gpu[g], n, sys.gpu_nic_link.per_direction, sys.nic_latency, LinkKind::kPcie);
      t.attach_nic(static_cast<uint32_t>(g), n, up, up + 1, static_cast<uint32_t>(r));
    }
    const int hpu = shape.hosts_per_unit;
    for (int u = 0; u * hpu < hosts; ++u) {
      const int h0 = u * hpu, h1 = std::min(hosts, h0 + hpu);
      if (f.rail_optimized) {
        for (int r = 0; r < R; ++r) {
          detail::LeafGroup lg{{}, u};
          for (int h = h0; h < h1; ++h) lg.endpoints.push_back(nic[static_cast<size_t>(h) * R + r]);
          groups.push_back(std::move(lg));
        }
      } else {
        detail::LeafGroup lg{{}, u};
        for (int h = h0; h < h1; ++h)
          for (int r = 0; r < R; ++r) lg.endpoints.push_back(nic[static_cast<size_t>(h) * R + r]);
        groups.push_back(std::move(lg));
      }
    }
  }

  // Storage servers: on the scale-out fabric (own leaves, appended) or on a
  // separate two- or three-tier storage fabric with the hosts' storage NICs.
  const StorageSpec& st = spec.storage;
  if (st.servers < 0) throw InputError({"", 0, "storage.servers"}, "must not be negative");
  if (st.servers > 0 && st.nics_per_server < 1) throw InputError({"", 0, "storage.nics_per_server"}, "must be >= 1");
  std::vector<NodeId> servers;
  for (int s = 0; s < st.servers; ++s) {
    servers.push_back(t.add_node(NodeKind::kStorage));
    t.add_storage_node(servers.back());
  }
  // Each storage server is one endpoint with nics_per_server links to its leaf.
  auto storage_groups = [&](int leaf_down, int first_unit, int planes, std::vector<detail::LeafGroup>& out) {
    const int per_leaf = std::max(1, leaf_down / st.nics_per_server);
    for (int s = 0; s < st.servers; s += per_leaf) {
      detail::LeafGroup lg{{}, first_unit + s / per_leaf, st.nics_per_server, st.nic_speed / planes * fabric_eff};
      for (int k = s; k < std::min(st.servers, s + per_leaf); ++k) lg.endpoints.push_back(servers[k]);
      out.push_back(std::move(lg));
    }
  };

  if (scale_out || (st.servers > 0 && st.shared_with_compute)) {
    if (!scale_out) {
      throw InputError({"", 0, "storage.shared_with_compute"},
                       "a single host has no scale-out fabric to share: use a separate storage fabric");
    }
    detail::ClosParams p;
    p.radix = shape.radix;
    p.leaf_up = shape.leaf_up;
    p.leaves_per_pod = static_cast<int>(std::floor(p.radix * f.spine_oversubscription / (1.0 + f.spine_oversubscription)));
    p.spine_up = std::max(1, p.radix - p.leaves_per_pod);
    p.planes = f.planes;
    p.port_speed = port_speed * fabric_eff;
    p.link_speed = (f.link_speed.bps() > 0 ? f.link_speed : port_speed) * fabric_eff;
    p.switch_latency = f.switch_latency;
    p.cable_latency = f.cable_latency;
    if (st.servers > 0 && st.shared_with_compute)
      storage_groups(shape.leaf_down, groups.empty() ? 0 : groups.back().unit + 1, f.planes, groups);
    // Two tiers hold at most `radix` leaves (one spine port per leaf).
    p.tiers = f.tiers != 0 ? f.tiers : (static_cast<int>(groups.size()) <= shape.radix ? 2 : 3);
    if (f.rail_optimized && p.tiers == 3) {
      // A pod holds whole rail groups: a spine needs a port for each rail's leaf.
      if (p.leaves_per_pod < R)
        throw InputError({"", 0, "fabric.radix"},
                         fmt::format("a spine of radix {} has {} ports for leaves, fewer than a rail-optimized "
                                     "pod's {} rails: use a larger radix or rail_optimized: false",
                                     p.radix, p.leaves_per_pod, R));
      p.leaves_per_pod = p.leaves_per_pod / R * R;
      p.spine_up = std::max(1, p.radix - p.leaves_per_pod);
    }
    auto counts = detail::build_clos(t, 0, groups, p, "fabric");
    shape.tiers = p.tiers;
    shape.leaves = counts.leaves;
    shape.spines = counts.spines;
    shape.cores = counts.cores;
    shape.pods = counts.pods;
  }

  if (st.servers > 0 && !st.shared_with_compute) {
    const int sn = st.host_nics > 0 ? st.host_nics : std::max(1, sys.storage_nics_per_host);
    const Bandwidth speed = st.host_nic_speed.bps() > 0 ? st.host_nic_speed
                            : sys.storage_nic_speed.bps() > 0 ? sys.storage_nic_speed
                                                              : st.nic_speed;
    const int radix = default_radix(speed);
    const int leaf_up = radix / 2, leaf_down = radix - leaf_up;
    std::vector<detail::LeafGroup> sgroups;
    std::vector<NodeId> snic;
    for (int h = 0; h < hosts; ++h)
      for (int k = 0; k < sn; ++k) {
        NodeId n = t.add_node(NodeKind::kNic);
        const LinkId up = t.add_cable(host_node[h], n, sys.gpu_nic_link.per_direction, sys.nic_latency, LinkKind::kPcie);
        t.add_storage_nic(static_cast<uint32_t>(h), n, up, up + 1);
        snic.push_back(n);
      }
    for (size_t i = 0; i < snic.size(); i += leaf_down) {
      detail::LeafGroup lg{{}, static_cast<int>(i / leaf_down)};
      for (size_t k = i; k < std::min(snic.size(), i + leaf_down); ++k) lg.endpoints.push_back(snic[k]);
      sgroups.push_back(std::move(lg));
    }
    storage_groups(leaf_down, sgroups.empty() ? 0 : sgroups.back().unit + 1, 1, sgroups);
    detail::ClosParams p;
    p.radix = radix;
    p.leaf_up = leaf_up;
    p.tiers = static_cast<int>(sgroups.size()) <= radix ? 2 : 3;
    p.leaves_per_pod = radix / 2;
    p.spine_up = radix - p.leaves_per_pod;
    p.port_speed = speed * fabric_eff;
    p.link_speed = speed * fabric_eff;
    p.switch_latency = f.switch_latency;
    p.cable_latency = f.cable_latency;
    p.kind = LinkKind::kStorage;
    detail::build_clos(t, 1, sgroups, p, "storage");
  }

  // RCCL ships PXN off (graph/paths.cc: PXN_DISABLE defaults to 1): a send
  // to a peer on another rail leaves on the sender's own NIC.
  t.pxn = sys.gpu.arch.library == hw::CollectiveLibrary::kNccl;
  t.finalize();
  // A partial last domain is named: its few GPUs (and NICs) carry every
  // collective that spans the domains, so results hinge on it.
  const int last = spec.gpus - (domains - 1) * D;
  const std::string domain_text =
      last == D      ? fmt::format("{} scale-up domains of {}", domains, D)
      : domains == 1 ? fmt::format("{} GPUs of one scale-up domain of {}", last, D)
                     : fmt::format("{} scale-up domains of {} and one of {}", domains - 1, D, last);
  t.description =
      fmt::format("{} GPUs of {} ({}), {} hosts, {}", spec.gpus, sys.name, sys.gpu.part, hosts, domain_text);
  if (scale_out) {
    t.description += fmt::format("; {}-tier {}Clos, radix {}, {} leaves / {} spines / {} cores per plane, {} plane(s), "
                                 "{} per NIC, oversubscription {}:1",
                                 shape.tiers, f.rail_optimized ? "rail-optimized " : "", shape.radix, shape.leaves,
                                 shape.spines, shape.cores, f.planes, core::format_bandwidth(nic_speed),
                                 f.oversubscription);
  }
  if (st.servers > 0)
    t.description += fmt::format("; {} storage servers on {} fabric", st.servers,
                                 st.shared_with_compute ? "the compute" : "a separate");
  return t;
}

}  // namespace anatomy::topo
