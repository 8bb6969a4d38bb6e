#include "workload/layout.h"

#include <algorithm>

namespace anatomy::workload {

RankCoord Layout::coord(uint32_t r) const {
  RankCoord c;
  c.tp = static_cast<int>(r % p_.tp);
  r /= p_.tp;
  c.cp = static_cast<int>(r % p_.cp);
  r /= p_.cp;
  if (p_.rank_order == RankOrder::kTpCpPpDp) {
    c.pp = static_cast<int>(r % p_.pp);
    c.dp = static_cast<int>(r / p_.pp);
  } else {
    c.dp = static_cast<int>(r % p_.dp);
    c.pp = static_cast<int>(r / p_.dp);
  }
  return c;
}

std::vector<uint32_t> Layout::tp_group(RankCoord c) const {
  std::vector<uint32_t> g;
  for (int i = 0; i < p_.tp; ++i) g.push_back(rank({i, c.cp, c.dp, c.pp}));
  return g;
}

std::vector<uint32_t> Layout::cp_group(RankCoord c) const {
  std::vector<uint32_t> g;
  for (int i = 0; i < p_.cp; ++i) g.push_back(rank({c.tp, i, c.dp, c.pp}));
  return g;
}

std::vector<uint32_t> Layout::cp_a2a_group(RankCoord c) const {
  const int a = p_.cp_a2a_ways();
  std::vector<uint32_t> g;
  for (int i = c.cp / a * a; i < (c.cp / a + 1) * a; ++i) g.push_back(rank({c.tp, i, c.dp, c.pp}));
  return g;
}

std::vector<uint32_t> Layout::cp_ring_group(RankCoord c) const {
  const int a = p_.cp_a2a_ways();
  std::vector<uint32_t> g;
  for (int i = c.cp % a; i < p_.cp; i += a) g.push_back(rank({c.tp, i, c.dp, c.pp}));
  return g;
}

std::vector<uint32_t> Layout::dp_group(RankCoord c) const {
  std::vector<uint32_t> g;
  for (int i = 0; i < p_.dp; ++i) g.push_back(rank({c.tp, c.cp, i, c.pp}));
  return g;
}

std::vector<uint32_t> Layout::dp_cp_group(RankCoord c) const {
  std::vector<uint32_t> g;
  for (int d = 0; d < p_.dp; ++d)
    for (int i = 0; i < p_.cp; ++i) g.push_back(rank({c.tp, i, d, c.pp}));
  return g;
}

// Expert groups fold over a stage's TP x CP x DP ranks (Megatron-LM's
// expert rank generator, order tp-ep-dp inside the stage): the stage's i-th
// rank (stage_index) is expert-TP rank i % ETP, EP rank (i / ETP) % EP and
// expert-DP rank i / (ETP EP). With expert TP = TP and CP 1 the EP group is
// ep consecutive DP ranks of one TP rank.
uint32_t Layout::stage_rank(int stage, int index) const {
  RankCoord c;
  c.tp = index % p_.tp;
  c.cp = index / p_.tp % p_.cp;
  c.dp = index / (p_.tp * p_.cp);
  c.pp = stage;
  return rank(c);
}

std::vector<uint32_t> Layout::ep_group(RankCoord c) const {
  std::vector<uint32_t> g;
  const int i = stage_index(c), etp = p_.etp(), ep = p_.ep;
  const int edp = i / (etp * ep);
  for (int e = 0; e < ep; ++e) g.push_back(stage_rank(c.pp, i % etp + etp * (e + ep * edp)));
  return g;
}

std::vector<uint32_t> Layout::expert_dp_group(RankCoord c) const {
  std::vector<uint32_t> g;
  const int i = stage_index(c), etp = p_.etp(), ep = p_.ep;
  const int in_group = i % (etp * ep);  // expert-TP and EP rank
  for (int e = 0; e < p_.expert_dp(); ++e) g.push_back(stage_rank(c.pp, in_group + etp * ep * e));
  return g;
}

std::vector<std::vector<uint32_t>> Layout::distinct_groups(
    int stage, std::vector<uint32_t> (Layout::*group_of)(RankCoord) const) const {
  std::vector<std::vector<uint32_t>> groups;
  for (int dp = 0; dp < p_.dp; ++dp)
    for (int cp = 0; cp < p_.cp; ++cp)
      for (int tp = 0; tp < p_.tp; ++tp) {
        const RankCoord c{tp, cp, dp, stage};
        std::vector<uint32_t> g = (this->*group_of)(c);
        if (*std::min_element(g.begin(), g.end()) == rank(c)) groups.push_back(std::move(g));
      }
  return groups;
}

}  // namespace anatomy::workload
