#include "coll/library_model.h"

#include <gtest/gtest.h>

#include <string>

#include "fixture.h"
#include "hw/catalog.h"

namespace anatomy::coll {
namespace {

using testing::Fixture;

TEST(LibraryModel, NcclAndRcclLl128LinesCarryFifteenOfSixteenAndSevenOfEightWords) {
  // NCCL's LL128 line is 128 B, 16 words of 8 B, one of them the flag;
  // RCCL's is 64 B, 8 words, one the flag (RCCL's device.h).
  const LibraryModel nccl = nccl_library(hw::find_system("dgx-h100"));
  const LibraryModel rccl = nccl_library(hw::find_system("mi300x-8"));
  EXPECT_DOUBLE_EQ(nccl.efficiency(Protocol::kLL128), 15.0 / 16.0);
  EXPECT_DOUBLE_EQ(rccl.efficiency(Protocol::kLL128), 7.0 / 8.0);
  // LL is 8 data bytes a 16-byte line in both.
  EXPECT_DOUBLE_EQ(rccl.efficiency(Protocol::kLL), 0.5);
  // Across nodes NCCL's tree keeps 0.92 of the link times the line's payload.
  EXPECT_DOUBLE_EQ(nccl.tree_efficiency(Protocol::kLL128, 2), 0.92 * 15.0 / 16.0);
  EXPECT_DOUBLE_EQ(rccl.tree_efficiency(Protocol::kLL128, 2), 0.92 * 7.0 / 8.0);
}

TEST(LibraryModel, RcclChoosesLl128OnGfx942OnlyOnFourNicHosts) {
  // RCCL 2.22.3 (ROCm 6.4.2) added LL128 on gfx942 for the 4-NIC platforms
  // its Rome models enable it on; gfx950 and NCCL's parts have it anywhere.
  hw::System mi300x = hw::find_system("mi300x-8");  // 8 NICs a host
  EXPECT_FALSE(nccl_library(mi300x).ll128);
  EXPECT_NE(nccl_library(mi300x).name.find("no LL128 on 8-NIC hosts"), std::string::npos);
  mi300x.nics_per_host = 4;
  EXPECT_TRUE(nccl_library(mi300x).ll128);
  EXPECT_TRUE(nccl_library(hw::find_system("mi355x-8")).ll128);
  EXPECT_TRUE(nccl_library(hw::find_system("dgx-h100")).ll128);
}

TEST(LibraryModel, AStepIsTheProtocolBufferOverEightSlotsLessItsFlags) {
  // NCCL: LL128 120 words x 640 threads x 8 B = 614,400 B a step, 15/16 of
  // it payload = 576,000 B; LL 8 lines x 512 threads x 16 B = 64 KiB, half
  // payload = 32 KiB. RCCL: 28 words x 256 threads x 8 B = 57,344 B, 7/8
  // payload = 50,176 B; LL 8 x 256 x 16 B = 32 KiB, half = 16 KiB. Simple is
  // 4 MiB / 8 slots x 4 steps a ring chunk in both.
  const LibraryModel nccl = nccl_library(hw::find_system("dgx-h100"));
  const LibraryModel rccl = nccl_library(hw::find_system("mi300x-8"));
  EXPECT_EQ(nccl.chunk(AlgoClass::kRing, Protocol::kLL128), Bytes(576'000));
  EXPECT_EQ(nccl.chunk(AlgoClass::kRing, Protocol::kLL), Bytes::KiB(32));
  EXPECT_EQ(rccl.chunk(AlgoClass::kRing, Protocol::kLL128), Bytes(50'176));
  EXPECT_EQ(rccl.chunk(AlgoClass::kRing, Protocol::kLL), Bytes::KiB(16));
  EXPECT_EQ(rccl.chunk(AlgoClass::kRing, Protocol::kSimple), nccl.chunk(AlgoClass::kRing, Protocol::kSimple));
}

TEST(LibraryModel, RcclLl128RingOnOneNodeMovesSevenEighthsOfSimplesBusBandwidth) {
  // A ring's time at 1 GiB is its wire bytes over the links: LL128 sends
  // 8/7 of Simple's bytes on RCCL, so its bus bandwidth is 7/8 of Simple's,
  // less the pipeline fill and latency (under 2% at this size).
  const topo::ClusterSpec s = testing::cluster_spec("mi300x-8", 8);
  Fixture fx(topo::build_cluster(s), nccl_library(s.system));
  const double simple =
      fx.run(Op::kAllReduce, Bytes::GiB(1), "ring", Fidelity::kBulk, Protocol::kSimple).busbw_GBps;
  const double ll128 = fx.run(Op::kAllReduce, Bytes::GiB(1), "ring", Fidelity::kBulk, Protocol::kLL128).busbw_GBps;
  EXPECT_NEAR(ll128 / simple, 7.0 / 8.0, 0.02);
}

TEST(LibraryModel, AProtocolsOwnHopWorkRidesOnALongerNvlinkPath) {
  // NCCL's NVLink hop latencies (tuning.cc hwLat) were measured on boards
  // whose path is about their LL figure, 0.6 us. On an NVL72 rack's 1.37 us
  // path LL takes the path, and LL128 and Simple add their own work to it:
  // a ring's LL128 hop 1.9 + 1.37 - 0.6 = 2.67 us, Simple 3.4 + 0.77 = 4.17,
  // the tree's LL128 1.25 + 0.77 = 2.02. A path shorter than 0.6 us leaves
  // NCCL's figures; a network hop is the longer of NCCL's and the path.
  const LibraryModel lib = nccl_library(hw::find_system("dgx-h100"));
  const auto us = [](double v) { return SimTime::from_seconds(v * 1e-6); };
  const SimTime rack = us(1.37);
  EXPECT_NEAR(lib.hop_on_path(LinkClass::kNvlink, AlgoClass::kRing, Protocol::kLL, rack).micros(), 1.37, 1e-6);
  EXPECT_NEAR(lib.hop_on_path(LinkClass::kNvlink, AlgoClass::kRing, Protocol::kLL128, rack).micros(), 2.67, 1e-6);
  EXPECT_NEAR(lib.hop_on_path(LinkClass::kNvlink, AlgoClass::kRing, Protocol::kSimple, rack).micros(), 4.17, 1e-6);
  EXPECT_NEAR(lib.hop_on_path(LinkClass::kNvlink, AlgoClass::kTree, Protocol::kLL128, rack).micros(), 2.02, 1e-6);
  EXPECT_NEAR(lib.hop_on_path(LinkClass::kNvlink, AlgoClass::kRing, Protocol::kSimple, us(0.5)).micros(), 3.4, 1e-6);
  EXPECT_NEAR(lib.hop_on_path(LinkClass::kNet, AlgoClass::kTree, Protocol::kLL128, us(3)).micros(), 8.5, 1e-6);
  EXPECT_NEAR(lib.hop_on_path(LinkClass::kNet, AlgoClass::kTree, Protocol::kLL128, us(10)).micros(), 10.0, 1e-6);
  // The ideal library has no software: a hop is its path.
  EXPECT_NEAR(ideal_library().hop_on_path(LinkClass::kNvlink, AlgoClass::kRing, Protocol::kLL128, rack).micros(), 1.37,
              1e-6);
}

TEST(LibraryModel, AnNvl72RingsLl128StepsPayTheRacksPathAndTheirOwnWork) {
  // A 4 KiB ring/LL128 all-reduce on 8 GPUs of a GB200 rack is all latency:
  // NCCL's 14 us base and 14 steps of 2.67 us (above) = 51.4 us, where
  // the longer of NCCL's 1.9 us and the path gave 14 + 14 x 1.9 = 40.6.
  Fixture rack(topo::build_cluster(testing::cluster_spec("gb200-nvl72", 8)),
               nccl_library(hw::find_system("gb200-nvl72")));
  EXPECT_NEAR(rack.run(Op::kAllReduce, Bytes::KiB(4), "ring", Fidelity::kStep, Protocol::kLL128).time.micros(), 51.4,
              0.3);
}

TEST(LibraryModel, AnNvlinkPeerGetsTwoP2pChannelsALinkUpToThirtyTwo) {
  // NCCL gives an NVLink peer 2 channels per link, rounded up to a power of
  // two and capped at the 32 p2p channels: A100's 12 links give 24 -> 32,
  // H100's 18 give 36 -> 64 -> 32. RCCL's mesh has no such rate modelled.
  const LibraryModel a100 = nccl_library(hw::find_system("dgx-a100"));
  const LibraryModel h100 = nccl_library(hw::find_system("dgx-h100"));
  EXPECT_EQ(a100.p2p_channels_per_peer, 32);
  EXPECT_EQ(h100.p2p_channels_per_peer, 32);
  EXPECT_DOUBLE_EQ(h100.p2p_channel_GBps, 19.0);
  EXPECT_DOUBLE_EQ(nccl_library(hw::find_system("gb200-nvl72")).p2p_channel_GBps, 20.4);
  EXPECT_DOUBLE_EQ(nccl_library(hw::find_system("gb200-nvl72")).p2p_recv_copy_GBps, 35.0);
  EXPECT_EQ(h100.p2p_recv_copy_GBps, 0.0);  // not measured: the sender's rate
  EXPECT_EQ(nccl_library(hw::find_system("mi300x-8")).p2p_channel_GBps, 0.0);
}

TEST(LibraryModel, ARingsCtasInsideOneNvlinkDomainCarryTheirChannelsRate) {
  // NCCL's init logs: "24 coll channels" on 8x H100, "32 coll channels" on a
  // DGX B200. At one CTA's p2p rate each: 24 x 19.0 = 456 GB/s (Hopper),
  // 32 x 20.4 = 652.8 GB/s (Blackwell, whose GB200 racks take the same
  // channels). A100's rate is not measured, and RCCL's mesh has none: no bound.
  EXPECT_DOUBLE_EQ(nccl_library(hw::find_system("dgx-h100")).nvlink_channels_busbw_GBps(), 456.0);
  EXPECT_DOUBLE_EQ(nccl_library(hw::find_system("dgx-b200")).nvlink_channels_busbw_GBps(), 652.8);
  EXPECT_DOUBLE_EQ(nccl_library(hw::find_system("gb200-nvl72")).nvlink_channels_busbw_GBps(), 652.8);
  EXPECT_EQ(nccl_library(hw::find_system("dgx-a100")).nvlink_channels_busbw_GBps(), 0.0);
  EXPECT_EQ(nccl_library(hw::find_system("mi300x-8")).nvlink_channels_busbw_GBps(), 0.0);
}

TEST(LibraryModel, ACommunicatorsCtaLimitsClampEveryChannelCountItKeeps) {
  // NCCL bounds nChannels by maxCTAs and minCTAs, and p2pnChannels =
  // pow2Up(min(nChannels, ...)): on DGX B200 (32 collective channels, 32 p2p
  // channels, 16 CTAs beside compute) a cap of 6 leaves 6 channels, 6 CTAs
  // beside compute and pow2Up(6) = 8 p2p channels; a floor of 40 raises the
  // first two to 40 and leaves the p2p channels. No limits change nothing,
  // and the ideal library has no CTAs to limit.
  const LibraryModel b200 = nccl_library(hw::find_system("dgx-b200"));
  const LibraryModel capped = with_ctas(b200, 0, 6);
  EXPECT_EQ(capped.nvlink_coll_channels, 6);
  EXPECT_EQ(capped.collective_ctas, 6);
  EXPECT_EQ(capped.p2p_channels, 8);
  EXPECT_LE(capped.p2p_channels_per_peer, 8);
  EXPECT_EQ(capped.clamp_ctas(64), 6);
  const LibraryModel floored = with_ctas(b200, 40, 0);
  EXPECT_EQ(floored.nvlink_coll_channels, 40);
  EXPECT_EQ(floored.collective_ctas, 40);
  EXPECT_EQ(floored.p2p_channels, b200.p2p_channels);
  EXPECT_EQ(floored.clamp_ctas(8), 40);
  const LibraryModel same = with_ctas(b200, 0, 0);
  EXPECT_EQ(same.nvlink_coll_channels, b200.nvlink_coll_channels);
  EXPECT_EQ(same.collective_ctas, b200.collective_ctas);
  EXPECT_EQ(same.p2p_channels, b200.p2p_channels);
  EXPECT_EQ(with_ctas(ideal_library(), 40, 64).min_ctas, 0);
}

}  // namespace
}  // namespace anatomy::coll
