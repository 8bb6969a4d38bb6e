#pragma once
// The least time NCCL's p2p channels need for one group of point-to-point
// transfers between GPUs of one NVLink domain (p2p_plan.h): the busiest
// channel's bytes at one CTA's rate (LibraryModel::p2p_channel_GBps;
// p2p_ll_channel_GBps for an LL part's bytes), the receiver's copy of a
// part's last FIFO step out of its own memory (p2p_recv_copy_GBps), plus a
// hop for each further batch the channel runs. Zero where the library has
// no such rate (RCCL, or no NVLink switch). Across domains the network
// bounds the transfers instead, so the callers apply it only between GPUs
// of one domain; the communicator they belong to may still span domains,
// which changes NCCL's cut.
//
//   p2p_channel_bound(lib, {.ranks = 8}, Bytes::MiB(64), {1}, hop).time
//     // a send/receive to the next of 8 GPUs: 4 parts of 16 MiB, 0.84 ms on Blackwell

#include <vector>

#include "coll/library_model.h"

namespace anatomy::coll {

struct P2pComm {
  int ranks = 2;               // the communicator's
  bool spans_domains = false;  // NCCL's nNodes > 1
};

struct P2pBound {
  SimTime time;     // zero: no bound
  bool ll = false;  // NCCL sends these transfers LL (p2p_plan.h)
};

P2pBound p2p_channel_bound(const LibraryModel& lib, const P2pComm& comm, Bytes bytes_per_peer,
                           const std::vector<int>& rounds, SimTime hop);

}  // namespace anatomy::coll
