#include "coll/p2p_plan.h"

#include <gtest/gtest.h>

namespace anatomy::coll {
namespace {

// 32 p2p channels, 32 a peer at most: an NVLink-switched node, as NCCL
// sets them on DGX H100 and DGX B200.
P2pPlan plan(int ranks, Bytes per_peer) { return p2p_plan({.ranks = ranks}, per_peer, all_to_all_rounds(ranks)); }

TEST(P2pPlan, OnEightGpusEachPeerRidesFourChannelsAndNoChannelCarriesTwo) {
  // 256 MiB all-to-all on 8 GPUs: 32 MiB a peer. Parts start at 32 halved
  // until x 8 ranks <= 32 channels: 4, of 8 MiB (not over 32 x 512 KiB =
  // 16 MiB, so no doubling). Rounds 1..7 start at 1..7 bit-reversed over 5
  // bits (16, 8, 24, 4, 20, 12, 28), four channels each: no overlap.
  const P2pPlan p = plan(8, Bytes::MiB(32));
  EXPECT_EQ(p.parts_per_peer, 4);
  EXPECT_EQ(p.part, Bytes::MiB(8));
  EXPECT_EQ(p.last_step, Bytes::KiB(512));  // the last of 16 steps of 512 KiB
  EXPECT_FALSE(p.ll);
  EXPECT_EQ(p.busiest_channel_bytes, Bytes::MiB(8));
  EXPECT_EQ(p.most_batches, 1);
}

TEST(P2pPlan, LargeTransfersDoubleTheirPartsAndOverlapOnChannels) {
  // 1 GiB on 8 GPUs: 128 MiB a peer, 4 parts of 32 MiB > 16 MiB, doubled
  // to 8 of 16 MiB. Eight channels from 8 (round 2) and from 4 (round 4)
  // both cover channels 8-11: 2 x 16 MiB there.
  const P2pPlan p = plan(8, Bytes::MiB(128));
  EXPECT_EQ(p.parts_per_peer, 8);
  EXPECT_EQ(p.busiest_channel_bytes, Bytes::MiB(32));
  // 8 GiB on 4 GPUs: 2 GiB a peer, 8 parts doubled to 16, then 32 (the
  // cap: no doubling past p2pnChannelsPerPeer): every channel carries the
  // 3 other GPUs' 64 MiB parts.
  const P2pPlan q = plan(4, Bytes::GiB(2));
  EXPECT_EQ(q.parts_per_peer, 32);
  EXPECT_EQ(q.busiest_channel_bytes, Bytes::MiB(192));
}

TEST(P2pPlan, On64GpusRoundsThirtyTwoApartShareAChannelInTwoBatches) {
  // 256 MiB on 64 GPUs: 4 MiB a peer on one part (32 halved to 1 and
  // 1 x 64 > 32 still). Rounds k and k + 32 reverse to the same channel and
  // sit in different groups of 8, so that channel runs two batches: 8 MiB.
  const P2pPlan p = plan(64, Bytes::MiB(4));
  EXPECT_EQ(p.parts_per_peer, 1);
  EXPECT_EQ(p.busiest_channel_bytes, Bytes::MiB(8));
  EXPECT_EQ(p.most_batches, 2);
}

TEST(P2pPlan, APeersTransferOfAtMostThirtyTwoTimesSixteenKiBRunsLl) {
  // NCCL 2.22-2.28 choose LL for a peer's bytes <= p2pnChannelsPerPeer x
  // NCCL_P2P_LL_THRESHOLD = 32 x 16 KiB = 512 KiB, before cutting it.
  // 16 MiB on 64 GPUs: 256 KiB a peer, LL, one part; rounds k and k + 32
  // share a channel: 512 KiB on the busiest, and no FIFO step is copied
  // out after the last line lands.
  const P2pPlan a = plan(64, Bytes::KiB(256));
  EXPECT_TRUE(a.ll);
  EXPECT_EQ(a.parts_per_peer, 1);
  EXPECT_EQ(a.busiest_channel_bytes, Bytes::KiB(512));
  EXPECT_EQ(a.last_step, Bytes(0));
  EXPECT_TRUE(plan(64, Bytes::KiB(512)).ll);
  EXPECT_FALSE(plan(64, Bytes::KiB(513)).ll);  // 32 MiB + 64 KiB on 64 GPUs: Simple
  // 1 MiB on 8 GPUs: 128 KiB a peer, LL, whose 64 KiB step allows a part
  // per 8 KiB: min(4, 16) = 4 parts of 32 KiB (Simple's 64 KiB floor would
  // have given 2).
  const P2pPlan b = plan(8, Bytes::KiB(128));
  EXPECT_TRUE(b.ll);
  EXPECT_EQ(b.parts_per_peer, 4);
  EXPECT_EQ(b.part, Bytes::KiB(32));
  // 8 MiB on 8 GPUs: 1 MiB a peer, Simple, min(4, 1 MiB / 64 KiB) = 4
  // parts of 256 KiB, each under one 512 KiB step: all of it the last step.
  const P2pPlan c = plan(8, Bytes::MiB(1));
  EXPECT_FALSE(c.ll);
  EXPECT_EQ(c.parts_per_peer, 4);
  EXPECT_EQ(c.last_step, Bytes::KiB(256));
}

}  // namespace
}  // namespace anatomy::coll
