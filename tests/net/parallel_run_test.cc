#include "net/packet/parallel_run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "engine/simulator.h"
#include "net/packet/partition.h"
#include "packet_test_util.h"

namespace anatomy::net::packet {
namespace {

using testing::fat_tree;
using testing::make_packet;
using testing::with_transport;

// A random permutation of `bytes` flows among every host.
std::vector<TimedTransfer> permutation(const topo::Topology& t, core::Bytes bytes, uint64_t seed) {
  const uint32_t n = t.num_gpus();
  std::vector<uint32_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0u);
  core::Rng rng = core::RngStreams(seed).stream("test.perm");
  for (uint32_t i = n - 1; i > 0; --i) std::swap(perm[i], perm[rng.next_u64() % (i + 1)]);
  std::vector<TimedTransfer> xs;
  for (uint32_t i = 0; i < n; ++i)
    if (perm[i] != i) xs.push_back({SimTime::zero(), t.gpu_node(i), t.gpu_node(perm[i]), bytes});
  return xs;
}

// The same transfers on one event queue (the classic PacketNetwork).
std::vector<int64_t> one_queue(const topo::Topology& t, const PacketConfig& c, const std::vector<TimedTransfer>& xs) {
  engine::Simulator sim;
  auto net = make_packet(sim, t, c);
  std::vector<int64_t> done(xs.size(), -1);
  for (size_t i = 0; i < xs.size(); ++i)
    net->transfer_at(xs[i].start, xs[i].src, xs[i].dst, xs[i].bytes, [&, i] { done[i] = sim.now().count_ps(); });
  sim.run();
  return done;
}

TEST(Partition, KeepsHostsInContiguousBlocksAndDealsTheCoreRoundRobin) {
  // The k = 8 fat tree (128 hosts, 16 core switches) in 4 parts: 32
  // consecutive hosts per part, each host's NIC with it, every core switch
  // in some part and 16 / 4 = 4 in each; the lookahead is the smallest
  // latency of a link between parts.
  const topo::Topology t = fat_tree(128, 8, 3);
  const Partition p = partition_nodes(t, 4);
  for (uint32_t g = 0; g < 128; ++g) EXPECT_EQ(p.owner[t.gpu_node(g)], g / 32) << g;
  std::vector<int> cores(4, 0);
  SimTime least = SimTime::max();
  for (topo::NodeId n = 0; n < t.num_nodes(); ++n)
    if (t.kind(n) == topo::NodeKind::kSwitch && t.level(n) == 3) ++cores[p.owner[n]];
  for (const topo::Link& l : t.links())
    if (p.owner[l.from] != p.owner[l.to]) least = std::min(least, l.latency);
  EXPECT_EQ(cores, (std::vector<int>{4, 4, 4, 4}));
  EXPECT_GT(p.cut_links, 0u);
  EXPECT_EQ(p.lookahead, least);
  EXPECT_GT(p.lookahead, SimTime::zero());
  EXPECT_THROW(partition_nodes(t, 0), core::InputError);
  EXPECT_THROW(partition_nodes(t, 129), core::InputError);
}

TEST(Partition, DefaultIsOnePartPer256HostsFrom8To64) {
  // 8,192 / 256 = 32 parts; 1,024 / 256 = 4, raised to 8 so that up to 8
  // cores have parts; 65,536 / 256 = 256, capped at 64; and never more
  // parts than hosts.
  EXPECT_EQ(default_partitions(8192), 32);
  EXPECT_EQ(default_partitions(1024), 8);
  EXPECT_EQ(default_partitions(128), 8);
  EXPECT_EQ(default_partitions(65536), 64);
  EXPECT_EQ(default_partitions(4), 4);
  EXPECT_EQ(default_partitions(0), 1);
}

TEST(PartitionedRun, EveryThreadCountGivesTheSameRun) {
  // 128 hosts each send 256 KB to another: whether 1, 2 or 4 threads run
  // the 4 parts, every flow ends at the same picosecond, with the same
  // events and counters (nothing depends on which thread ran a part). So
  // too with coalesced acknowledgements, whose receivers keep timers.
  const topo::Topology t = fat_tree(128, 8, 3);
  const auto xs = permutation(t, core::Bytes(256'000), 5);
  for (const core::Bytes ack_bytes : {core::Bytes(0), core::Bytes::KiB(16)}) {
    SCOPED_TRACE(ack_bytes.count());
    PacketConfig c = with_transport("uec");
    c.ack_bytes = ack_bytes;
    const PartitionedResult one = run_partitioned(t, c, xs, {.partitions = 4, .threads = 1});
    ASSERT_EQ(one.threads, 1);
    EXPECT_GT(one.crossings, 0u);
    EXPECT_GT(one.windows, 1u);
    for (int threads : {2, 4}) {
      const PartitionedResult r = run_partitioned(t, c, xs, {.partitions = 4, .threads = threads});
      EXPECT_EQ(r.threads, threads);
      EXPECT_EQ(r.finished_ps, one.finished_ps) << threads;
      EXPECT_EQ(r.events, one.events);
      EXPECT_EQ(r.crossings, one.crossings);
      EXPECT_EQ(r.stats.ecn_marks, one.stats.ecn_marks);
      EXPECT_EQ(r.stats.data_sent, one.stats.data_sent);
      EXPECT_EQ(r.stats.control_sent, one.stats.control_sent);
    }
    for (int64_t f : one.finished_ps) EXPECT_GT(f, 0);
  }
}

TEST(PartitionedRun, AFlowAloneCrossesPartsExactlyAsOnOneQueue) {
  // One 1 MB flow from the first host to the last crosses every part
  // boundary there is (host -> ToR -> aggregation -> core -> ... ->
  // host). Nothing else runs, so no tie between events can be broken
  // another way: handing packets from part to part at the window edges
  // must give the very picosecond one queue gives, at each of the three
  // completion points.
  const topo::Topology t = fat_tree(128, 8, 3);
  const std::vector<TimedTransfer> xs = {
      {SimTime::us(3), t.gpu_node(0), t.gpu_node(127), core::Bytes(1'000'000)}};
  for (const char* transport : {"uec", "eqds", "roce"}) {
    const PacketConfig c = with_transport(transport);
    const auto whole = one_queue(t, c, xs);
    const auto parts = run_partitioned(t, c, xs, {.partitions = 8, .threads = 2});
    EXPECT_EQ(parts.finished_ps, whole) << transport;
    EXPECT_GT(parts.crossings, 0u);
  }
}

TEST(PartitionedRun, AgreesWithOneQueueOnAContendedPermutation) {
  // With contention, events at the same picosecond may run in another
  // order than on one queue, so single flows differ by a packet or so;
  // the permutation's mean and slowest FCT agree within 2%.
  const topo::Topology t = fat_tree(128, 8, 3);
  const auto xs = permutation(t, core::Bytes(512'000), 9);
  for (const char* transport : {"uec", "eqds"}) {
    const PacketConfig c = with_transport(transport);
    const auto whole = one_queue(t, c, xs);
    const auto parts = run_partitioned(t, c, xs, {.partitions = 8, .threads = 2}).finished_ps;
    const double mean_w = std::accumulate(whole.begin(), whole.end(), 0.0) / static_cast<double>(whole.size());
    const double mean_p = std::accumulate(parts.begin(), parts.end(), 0.0) / static_cast<double>(parts.size());
    EXPECT_NEAR(mean_p / mean_w, 1.0, 0.02) << transport;
    const double max_w = static_cast<double>(*std::max_element(whole.begin(), whole.end()));
    const double max_p = static_cast<double>(*std::max_element(parts.begin(), parts.end()));
    EXPECT_NEAR(max_p / max_w, 1.0, 0.02) << transport;
  }
}

TEST(PartitionedRun, APartStoresOnlyTheFlowsItSendsOrReceives) {
  // 128 hosts in 8 parts of 16: a permutation's flow has its sender in one
  // part and its receiver in one (the same part or another), so the parts
  // hold between 128 and 2 x 128 = 256 records, not 8 x 128 = 1,024; and
  // with adaptive routing, which reads the paths of every flow it forwards,
  // the transit parts still route as one queue does (within 2%, as above).
  const topo::Topology t = fat_tree(128, 8, 3);
  const auto xs = permutation(t, core::Bytes(512'000), 9);
  PacketConfig c = with_transport("uec");
  c.load_balancing = LoadBalancing::kAdaptive;
  const PartitionedResult r = run_partitioned(t, c, xs, {.partitions = 8, .threads = 2});
  EXPECT_GE(r.flow_records, xs.size());
  EXPECT_LE(r.flow_records, 2 * xs.size());
  const auto whole = one_queue(t, c, xs);
  const double max_w = static_cast<double>(*std::max_element(whole.begin(), whole.end()));
  const double max_p = static_cast<double>(*std::max_element(r.finished_ps.begin(), r.finished_ps.end()));
  EXPECT_NEAR(max_p / max_w, 1.0, 0.02);
}

TEST(PartitionedRun, AHostSplitBetweenPartsSendsAndReceivesByItsNicsPart) {
  // 8 hosts of 2 GPUs that share one NIC, in 3 parts: GPUs 10 and 11 (host
  // 5) fall in parts 1 and 2 (10 x 3 / 16 = 1, 11 x 3 / 16 = 2), and the
  // NIC joins one of them. A flow sends from the part that has the NIC,
  // whichever GPU it is from, and each flow alone ends when one queue
  // ends it, to the picosecond.
  topo::ClusterSpec spec;
  spec.system = testing::single_nic_host();
  spec.system.gpus_per_host = 2;
  spec.system.scaleup.domain_gpus = 1;
  spec.gpus = 16;
  spec.fabric.radix = 8;
  spec.fabric.tiers = 2;
  spec.fabric.rail_optimized = false;
  const topo::Topology t = topo::build_cluster(spec);
  const Partition p = partition_nodes(t, 3);
  ASSERT_NE(p.owner[t.gpu_node(10)], p.owner[t.gpu_node(11)]);
  const PacketConfig c = with_transport("uec");
  for (const auto& [from, to] : {std::pair{11u, 0u}, std::pair{0u, 11u}, std::pair{10u, 3u}}) {
    const std::vector<TimedTransfer> xs = {{SimTime::zero(), t.gpu_node(from), t.gpu_node(to), core::Bytes(300'000)}};
    EXPECT_EQ(run_partitioned(t, c, xs, {.partitions = 3, .threads = 2}).finished_ps, one_queue(t, c, xs))
        << from << " -> " << to;
  }
}

TEST(PartitionedRun, RefusesWhatNeedsOneQueue) {
  // A switch-scheduled fabric's requests and grants cross parts without a
  // link, and a send completion would be timed by the receiver's part
  // without the sender's resends in view: both are InputErrors on more
  // than one part, and run on one.
  const topo::Topology t = fat_tree(32, 8, 2);
  const std::vector<TimedTransfer> xs = {{SimTime::zero(), t.gpu_node(0), t.gpu_node(31), core::Bytes(100'000)}};
  PacketConfig sched = with_transport("roce");
  sched.fabric = FabricKind::kSwitchScheduled;
  EXPECT_THROW(run_partitioned(t, sched, xs, {.partitions = 2}), core::InputError);
  PartitionedOptions on_send{.partitions = 2};
  on_send.transfer.complete_on_send = true;
  EXPECT_THROW(run_partitioned(t, with_transport("uec"), xs, on_send), core::InputError);
  on_send.partitions = 1;
  EXPECT_GT(run_partitioned(t, with_transport("uec"), xs, on_send).finished_ps[0], 0);
}

TEST(PartitionedRun, PauseFramesCrossPartsToo) {
  // RoCE with PFC: 31 hosts of the first 32 send 1 MB each to host 127,
  // in another part. The last ToR's port to host 127 fills and pauses
  // upstream ports, some of them in other parts; every flow still ends,
  // nothing is dropped, and 1 and 2 threads agree to the picosecond.
  const topo::Topology t = fat_tree(128, 8, 3);
  std::vector<TimedTransfer> xs;
  for (uint32_t g = 1; g < 32; ++g) xs.push_back({SimTime::zero(), t.gpu_node(g), t.gpu_node(127), core::Bytes(1'000'000)});
  const PacketConfig c = with_transport("roce");
  const PartitionedResult a = run_partitioned(t, c, xs, {.partitions = 4, .threads = 1});
  const PartitionedResult b = run_partitioned(t, c, xs, {.partitions = 4, .threads = 2});
  EXPECT_GT(a.stats.pfc_pauses, 0u);
  EXPECT_EQ(a.stats.drops + a.stats.pfc_headroom_drops, 0u);
  for (int64_t f : a.finished_ps) EXPECT_GT(f, 0);
  EXPECT_EQ(a.finished_ps, b.finished_ps);
  EXPECT_EQ(a.stats.pfc_pauses, b.stats.pfc_pauses);
}

}  // namespace
}  // namespace anatomy::net::packet
