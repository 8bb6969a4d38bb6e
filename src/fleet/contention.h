#pragma once
// How much a job's communication slows when other jobs share its links:
// max-min fair sharing on each link, as the flow model shares a link
// between its flows, with the other jobs' traffic at the rate they offer.
//
// The problem. A link of capacity c carries the flows of the job in
// question (n_A flows, greedy: it is in the middle of an all-reduce or a
// checkpoint write and takes what it is given), other greedy flows (other
// jobs' checkpoint writes: bulk transfers), and capped flows: other jobs'
// collectives, which offer on average their bytes per step over their
// step time (a job that communicates a quarter of its step offers a
// quarter of the rate it would take). Max-min fair sharing gives every
// capped flow min(cap, x) and every greedy flow x, with the level x such
// that the link is full:  sum_capped min(cap_f, x) + x * n_greedy = c.
// Water-filling finds x: caps in increasing order are satisfied while
// they are under the level the remaining capacity gives the remaining
// flows. Cost: O(k log k) for k groups of flows on the link.
//
// Worked example: c = 100 Gb/s; A has 1 flow; B offers 25 Gb/s on 1 flow
// (capped). Level x: B's cap 25 < 100/2, so B gets 25 and A gets 75; A's
// transfer takes 100/75 = 1.33x as long as alone. Were B greedy too (a
// checkpoint write), both would get 50: 2x.
//
// A job's communication time over its footprint is set by its slowest
// link (a ring moves at its bottleneck): alone, max_l bytes_l / c_l;
// shared, max_l bytes_l / (n_A,l * x_l).

#include <vector>

namespace anatomy::fleet {

struct CappedGroup {
  double cap_per_flow = 0;  // bit/s
  int flows = 0;
};

// The rate each greedy flow gets on a link of `capacity` bit/s shared by
// `greedy_flows` greedy flows and the capped groups (any order).
double fair_level(double capacity, int greedy_flows, std::vector<CappedGroup> capped);

}  // namespace anatomy::fleet
