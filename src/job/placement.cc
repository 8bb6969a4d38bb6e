#include "job/placement.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/error.h"
#include "core/rng.h"
#include "workload/layout.h"

namespace anatomy::job {
namespace {

core::InputError refuse(const std::string& why) { return core::InputError({"", 0, "placement"}, why); }

// The leaf a host's first NIC hangs off (its fault domain on the fabric).
topo::NodeId leaf_of(const topo::Topology& t, uint32_t first_gpu) {
  const topo::NodeId nic = t.nic_of(first_gpu);
  if (nic == topo::kNoNode) return topo::kNoNode;
  for (topo::LinkId l : t.out_links(nic))
    if (t.kind(t.link(l).to) == topo::NodeKind::kSwitch) return t.link(l).to;
  return topo::kNoNode;
}

int switch_hops(const topo::Topology& t, topo::NodeId a, topo::NodeId b) {
  std::vector<topo::LinkId> path;
  t.route(a, b, 1, path);
  int hops = 0;
  for (topo::LinkId l : path)
    if (t.kind(t.link(l).to) == topo::NodeKind::kSwitch) ++hops;
  return hops;
}

}  // namespace

const char* to_string(PlacementPolicy p) {
  switch (p) {
    case PlacementPolicy::kPacked: return "packed";
    case PlacementPolicy::kSpread: return "spread";
    case PlacementPolicy::kBalanced: return "balanced";
  }
  return "?";
}

Placement place(const PlacementSpec& spec, const topo::Topology& t, const workload::ParallelPlan& plan,
                double gpu_tdp_w) {
  // Busy hosts: a seeded draw, the same for every policy.
  std::vector<uint8_t> busy(t.num_hosts(), 0);
  core::Rng rng = core::RngStreams(spec.seed).stream("placement.busy");
  for (uint32_t h = 0; h < t.num_hosts(); ++h) busy[h] = rng.bernoulli(spec.busy_fraction);
  return place_on(spec, t, plan, gpu_tdp_w, std::move(busy));
}

Placement place_on(const PlacementSpec& spec, const topo::Topology& t, const workload::ParallelPlan& plan,
                   double gpu_tdp_w, std::vector<uint8_t> busy) {
  const uint32_t hosts = t.num_hosts();
  if (hosts == 0) throw refuse("the cluster has no hosts to place on");
  uint32_t gpus_per_host = 0;
  while (gpus_per_host < t.num_gpus() && t.host_of(gpus_per_host) == 0) ++gpus_per_host;
  // Placement hands out whole hosts; a cluster ending in a part-filled host
  // (100 GPUs of 8-GPU hosts) does not exist.
  if (gpus_per_host == 0 || gpus_per_host * hosts != t.num_gpus())
    throw core::InputError({"", 0, "placement.cluster_gpus"},
                           fmt::format("{} GPUs are not a whole number of {}-GPU hosts", t.num_gpus(), gpus_per_host));
  const int need_gpus = plan.gpus();
  const uint32_t need_hosts = (static_cast<uint32_t>(need_gpus) + gpus_per_host - 1) / gpus_per_host;
  const int per_rack = std::max(1, spec.hosts_per_rack);
  const uint32_t racks = (hosts + per_rack - 1) / per_rack;

  ANATOMY_CHECK(busy.size() == hosts, "one busy flag per host");
  // Power: how many of a rack's hosts may run at once.
  const double host_w = gpu_tdp_w * gpus_per_host + spec.host_overhead_w;
  const int power_cap = spec.rack_power_kw > 0 ? static_cast<int>(spec.rack_power_kw * 1000 / host_w) : per_rack;
  std::vector<int> rack_load(racks, 0);
  for (uint32_t h = 0; h < hosts; ++h) rack_load[h / per_rack] += busy[h];

  std::vector<uint32_t> chosen;
  std::vector<int> used(racks, 0);
  auto can_take = [&](uint32_t h, int cap) {
    const uint32_t r = h / per_rack;
    if (busy[h]) return false;
    if (rack_load[r] + 1 > power_cap) return false;
    if (used[r] + 1 > cap) return false;
    if (spec.max_ranks_per_rack > 0 && static_cast<int>((used[r] + 1) * gpus_per_host) > spec.max_ranks_per_rack)
      return false;
    return true;
  };
  auto take = [&](uint32_t h) {
    chosen.push_back(h);
    ++rack_load[h / per_rack];
    ++used[h / per_rack];
    busy[h] = 1;
  };
  if (spec.policy == PlacementPolicy::kPacked) {
    for (uint32_t h = 0; h < hosts && chosen.size() < need_hosts; ++h)
      if (can_take(h, per_rack)) take(h);
  } else {
    const int cap = spec.policy == PlacementPolicy::kSpread ? per_rack : std::max(1, spec.balanced_hosts_per_rack);
    // Round after round, one host per rack (spread), or fill each rack to
    // the cap in order (balanced).
    bool progress = true;
    while (chosen.size() < need_hosts && progress) {
      progress = false;
      for (uint32_t r = 0; r < racks && chosen.size() < need_hosts; ++r) {
        for (uint32_t h = r * per_rack; h < std::min<uint32_t>(hosts, (r + 1) * per_rack); ++h) {
          if (!can_take(h, cap)) continue;
          take(h);
          progress = true;
          if (spec.policy == PlacementPolicy::kSpread) break;
        }
      }
    }
  }
  if (chosen.size() < need_hosts) {
    int free_hosts = 0;
    for (uint32_t h = 0; h < hosts; ++h) free_hosts += !busy[h];
    std::string why = fmt::format("{} hosts needed for {} GPUs; {} found under the rules", need_hosts, need_gpus,
                                  chosen.size());
    if (spec.rack_power_kw > 0)
      why += fmt::format(" (rack power {:.1f} kW allows {} hosts of {:.1f} kW per rack)", spec.rack_power_kw, power_cap,
                         host_w / 1000);
    if (spec.max_ranks_per_rack > 0) why += fmt::format(" (at most {} ranks per rack)", spec.max_ranks_per_rack);
    why += fmt::format("; {} of {} hosts were free", free_hosts + static_cast<int>(chosen.size()), hosts);
    throw refuse(why);
  }
  // Keep the chosen hosts in cabling order so neighbouring ranks are near.
  std::sort(chosen.begin(), chosen.end());

  Placement p;
  p.hosts = chosen;
  for (int r = 0; r < need_gpus; ++r)
    p.rank_to_gpu.push_back(chosen[static_cast<uint32_t>(r) / gpus_per_host] * gpus_per_host + r % gpus_per_host);

  // Fault domains.
  std::map<uint32_t, int> per_host, per_rack_count, per_feed, per_leaf;
  for (int r = 0; r < need_gpus; ++r) {
    const uint32_t gpu = p.rank_to_gpu[r];
    const uint32_t h = gpu / gpus_per_host;
    ++per_host[h];
    ++per_rack_count[h / per_rack];
    ++per_feed[h / per_rack / std::max(1, spec.racks_per_feed)];
    const topo::NodeId leaf = leaf_of(t, h * gpus_per_host);
    if (leaf != topo::kNoNode) ++per_leaf[leaf];
  }
  auto most = [](const std::map<uint32_t, int>& m) {
    int x = 0;
    for (const auto& [k, v] : m) x = std::max(x, v);
    return x;
  };
  p.max_ranks_per_host = most(per_host);
  p.max_ranks_per_rack = most(per_rack_count);
  p.max_ranks_per_feed = most(per_feed);
  p.max_ranks_per_leaf = most(per_leaf);
  p.racks_used = static_cast<int>(per_rack_count.size());

  // Hop counts of the data-parallel ring of the first (tp, cp, pp) slice.
  const workload::Layout layout(plan);
  const auto ring = layout.dp_group({0, 0, 0, 0});
  int64_t hops = 0, aligned = 0, edges = 0;
  for (size_t i = 0; i < ring.size() && ring.size() > 1; ++i) {
    const uint32_t a = p.rank_to_gpu[ring[i]], b = p.rank_to_gpu[ring[(i + 1) % ring.size()]];
    if (t.domain_of(a) == t.domain_of(b)) continue;
    const int h = switch_hops(t, t.gpu_node(a), t.gpu_node(b));
    hops += h;
    aligned += h <= 1;
    ++edges;
  }
  p.dp_hops = edges ? static_cast<double>(hops) / edges : 0;
  p.rail_aligned = edges ? static_cast<double>(aligned) / edges : 1;
  p.summary = fmt::format(
      "{}: {} hosts in {} racks; data-parallel ring edges cross {:.2f} switches on average, {:.0f}% under one leaf; "
      "one fault takes down at most {} ranks (host), {} (rack), {} (power feed), {} (leaf)",
      to_string(spec.policy), chosen.size(), p.racks_used, p.dp_hops, 100 * p.rail_aligned, p.max_ranks_per_host,
      p.max_ranks_per_rack, p.max_ranks_per_feed, p.max_ranks_per_leaf);
  return p;
}

}  // namespace anatomy::job
