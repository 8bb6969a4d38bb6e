#include <gtest/gtest.h>

#include "hw/catalog.h"
#include "topo/builders.h"
#include "topo/topology.h"

namespace anatomy::topo {
namespace {

// A link a report names reads as hosts, GPUs, NICs, switches and ports, not
// as the simulator's node ids: on 16 DGX H100 GPUs (2 hosts of 8, one NIC
// per GPU on rails 0-7, a rail-optimized leaf per rail), GPU 11 is GPU 3 of
// host 1 and its NIC is host 1's NIC 3.
TEST(Labels, NameHostsGpusNicsSwitchesAndPorts) {
  ClusterSpec s;
  s.system = hw::find_system("dgx-h100");
  s.gpus = 16;
  const Topology t = build_cluster(s);
  const NodeId gpu = t.gpu_node(11), nic = t.nic_of(11);
  EXPECT_EQ(t.node_label(gpu), "host 1 gpu 3");
  EXPECT_EQ(t.node_label(nic), "host 1 nic 3");
  EXPECT_EQ(t.link_label(t.find_link(gpu, nic)), "host 1 gpu 3 -> host 1 nic 3");
  // The NIC's cable into its leaf names the leaf's port: the leaf's links
  // are numbered from 1 in the order they were built, and the port of the
  // link in is the port of the link back out.
  const LinkId up = t.out_links(nic).back();
  const NodeId leaf = t.link(up).to;
  ASSERT_EQ(t.kind(leaf), NodeKind::kSwitch);
  const auto leaf_out = t.out_links(leaf);
  size_t port = 0;
  for (size_t i = 0; i < leaf_out.size(); ++i)
    if (t.link(leaf_out[i]).to == nic) port = i + 1;
  ASSERT_GT(port, 0u);
  const std::string leaf_name = t.node_label(leaf);
  EXPECT_EQ(leaf_name.rfind("leaf ", 0), 0u) << leaf_name;
  EXPECT_EQ(t.link_label(up), "host 1 nic 3 -> " + leaf_name + " port " + std::to_string(port));
  EXPECT_EQ(t.link_label(leaf_out[port - 1]), leaf_name + " port " + std::to_string(port) + " -> host 1 nic 3");
  // Every switch has a tier name, numbered within the tier.
  int leaves = 0, spines = 0;
  for (NodeId n = 0; n < t.num_nodes(); ++n) {
    if (t.kind(n) != NodeKind::kSwitch) continue;
    const std::string name = t.node_label(n);
    if (name.rfind("leaf ", 0) == 0) {
      EXPECT_EQ(name, "leaf " + std::to_string(leaves++));
    }
    if (name.rfind("spine ", 0) == 0) {
      EXPECT_EQ(name, "spine " + std::to_string(spines++));
    }
  }
  EXPECT_GT(leaves, 0);
  EXPECT_GT(spines, 0);
  EXPECT_EQ(t.node_label(t.host_node(1)), "host 1");
}

}  // namespace
}  // namespace anatomy::topo
