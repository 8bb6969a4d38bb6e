#include "coll/p2p_bound.h"

#include <algorithm>

#include "coll/p2p_plan.h"

namespace anatomy::coll {

SimTime p2p_channel_bound(const LibraryModel& lib, const P2pComm& comm, Bytes bytes_per_peer,
                          const std::vector<int>& rounds, SimTime hop) {
  if (lib.ideal || lib.p2p_channel_GBps <= 0 || comm.ranks < 2 || rounds.empty()) return SimTime::zero();
  P2pShape shape{.ranks = comm.ranks, .channels = lib.p2p_channels, .channels_per_peer = lib.p2p_channels_per_peer};
  if (comm.spans_domains) {
    shape.channels_per_peer = std::min(lib.p2p_channels_per_peer, lib.p2p_net_channels_per_peer);
    shape.chunk = lib.p2p_net_chunk;
    shape.across_nodes = true;
  }
  const P2pPlan plan = p2p_plan(shape, bytes_per_peer, rounds);
  const double eff = lib.efficiency(plan.ll ? Protocol::kLL : Protocol::kSimple);
  const double wire = (plan.busiest_channel_bytes + plan.last_step).as_double() / eff;
  return SimTime::from_seconds(wire / (lib.p2p_channel_GBps * 1e9)) + hop * (plan.most_batches - 1);
}

}  // namespace anatomy::coll
