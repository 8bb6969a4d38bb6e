#include <gtest/gtest.h>

#include <string>

#include "app/iteration.h"
#include "app/network_factory.h"
#include "coll/collective.h"
#include "hw/catalog.h"
#include "net/network_spec.h"
#include "scenario/scenario.h"
#include "topo/builders.h"

namespace anatomy::app {
namespace {

// 16 H100 in two DGX hosts, TP 8 inside a host and DP 2 across: the
// gradient all-reduce crosses the fabric, the TP collectives stay on NVLink.
const char* kSmall = R"(name: small
model: gpt-1.7b
cluster:
  system: dgx-h100
  gpus: 16
parallelism:
  tp: 8
training:
  seq_len: 2048
  global_batch: 4
  micro_batch: 1
)";

workload::IterationResult iteration_on(const std::string& network) {
  return run_iteration(scenario::parse_scenario(kSmall, "small.yaml", {{"network.model", network}})).result;
}

TEST(PacketChoice, AutoRunsOnlyTheFlowModelsChoicePacketByPacket) {
  // choose=flow (the default): every candidate runs on the flow model and
  // only the winner at packet level, so the packet run names the same
  // algorithm and protocol that the flow model picks, and says where.
  topo::ClusterSpec spec;
  spec.system = hw::find_system("dgx-h100");
  spec.gpus = 16;
  const topo::Topology t = topo::build_cluster(spec);
  coll::AlgorithmRegistry reg;
  coll::register_builtin_algorithms(reg);
  const coll::LibraryModel lib = coll::nccl_library(spec.system);
  const net::NetworkSpec packet = net::parse_network_spec("packet");
  const coll::CollectiveRunner flow_runner(t, reg, lib, network_factory(net::NetworkSpec{}));
  const coll::CollectiveRunner packet_runner(t, reg, lib, network_factory(packet), choice_network_factory(packet));
  coll::Request r;
  r.bytes = core::Bytes::MiB(64);
  const coll::CollectiveResult f = flow_runner.run(coll::whole_topology(t), r, "auto");
  const coll::CollectiveResult p = packet_runner.run(coll::whole_topology(t), r, "auto");
  EXPECT_FALSE(f.chosen_elsewhere);
  EXPECT_TRUE(p.chosen_elsewhere);
  EXPECT_EQ(p.algorithm + "/" + p.protocol, f.algorithm + "/" + f.protocol);
  // choose=packet keeps the old way: no choice network.
  EXPECT_FALSE(choice_network_factory(net::parse_network_spec("packet:choose=packet")));
}

TEST(PacketChoice, ABreakdownDiffersFromTheFlowModelsOnlyInTheNetworkBuckets) {
  // The same plan on both models: compute, optimizer and (with no pipeline)
  // the bubble are the compute model's, so they match to the picosecond;
  // only exposed communication and waiting may differ, and the buckets
  // still add up to the iteration on each.
  const workload::IterationResult f = iteration_on("flow");
  const workload::IterationResult p = iteration_on("packet");
  ASSERT_FALSE(f.stages.empty());
  ASSERT_EQ(f.stages.size(), p.stages.size());
  for (size_t s = 0; s < f.stages.size(); ++s) {
    const workload::TimeBreakdown& a = f.stages[s];
    const workload::TimeBreakdown& b = p.stages[s];
    EXPECT_EQ(a.forward_compute, b.forward_compute);
    EXPECT_EQ(a.backward_compute, b.backward_compute);
    EXPECT_EQ(a.optimizer, b.optimizer);
    EXPECT_EQ(a.bubble, b.bubble);
    core::SimTime sum;
    for (const auto& [name, t] : b.buckets()) sum += t;
    EXPECT_EQ(sum, p.iteration);
  }
  EXPECT_TRUE(p.algorithms_chosen_elsewhere);
  EXPECT_EQ(p.dp_algorithm, f.dp_algorithm);
  // The gradient all-reduce really ran packet by packet: its time differs.
  EXPECT_NE(f.stages[0].dp_comm, p.stages[0].dp_comm);
}

}  // namespace
}  // namespace anatomy::app
