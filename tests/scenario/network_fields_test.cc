// The scenario's network section reads the packet backend's own option
// table (net/packet/packet_options.h): the same settings from YAML and from
// --network give the same typed spec.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "net/network_spec.h"
#include "net/packet/packet_options.h"
#include "scenario/scenario.h"

namespace anatomy::scenario {
namespace {

using net::packet::PacketOption;

const char* const kBase = R"(model: {layers: 2, hidden: 64, heads: 8, vocab: 100}
cluster: {system: dgx-h100, gpus: 16}
)";

Scenario with_network(const std::string& network_yaml) {
  return parse_scenario(std::string(kBase) + "network:\n" + network_yaml, "s.yaml");
}

std::string network_error_of(const std::string& network_yaml) {
  try {
    with_network(network_yaml);
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

// "a=1,b=2" as YAML lines "  a: 1\n  b: 2\n".
std::string as_yaml(const std::string& options) {
  std::string out;
  size_t pos = 0;
  while (pos < options.size()) {
    size_t end = options.find(',', pos);
    if (end == std::string::npos) end = options.size();
    const std::string item = options.substr(pos, end - pos);
    const size_t eq = item.find('=');
    out += "  " + item.substr(0, eq) + ": " + item.substr(eq + 1) + "\n";
    pos = end + 1;
  }
  return out;
}

TEST(NetworkFields, SameOptionsFromYamlAndFromTheFlagGiveTheSameSpec) {
  const std::string options =
      "transport=roce,fabric=switch-scheduled,load_balancing=adaptive,spray_paths=8,buffer=static,"
      "switch_buffer=16MiB,dt_alpha=0.5,port_buffer=512KiB,ecn_kmin=50KB,ecn_kmax=200KB,ecn_pmax=0.5,trimming=on,"
      "header_queue=2MiB,pfc=on,pfc_xoff=128KiB,pfc_xon=64KiB,rto_min=100us,initial_window=64KB,ack_every=4,ack_bytes=16KiB,"
      "deep_buffer_latency=1us,voq_buffer=2GiB,seed=9";
  const net::NetworkSpec from_flag = net::parse_network_spec("packet:" + options, "--network");
  const Scenario s = with_network("  model: packet\n" + as_yaml(options));
  EXPECT_EQ(s.network, from_flag);
  EXPECT_EQ(net::to_string(s.network), "packet:" + options);
}

TEST(NetworkFields, EveryPacketOptionIsAYamlKey) {
  for (const PacketOption& o : net::packet::packet_options()) {
    const std::string yaml = "  model: packet\n  " + std::string(o.key) + ": " + o.default_text + "\n";
    EXPECT_EQ(network_error_of(yaml), "no error") << o.key;
  }
}

TEST(NetworkFields, AbsentSectionIsTheFlowModelWithDefaults) {
  const Scenario s = parse_scenario(kBase, "s.yaml");
  EXPECT_EQ(s.network, net::NetworkSpec{});
  EXPECT_EQ(net::to_string(s.network), "flow");
}

TEST(NetworkFields, UnknownKeyNamesFileLineFieldAndTheKnownKeys) {
  const std::string e = network_error_of("  model: packet\n  ecn_kmn: 50KB\n");
  EXPECT_EQ(e.rfind("s.yaml:5: network.ecn_kmn: unknown key 'ecn_kmn' in network (did you mean 'ecn_kmin'?); "
                    "valid keys: model, transport, fabric, ",
                    0),
            0u)
      << e;
}

TEST(NetworkFields, PacketOptionsNeedThePacketModel) {
  EXPECT_EQ(network_error_of("  transport: roce\n"), "s.yaml:4: network.transport: applies to model: packet only (model is flow)");
}

TEST(NetworkFields, ValuesAreCheckedByThePacketTable) {
  EXPECT_EQ(network_error_of("  model: packet\n  spray_paths: -1\n"), "s.yaml:5: network.spray_paths: must be at least 0 (got -1)");
  EXPECT_EQ(network_error_of("  model: packet\n  ecn_pmax: 2\n"), "s.yaml:5: network.ecn_pmax: must be from 0 to 1 (got 2)");
  EXPECT_EQ(network_error_of("  model: packet\n  pfc: maybe\n"), "s.yaml:5: network.pfc: 'maybe' is not one of: auto, on, off");
}

TEST(NetworkFields, ThresholdPairsPointAtTheirKey) {
  EXPECT_EQ(network_error_of("  model: packet\n  ecn_kmax: 20KB\n  ecn_kmin: 50KB\n"),
            "s.yaml:6: network.ecn_kmin: 50KB must not exceed ecn_kmax (20KB)");
}

// The MTU belongs to the fabric: one key, which the built topology and the
// packet network both read.
TEST(NetworkFields, TheMtuIsSetOnTheFabric) {
  const Scenario m = parse_scenario(R"(model: {layers: 2, hidden: 64, heads: 8, vocab: 100}
cluster:
  system: dgx-h100
  gpus: 16
  fabric: {mtu: 9000, packet_overhead: 78}
)",
                                    "s.yaml");
  EXPECT_EQ(m.cluster.fabric.framing.mtu_bytes, 9000);
  EXPECT_EQ(m.cluster.fabric.framing.overhead_bytes, 78);
  EXPECT_NE(network_error_of("  model: packet\n  mtu: 9000\n").find("network.mtu: unknown key 'mtu'"), std::string::npos);
}

}  // namespace
}  // namespace anatomy::scenario
