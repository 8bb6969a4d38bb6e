#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "topo/htsim_topo.h"

namespace anatomy::topo {
namespace {

// htsim's fat_tree_1024.topo with switch latencies added: the k = 16 fat
// tree of 1,024 hosts at 100 Gb/s, 1 us per link.
const char* kFatTree1024 = R"(Nodes 1024
Tiers 3
Podsize 64

Tier 0
Oversubscribed 1
Downlink_speed_Gbps 100
Radix_Down 8
Radix_Up 8
Downlink_Latency_ns 1000
Switch_Latency_ns 100

Tier 1
Downlink_speed_Gbps 100
Radix_Down 8
Radix_Up 8
Downlink_Latency_ns 1000
Switch_Latency_ns 200
Bundle 1

Tier 2
Downlink_speed_Gbps 100
Radix_Down 16
Downlink_Latency_ns 1000
Switch_Latency_ns 300
)";

std::string error_of(const std::string& text) {
  try {
    build_htsim_fat_tree(parse_htsim_topo(text, "t.topo"));
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(HtsimTopo, BuildsTheFileShapeWithEachTiersLatency) {
  // k = 16: 16 pods of 8 ToRs and 8 aggregation switches, 64 cores.
  const Topology t = build_htsim_fat_tree(parse_htsim_topo(kFatTree1024, "t.topo"));
  int per_level[4] = {};
  for (NodeId n = 0; n < t.num_nodes(); ++n)
    if (t.kind(n) == NodeKind::kSwitch) ++per_level[t.level(n)];
  EXPECT_EQ(t.num_gpus(), 1024u);
  EXPECT_EQ(per_level[1], 128);
  EXPECT_EQ(per_level[2], 128);
  EXPECT_EQ(per_level[3], 64);
  // Host 0 to host 1023 (another pod): six cables of 1 us, entering a ToR,
  // an aggregation switch, a core, an aggregation switch and a ToR:
  // 6 x 1000 + 100 + 200 + 300 + 200 + 100 = 6,900 ns; the GPU <-> NIC hops
  // (not in htsim's model) add nothing.
  std::vector<LinkId> path;
  t.route(t.gpu_node(0), t.gpu_node(1023), 1, path);
  SimTime sum;
  for (LinkId l : path) sum += t.link(l).latency;
  EXPECT_EQ(sum, SimTime::ns(6900));
}

TEST(HtsimTopo, BadFilesNameTheFileLineAndField) {
  EXPECT_EQ(error_of("Nodes 8\nTiers 4\n"), "t.topo:2: Tiers: must be 2 or 3 (got 4)");
  EXPECT_EQ(error_of("Nodes 8\nTiers 2\nPodsize 8\nTier 0\nRadix_Down x\n"),
            "t.topo:5: Radix_Down: 'x' is not a whole number");
  EXPECT_EQ(error_of("Nodes 8\nTiers 2\nPodsize 8\nTier 0\nColour 3\n").rfind("t.topo:5: Colour: unknown", 0), 0u);
  EXPECT_EQ(error_of("Nodes 8\nTiers 2\nPodsize 8\nTier 0\nDownlink_speed_Gbps 100\nRadix_Down 4\nRadix_Up 4\n"
                     "Downlink_Latency_ns 10\nTier 1\nDownlink_speed_Gbps 100\nRadix_Down 2\nDownlink_Latency_ns 10\n"
                     "Bundle 2\n"),
            "t.topo:13: Bundle: anatomy's fat-tree builder makes one link per switch pair: only 1 is supported");
  EXPECT_EQ(error_of("Nodes 8\nTiers 2\nPodsize 8\nTier 0\nDownlink_speed_Gbps 100\nRadix_Down 4\nRadix_Up 4\n"),
            "t.topo:4: Downlink_Latency_ns: missing for tier 0");
  EXPECT_EQ(error_of("Tiers 2\n"), "t.topo:1: Nodes: missing from the header");
}

}  // namespace
}  // namespace anatomy::topo
