#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "shell.h"

namespace {

using anatomy::testing::run;
using anatomy::testing::write_temp;

// A 2-tier fat tree of 32 hosts (8 ToRs of 4, 4 spines of radix 8) at
// 100 Gb/s, 1 us per link.
const char* kTinyTopo =
    "Nodes 32\nTiers 2\nPodsize 32\n"
    "Tier 0\nDownlink_speed_Gbps 100\nRadix_Down 4\nRadix_Up 4\nDownlink_Latency_ns 1000\n"
    "Tier 1\nDownlink_speed_Gbps 100\nRadix_Down 8\nDownlink_Latency_ns 1000\n";

TEST(PacketCli, RunsAConnectionMatrixOnAnHtsimTopology) {
  // Two 1 MB flows that share nothing finish together: the table names both
  // files and counts 2 connections.
  const std::string topo = write_temp("tiny.topo", kTinyTopo);
  const std::string cm = write_temp("two.cm", "Nodes 32\nConnections 2\n0->5 start 0 size 1000000\n1->6 start 0 size 1000000\n");
  const auto r = run("packet --cm " + cm + " --topo " + topo + " --network packet:transport=eqds");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("connections    2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("max FCT"), std::string::npos);
}

TEST(PacketCli, TimedAtTheSenderAFlowEndsWhenItsLastAcknowledgementIsBack) {
  // One 1 MB flow from host 0 to host 5 (another ToR): two hops up, two
  // down, 1 us each. Timed at the sender, as htsim prints "finished at", it
  // also waits for the last acknowledgement to come back over those four
  // links: at least 4 us later, and less than 4.1 (the acknowledgement is a
  // 64-byte frame, 5 ns a hop at 100 Gb/s, and jumps any queue).
  const std::string topo = write_temp("tiny3.topo", kTinyTopo);
  const std::string cm = write_temp("one.cm", "Nodes 32\nConnections 1\n0->5 start 0 size 1000000\n");
  const auto at_receiver = run("packet --cm " + cm + " --topo " + topo + " --network packet:transport=uec --format json");
  const auto at_sender =
      run("packet --cm " + cm + " --topo " + topo + " --network packet:transport=uec --fct sender --format json");
  ASSERT_EQ(at_receiver.code, 0) << at_receiver.err;
  ASSERT_EQ(at_sender.code, 0) << at_sender.err;
  const double r = nlohmann::json::parse(at_receiver.out)["max_fct_us"].get<double>();
  const double s = nlohmann::json::parse(at_sender.out)["max_fct_us"].get<double>();
  EXPECT_GE(s - r, 4.0);
  EXPECT_LT(s - r, 4.1);
  EXPECT_EQ(nlohmann::json::parse(at_sender.out)["fct_at"], "sender");
  // Anything else is refused.
  EXPECT_EQ(run("packet --cm " + cm + " --topo " + topo + " --fct both").code, 2);
}

TEST(PacketCli, BadFilesAreOneLineAndExitCodeTwo) {
  const std::string topo = write_temp("tiny2.topo", kTinyTopo);
  const std::string cm = write_temp("bad.cm", "Nodes 32\n0->33 start 0 size 10\n");
  const auto r = run("packet --cm " + cm + " --topo " + topo);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("bad.cm:2: connection: host 33 is not one of the 32 nodes"), std::string::npos) << r.err;
  const std::string big = write_temp("big.cm", "Nodes 64\n0->9 start 0 size 10\n");
  const auto b = run("packet --cm " + big + " --topo " + topo);
  EXPECT_EQ(b.code, 2);
  EXPECT_NE(b.err.find("big.cm:1: Nodes: 64 nodes, but the topology"), std::string::npos) << b.err;
}

}  // namespace
