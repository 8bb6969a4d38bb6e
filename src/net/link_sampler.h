#pragma once
// LinkSampler: per-link utilization and queue depth every `period`, the
// telemetry a switch exports (port counters read on a timer), as a signal.
//
// Each sample covers the period that ends at its time stamp:
//   utilization = bytes the link carried in the period x 8 / (bandwidth x period)
//   queued      = bytes waiting at the link's egress at the sample instant
//                 (Network::queued_bytes; 0 in the flow model, which has no queues)
// The sampler schedules its own events and only reads the network, so a
// run with and without it is the same run.
//
//   net::LinkSampler s(net, {link}, SimTime::us(100), 50);
//   s.sample.subscribe([&](SimTime t, LinkId l, double util, int64_t queued) { ... });
//   sim.run();

#include <vector>

#include "core/signal.h"
#include "net/network.h"

namespace anatomy::net {

class LinkSampler {
 public:
  // Samples `links` at period, 2 x period, ..., samples x period.
  LinkSampler(Network& net, std::vector<LinkId> links, SimTime period, int samples);
  LinkSampler(const LinkSampler&) = delete;
  LinkSampler& operator=(const LinkSampler&) = delete;

  // (t, link, utilization over the period ending at t, queued bytes at t)
  core::Signal<SimTime, LinkId, double, int64_t> sample;

 private:
  void take();

  Network& net_;
  std::vector<LinkId> links_;
  std::vector<double> last_bytes_;
  SimTime period_;
};

}  // namespace anatomy::net
