#include "job/edge/edge_tiers.h"

#include <algorithm>
#include <cmath>

namespace anatomy::job::edge::detail {

using net::tsn::SegmentSpec;
using net::tsn::StreamSpec;
using net::tsn::TsnPortConfig;

TierLatency Weighted::summarize() {
  TierLatency t;
  if (samples.empty()) return t;
  std::sort(samples.begin(), samples.end());
  double total = 0;
  for (const auto& s : samples) total += s.second;
  t.samples = total;
  t.max_ps = samples.back().first;
  const double qs[] = {0.5, 0.99, 0.999};
  int64_t* out[] = {&t.p50_ps, &t.p99_ps, &t.p999_ps};
  for (int i = 0; i < 3; ++i) {
    double seen = 0;
    *out[i] = samples.back().first;
    for (const auto& s : samples) {
      seen += s.second;
      if (seen >= qs[i] * total * (1 - 1e-12)) {
        *out[i] = s.first;
        break;
      }
    }
  }
  return t;
}

namespace {

TsnPortConfig port(Bandwidth rate, SimTime latency) {
  TsnPortConfig p;
  p.rate = rate;
  p.latency = latency;
  return p;
}

void shape(const SensorNetwork& n, TsnPortConfig& p) {
  for (int c = 0; c < net::tsn::kClasses; ++c) p.classes[c].cbs_idle_slope = n.idle_slope[c];
  p.gates = n.gates;
}

}  // namespace

SensorLayout sensor_layout(const EdgeSpec& spec, bool training_on, std::optional<SimTime> outage, SimTime window) {
  const SensorNetwork& n = spec.sensor;
  SensorLayout out;
  SegmentSpec& s = out.segment;
  s.frame_loss = spec.faults.frame_loss;
  s.seed = spec.seed;
  int instances = 0;
  for (const SensorStream& st : n.streams) instances += st.count;
  const int egress = n.switched ? instances : -1;
  if (n.switched) {
    for (int i = 0; i < instances; ++i) s.ports.push_back(port(n.link_speed, n.link_latency + n.switch_latency));
    s.ports.push_back(port(n.uplink_speed, n.link_latency));
    shape(n, s.ports.back());
    out.egress_port = egress;
  }
  int instance = 0;
  for (const SensorStream& st : n.streams) {
    for (int i = 0; i < st.count; ++i, ++instance) {
      StreamSpec x;
      x.name = st.name;
      x.message_bytes = st.message.count();
      x.mtu = st.mtu;
      x.period = st.period;
      x.offset = st.period * i / st.count;  // sensors of a kind spread over their period
      x.deadline = st.deadline;
      x.priority = st.priority;
      x.retransmit = st.reliable;
      x.retransmit_after = spec.faults.retransmit_after;
      if (n.switched) {
        x.hops = {instance, egress};
      } else {
        s.ports.push_back(port(n.link_speed, n.link_latency));
        shape(n, s.ports.back());
        x.hops = {static_cast<int>(s.ports.size()) - 1};
      }
      s.streams.push_back(x);
      out.line_of.push_back(st.inference ? i % std::max(1, spec.serving.lines) : -1);
    }
  }
  if (training_on && n.switched && n.shared_with_training) {
    s.ports.push_back(port(n.uplink_speed, n.link_latency + n.switch_latency));  // the training hosts' port into the switch
    StreamSpec t;
    t.name = "training traffic";
    t.hops = {static_cast<int>(s.ports.size()) - 1, egress};
    t.message_bytes = n.training_burst.count();
    t.mtu = n.training_mtu;
    t.period = n.training_period;
    t.priority = n.training_priority;
    t.retransmit = true;
    t.measured = false;
    s.streams.push_back(t);
    out.line_of.push_back(-1);
  }
  if (outage) {
    // The hosts' link (switched) or the first sensor's (dedicated) fails
    // halfway through the window; traffic moves to the redundant link after
    // the switchover, or waits for the repair.
    const SimTime at = window / 2;
    s.outages.push_back({n.switched ? egress : 0, at, at + *outage});
  }
  return out;
}

Bandwidth pull_rate(const Coordination& c) {
  double bps = std::min(c.wan_speed.bps(), c.registry_speed.bps() / std::max(1, c.sites));
  if (c.loss > 0) bps = std::min(bps, c.mss * 8.0 / (c.rtt.seconds() * std::sqrt(2.0 * c.loss / 3.0)));
  return Bandwidth::bits_per_s(bps);
}

SegmentSpec wan_segment(const EdgeSpec& spec, std::optional<Bandwidth> pull) {
  const Coordination& c = spec.coordination;
  SegmentSpec s;
  s.seed = spec.seed;
  s.ports.push_back(port(c.wan_speed, c.rtt / 2));
  StreamSpec ctl;
  ctl.name = "control";
  ctl.hops = {0};
  ctl.message_bytes = c.control_message.count();
  ctl.mtu = c.mss;
  ctl.period = c.control_period;
  ctl.priority = c.qos ? 6 : 0;
  ctl.retransmit = true;
  s.streams.push_back(ctl);
  if (pull) {
    StreamSpec bulk;
    bulk.name = "base-model pull";
    bulk.hops = {0};
    bulk.period = c.rtt;
    bulk.message_bytes = std::max<int64_t>(c.mss, static_cast<int64_t>(pull->bytes_per_second() * c.rtt.seconds()));
    bulk.mtu = c.mss;
    bulk.priority = 0;
    bulk.retransmit = true;
    bulk.measured = false;
    s.streams.push_back(bulk);
  }
  return s;
}

}  // namespace anatomy::job::edge::detail
