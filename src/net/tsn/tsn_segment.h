#pragma once
// A TSN segment: periodic streams crossing a chain of TsnPorts, simulated
// frame by frame for a window of time. The segment is plain data (ports
// and the port indices each stream crosses), so a point-to-point sensor
// link is a one-port path and a switched segment is the sensor's uplink
// followed by the switch's shared egress port to the host.
//
// A stream releases `message` bytes every `period` from `offset` (a
// camera frame, a spectrometer reading, a training-traffic burst), cut into
// Ethernet frames of at most `mtu` payload bytes that are queued at the
// first port at once. A message's latency runs from its release until its
// last frame has crossed the last port (and that port's latency). A frame
// corrupted on the wire (probability `frame_loss` per frame per hop, a
// seeded draw: EMI) is lost for a UDP-like stream, which then loses the
// message, and is sent again `retransmit_after` later from the first port
// for a RoCE/TCP-like one (`retransmit`). A port outage (a failed link
// until failover completes) starts no frame; a UDP-like frame that reaches
// a port that is down is lost, a reliable one waits.
//
//   SegmentSpec s;
//   s.ports = {camera_uplink, switch_to_host};
//   s.streams.push_back({.name = "camera-1", .hops = {0, 1}, .message_bytes = 2'000'000,
//                        .period = SimTime::ms(33), .priority = 5});
//   const SegmentResult r = simulate_segment(s, SimTime::sec(2));
//   r.streams[0].latency_ps;  // sorted, one per delivered message

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "net/tsn/tsn_port.h"

namespace anatomy::net::tsn {

struct StreamSpec {
  std::string name;
  std::vector<int> hops;  // port indices, in order
  int64_t message_bytes = 1500;
  int64_t mtu = 1500;      // payload bytes per frame
  SimTime period = SimTime::ms(1);
  SimTime offset;          // first release
  SimTime deadline;        // 0: none
  int priority = 0;        // traffic class 0..7
  bool retransmit = false;
  SimTime retransmit_after = SimTime::us(10);
  bool measured = true;    // false: background traffic, not in the statistics
};

struct Outage {
  int port = 0;
  SimTime from;
  SimTime to;
};

struct SegmentSpec {
  std::vector<TsnPortConfig> ports;
  std::vector<StreamSpec> streams;
  std::vector<Outage> outages;
  double frame_loss = 0;  // per frame per hop
  uint64_t seed = 1;
};

struct StreamStats {
  int64_t released = 0;
  int64_t delivered = 0;
  int64_t lost = 0;             // messages with a frame lost (UDP-like)
  int64_t deadline_misses = 0;  // delivered after the deadline, or lost
  int64_t retransmissions = 0;
  std::vector<int64_t> latency_ps;  // delivered messages, sorted
  // (release, latency) of each delivered message, in delivery order.
  std::vector<std::pair<int64_t, int64_t>> deliveries;
};

struct SegmentResult {
  std::vector<StreamStats> streams;
  std::vector<double> port_utilization;  // busy time / window
  uint64_t events = 0;
};

// Messages released in [0, window) are followed until delivered or lost.
SegmentResult simulate_segment(const SegmentSpec& spec, SimTime window);

// The q-quantile (0..1) of sorted samples, nearest rank; 0 when empty.
int64_t quantile(const std::vector<int64_t>& sorted, double q);

}  // namespace anatomy::net::tsn
