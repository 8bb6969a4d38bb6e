#include "topo/topology.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/error.h"
#include "hw/catalog.h"
#include "topo/builders.h"

namespace anatomy::topo {
namespace {

ClusterSpec dgx(const char* system, int gpus) {
  ClusterSpec s;
  s.system = hw::find_system(system);
  s.gpus = gpus;
  return s;
}

std::vector<LinkId> route(const Topology& t, NodeId a, NodeId b, uint64_t hash = 1) {
  std::vector<LinkId> p;
  t.route(a, b, hash, p);
  return p;
}

// A path is connected and goes from a to b.
void expect_path(const Topology& t, const std::vector<LinkId>& p, NodeId a, NodeId b) {
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(t.link(p.front()).from, a);
  EXPECT_EQ(t.link(p.back()).to, b);
  for (size_t i = 1; i < p.size(); ++i) EXPECT_EQ(t.link(p[i - 1]).to, t.link(p[i]).from);
}

TEST(Cluster, InsideAnNvswitchNodeIsTwoHops) {
  Topology t = build_cluster(dgx("dgx-h100", 16));
  auto p = route(t, t.gpu_node(0), t.gpu_node(5));
  expect_path(t, p, t.gpu_node(0), t.gpu_node(5));
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(t.link(p[0]).kind, LinkKind::kScaleUp);
  // 450 GB/s NVLink x NCCL's 20.6/25 payload efficiency = 370.8 GB/s.
  EXPECT_NEAR(t.link(p[0]).bandwidth.gigabytes_per_second(), 370.8, 1e-9);
}

TEST(Cluster, SameRailAcrossHostsStaysUnderOneLeaf) {
  // GPU 0 and GPU 8 are rail 0 of hosts 0 and 1; both NICs sit on the same
  // rail-0 leaf: GPU -> NIC -> leaf -> NIC -> GPU.
  Topology t = build_cluster(dgx("dgx-h100", 16));
  auto p = route(t, t.gpu_node(0), t.gpu_node(8));
  expect_path(t, p, t.gpu_node(0), t.gpu_node(8));
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(t.kind(t.link(p[1]).to), NodeKind::kSwitch);
  EXPECT_EQ(t.link(p[0]).kind, LinkKind::kPcie);
}

TEST(Cluster, CrossRailUsesPxnOrTheSpine) {
  Topology t = build_cluster(dgx("dgx-h100", 16));
  // PXN: NVLink to local GPU 1 (rail 1), then rail 1 under one leaf.
  auto p = route(t, t.gpu_node(0), t.gpu_node(9));
  expect_path(t, p, t.gpu_node(0), t.gpu_node(9));
  EXPECT_EQ(p.size(), 6u);
  EXPECT_EQ(t.link(p[1]).to, t.gpu_node(1));
  // Without PXN the flow leaves on rail 0 and crosses a spine to rail 1.
  t.pxn = false;
  auto q = route(t, t.gpu_node(0), t.gpu_node(9));
  expect_path(t, q, t.gpu_node(0), t.gpu_node(9));
  ASSERT_EQ(q.size(), 6u);
  EXPECT_EQ(t.level(t.link(q[2]).to), 2);  // a spine
}

TEST(Cluster, RcclSendsCrossRailTrafficFromItsOwnNic) {
  // RCCL's PXN_DISABLE defaults to 1 (graph/paths.cc), NCCL's to 0. Two
  // MI300X hosts: GPU 0 (rail 0) to GPU 9 (rail 1 of host 1) leaves on NIC
  // 0 and crosses a spine, where NCCL on DGX H100 hops over NVLink first.
  Topology amd = build_cluster(dgx("mi300x-8", 16));
  EXPECT_FALSE(amd.pxn);
  auto p = route(amd, amd.gpu_node(0), amd.gpu_node(9));
  expect_path(amd, p, amd.gpu_node(0), amd.gpu_node(9));
  EXPECT_EQ(amd.link(p[0]).kind, LinkKind::kPcie);
  EXPECT_EQ(amd.level(amd.link(p[2]).to), 2);  // a spine
  EXPECT_TRUE(build_cluster(dgx("dgx-h100", 16)).pxn);
}

TEST(Cluster, EcmpSpreadsFlowsOverEverySpine) {
  // 32 hosts of 8 rails at radix 16: 8 hosts per leaf, 4 units x 8 rails = 32 leaves
  // would exceed 2 tiers at radix 16, so use 64 ports: 32 hosts under one leaf per rail.
  ClusterSpec s = dgx("dgx-h100", 8 * 64);
  s.fabric.radix = 64;  // 32 down, 32 up: 2 units x 8 rails = 16 leaves, 8 spines (16 x 32 / 64)
  Topology t = build_cluster(s);
  t.pxn = false;
  const NodeId a = t.nic_of(0), b = t.nic_of(8 * 40 + 3);  // rail 0 host 0 -> rail 3 host 40
  auto paths = t.fabric_paths(a, b);
  std::set<NodeId> spines;
  for (const auto& p : paths) spines.insert(t.link(p[1]).to);
  EXPECT_EQ(spines.size(), 8u);
  // Hashing hits every spine, roughly evenly.
  std::map<NodeId, int> hits;
  for (uint64_t h = 1; h <= 8000; ++h) hits[t.link(route(t, t.gpu_node(0), t.gpu_node(8 * 40 + 3), h)[2]).to]++;
  EXPECT_EQ(hits.size(), 8u);
  for (auto& [n, c] : hits) EXPECT_NEAR(c, 1000, 150);
}

TEST(Cluster, ClassicFatTreeHasKSquaredOverFourPathsBetweenPods) {
  // k = 4 fat-tree: 4 pods of 2 edge + 2 aggregation switches, 4 cores, 16
  // hosts. Two hosts in different pods have (k/2)^2 = 4 shortest paths.
  ClusterSpec s = dgx("dgx-h100", 16 * 8);
  s.system.nics_per_host = 1;  // one NIC per host, as in the textbook fat-tree
  s.fabric.radix = 4;
  s.fabric.tiers = 3;
  s.fabric.rail_optimized = false;
  Topology t = build_cluster(s);
  EXPECT_NE(t.description.find("3-tier"), std::string::npos);
  const NodeId a = t.nic_of(0), b = t.nic_of(8 * 15);
  auto paths = t.fabric_paths(a, b);
  EXPECT_EQ(paths.size(), 4u);
  for (const auto& p : paths) EXPECT_EQ(p.size(), 6u);  // edge, agg, core, agg, edge, host
  // Same edge switch: one path of two links.
  EXPECT_EQ(t.fabric_paths(t.nic_of(0), t.nic_of(8)).size(), 1u);
}

TEST(Cluster, EveryRouteEcmpTakesIsAmongTheEnumeratedPathsAndTheVisitorCanStop) {
  // The same k = 4 fat tree: the 4 paths between pods are exactly the
  // fabric part of the routes ECMP hashes onto, and a visitor that says
  // stop after the second path sees two.
  ClusterSpec s = dgx("dgx-h100", 16 * 8);
  s.system.nics_per_host = 1;
  s.fabric.radix = 4;
  s.fabric.tiers = 3;
  s.fabric.rail_optimized = false;
  Topology t = build_cluster(s);
  const NodeId a = t.nic_of(0), b = t.nic_of(8 * 15);
  const auto paths = t.fabric_paths(a, b);
  ASSERT_EQ(paths.size(), 4u);
  std::set<std::vector<LinkId>> hashed;
  for (uint64_t h = 1; h <= 400; ++h) {
    std::vector<LinkId> p;
    t.route(a, b, h, p);
    hashed.insert(p);
  }
  EXPECT_EQ(hashed, std::set<std::vector<LinkId>>(paths.begin(), paths.end()));
  int seen = 0;
  t.for_each_fabric_path(a, b, [&](std::span<const LinkId> p) {
    EXPECT_TRUE(std::equal(p.begin(), p.end(), paths[seen].begin(), paths[seen].end()));  // same order
    return ++seen < 2;
  });
  EXPECT_EQ(seen, 2);
}

TEST(Cluster, APartialLastScaleUpDomainIsNamed) {
  // 1,024 GPUs in NVL72 racks fill 14 racks (1,008 GPUs) and leave 16 in a
  // fifteenth; 8 GPUs use part of one rack; 144 fill two.
  ClusterSpec s = dgx("gb200-nvl72", 1024);
  EXPECT_NE(build_cluster(s).description.find("14 scale-up domains of 72 and one of 16"), std::string::npos);
  s.gpus = 8;
  EXPECT_NE(build_cluster(s).description.find("8 GPUs of one scale-up domain of 72"), std::string::npos);
  s.gpus = 144;
  EXPECT_NE(build_cluster(s).description.find("2 scale-up domains of 72;"), std::string::npos);
}

TEST(Cluster, TwoTiersThatCannotHoldTheHostsIsAnInputError) {
  ClusterSpec s = dgx("dgx-h100", 8 * 512);
  s.fabric.radix = 32;
  s.fabric.tiers = 2;
  EXPECT_THROW(build_cluster(s), core::InputError);
  s.fabric.tiers = 0;  // automatic: three tiers fit
  Topology t = build_cluster(s);
  EXPECT_NE(t.description.find("3-tier"), std::string::npos);
  expect_path(t, route(t, t.gpu_node(0), t.gpu_node(8 * 511 + 7)), t.gpu_node(0), t.gpu_node(8 * 511 + 7));
}

// A switch of radix k has k ports: whatever the builder accepts (small or
// large radix, rails or not, two or three tiers) cables no switch to more.
// What it cannot build within the radix is an input error instead.
TEST(Cluster, NoSwitchHasMorePortsThanItsRadix) {
  int built = 0;
  for (int radix : {4, 8, 16, 32, 64})
    for (bool rails : {true, false})
      for (int gpus : {16, 64, 256, 1024})
        for (int tiers : {0, 2, 3}) {
          ClusterSpec s = dgx("dgx-h100", gpus);
          s.fabric.radix = radix;
          s.fabric.rail_optimized = rails;
          s.fabric.tiers = tiers;
          Topology t;
          try {
            t = build_cluster(s);
          } catch (const core::InputError&) {
            continue;
          }
          ++built;
          for (NodeId n = 0; n < t.num_nodes(); ++n) {
            if (t.kind(n) != NodeKind::kSwitch) continue;
            ASSERT_LE(t.out_links(n).size(), static_cast<size_t>(radix)) << t.node_label(n) << " in " << t.description;
          }
        }
  EXPECT_GT(built, 20);
}

TEST(Cluster, InfinityFabricMeshIsOneDirectLink) {
  Topology t = build_cluster(dgx("mi300x-8", 8));
  auto p = route(t, t.gpu_node(0), t.gpu_node(5));
  ASSERT_EQ(p.size(), 1u);
  // 64 GB/s per xGMI link x 0.75 payload efficiency.
  EXPECT_NEAR(t.link(p[0]).bandwidth.gigabytes_per_second(), 48.0, 1e-9);
}

TEST(Cluster, Nvl72DomainSpansEighteenHosts) {
  Topology t = build_cluster(dgx("gb200-nvl72", 144));
  EXPECT_EQ(t.num_domains(), 2u);
  EXPECT_EQ(t.num_hosts(), 36u);
  EXPECT_EQ(route(t, t.gpu_node(0), t.gpu_node(71)).size(), 2u);  // NVLink across trays
  EXPECT_GT(route(t, t.gpu_node(0), t.gpu_node(72)).size(), 2u);  // the other rack: scale-out
}

TEST(Cluster, StorageOnItsOwnFabricGoesThroughHostMemory) {
  ClusterSpec s = dgx("dgx-h100", 16);
  s.storage.servers = 4;
  Topology t = build_cluster(s);
  ASSERT_EQ(t.storage_nodes().size(), 4u);
  const NodeId st = t.storage_nodes()[2];
  auto p = route(t, t.gpu_node(3), st);
  expect_path(t, p, t.gpu_node(3), st);
  EXPECT_EQ(t.kind(t.link(p[0]).to), NodeKind::kHost);
  for (size_t i = 2; i < p.size(); ++i) EXPECT_EQ(t.link(p[i]).kind, LinkKind::kStorage);
  auto back = route(t, st, t.gpu_node(3));
  expect_path(t, back, st, t.gpu_node(3));
}

TEST(Cluster, StorageSharedWithComputeUsesTheGpuNic) {
  ClusterSpec s = dgx("dgx-h100", 16);
  s.storage.servers = 2;
  s.storage.shared_with_compute = true;
  Topology t = build_cluster(s);
  const NodeId st = t.storage_nodes()[0];
  auto p = route(t, t.gpu_node(3), st);
  expect_path(t, p, t.gpu_node(3), st);
  EXPECT_EQ(t.link(p[0]).to, t.nic_of(3));
  for (size_t i = 1; i < p.size(); ++i) EXPECT_EQ(t.link(p[i]).kind, LinkKind::kFabric);
}

TEST(Torus, RingRoutesTheShortWayRound) {
  Topology t = build_torus({8}, Bandwidth::gigabytes_per_s(50), SimTime::ns(500));
  EXPECT_EQ(route(t, t.gpu_node(0), t.gpu_node(3)).size(), 3u);
  auto back = route(t, t.gpu_node(0), t.gpu_node(6));
  ASSERT_EQ(back.size(), 2u);  // 0 -> 7 -> 6
  EXPECT_EQ(t.link(back[0]).to, t.gpu_node(7));
  EXPECT_EQ(t.link(back[0]).latency, SimTime::ns(500));
}

TEST(Torus, TwoDimensionsRouteDimensionByDimension) {
  Topology t = build_torus({4, 4}, Bandwidth::gigabytes_per_s(50), SimTime::ns(500));
  auto p = route(t, t.gpu_node(0), t.gpu_node(5));  // (0,0) -> (1,1)
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(t.link(p[0]).to, t.gpu_node(1));  // dimension 0 first
  EXPECT_EQ(route(t, t.gpu_node(0), t.gpu_node(15)).size(), 2u);  // wraps both ways
}

TEST(Scale, OneHundredThirtyOneThousandGpusBuildInBoundedMemory) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "timed in the release build";
#endif
  Topology t = build_cluster(dgx("dgx-h100", 131072));
  EXPECT_EQ(t.num_gpus(), 131072u);
  // A few hundred bytes per GPU: links dominate (about 12 per GPU).
  EXPECT_LT(t.memory_bytes(), size_t{512} << 20);
  expect_path(t, route(t, t.gpu_node(0), t.gpu_node(131071)), t.gpu_node(0), t.gpu_node(131071));
}

}  // namespace
}  // namespace anatomy::topo
