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
  const int64_t G = m.expert_groups, Gk = m.group_top_k;
  const bool grouped = G > 1 && Gk < G;
  const int64_t per_group = grouped ? E / G : E;
  const double selected = grouped ? static_cast<double>(Gk) / static_cast<double>(G) : 1;
  // The chance that a token has one of experts first .. first + count - 1.
  const auto hit = [&](int64_t first, int64_t count) {
    if (grouped && first / per_group == (first + count - 1) / per_group) {
      // Inside one selected group: missed when the group's own expert is
      // elsewhere and so are the k - Gk others, drawn from the selected
      // groups' remaining experts.
      const double miss = (1 - static_cast<double>(count) / static_cast<double>(per_group)) *
                          all_miss(Gk * per_group - Gk, count, k - Gk);
      return selected * (1 - miss);
    }
    if (grouped && first % per_group == 0 && count % per_group == 0)
      return 1 - all_miss(G, count / per_group, Gk);  // whole groups: hit when one of them is selected
    return 1 - all_miss(E, count, k);
  };
  TokenSpread s;
  for (int64_t r = 0; r < ep; ++r) s.rank_hit += hit(r * per_rank, per_rank);
  s.rank_hit /= static_cast<double>(ep);
  int64_t first = 0;
  for (const int64_t n : domain_ranks) {
    s.domain_hit.push_back(hit(first, n * per_rank));
    first += n * per_rank;
  }
  return s;
}

}  // namespace anatomy::workload
