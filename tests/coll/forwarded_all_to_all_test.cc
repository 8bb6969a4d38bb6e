#include "coll/forwarded_all_to_all.h"

#include <gtest/gtest.h>

#include "fixture.h"

namespace anatomy::coll {
namespace {

topo::Topology dgx_h100(int gpus) { return topo::build_cluster(testing::cluster_spec("dgx-h100", gpus)); }

TEST(ForwardedAllToAll, EachRankSendsOnceToItsPlaceInTheOtherDomainWhichForwards) {
  // 16 GPUs in two hosts of 8: rank 0 sends to_domain[1] to rank 8 (the
  // first of the other host), and to ranks 1..7 its own to_peer plus the
  // to_peer it forwards for rank 8, whose counterpart it is: 2 x to_peer.
  // All in one exchange, as wire bytes (payload / the protocol's efficiency).
  const topo::Topology t = dgx_h100(16);
  const Group g = whole_topology(t);
  const LibraryModel lib = nccl_library(hw::find_system("dgx-h100"));
  const Schedule s =
      build_forwarded_all_to_all(g, {Bytes(0), Bytes(3'000'000)}, Bytes(1'000'000), Protocol::kSimple, lib);
  ASSERT_EQ(s.phases.size(), 1u);
  const double eff = lib.efficiency(Protocol::kSimple);
  int across = 0, inside = 0;
  for (const Send& x : s.phases[0].sends) {
    if (x.src != g.node(0)) continue;
    if (x.dst == g.node(8)) {
      ++across;
      EXPECT_NEAR(x.bytes.as_double(), 3'000'000 / eff, 1);
    } else {
      ++inside;
      bool own_host = false;
      for (uint32_t r = 1; r < 8; ++r) own_host = own_host || x.dst == g.node(r);
      EXPECT_TRUE(own_host);
      EXPECT_NEAR(x.bytes.as_double(), 2 * 1'000'000 / eff, 2);
    }
  }
  EXPECT_EQ(across, 1);
  EXPECT_EQ(inside, 7);
  // Every rank alike: 16 x (1 + 7) sends once merged.
  EXPECT_EQ(s.phases[0].sends.size(), 16u * 8u);
  // One network hop and one forwarding hop: more than inside one host,
  // where every send is one NVLink hop.
  std::vector<uint32_t> host;
  for (uint32_t i = 0; i < 8; ++i) host.push_back(i);
  const Schedule one_host =
      build_forwarded_all_to_all(make_group(t, host), {Bytes(0)}, Bytes(1'000'000), Protocol::kSimple, lib);
  EXPECT_GT(s.phases[0].latency_after, one_host.phases[0].latency_after);
  EXPECT_GT(one_host.phases[0].latency_after, SimTime::zero());
}

TEST(ForwardedAllToAll, UnequalDomainsForwardThroughThePlaceModuloTheirSize) {
  // 12 GPUs: 8 on the first host, 4 on the second. Ranks 1 and 5 of the
  // first both send to rank 9 (places 1 and 5, modulo 4: 1), which
  // forwards for both and sends its own: 3 x to_peer to each of its 3 peers.
  const topo::Topology t = dgx_h100(16);
  std::vector<uint32_t> gpus;
  for (uint32_t i = 0; i < 12; ++i) gpus.push_back(i);
  const Group g = make_group(t, gpus);
  const LibraryModel lib = nccl_library(hw::find_system("dgx-h100"));
  const Schedule s =
      build_forwarded_all_to_all(g, {Bytes(5'000), Bytes(7'000)}, Bytes(1'000), Protocol::kSimple, lib);
  const double eff = lib.efficiency(Protocol::kSimple);
  double nine_to_eight = 0, five_to_nine = 0, nine_to_five = 0;
  for (const Send& x : s.phases[0].sends) {
    if (x.src == g.node(9) && x.dst == g.node(8)) nine_to_eight += x.bytes.as_double();
    if (x.src == g.node(5) && x.dst == g.node(9)) five_to_nine += x.bytes.as_double();
    if (x.src == g.node(9) && x.dst == g.node(5)) nine_to_five += x.bytes.as_double();
  }
  EXPECT_NEAR(nine_to_eight, 3 * 1'000 / eff, 3);
  EXPECT_NEAR(five_to_nine, 7'000 / eff, 1);  // to the second domain: to_domain[1]
  // Rank 9's counterpart in the first domain is the rank in place 1 (rank 1), not 5.
  EXPECT_EQ(nine_to_five, 0);
}

}  // namespace
}  // namespace anatomy::coll
