#pragma once
// Internal to job/edge: the sensor network and the WAN as TSN segments
// (net/tsn), one packet-level window per traffic state, and weighted
// percentiles that combine the windows over the whole period.

#include <optional>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "job/edge/edge_site.h"
#include "net/tsn/tsn_segment.h"

namespace anatomy::job::edge::detail {

// Samples with weights (a window's message stands for weight messages of the period).
struct Weighted {
  std::vector<std::pair<int64_t, double>> samples;
  void add(int64_t value_ps, double weight) { samples.emplace_back(value_ps, weight); }
  TierLatency summarize();
};

struct SensorLayout {
  net::tsn::SegmentSpec segment;
  std::vector<int> line_of;       // per stream of the segment: production line (-1: not a request)
  int egress_port = 0;            // the port whose utilisation the tier reports
};

// The sensor network for one window: training traffic on or off, an
// outage of `outage` on the hosts' link (a failure until failover or
// repair) halfway through the window, or none.
SensorLayout sensor_layout(const EdgeSpec& spec, bool training_on, std::optional<SimTime> outage, SimTime window);

// The site's WAN downlink: control messages, and a base-model pull at
// `pull_rate` when pulling (a TCP-like window of rate x RTT every RTT).
net::tsn::SegmentSpec wan_segment(const EdgeSpec& spec, std::optional<Bandwidth> pull_rate);

// Each site's base-model pull: the smallest of its WAN link, its share of
// the registry's egress and the loss-limited TCP rate (Mathis et al. 1997:
// MSS / (RTT sqrt(2p/3))), plus one RTT to ask.
Bandwidth pull_rate(const Coordination& c);

}  // namespace anatomy::job::edge::detail
