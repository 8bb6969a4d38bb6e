#include <gtest/gtest.h>

#include "net/packet/paths.h"
#include "net/packet/transport.h"
#include "packet_test_util.h"

namespace anatomy::net::packet {
namespace {

TEST(SprayPaths, EveryPathReachesAllEqualCostPathsBetweenPods) {
  // k = 8 fat tree (128 hosts): between pods a flow climbs to one of 4
  // aggregation switches and then one of 4 cores: 16 equal-cost paths, all
  // of which UEC's 16-bit entropy value reaches; the sampled default (32)
  // finds them too, while 4 samples keep 4.
  const topo::Topology t = testing::fat_tree(128, 8, 3);
  PacketConfig every;
  every.spray_paths = Transport::kEveryPath;
  PathCache all(t, every);
  EXPECT_EQ(all.spray(t.gpu_node(0), t.gpu_node(127)).count, 16u);
  PacketConfig four;
  four.spray_paths = 4;
  PathCache some(t, four);
  EXPECT_EQ(some.spray(t.gpu_node(0), t.gpu_node(127)).count, 4u);
  // Same leaf: one path.
  EXPECT_EQ(all.spray(t.gpu_node(0), t.gpu_node(1)).count, 1u);
}

TEST(SprayPaths, UecSpraysOverEveryPathAndEqdsOverItsSample) {
  // spray_paths 0 (the default) takes the transport's: every path for uec,
  // 32 for eqds.
  TransportRegistry reg;
  register_builtin_transports(reg);
  EXPECT_EQ(reg.make("uec")->defaults().spray_paths, Transport::kEveryPath);
  EXPECT_EQ(reg.make("eqds")->defaults().spray_paths, 32);
  EXPECT_EQ(PacketConfig{}.spray_paths, 0);
}

}  // namespace
}  // namespace anatomy::net::packet
