#include "net/link_sampler.h"

namespace anatomy::net {

LinkSampler::LinkSampler(Network& net, std::vector<LinkId> links, SimTime period, int samples)
    : net_(net), links_(std::move(links)), last_bytes_(links_.size(), 0.0), period_(period) {
  for (size_t i = 0; i < links_.size(); ++i) last_bytes_[i] = net_.link_bytes(links_[i]).as_double();
  const SimTime start = net_.simulator().now();
  for (int k = 1; k <= samples; ++k) net_.simulator().schedule_at(start + period_ * k, [this] { take(); });
}

void LinkSampler::take() {
  const SimTime now = net_.simulator().now();
  for (size_t i = 0; i < links_.size(); ++i) {
    const LinkId l = links_[i];
    const double bytes = net_.link_bytes(l).as_double();
    const double capacity = net_.topology().link(l).bandwidth.bps() / 8 * period_.seconds();
    sample.emit(now, l, (bytes - last_bytes_[i]) / capacity, net_.queued_bytes(l));
    last_bytes_[i] = bytes;
  }
}

}  // namespace anatomy::net
