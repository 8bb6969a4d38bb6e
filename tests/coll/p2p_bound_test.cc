#include "coll/p2p_bound.h"

#include <gtest/gtest.h>

namespace anatomy::coll {
namespace {

// NCCL on an NVLink switch: 32 p2p channels, 32 a peer, one CTA moving
// 20.4 GB/s (Blackwell), one NIC a GPU, the network's 128 KiB p2p chunk.
LibraryModel switch_library() {
  LibraryModel lib;
  lib.name = "test";
  lib.p2p_channel_GBps = 20.4;
  lib.p2p_ll_channel_GBps = 5.2;
  lib.p2p_net_nics = 1;
  return lib;
}

double micros(SimTime t) { return t.seconds() * 1e6; }

// A pipeline send of 8 MiB between two GPUs of one domain, on a pipeline
// group that spans domains. NCCL 2.28 gives a network peer 2 channels
// while 2 x ranks <= 4 x 32, and every peer takes the peers' least: on 8
// ranks 2 parts of 4 MiB (a part may not exceed one 128 KiB chunk, but
// doubling stops at the 2 channels), so one CTA carries 4 MiB and its last
// 128 KiB chunk: 4.125 MiB / 20.4 GB/s = 212.0 us. On 72 ranks the
// network peer keeps 1 channel (144 > 128): 8.125 MiB, 417.6 us; a GPU
// with 2 NICs keeps 2 however many ranks.
TEST(P2pBound, AcrossDomainsAPeerGetsANetworkPeersChannels) {
  const LibraryModel lib = switch_library();
  const Bytes send = Bytes::MiB(8);
  EXPECT_NEAR(micros(p2p_channel_bound(lib, {.ranks = 8, .spans_domains = true}, send, {1}, SimTime::zero()).time),
              (Bytes::MiB(4) + Bytes::KiB(128)).as_double() / 20.4e3, 0.1);
  EXPECT_NEAR(micros(p2p_channel_bound(lib, {.ranks = 72, .spans_domains = true}, send, {1}, SimTime::zero()).time),
              (Bytes::MiB(8) + Bytes::KiB(128)).as_double() / 20.4e3, 0.1);
  LibraryModel two_nics = lib;
  two_nics.p2p_net_nics = 2;
  EXPECT_NEAR(
      micros(p2p_channel_bound(two_nics, {.ranks = 72, .spans_domains = true}, send, {1}, SimTime::zero()).time),
      (Bytes::MiB(4) + Bytes::KiB(128)).as_double() / 20.4e3, 0.1);
}

// Inside one domain the same send on 8 ranks takes 4 parts (32 halved
// until x 8 <= 32) of 2 MiB, each with a 512 KiB last step: 2.5 MiB /
// 20.4 GB/s = 128.5 us. 256 KiB runs LL (<= 32 x 16 KiB) in 4 parts of
// 64 KiB at 5.2 GB/s: 12.6 us, and the bound says LL.
TEST(P2pBound, InsideADomainSimpleAndLlRunAtTheirOwnRates) {
  const LibraryModel lib = switch_library();
  const P2pBound simple = p2p_channel_bound(lib, {.ranks = 8}, Bytes::MiB(8), {1}, SimTime::zero());
  EXPECT_FALSE(simple.ll);
  EXPECT_NEAR(micros(simple.time), (Bytes::MiB(2) + Bytes::KiB(512)).as_double() / 20.4e3, 0.1);
  const P2pBound ll = p2p_channel_bound(lib, {.ranks = 8}, Bytes::KiB(256), {1}, SimTime::zero());
  EXPECT_TRUE(ll.ll);
  EXPECT_NEAR(micros(ll.time), Bytes::KiB(64).as_double() / 5.2e3, 0.1);
}

// The receiver's FIFO is in its own memory, so it copies a part's last step
// out at its own rate. The 8 MiB send above with the copy at 35 GB/s: 2 MiB
// of writes at 20.4 GB/s (102.8 us) and 512 KiB of copy at 35 (15.0 us),
// 117.8 us where the copy at the sender's rate gives 128.5. A part of one
// step (2 MiB on 8 ranks: 4 parts of 512 KiB) pays a whole write and a
// whole copy: 25.7 + 15.0 = 40.7 us.
TEST(P2pBound, TheReceiverCopiesTheLastStepOutOfItsOwnMemoryAtItsOwnRate) {
  LibraryModel lib = switch_library();
  lib.p2p_recv_copy_GBps = 35.0;
  EXPECT_NEAR(micros(p2p_channel_bound(lib, {.ranks = 8}, Bytes::MiB(8), {1}, SimTime::zero()).time),
              Bytes::MiB(2).as_double() / 20.4e3 + Bytes::KiB(512).as_double() / 35e3, 0.1);
  EXPECT_NEAR(micros(p2p_channel_bound(lib, {.ranks = 8}, Bytes::MiB(2), {1}, SimTime::zero()).time), 40.68, 0.1);
  // LL parts have no last step to copy: the copy rate changes nothing.
  EXPECT_NEAR(micros(p2p_channel_bound(lib, {.ranks = 8}, Bytes::KiB(256), {1}, SimTime::zero()).time),
              Bytes::KiB(64).as_double() / 5.2e3, 0.1);
}

}  // namespace
}  // namespace anatomy::coll
