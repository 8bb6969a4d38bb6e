// The edge: section: read knob by knob, and the three inputs the site
// cannot run refused with file, line and field.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "scenario/scenario.h"

namespace anatomy::scenario {
namespace {

const char* const kSite = R"(cluster: {system: mi325x-8, gpus: 8}
edge:
  model: resnet-50
  sensor:
    switched: true
    streams:
      - {name: camera, count: 4, message: 2MB, mtu: 9000, period: 33ms, deadline: 5ms, priority: 5, inference: true}
    gates:
      - {duration: 100us, open: "7"}
      - {duration: 900us, open: "0-6"}
  serving: {nodes: 2, lines: 4}
  rollout: {strategy: rolling}
)";

std::string edge_error_of(const std::string& yaml) {
  try {
    parse_scenario(yaml, "site.yaml");
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(EdgeFields, ASiteNeedsNoModelSectionAndReadsEveryKnob) {
  const Scenario s = parse_scenario(kSite, "site.yaml");
  ASSERT_TRUE(s.edge);
  EXPECT_EQ(s.edge->model, "resnet-50");
  ASSERT_EQ(s.edge->sensor.streams.size(), 1u);
  EXPECT_EQ(s.edge->sensor.streams[0].count, 4);
  EXPECT_EQ(s.edge->sensor.streams[0].period, core::SimTime::ms(33));
  ASSERT_EQ(s.edge->sensor.gates.size(), 2u);
  EXPECT_EQ(s.edge->sensor.gates[0].open, 0x80);
  EXPECT_EQ(s.edge->sensor.gates[1].open, 0x7f);
  EXPECT_EQ(s.edge->retrain.interval, core::SimTime::sec(3600));  // default
}

TEST(EdgeFields, AStreamWhosePeriodIsShorterThanItsSerializationIsRefused) {
  // 2 MB in 9000-byte frames: 223 frames of 9042 wire bytes at 10 Gb/s =
  // 1.613 ms, longer than a 1 ms period.
  EXPECT_EQ(edge_error_of(replace(kSite, "period: 33ms", "period: 1ms")),
            "site.yaml:7: edge.sensor.streams[0].period: 1ms is shorter than the 1.613ms its 2MB message takes to "
            "serialize at 10Gbps (223 frames)");
}

TEST(EdgeFields, AMessageNoSensorSendsIsRefusedAndASlowLinkDoesNotOverflow) {
  // Found by fuzz/scenario_fuzzer: a 25PB message made frames x frame time
  // overflow int64 picoseconds (undefined behaviour) in this check.
  EXPECT_EQ(edge_error_of(replace(kSite, "message: 2MB", "message: 25PB")),
            "site.yaml:7: edge.sensor.streams[0].message: '25PB' is over 1GiB: a sensor's reading or image is "
            "megabytes at most");
  // 1 GiB at 1 bps in 1500-byte frames: 715,828 frames of 1,542 wire bytes,
  // 12,336 s each, 8.8e9 s in all, far past int64 picoseconds' 9.2e6 s:
  // compared in seconds and shown capped at 1e6 s rather than wrapped.
  const std::string slow = replace(replace(replace(kSite, "message: 2MB", "message: 1GiB"), "mtu: 9000", "mtu: 1500"),
                                   "switched: true", "switched: true\n    link_speed: 1bps");
  EXPECT_NE(edge_error_of(slow).find("edge.sensor.streams[0].period: 33ms is shorter than the"), std::string::npos)
      << edge_error_of(slow);
}

TEST(EdgeFields, AGateListThatNeverOpensForAStreamsClassIsRefused) {
  EXPECT_EQ(edge_error_of(replace(kSite, "open: \"0-6\"", "open: \"0-4\"")),
            "site.yaml:8: edge.sensor.gates: never opens for class 5 (stream 0, 'camera')");
  EXPECT_NE(edge_error_of(replace(kSite, "open: \"0-6\"", "open: \"0-9\"")).find("site.yaml:10: edge.sensor.gates[1].open"),
            std::string::npos);
}

TEST(EdgeFields, ARolloutToMoreNodesThanServeIsRefused) {
  EXPECT_EQ(edge_error_of(replace(kSite, "{strategy: rolling}", "{strategy: rolling, nodes: 3}")),
            "site.yaml:12: edge.rollout.nodes: rolls out to 3 nodes, but only 2 serve (edge.serving.nodes)");
  EXPECT_EQ(edge_error_of(replace(kSite, "{nodes: 2, lines: 4}", "{nodes: 8, lines: 4}")),
            "site.yaml:11: edge.serving.nodes: 8 dedicated serving nodes leave none of the 8 accelerators to train (or "
            "shared: true)");
}

TEST(EdgeFields, UnknownKeysNameTheNearestOne) {
  EXPECT_NE(edge_error_of(replace(kSite, "{strategy: rolling}", "{stratgy: rolling}")).find("edge.rollout.stratgy"),
            std::string::npos);
}

}  // namespace
}  // namespace anatomy::scenario
