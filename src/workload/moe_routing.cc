#include "workload/moe_routing.h"

#include "core/error.h"

namespace anatomy::workload {

namespace {

// Probability that k of n items, drawn without replacement and every draw
// alike, all miss a given m of them: C(n - m, k) / C(n, k).
double all_miss(int64_t n, int64_t m, int64_t k) {
  double p = 1;
  for (int64_t i = 0; i < k; ++i) {
    if (n - m - i <= 0) return 0;
    p *= static_cast<double>(n - m - i) / static_cast<double>(n - i);
  }
  return p;
}

}  // namespace

TokenSpread token_spread(const ModelSpec& m, const std::vector<int64_t>& domain_ranks) {
  int64_t ep = 0;
  for (const int64_t n : domain_ranks) ep += n;
  ANATOMY_CHECK(m.moe() && ep >= 1 && m.experts % ep == 0, "token_spread needs the experts split evenly over ranks");
  const int64_t E = m.experts, k = m.top_k, per_rank = E / ep;
  const auto domains = static_cast<int64_t>(domain_ranks.size());
  bool uniform = true;
  for (const int64_t n : domain_ranks) uniform = uniform && n == domain_ranks.front();
  const int64_t G = m.expert_groups, Gk = m.group_top_k;
  const bool rank_groups = G > 1 && Gk < G && ep % G == 0;  // a rank's experts in one group
  const bool domain_groups = rank_groups && uniform && (domains % G == 0 || G % domains == 0);
  const int64_t per_group = rank_groups ? E / G : 0;
  const double selected = rank_groups ? static_cast<double>(Gk) / static_cast<double>(G) : 0;
  // Inside a selected group of per_group experts, a part of `held` of them
  // misses the token when the group's own expert is elsewhere and so are
  // the k - Gk others, drawn from the selected groups' remaining experts.
  const auto miss_in_group = [&](int64_t held) {
    return (1 - static_cast<double>(held) / static_cast<double>(per_group)) * all_miss(Gk * per_group - Gk, held, k - Gk);
  };
  TokenSpread s;
  s.rank_hit = rank_groups ? selected * (1 - miss_in_group(per_rank)) : 1 - all_miss(E, per_rank, k);
  for (const int64_t n : domain_ranks) {
    const int64_t held = per_rank * n;
    if (!domain_groups)
      s.domain_hit.push_back(1 - all_miss(E, held, k));
    else if (domains % G == 0)
      s.domain_hit.push_back(selected * (1 - miss_in_group(held)));  // a domain is part of one group
    else
      s.domain_hit.push_back(1 - all_miss(G, G / domains, Gk));  // whole groups: hit when one of them is selected
  }
  return s;
}

}  // namespace anatomy::workload
