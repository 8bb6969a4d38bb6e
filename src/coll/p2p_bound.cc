#include "coll/p2p_bound.h"

#include <algorithm>

#include "coll/p2p_plan.h"

namespace anatomy::coll {

P2pBound p2p_channel_bound(const LibraryModel& lib, const P2pComm& comm, Bytes bytes_per_peer,
                           const std::vector<int>& rounds, SimTime hop) {
  if (lib.ideal || lib.p2p_channel_GBps <= 0 || comm.ranks < 2 || rounds.empty()) return {};
  P2pShape shape{.ranks = comm.ranks, .channels = lib.p2p_channels, .channels_per_peer = lib.p2p_channels_per_peer};
  if (comm.spans_domains) {
    shape.channels_per_peer = std::min(lib.p2p_channels_per_peer, lib.p2p_net_channels_per_peer);
    shape.chunk = lib.p2p_net_chunk;
    shape.across_nodes = true;
  }
  const P2pPlan plan = p2p_plan(shape, bytes_per_peer, rounds);
  const double payload = (plan.busiest_channel_bytes + plan.last_step).as_double();
  const double rate_GBps = !plan.ll                      ? lib.p2p_channel_GBps
                           : lib.p2p_ll_channel_GBps > 0 ? lib.p2p_ll_channel_GBps
                                                         : lib.p2p_channel_GBps * lib.efficiency(Protocol::kLL);
  return {SimTime::from_seconds(payload / (rate_GBps * 1e9)) + hop * (plan.most_batches - 1), plan.ll};
}

}  // namespace anatomy::coll
