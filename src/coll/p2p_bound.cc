#include "coll/p2p_bound.h"

#include <algorithm>
#include <bit>

#include "coll/p2p_plan.h"

namespace anatomy::coll {

P2pBound p2p_channel_bound(const LibraryModel& lib, const P2pComm& comm, Bytes bytes_per_peer,
                           const std::vector<int>& rounds, SimTime hop) {
  if (lib.ideal || lib.p2p_channel_GBps <= 0 || comm.ranks < 2 || rounds.empty()) return {};
  P2pShape shape{.ranks = comm.ranks, .channels = lib.p2p_channels, .channels_per_peer = lib.p2p_channels_per_peer};
  if (comm.spans_domains) {
    // NCCL 2.28 (graph/paths.cc ncclTopoGetNchannels): a network peer
    // starts from 2 channels, halved while 2 x ranks > 4 x p2pnChannels,
    // and takes at least the GPU's NICs; the peers' least, rounded up to a
    // power of two, is every peer's (ncclTopoComputeP2pChannels).
    int net = 2;
    while (net * comm.ranks > 4 * lib.p2p_channels && net > 1) net /= 2;
    net = std::max(net, lib.p2p_net_nics);
    shape.channels_per_peer =
        std::min(lib.p2p_channels_per_peer, static_cast<int>(std::bit_ceil(static_cast<unsigned>(net))));
    shape.chunk = lib.p2p_net_chunk;
    shape.across_nodes = true;
  }
  const P2pPlan plan = p2p_plan(shape, bytes_per_peer, rounds);
  const double rate_GBps = lib.cta_GBps(plan.ll ? Protocol::kLL : Protocol::kSimple);
  const double copy_GBps = lib.p2p_recv_copy_GBps > 0 ? lib.p2p_recv_copy_GBps : lib.p2p_channel_GBps;
  const double seconds = plan.busiest_channel_bytes.as_double() / (rate_GBps * 1e9) +
                         plan.last_step.as_double() / (copy_GBps * 1e9);
  return {SimTime::from_seconds(seconds) + hop * (plan.most_batches - 1), plan.ll};
}

}  // namespace anatomy::coll
