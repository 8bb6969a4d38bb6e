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

TEST(PacketCli, ThreadsNeverChangeTheOutput) {
  // 32 hosts each send 256 KB to the host 7 places on, all crossing the
  // spines: the network runs in 4 parts, and 1 or 3 threads give the same
  // JSON, byte for byte (it names the partitions, not the threads). One
  // part (one event queue) is another valid run of the same experiment.
  const std::string topo = write_temp("tiny4.topo", kTinyTopo);
  std::string text = "Nodes 32\nConnections 32\n";
  for (int i = 0; i < 32; ++i) text += std::to_string(i) + "->" + std::to_string((i + 7) % 32) + " start 0 size 256000\n";
  const std::string cm = write_temp("shift.cm", text);
  const std::string base = "packet --cm " + cm + " --topo " + topo + " --network packet:transport=uec --format json";
  const auto one = run(base + " --partitions 4 --threads 1");
  const auto three = run(base + " --partitions 4 --threads 3");
  ASSERT_EQ(one.code, 0) << one.err;
  ASSERT_EQ(three.code, 0) << three.err;
  EXPECT_EQ(one.out, three.out);
  EXPECT_EQ(nlohmann::json::parse(one.out)["partitions"], 4);
  const auto whole = run(base + " --partitions 1");
  ASSERT_EQ(whole.code, 0) << whole.err;
  EXPECT_EQ(nlohmann::json::parse(whole.out)["partitions"], 1);
  // The flow model and a switch-scheduled fabric run as one part: asking
  // for more is an error, exit code 2, as is a count past the hosts.
  const auto flow = run("packet --cm " + cm + " --topo " + topo + " --network flow --partitions 2");
  EXPECT_EQ(flow.code, 2);
  EXPECT_NE(flow.err.find("--partitions"), std::string::npos) << flow.err;
  EXPECT_EQ(run(base + " --partitions 33").code, 2);
  EXPECT_EQ(run("packet --cm " + cm + " --topo " + topo + " --network packet:fabric=switch-scheduled --partitions 2").code, 2);
}

}  // namespace
