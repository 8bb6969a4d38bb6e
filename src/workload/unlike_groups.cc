#include "workload/unlike_groups.h"

#include <fmt/format.h>

#include <algorithm>

namespace anatomy::workload {

std::vector<UnlikeGroups> unlike_groups(const Layout& layout, const topo::Topology& topology,
                                        const std::vector<uint32_t>& rank_to_gpu) {
  const ParallelPlan& p = layout.plan();
  const auto spans = [&](const std::vector<uint32_t>& g) {
    std::vector<uint32_t> domains;
    for (uint32_t r : g) domains.push_back(topology.domain_of(rank_to_gpu.empty() ? r : rank_to_gpu[r]));
    std::sort(domains.begin(), domains.end());
    return static_cast<int>(std::unique(domains.begin(), domains.end()) - domains.begin());
  };
  struct Dim {
    const char* name;
    int size;
    std::vector<uint32_t> (Layout::*group_of)(RankCoord) const;
  };
  const Dim dims[] = {{"TP", p.tp, &Layout::tp_group}, {"CP", p.cp, &Layout::cp_group}, {"EP", p.ep, &Layout::ep_group}};
  std::vector<UnlikeGroups> out;
  for (const Dim& d : dims) {
    if (d.size <= 1) continue;
    std::vector<int> n;
    for (int stage = 0; stage < p.pp; ++stage)
      for (const std::vector<uint32_t>& g : layout.distinct_groups(stage, d.group_of)) n.push_back(spans(g));
    const auto [lo, hi] = std::minmax_element(n.begin(), n.end());
    if (*lo == *hi) continue;
    const std::vector<uint32_t> first = (layout.*d.group_of)(RankCoord{});
    UnlikeGroups u{d.name, static_cast<int64_t>(n.size()), *lo, std::count(n.begin(), n.end(), *lo), *hi, spans(first)};
    if (d.group_of == &Layout::cp_group && p.cp_a2a_size > 1) {
      u.first_a2a = spans(layout.cp_a2a_group(RankCoord{}));
      u.first_ring = spans(layout.cp_ring_group(RankCoord{}));
    }
    out.push_back(u);
  }
  return out;
}

std::string unlike_groups_note(const std::vector<UnlikeGroups>& unlike) {
  std::string out;
  for (const UnlikeGroups& u : unlike) {
    if (!out.empty()) out += "; ";
    out += fmt::format("{} of {} {} groups span {} scale-up domain{} and the others up to {}", u.at_fewest, u.total,
                       u.dimension, u.fewest, u.fewest == 1 ? "" : "s", u.most);
    // EP all-to-alls run on every group; TP and CP collectives are timed on
    // the group through rank 0 and charged to every group alike.
    if (u.dimension == "EP")
      out += " (every group's all-to-alls are timed as placed)";
    else if (u.first_a2a > 0)
      out += fmt::format(" (timed on the first group's all-to-all ranks, which span {}, and its ring's, which span {}, "
                         "and charged to every group alike)",
                         u.first_a2a, u.first_ring);
    else
      out += fmt::format(" (timed on the first group, which spans {}, and charged to every group alike)", u.first);
  }
  if (out.empty()) return out;
  return out + ": the job's GPUs do not fill its domains with whole groups (cluster.system.scaleup.domain_gpus "
               "sets the GPUs a domain holds)";
}

}  // namespace anatomy::workload
