#include "net/flow/max_min.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace anatomy::net {
namespace {

TEST(MaxMin, TwoFlowsOnOneLinkGetHalfEach) {
  MaxMinProblem p;
  p.capacity = {10};
  p.add_flow({0});
  p.add_flow({0});
  MaxMinSolver s;
  auto r = s.solve(p);
  EXPECT_DOUBLE_EQ(r[0], 5);
  EXPECT_DOUBLE_EQ(r[1], 5);
}

TEST(MaxMin, UpstreamBottleneckFreesBandwidthDownstream) {
  // Links A = 10, B = 4. Flow 1 crosses A and B, flow 2 only A.
  // B's fair share (4 / 1) is the smallest, so flow 1 gets 4 there; A has
  // 10 - 4 = 6 left for flow 2 alone: not the 5 an equal split would give.
  MaxMinProblem p;
  p.capacity = {10, 4};
  p.add_flow({0, 1});
  p.add_flow({0});
  MaxMinSolver s;
  auto r = s.solve(p);
  EXPECT_DOUBLE_EQ(r[0], 4);
  EXPECT_DOUBLE_EQ(r[1], 6);
}

TEST(MaxMin, ParkingLot) {
  // Three links of capacity 1 in a line; one long flow crosses all three,
  // one short flow per link. Every link is shared by two flows, so all get 1/2.
  MaxMinProblem p;
  p.capacity = {1, 1, 1};
  p.add_flow({0, 1, 2});
  p.add_flow({0});
  p.add_flow({1});
  p.add_flow({2});
  MaxMinSolver s;
  auto r = s.solve(p);
  for (double v : r) EXPECT_DOUBLE_EQ(v, 0.5);
}

TEST(MaxMin, UnequalLinksCascade) {
  // Link 0 (cap 3) carries flows a, b, c; link 1 (cap 10) carries c, d.
  // Link 0's share 1 is the bottleneck of a, b, c; link 1 then has 9 for d.
  MaxMinProblem p;
  p.capacity = {3, 10};
  p.add_flow({0});
  p.add_flow({0});
  p.add_flow({0, 1});
  p.add_flow({1});
  MaxMinSolver s;
  auto r = s.solve(p);
  EXPECT_DOUBLE_EQ(r[0], 1);
  EXPECT_DOUBLE_EQ(r[1], 1);
  EXPECT_DOUBLE_EQ(r[2], 1);
  EXPECT_DOUBLE_EQ(r[3], 9);
}

TEST(MaxMin, NoLinkNoLimit) {
  MaxMinProblem p;
  p.capacity = {1};
  p.add_flow({});
  MaxMinSolver s;
  EXPECT_TRUE(std::isinf(s.solve(p)[0]));
}

TEST(MaxMin, NoLinkIsEverOverCapacity) {
  // A random-ish mesh of flows: the solution must be feasible and every
  // flow must have a saturated link on its path (max-min optimality).
  MaxMinProblem p;
  const int links = 20;
  for (int l = 0; l < links; ++l) p.capacity.push_back(1 + l % 7);
  uint64_t x = 99;
  for (int f = 0; f < 200; ++f) {
    std::vector<uint32_t> path;
    for (int h = 0; h < 4; ++h) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      path.push_back(static_cast<uint32_t>((x >> 33) % links));
    }
    p.flow_links.insert(p.flow_links.end(), path.begin(), path.end());
    p.flow_begin.push_back(static_cast<uint32_t>(p.flow_links.size()));
  }
  MaxMinSolver s;
  auto r = s.solve(p);
  std::vector<double> load(links, 0);
  for (size_t f = 0; f < p.num_flows(); ++f)
    for (uint32_t i = p.flow_begin[f]; i < p.flow_begin[f + 1]; ++i) load[p.flow_links[i]] += r[f];
  for (int l = 0; l < links; ++l) EXPECT_LE(load[l], p.capacity[l] * (1 + 1e-9));
  for (size_t f = 0; f < p.num_flows(); ++f) {
    bool saturated = false;
    for (uint32_t i = p.flow_begin[f]; i < p.flow_begin[f + 1]; ++i) {
      const uint32_t l = p.flow_links[i];
      saturated |= load[l] >= p.capacity[l] * (1 - 1e-9);
    }
    EXPECT_TRUE(saturated) << "flow " << f;
  }
}

// Progressive filling the plain way: every round, recompute each link's
// share and freeze the flows of the smallest (ties: the lower link id).
std::vector<double> reference_max_min(const MaxMinProblem& p) {
  const size_t nf = p.num_flows(), nl = p.capacity.size();
  std::vector<double> rate(nf, std::numeric_limits<double>::infinity()), remaining = p.capacity;
  std::vector<uint32_t> unfrozen(nl, 0);
  std::vector<uint8_t> frozen(nf, 0);
  for (uint32_t l : p.flow_links) ++unfrozen[l];
  for (;;) {
    int best = -1;
    double best_share = 0;
    for (size_t l = 0; l < nl; ++l) {
      if (unfrozen[l] == 0) continue;
      const double share = std::max(0.0, remaining[l]) / unfrozen[l];
      if (best < 0 || share < best_share) best = static_cast<int>(l), best_share = share;
    }
    if (best < 0) return rate;
    for (size_t f = 0; f < nf; ++f) {
      if (frozen[f]) continue;
      bool crosses = false;
      for (uint32_t i = p.flow_begin[f]; i < p.flow_begin[f + 1]; ++i) crosses |= p.flow_links[i] == static_cast<uint32_t>(best);
      if (!crosses) continue;
      frozen[f] = 1;
      rate[f] = best_share;
      for (uint32_t i = p.flow_begin[f]; i < p.flow_begin[f + 1]; ++i) {
        remaining[p.flow_links[i]] -= best_share;
        --unfrozen[p.flow_links[i]];
      }
    }
    unfrozen[static_cast<size_t>(best)] = 0;
  }
}

TEST(MaxMin, RefreshingAKeyOnlyWhereItIsOnTopGivesTheSameRatesAsEveryKeyCurrent) {
  // The solver keeps a link's fair share in its heap until the link reaches
  // the top (a share only grows as flows freeze elsewhere). On 300 random
  // meshes with small integer capacities, so that many links tie, its
  // rates equal those of recomputing every link's share every round, bit
  // for bit: the same bottlenecks in the same order.
  uint64_t x = 7;
  auto next = [&x](uint64_t n) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return (x >> 33) % n;
  };
  MaxMinSolver s;
  for (int trial = 0; trial < 300; ++trial) {
    MaxMinProblem p;
    const uint64_t links = 2 + next(30);
    for (uint64_t l = 0; l < links; ++l) p.capacity.push_back(static_cast<double>(1 + next(6)) * 1e9);
    const uint64_t flows = 1 + next(120);
    for (uint64_t f = 0; f < flows; ++f) {
      const uint64_t hops = 1 + next(5);
      for (uint64_t h = 0; h < hops; ++h) p.flow_links.push_back(static_cast<uint32_t>(next(links)));
      p.flow_begin.push_back(static_cast<uint32_t>(p.flow_links.size()));
    }
    const std::vector<double> want = reference_max_min(p);
    const std::vector<double>& got = s.solve(p);
    ASSERT_EQ(got.size(), want.size());
    for (size_t f = 0; f < want.size(); ++f) ASSERT_EQ(got[f], want[f]) << "trial " << trial << " flow " << f;
  }
}

}  // namespace
}  // namespace anatomy::net
