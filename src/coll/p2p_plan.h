#pragma once
// P2pPlan: how NCCL spreads one group of point-to-point transfers (an
// all-to-all, a send/receive) over its p2p channels inside one NVLink
// domain, and what the busiest channel carries. Each channel is one CTA of
// NCCL's send/receive kernel and runs its work one batch after another, so
// the busiest channel, not the links, bounds the group when few channels
// carry it. Pure arithmetic over NCCL 2.28's rules (2.28.7, ae7aed19; master
// 5067397c where they agree), tested alone:
//
//  * rounds (init.cc p2pSchedule): on one node round k sends to rank + k
//    and receives from rank - k; round 0 is the GPU's copy to itself,
//    which stays in its own memory.
//  * channels a round starts from (include/channel.h
//    ncclP2pChannelBaseForRound): k's low log2(p2pnChannels) bits reversed;
//    a round's parts take the channels from there up, modulo p2pnChannels
//    (device.h ncclP2pChannelForPart).
//  * parts a peer's transfer is cut into (enqueue.cc): start from
//    p2pnChannelsPerPeer halved until x ranks <= p2pnChannels
//    (scheduleP2pTasksToPlan), at most one part per chunk / 8 of bytes, and
//    double while a part exceeds 32 chunks, up to p2pnChannelsPerPeer
//    (addP2pToPlan).
//  * protocol (addP2pToPlan in NCCL 2.22 to 2.28, the version anatomy's
//    library model follows and the published sweeps ran): a peer's
//    transfer of at most p2pnChannelsPerPeer x 16 KiB (NCCL_P2P_LL_THRESHOLD)
//    runs LL, which puts a flag beside every 8 bytes: up to 512 KiB a peer
//    on an NVLink switch's 32 channels a peer. LL is chosen before the cut,
//    so its parts are sized by LL's step (64 KiB: one part per 8 KiB, at
//    most 2 MiB). NCCL 2.29 narrowed it to 16 KiB a part actually used.
//  * batches (enqueue.cc ncclAddWorkBatchToPlan): a channel starts a new
//    batch for a round of another group of 8 (NCCL_MAX_DEV_WORK_P2P_PER_BATCH),
//    so on 64 GPUs with 32 channels rounds k and k + 32 run in turn.
//  * a part moves through the receiver's FIFO a chunk at a time
//    (device/sendrecv.h: directSend and directRecv of up to one
//    p2pChunkSize step): the sender writes a chunk, then the receiver copies
//    it out, so the two copies overlap except for one chunk's.
//
//   P2pPlan p = p2p_plan({.ranks = 8}, Bytes::MiB(32), all_to_all_rounds(8));
//   p.parts_per_peer == 4; p.busiest_channel_bytes == Bytes::MiB(8);

#include <vector>

#include "core/units.h"

namespace anatomy::coll {

using core::Bytes;

constexpr Bytes kP2pNvlChunk = Bytes::KiB(512);  // NCCL_P2P_NVL_CHUNKSIZE's default
constexpr Bytes kP2pLlStep = Bytes::KiB(64);     // NCCL's LL buffer over NCCL_STEPS

struct P2pShape {
  int ranks = 2;
  int channels = 32;           // NCCL's p2pnChannels
  int channels_per_peer = 32;  // NCCL's p2pnChannelsPerPeer (a power of two, <= channels)
  Bytes chunk = kP2pNvlChunk;
  Bytes ll_step = kP2pLlStep;  // an LL part's chunk
  // The communicator spans NVLink domains (NCCL's nNodes > 1): parts of
  // half a chunk to one chunk (not 1/8 to 32). The caller's
  // channels_per_peer is then the network peers' (p2p_bound.h).
  bool across_nodes = false;
};

struct P2pPlan {
  int parts_per_peer = 1;
  Bytes part;       // payload of one part
  // A Simple part's last FIFO step, min(part, chunk), copied out after it
  // lands; zero for LL, whose receiver copies each line as it lands.
  Bytes last_step;
  bool ll = false;
  Bytes busiest_channel_bytes;  // payload the busiest channel sends to other GPUs
  int most_batches = 1;         // the most batches any channel runs
};

// The rounds (peer offsets) of an all-to-all over `ranks`: 1 .. ranks - 1.
std::vector<int> all_to_all_rounds(int ranks);

// `bytes_per_peer` to each round's peer.
P2pPlan p2p_plan(const P2pShape& shape, Bytes bytes_per_peer, const std::vector<int>& rounds);

}  // namespace anatomy::coll
