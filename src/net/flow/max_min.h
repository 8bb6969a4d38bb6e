#pragma once
// Max-min fair rates by progressive filling: a pure solver.
//
// Given links with capacities c_l and flows that each cross a set of links,
// find rates r_f such that no link is over capacity and no flow can get
// more without taking from a flow that has no more than it. Progressive
// filling finds them: raise every unfrozen flow's rate together; the first
// link to fill is the bottleneck of the flows crossing it, which freeze at
// its fair share (remaining capacity / unfrozen flows); repeat on what is
// left. A link's share only grows as flows freeze elsewhere (each leaves
// it no more than its share), so a min-heap of links keyed by share may
// hold a stale, smaller key: a key is refreshed only when its link comes
// to the top, and the link is the bottleneck once its share is still no
// more than the next key. The cost is O(sum of path lengths) for the
// freezing plus O((L + refreshes) log L) for the heap, where refreshing
// every key a freeze touches cost O(sum of path lengths x log L). The
// bottlenecks and their order are the same, and so the rates, unless a
// share recomputed after a freeze rounds one ulp below its key at a tie
// (a test compares 300 random meshes full of ties bit for bit).
// Rates come out in the capacities' unit (here bits per second).
//
// Worked example (see tests/net/max_min_test.cc): links A (10) and B (4);
// flow 1 crosses A and B, flow 2 crosses A only. B's share 4 is the
// smallest, so flow 1 gets 4; A has 6 left for flow 2 alone, which gets 6.
//
//   MaxMinProblem p;
//   p.capacity = {10, 4};
//   p.add_flow({0, 1});
//   p.add_flow({0});
//   MaxMinSolver s;
//   const std::vector<double>& r = s.solve(p);  // {4, 6}

#include <cstdint>
#include <cstddef>
#include <initializer_list>
#include <vector>

namespace anatomy::net {

struct MaxMinProblem {
  std::vector<double> capacity;       // per link
  std::vector<uint32_t> flow_begin{0};  // flow f crosses flow_links[flow_begin[f] .. flow_begin[f+1])
  std::vector<uint32_t> flow_links;

  size_t num_flows() const { return flow_begin.size() - 1; }
  void add_flow(std::initializer_list<uint32_t> links);
  void clear();
};

// Keeps its workspace between calls so repeated solves do not allocate.
class MaxMinSolver {
 public:
  // A flow that crosses no link gets +infinity.
  const std::vector<double>& solve(const MaxMinProblem& p);

 private:
  struct HeapItem {
    double share;
    uint32_t link;
  };
  std::vector<double> rate_, remaining_;
  std::vector<uint32_t> unfrozen_, link_begin_, link_flows_, fill_;
  std::vector<uint8_t> frozen_;
  std::vector<HeapItem> heap_;
};

}  // namespace anatomy::net
