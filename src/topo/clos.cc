#include "topo/clos.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"

namespace anatomy::topo::detail {
namespace {

int ceil_div(int a, int b) { return (a + b - 1) / b; }

}  // namespace

ClosCounts build_clos(Topology& t, uint8_t fabric, const std::vector<LeafGroup>& groups, const ClosParams& p,
                      const std::string& field) {
  ClosCounts c;
  const int leaf_down = p.radix - p.leaf_up;
  for (const auto& g : groups) {
    if (static_cast<int>(g.endpoints.size()) * g.links_per_endpoint > leaf_down)
      throw core::InputError({"", 0, field + ".radix"}, fmt::format("a leaf has {} down ports but {} endpoint links need one",
                                                         leaf_down, g.endpoints.size() * g.links_per_endpoint));
  }
  // Route ids in group order; each leaf covers its group's contiguous range.
  uint32_t rid = 0;
  std::vector<std::pair<uint32_t, uint32_t>> group_range;
  for (const auto& g : groups) {
    const uint32_t lo = rid;
    for (NodeId e : g.endpoints) {
      t.set_fabric(e, fabric);
      t.set_route_range(e, rid, rid + 1);
      ++rid;
    }
    group_range.emplace_back(lo, rid);
  }
  const uint32_t total = rid;
  c.leaves = static_cast<int>(groups.size());

  // Pods: whole units packed into at most leaves_per_pod leaves.
  std::vector<int> pod_of(groups.size(), 0);
  if (p.tiers == 3) {
    int pod = 0, in_pod = 0;
    for (size_t i = 0; i < groups.size();) {
      size_t j = i;
      while (j < groups.size() && groups[j].unit == groups[i].unit) ++j;
      const int unit_leaves = static_cast<int>(j - i);
      if (unit_leaves > p.leaves_per_pod)
        throw core::InputError({"", 0, field + ".radix"}, fmt::format("a scalable unit of {} leaves does not fit a pod of {}",
                                                           unit_leaves, p.leaves_per_pod));
      if (in_pod + unit_leaves > p.leaves_per_pod) {
        ++pod;
        in_pod = 0;
      }
      for (size_t k = i; k < j; ++k) pod_of[k] = pod;
      in_pod += unit_leaves;
      i = j;
    }
    c.pods = pod + 1;
  } else {
    c.pods = 1;
    if (c.leaves > p.radix)
      throw core::InputError({"", 0, field + ".tiers"},
                             fmt::format("2 tiers of radix {} hold at most {} leaves, this cluster needs {}: use 3 "
                                         "tiers or a larger radix",
                                         p.radix, p.radix, c.leaves));
  }

  for (int plane = 0; plane < p.planes; ++plane) {
    // Leaves and their endpoint cables.
    std::vector<NodeId> leaf(groups.size());
    for (size_t i = 0; i < groups.size(); ++i) {
      leaf[i] = t.add_node(NodeKind::kSwitch, 1);
      t.set_fabric(leaf[i], fabric);
      t.set_route_range(leaf[i], group_range[i].first, group_range[i].second);
      // A link's latency is its propagation plus the forwarding delay of the
      // node it enters, so only the endpoint->leaf direction pays a switch.
      const Bandwidth speed = groups[i].port_speed.bps() > 0 ? groups[i].port_speed : p.port_speed;
      for (NodeId e : groups[i].endpoints)
        for (int k = 0; k < groups[i].links_per_endpoint; ++k) {
          t.add_link(e, leaf[i], speed, p.cable_latency + p.switch_latency, p.kind);
          t.add_link(leaf[i], e, speed, p.cable_latency, p.kind);
        }
    }
    if (p.tiers == 2) {
      const int spines = std::max(1, ceil_div(c.leaves * p.leaf_up, p.radix));
      c.spines = spines;
      for (int s = 0; s < spines; ++s) {
        NodeId sp = t.add_node(NodeKind::kSwitch, 2);
        t.set_fabric(sp, fabric);
        t.set_route_range(sp, 0, total);
        for (size_t i = 0; i < groups.size(); ++i)
          for (int m = s; m < p.leaf_up; m += spines)
            t.add_cable(leaf[i], sp, p.link_speed, p.cable_latency + p.switch_latency, p.kind);
      }
      continue;
    }
    // Three tiers: leaf_up spines per pod, every pod leaf to every pod spine.
    std::vector<std::vector<NodeId>> spine(c.pods, std::vector<NodeId>(p.leaf_up));
    for (int pod = 0; pod < c.pods; ++pod) {
      uint32_t lo = UINT32_MAX, hi = 0;
      for (size_t i = 0; i < groups.size(); ++i)
        if (pod_of[i] == pod) {
          lo = std::min(lo, group_range[i].first);
          hi = std::max(hi, group_range[i].second);
        }
      for (int j = 0; j < p.leaf_up; ++j) {
        NodeId sp = t.add_node(NodeKind::kSwitch, 2);
        t.set_fabric(sp, fabric);
        t.set_route_range(sp, lo, hi);
        spine[pod][j] = sp;
      }
      for (size_t i = 0; i < groups.size(); ++i)
        if (pod_of[i] == pod)
          for (int j = 0; j < p.leaf_up; ++j)
            t.add_cable(leaf[i], spine[pod][j], p.link_speed, p.cable_latency + p.switch_latency, p.kind);
    }
    c.spines = c.pods * p.leaf_up;
    // Core group j joins spine j of every pod; a core has `radix` ports, so a
    // group needs ceil(pods * spine_up / radix) cores.
    if (c.pods > p.radix)
      throw core::InputError({"", 0, field + ".radix"}, fmt::format("{} pods exceed what a core switch of radix {} can join: "
                                                         "use a larger radix or fewer hosts",
                                                         c.pods, p.radix));
    const int per_group = std::max(1, ceil_div(c.pods * p.spine_up, p.radix));
    c.cores = per_group * p.leaf_up;
    if (c.pods == 1) c.cores = 0;  // one pod needs no core layer
    if (c.cores == 0) continue;
    for (int j = 0; j < p.leaf_up; ++j) {
      std::vector<NodeId> core_nodes(per_group);
      for (int k = 0; k < per_group; ++k) {
        core_nodes[k] = t.add_node(NodeKind::kSwitch, 3);
        t.set_fabric(core_nodes[k], fabric);
        t.set_route_range(core_nodes[k], 0, total);
      }
      for (int pod = 0; pod < c.pods; ++pod)
        for (int m = 0; m < p.spine_up; ++m)
          t.add_cable(spine[pod][j], core_nodes[m % per_group], p.link_speed, p.cable_latency + p.switch_latency,
                      p.kind);
    }
  }
  return c;
}

}  // namespace anatomy::topo::detail
