#include <gtest/gtest.h>

#include <utility>

#include "fixture.h"

namespace anatomy::coll {
namespace {

using testing::Fixture;

Fixture one_node(const char* system) {
  return Fixture(topo::build_cluster(testing::cluster_spec(system, 8)), nccl_library(hw::find_system(system)));
}

// On one MI355X node RCCL's channels to a peer carry 51.6 GB/s, less than
// the peer's xGMI link (76.8 x 0.75 = 57.6): an 8 GiB all-to-all sends each
// peer 1 GiB, so it takes at least 1,073,741,824 B / 51.6 GB/s = 20.81 ms
// and reads 7/8 x 8 GiB / 20.81 ms = 361 GB/s of bus bandwidth at most
// (Oracle's table: 360.7). An MI300X keeps its link's bound: 7 links of 48
// GB/s, 336 GB/s.
TEST(Direct, InsideOneMi355xNodeAPeersChannelsBoundTheAllToAll) {
  Fixture mi355x = one_node("mi355x-8");
  const CollectiveResult r = mi355x.run(Op::kAllToAll, Bytes::GiB(8), "direct");
  EXPECT_GT(r.time.seconds(), 1073741824.0 / 51.6e9);
  EXPECT_NEAR(r.busbw_GBps, 361.0, 0.5);

  Fixture mi300x = one_node("mi300x-8");
  EXPECT_NEAR(mi300x.run(Op::kAllToAll, Bytes::GiB(8), "direct").busbw_GBps, 336.0, 1.0);
}

// Across nodes a communicator capped at c CTAs (maxCTAs; an ep cap in an
// iteration) sends a rank's whole payload through c channels of one CTA
// each: 2 DGX H100 (16 ranks) all-to-all of 1 GiB sends 15/16 GiB a rank,
// which at 1 CTA of 19.0 GB/s takes at least 53.0 ms, 19.0 GB/s of busbw
// (busbw = 15/16 x 1 GiB / time). At 8 CTAs (152 GB/s) the NICs bind
// first (about 92 GB/s of busbw), as without a cap.
TEST(Direct, AcrossNodesACtaCapBoundsARanksSends) {
  Fixture two(topo::build_cluster(testing::cluster_spec("dgx-h100", 16)), nccl_library(hw::find_system("dgx-h100")));
  const double free = two.run(Op::kAllToAll, Bytes::GiB(1), "direct", Fidelity::kBulk).busbw_GBps;
  two.lib = with_ctas(nccl_library(hw::find_system("dgx-h100")), 0, 1);
  EXPECT_NEAR(two.run(Op::kAllToAll, Bytes::GiB(1), "direct", Fidelity::kBulk).busbw_GBps, 19.0, 0.1);
  two.lib = with_ctas(nccl_library(hw::find_system("dgx-h100")), 0, 8);
  EXPECT_DOUBLE_EQ(two.run(Op::kAllToAll, Bytes::GiB(1), "direct", Fidelity::kBulk).busbw_GBps, free);
}

// Across nodes one proxy thread a rank posts its network sends one after
// another, 2 us each on AMD hosts (NCCL's getNetOverhead): a 256 B
// all-to-all on 2 MI355X nodes (8 peers outside a rank's node, the first
// post inside the hop) ends 7 x 2 = 14 us later than with free posts, on 4
// nodes (24 such peers) 23 x 2 = 46 us later, and on one node (no network
// peer) at the same time.
TEST(Direct, AProxyPostsARanksNetworkSendsOneAfterAnother) {
  for (const auto& [gpus, posts_us] : {std::pair{16, 14.0}, std::pair{32, 46.0}, std::pair{8, 0.0}}) {
    Fixture f(topo::build_cluster(testing::cluster_spec("mi355x-8", gpus)), nccl_library(hw::find_system("mi355x-8")));
    const double posted_us = f.run(Op::kAllToAll, Bytes(256), "direct").time.seconds() * 1e6;
    f.lib.net_overhead_us = 0;
    const double free_us = f.run(Op::kAllToAll, Bytes(256), "direct").time.seconds() * 1e6;
    EXPECT_NEAR(posted_us - free_us, posts_us, 1e-6) << gpus << " GPUs";
  }
}

}  // namespace
}  // namespace anatomy::coll
