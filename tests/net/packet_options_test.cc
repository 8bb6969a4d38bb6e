#include "net/packet/packet_options.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/error.h"
#include "engine/simulator.h"
#include "net/network_spec.h"
#include "net/packet/packet_network.h"
#include "packet_test_util.h"

namespace anatomy::net::packet {
namespace {

using core::InputError;

// A value for every option that differs from its default, in table order:
// the round-trip tests below cover every key, so a new option must be added
// here (and so gets a round trip) or OptionsTextCoversEveryKey fails.
const char* const kEveryOption =
    "transport=roce,fabric=switch-scheduled,load_balancing=adaptive,spray_paths=8,buffer=static,"
    "switch_buffer=16MiB,dt_alpha=0.5,port_buffer=512KiB,ecn_kmin=50KB,ecn_kmax=200KB,ecn_pmax=0.5,trimming=on,"
    "header_queue=2MiB,pfc=on,pfc_xoff=128KiB,pfc_xon=64KiB,rto_min=100us,initial_window=64KB,ack_every=4,ack_bytes=16KiB,"
    "deep_buffer_latency=1us,voq_buffer=2GiB,seed=9";

std::string error_of(std::string_view text) {
  try {
    parse_packet_options(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(PacketOptions, DefaultsShowAndSetBackToTheDefaults) {
  for (const PacketOption& o : packet_options()) {
    PacketConfig c;
    o.set(c, o.default_text);
    EXPECT_EQ(c, PacketConfig{}) << o.key << "=" << o.default_text;
  }
}

TEST(PacketOptions, OptionsTextCoversEveryKeyAndReadsBack) {
  const PacketConfig c = parse_packet_options(kEveryOption);
  // Every option differs from its default, so the canonical text is the input, in table order.
  EXPECT_EQ(packet_options_text(c), kEveryOption);
  EXPECT_EQ(parse_packet_options(packet_options_text(c)), c);
}

TEST(PacketOptions, SetsTypedValues) {
  const PacketConfig c = parse_packet_options("transport=roce,ecn_kmin=50KB,rto_min=100us,dt_alpha=0.5");
  EXPECT_EQ(c.transport, "roce");
  EXPECT_EQ(c.ecn_kmin, core::Bytes(50'000));  // decimal kilobytes
  EXPECT_EQ(c.rto_min, core::SimTime::us(100));
  EXPECT_DOUBLE_EQ(c.dt_alpha, 0.5);
  EXPECT_EQ(packet_options_text(PacketConfig{}), "");
}

TEST(PacketOptions, TransportChoicesAreTheRegisteredTransports) {
  TransportRegistry reg;
  register_builtin_transports(reg);
  const PacketOption* o = find_packet_option("transport");
  ASSERT_NE(o, nullptr);
  ASSERT_EQ(o->choices.size(), reg.all().size());
  for (size_t i = 0; i < reg.all().size(); ++i) EXPECT_EQ(o->choices[i], reg.all()[i].name);
  EXPECT_EQ(error_of("transport=tcp"), "transport: 'tcp' is not one of: roce, eqds, uec");
}

TEST(PacketOptions, UnknownKeyListsTheKnownOnes) {
  const std::string e = error_of("pfc=on,ecn_kmn=1KB");
  EXPECT_EQ(e.rfind("ecn_kmn: unknown (known: transport, fabric, load_balancing, ", 0), 0u) << e;
  EXPECT_NE(e.find("ecn_kmin"), std::string::npos) << e;
}

TEST(PacketOptions, RefusesValuesOutOfRangeNamingTheKey) {
  EXPECT_EQ(error_of("spray_paths=-1"), "spray_paths: must be at least 0 (got -1)");
  EXPECT_EQ(error_of("ecn_pmax=1.5"), "ecn_pmax: must be from 0 to 1 (got 1.5)");
  EXPECT_EQ(error_of("switch_buffer=0B"), "switch_buffer: '0B' must be greater than zero");
  EXPECT_EQ(error_of("ack_every=two"), "ack_every: 'two' is not a whole number");
  EXPECT_EQ(error_of("pfc"), "pfc: expected key=value");
}

TEST(PacketOptions, ChecksThresholdPairs) {
  EXPECT_EQ(error_of("ecn_kmin=500KB,ecn_kmax=200KB"), "ecn_kmin: 500KB must not exceed ecn_kmax (200KB)");
  EXPECT_EQ(error_of("pfc_xon=300KiB"), "pfc_xon: 300KiB must not exceed pfc_xoff (256KiB)");
}

TEST(PacketOptions, TheMtuIsTheFabricsNotAPacketOption) {
  EXPECT_EQ(find_packet_option("mtu"), nullptr);
  EXPECT_NE(error_of("mtu=9000").find("mtu: the MTU belongs to the fabric"), std::string::npos) << error_of("mtu=9000");
}

// The packet network sends packets of the topology's MTU: a 1 MiB transfer
// on a fabric framed at 1 KiB is 1024 data packets (none lost on an idle
// fabric), at the default 4 KiB it is 256.
TEST(PacketOptions, PacketNetworkTakesItsMtuFromTheTopology) {
  for (int mtu : {1024, 4096}) {
    topo::ClusterSpec spec;
    spec.system = testing::single_nic_host();
    spec.gpus = 4;
    spec.fabric.radix = 8;
    spec.fabric.rail_optimized = false;
    spec.fabric.framing.mtu_bytes = mtu;
    const topo::Topology t = topo::build_cluster(spec);
    EXPECT_EQ(t.framing.mtu_bytes, mtu);
    engine::Simulator sim;
    auto net = testing::make_packet(sim, t, PacketConfig{});
    bool done = false;
    net->transfer(t.gpu_node(0), t.gpu_node(3), core::Bytes::MiB(1), [&] { done = true; });
    sim.run();
    EXPECT_TRUE(done);
    EXPECT_EQ(net->stats().data_sent, static_cast<uint64_t>((1 << 20) / mtu)) << "mtu " << mtu;
  }
}

// ---- NetworkSpec: the text --network takes. ----

TEST(NetworkSpec, ParsesModelsAndReadsItsOwnText) {
  EXPECT_EQ(parse_network_spec("flow").model, NetworkModel::kFlow);
  const NetworkSpec p = parse_network_spec("packet");
  EXPECT_EQ(p.model, NetworkModel::kPacket);
  EXPECT_EQ(p.packet, PacketConfig{});
  EXPECT_EQ(to_string(p), "packet");
  const NetworkSpec r = parse_network_spec("packet:pfc=on,transport=roce");
  EXPECT_EQ(to_string(r), "packet:transport=roce,pfc=on");  // table order, whatever the input order
  EXPECT_EQ(parse_network_spec(to_string(r)), r);
}

TEST(NetworkSpec, ErrorsNameTheFlag) {
  auto error = [](std::string_view text) {
    try {
      parse_network_spec(text, "--network");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("cells"), "--network: unknown network model 'cells' (known: flow, packet[:key=value,...])");
  EXPECT_EQ(error("flow:x=1"), "--network: the flow model takes no options");
  EXPECT_EQ(error("packet:pfc=maybe"), "--network: packet option 'pfc': 'maybe' is not one of: auto, on, off");
}

}  // namespace
}  // namespace anatomy::net::packet
