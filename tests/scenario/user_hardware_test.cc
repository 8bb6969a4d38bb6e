// Hardware a scenario describes itself: a preset with overrides, a whole
// definition of an accelerator and a system, and the presets printed in
// that same form (anatomy list --format yaml) read back.

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <string>

#include "coll/collective.h"
#include "core/error.h"
#include "engine/simulator.h"
#include "hw/catalog.h"
#include "hw/compute_model.h"
#include "net/flow/flow_network.h"
#include "scenario/hardware_yaml.h"
#include "scenario/scenario.h"
#include "topo/builders.h"
#include "workload/iteration.h"

namespace anatomy::scenario {
namespace {

using core::InputError;

coll::NetworkFactory flow() {
  return [](engine::Simulator& sim, const topo::Topology& t) -> std::unique_ptr<net::Network> {
    return std::make_unique<net::FlowNetwork>(sim, t);
  };
}

// A scenario whose cluster.system is `system` (a YAML node), as text.
std::string with_system(const YAML::Node& system, int gpus) {
  YAML::Node doc;
  doc["collective"]["bytes"] = "1MiB";
  doc["cluster"]["system"] = system;
  doc["cluster"]["gpus"] = gpus;
  YAML::Emitter out;
  out << doc;
  return out.c_str();
}

void expect_same_accelerator(const hw::Accelerator& a, const hw::Accelerator& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.vendor, b.vendor) << a.name;
  EXPECT_EQ(a.part, b.part) << a.name;
  EXPECT_EQ(a.arch.family, b.arch.family) << a.name;
  EXPECT_EQ(a.bf16_tflops, b.bf16_tflops) << a.name;
  EXPECT_EQ(a.fp16_tflops, b.fp16_tflops) << a.name;
  EXPECT_EQ(a.fp8_tflops, b.fp8_tflops) << a.name;
  EXPECT_EQ(a.fp6_tflops, b.fp6_tflops) << a.name;
  EXPECT_EQ(a.fp4_tflops, b.fp4_tflops) << a.name;
  EXPECT_EQ(a.hbm_capacity, b.hbm_capacity) << a.name;
  EXPECT_EQ(a.hbm_bandwidth, b.hbm_bandwidth) << a.name;
  EXPECT_EQ(a.scaleup_bandwidth, b.scaleup_bandwidth) << a.name;
  EXPECT_EQ(a.scaleup_links, b.scaleup_links) << a.name;
  EXPECT_EQ(a.tdp_watts, b.tdp_watts) << a.name;
  EXPECT_EQ(a.compute_units, b.compute_units) << a.name;
  EXPECT_EQ(a.source, b.source) << a.name;
  EXPECT_EQ(a.busy_node_rate_loss, b.busy_node_rate_loss) << a.name;
  EXPECT_EQ(a.sustained_rate_range, b.sustained_rate_range) << a.name;
  EXPECT_EQ(a.rate_spread_source, b.rate_spread_source) << a.name;
}

void expect_same_system(const hw::System& a, const hw::System& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.description, b.description) << a.name;
  expect_same_accelerator(a.gpu, b.gpu);
  EXPECT_EQ(a.gpus_per_host, b.gpus_per_host) << a.name;
  EXPECT_EQ(a.scaleup.kind, b.scaleup.kind) << a.name;
  EXPECT_EQ(a.scaleup.fabric, b.scaleup.fabric) << a.name;
  EXPECT_EQ(a.scaleup.domain_gpus, b.scaleup.domain_gpus) << a.name;
  EXPECT_EQ(a.scaleup.per_gpu, b.scaleup.per_gpu) << a.name;
  EXPECT_EQ(a.scaleup.per_link, b.scaleup.per_link) << a.name;
  EXPECT_EQ(a.scaleup.hop_latency, b.scaleup.hop_latency) << a.name;
  EXPECT_EQ(a.scaleup.in_network_reduction, b.scaleup.in_network_reduction) << a.name;
  EXPECT_EQ(a.scaleup.payload_efficiency, b.scaleup.payload_efficiency) << a.name;
  EXPECT_EQ(a.nics_per_host, b.nics_per_host) << a.name;
  EXPECT_EQ(a.nic_speed, b.nic_speed) << a.name;
  EXPECT_EQ(a.gpu_nic_link.kind, b.gpu_nic_link.kind) << a.name;
  EXPECT_EQ(a.gpu_nic_link.per_direction, b.gpu_nic_link.per_direction) << a.name;
  EXPECT_EQ(a.host_link.kind, b.host_link.kind) << a.name;
  EXPECT_EQ(a.host_link.per_direction, b.host_link.per_direction) << a.name;
  EXPECT_EQ(a.nic_latency, b.nic_latency) << a.name;
  EXPECT_EQ(a.cpu, b.cpu) << a.name;
  EXPECT_EQ(a.cpu_vendor, b.cpu_vendor) << a.name;
  EXPECT_EQ(a.storage_nics_per_host, b.storage_nics_per_host) << a.name;
  EXPECT_EQ(a.storage_nic_speed, b.storage_nic_speed) << a.name;
  EXPECT_EQ(a.source, b.source) << a.name;
}

TEST(UserHardware, EverySystemPresetReadsBackFromItsPrintedYaml) {
  // `anatomy list --format yaml` prints presets_yaml(): each system, read
  // back as a whole definition of cluster.system, is the catalog's, figure
  // for figure (doubles exactly: the printer writes round-trip text).
  const YAML::Node doc = YAML::Load(presets_yaml());
  ASSERT_EQ(doc["systems"].size(), hw::systems().size());
  for (size_t i = 0; i < hw::systems().size(); ++i) {
    const hw::System& preset = hw::systems()[i];
    const YAML::Node node = doc["systems"][i];
    ASSERT_FALSE(node["preset"].IsDefined()) << "printed as a whole definition, not a preset reference";
    const Scenario s = parse_scenario(with_system(node, preset.gpus_per_host), preset.name + ".yaml");
    expect_same_system(s.cluster.system, preset);
  }
}

TEST(UserHardware, EveryAcceleratorPresetReadsBackFromItsPrintedYaml) {
  // Each accelerator, as cluster.system.gpu of a whole definition.
  const YAML::Node doc = YAML::Load(presets_yaml());
  ASSERT_EQ(doc["accelerators"].size(), hw::accelerators().size());
  for (size_t i = 0; i < hw::accelerators().size(); ++i) {
    YAML::Node system;
    system["gpu"] = doc["accelerators"][i];
    system["nic_speed"] = "400Gbps";
    const Scenario s = parse_scenario(with_system(system, 8), "gpu.yaml");
    expect_same_accelerator(s.cluster.system.gpu, hw::accelerators()[i]);
  }
}

// An accelerator and a system the catalog has never heard of.
const char* const kOwnHardware = R"(model: llama3-8b
cluster:
  gpus: 16
  system:
    name: x1-box
    description: 8x X1 on a switch, 8x 800G
    gpu:
      name: X1
      vendor: Example
      architecture: hopper
      bf16_tflops: 1000
      fp8_tflops: 2000
      fp4_tflops: 8000
      hbm_capacity: 96GB
      hbm_bandwidth: 4000GB/s
      scaleup_bandwidth: 400GB/s
      scaleup_links: 16
      tdp_watts: 800
      compute_units: 128
    gpus_per_host: 8
    scaleup: {kind: switch, hop_latency: 500ns, payload_efficiency: 0.8}
    nic_speed: 800Gbps
    gpu_nic_link: pcie-gen6
    host_link: 100GB/s
    cpu_vendor: amd
parallelism: {tp: 8, pp: 1}
training: {seq_len: 2048, global_batch: 16, micro_batch: 1}
)";

TEST(UserHardware, ADefinedAcceleratorAndSystemParseWithTheirDefaults) {
  const Scenario s = parse_scenario(kOwnHardware, "own.yaml");
  const hw::System& sys = s.cluster.system;
  EXPECT_EQ(sys.name, "x1-box");
  EXPECT_EQ(sys.gpu.name, "X1");
  EXPECT_EQ(sys.gpu.part, "X1");                // part defaults to the name
  EXPECT_EQ(sys.gpu.fp16_tflops, 1000);         // fp16 defaults to bf16
  EXPECT_EQ(sys.gpu.arch.calibration_table, "h200.json");  // inherited from Hopper
  EXPECT_EQ(sys.scaleup.domain_gpus, 8);        // defaults to gpus_per_host
  EXPECT_DOUBLE_EQ(sys.scaleup.per_gpu.gigabytes_per_second(), 400);  // the GPU's scale-up bandwidth
  EXPECT_EQ(sys.nics_per_host, 8);
  EXPECT_DOUBLE_EQ(sys.gpu_nic_link.per_direction.gigabytes_per_second(), 128);  // PCIe Gen6 x16
  EXPECT_EQ(sys.host_link.kind, "custom");
  EXPECT_DOUBLE_EQ(sys.host_link.per_direction.gigabytes_per_second(), 100);
  EXPECT_EQ(sys.cpu_vendor, hw::CpuVendor::kAmd);
}

TEST(UserHardware, ADefinedAcceleratorsRooflineIsItsFamilys) {
  // X1 inherits Hopper's constants: a plateau of 0.90 tensor clock x 0.90
  // mainloop = 0.81, on its own 128 SMs and 1,000 TFLOP/s. A 2048 x 2048 x
  // 8192 GEMM is 16 x 16 = 256 tiles of 128 x 128: exactly 2 waves on 128
  // SMs, no split-K. One tile's mainloop is 2 x 128 x 128 x 8192 FLOPs at
  // 1e15 x 0.81 / 128 FLOP/s per SM = 42.419 us, plus 1 us of fixed cost per
  // tile; the kernel adds 4 us of launch:
  //   t = 2 x (2 x 128 x 128 x 8192 / (1e15 x 0.81 / 128) + 1e-6) + 4e-6 = 90.84 us.
  // Its memory term, (mk + kn + mn) x 2 bytes = 75.5 MB at 0.9 x 4 TB/s, is
  // 21 us: compute-bound.
  const Scenario s = parse_scenario(kOwnHardware, "own.yaml");
  const hw::ComputeModel cm = hw::make_compute_model(s.cluster.system.gpu, nullptr);
  const double expected = 2 * (2.0 * 128 * 128 * 8192 / (1e15 * 0.81 / 128) + 1e-6) + 4e-6;
  EXPECT_NEAR(cm.gemm(2048, 2048, 8192, hw::Precision::kBf16).seconds(), expected, 1e-11);
  EXPECT_NEAR(expected, 90.84e-6, 0.01e-6);
  EXPECT_EQ(cm.compute_units(), 128);
  // FP8 at its own 2,000 TFLOP/s: the mainloop halves, the fixed costs stay.
  const double fp8 = 2 * (2.0 * 128 * 128 * 8192 / (2e15 * 0.81 / 128) + 1e-6) + 4e-6;
  EXPECT_NEAR(cm.gemm(2048, 2048, 8192, hw::Precision::kFp8).seconds(), fp8, 1e-11);
}

TEST(UserHardware, ADefinedSystemRunsAnIteration) {
  // Llama 3 8B on 16 X1 in two hosts, TP 8 inside each, DP 2 across: one
  // iteration runs on the roofline of X1 and the topology of x1-box, and
  // MFU is measured against X1's own 1,000 TFLOP/s.
  const Scenario s = parse_scenario(kOwnHardware, "own.yaml");
  const topo::Topology t = topo::build_cluster(s.cluster);
  EXPECT_EQ(t.num_gpus(), 16u);
  EXPECT_EQ(t.num_hosts(), 2u);
  const hw::ComputeModel cm = hw::make_compute_model(s.cluster.system.gpu, nullptr);
  coll::AlgorithmRegistry reg;
  coll::register_builtin_algorithms(reg);
  workload::IterationInputs in;
  in.model = &s.model;
  in.plan = &s.parallelism;
  in.training = &s.training;
  in.topology = &t;
  in.compute = &cm;
  in.library = coll::nccl_library(s.cluster.system);
  in.make_network = flow();
  in.algorithms = &reg;
  const workload::IterationResult r = workload::simulate_iteration(in);
  EXPECT_GT(r.iteration.seconds(), 0);
  EXPECT_DOUBLE_EQ(r.peak_tflops, 1000);
  EXPECT_GT(r.mfu, 0.05);
  EXPECT_LT(r.mfu, 0.81);  // never above the plateau
}

// Bus bandwidth of one all-reduce of 4 GiB on the scenario's cluster, as
// anatomy collective and anatomy run time it.
double all_reduce_busbw_GBps(const std::string& system_yaml, int gpus) {
  const std::string text = "collective: {op: all_reduce, bytes: 4GiB, algorithm: ring}\n"
                           "cluster:\n  gpus: " + std::to_string(gpus) + "\n  system: " + system_yaml + "\n";
  const Scenario s = parse_scenario(text, "busbw.yaml");
  const topo::Topology t = topo::build_cluster(s.cluster);
  coll::AlgorithmRegistry reg;
  coll::register_builtin_algorithms(reg);
  const coll::CollectiveRunner runner(t, reg, coll::nccl_library(s.cluster.system), flow());
  coll::Request r;
  r.op = s.collective->op;
  r.bytes = s.collective->bytes;
  return runner.run(coll::whole_topology(t), r, s.collective->algorithm).busbw_GBps;
}

TEST(UserHardware, PcieGen6LetsA1600GNicPastTheGen5Cap) {
  // One GPU and one 1.6 Tb/s NIC per host, two hosts: the all-reduce's
  // busbw is the slowest link on the path. The NIC carries 1600 Gb/s x
  // 4096 / (4096 + 82) = 196 GB/s of payload, so PCIe decides: Gen5 x16 is
  // 64 GB/s (512 Gb/s), Gen6 x16 128 GB/s (1024 Gb/s).
  const std::string one = "{preset: dgx-b200, nic_speed: 1600Gbps, gpus_per_host: 1, nics_per_host: 1, "
                          "scaleup: {domain_gpus: 1}, gpu_nic_link: ";
  const double gen5 = all_reduce_busbw_GBps(one + "pcie-gen5}", 2);
  const double gen6 = all_reduce_busbw_GBps(one + "pcie-gen6}", 2);
  EXPECT_LE(gen5, 64.0);
  EXPECT_GT(gen5, 0.99 * 64);
  EXPECT_GT(gen6, 0.99 * 128);
  EXPECT_LE(gen6, 128.0);
}

TEST(UserHardware, PcieGen6LiftsADgxB200WithOneSixTNicsAboveTheGen5Cap) {
  // DGX B200 with 1.6 Tb/s NICs, two hosts (16 GPUs), ring all-reduce: the
  // ring crosses between the hosts on all 8 rails, so Gen5 caps the bus
  // bandwidth at 8 x 64 GB/s = 512 GB/s (each GPU's 512 Gb/s). With Gen6
  // the rails could carry 8 x 128 = 1,024 GB/s and NVLink 5 becomes the
  // limit: 900 GB/s x NCCL's 40.1 / 50 = 721.8 GB/s.
  const double gen5 = all_reduce_busbw_GBps("{preset: dgx-b200, nic_speed: 1600Gbps}", 16);
  const double gen6 = all_reduce_busbw_GBps("{preset: dgx-b200, nic_speed: 1600Gbps, gpu_nic_link: pcie-gen6}", 16);
  EXPECT_LE(gen5, 512.0);
  EXPECT_GT(gen5, 0.98 * 512);
  EXPECT_GT(gen6, 512.0);
  EXPECT_LE(gen6, 721.8);
  EXPECT_GT(gen6, 0.97 * 721.8);
}

TEST(UserHardware, DgxB300sEightHundredGNicsAreNotCappedByTheirPcie) {
  // DGX B300's ConnectX-8 sits behind PCIe Gen6 (128 GB/s), so one GPU and
  // one NIC per host moves what the 800 Gb/s NIC carries: 800e9 / 8 x 4096
  // / (4096 + 82) = 98.04 GB/s of RoCE payload; on Gen5 it would be the
  // 64 GB/s of the PCIe link.
  const std::string one = "{preset: dgx-b300, gpus_per_host: 1, nics_per_host: 1, scaleup: {domain_gpus: 1}";
  const double gen6 = all_reduce_busbw_GBps(one + "}", 2);
  const double gen5 = all_reduce_busbw_GBps(one + ", gpu_nic_link: pcie-gen5}", 2);
  EXPECT_LE(gen6, 98.04);
  EXPECT_GT(gen6, 0.99 * 98.04);
  EXPECT_LE(gen5, 64.0);
  EXPECT_GT(gen5, 0.99 * 64);
}

TEST(UserHardware, APresetWithOverridesKeepsTheRest) {
  const Scenario s = parse_scenario(
      "collective: {bytes: 1MiB}\n"
      "cluster:\n"
      "  gpus: 16\n"
      "  system: {preset: dgx-b200, nic_speed: 1600Gbps, gpu: {preset: B200, hbm_capacity: 192GB}}\n",
      "o.yaml");
  const hw::System& b200 = hw::find_system("dgx-b200");
  EXPECT_DOUBLE_EQ(s.cluster.system.nic_speed.bps(), 1.6e12);
  EXPECT_EQ(s.cluster.system.gpu.hbm_capacity.count(), 192'000'000'000);
  EXPECT_EQ(s.cluster.system.gpu.bf16_tflops, b200.gpu.bf16_tflops);
  EXPECT_EQ(s.cluster.system.gpu_nic_link.kind, "pcie-gen5");  // the preset's
  EXPECT_EQ(s.cluster.system.scaleup.per_gpu, b200.scaleup.per_gpu);
  EXPECT_EQ(s.cluster.system.name, "dgx-b200");
}

void expect_error_at(const std::string& yaml, const std::string& where) {
  try {
    parse_scenario(yaml, "sw.yaml");
    FAIL() << "expected an error at " << where;
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(where, 0), 0u) << e.what();
  }
}

TEST(UserHardware, TheFabricsSwitchGivesWhatTheFabricLeavesOut) {
  // A 32-port 400G switch with 450 ns of latency and a 64 MB buffer: the
  // fabric takes its radix, link speed and latency, and the packet model
  // its buffer; a key the fabric (or network) section sets wins.
  const std::string base =
      "collective: {bytes: 1MiB}\n"
      "cluster:\n"
      "  system: dgx-h100\n"
      "  gpus: 64\n"
      "  fabric:\n"
      "    switch: {name: my-32x400, radix: 32, port_speed: 400Gbps, buffer: 64MB, latency: 450ns}\n";
  const Scenario s = parse_scenario(base + "network: {model: packet}\n", "sw.yaml");
  EXPECT_EQ(s.cluster.fabric.radix, 32);
  EXPECT_DOUBLE_EQ(s.cluster.fabric.link_speed.bps(), 400e9);
  EXPECT_EQ(s.cluster.fabric.switch_latency, core::SimTime::ns(450));
  EXPECT_EQ(s.network.packet.switch_buffer, core::Bytes(64'000'000));
  // The topology is built on 32-port switches.
  EXPECT_NE(topo::build_cluster(s.cluster).description.find("radix 32"), std::string::npos);

  const Scenario o = parse_scenario(base + "    radix: 64\n    switch_latency: 300ns\n"
                                           "network: {model: packet, switch_buffer: 16MiB}\n",
                                    "sw.yaml");
  EXPECT_EQ(o.cluster.fabric.radix, 64);
  EXPECT_EQ(o.cluster.fabric.switch_latency, core::SimTime::ns(300));
  EXPECT_DOUBLE_EQ(o.cluster.fabric.link_speed.bps(), 400e9);
  EXPECT_EQ(o.network.packet.switch_buffer, core::Bytes::MiB(16));
  // The flow model has no buffers: its spec keeps the default.
  const Scenario flow = parse_scenario(base, "sw.yaml");
  EXPECT_EQ(flow.network.model, net::NetworkModel::kFlow);
  EXPECT_EQ(flow.network.packet.switch_buffer, net::packet::PacketConfig{}.switch_buffer);
  // A switch without its ports is an error at its line.
  expect_error_at(base.substr(0, base.find("    switch")) + "    switch: {port_speed: 400Gbps}\n",
                  "sw.yaml:6: cluster.fabric.switch.radix: is required");
}

void expect_error(const std::string& yaml, const std::string& where) {
  try {
    parse_scenario(yaml, "bad.yaml");
    FAIL() << "expected an error at " << where;
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(where, 0), 0u) << e.what();
  }
}

TEST(UserHardware, BadHardwareNamesFileLineAndField) {
  const std::string head = "collective: {bytes: 1MiB}\ncluster:\n  gpus: 8\n  system:\n";
  // An unknown link.
  expect_error(head + "    preset: dgx-h100\n    gpu_nic_link: pcie-gen9\n", "bad.yaml:6: cluster.system.gpu_nic_link: ");
  // A definition without the GPU's architecture.
  expect_error(head + "    nic_speed: 400Gbps\n    gpu:\n      name: X\n      bf16_tflops: 100\n",
               "bad.yaml:6: cluster.system.gpu.architecture: is required");
  // An unknown family.
  expect_error(head + "    preset: dgx-h100\n    gpu: {architecture: volta}\n",
               "bad.yaml:6: cluster.system.gpu.architecture: 'volta' is not one of");
  // A typo in a key.
  expect_error(head + "    preset: dgx-h100\n    nic_sped: 800Gbps\n", "bad.yaml:6: cluster.system.nic_sped: unknown key");
  // NICs that do not divide the GPUs of a host.
  expect_error(head + "    preset: dgx-h100\n    nics_per_host: 3\n", "bad.yaml:6: cluster.system.nics_per_host: ");
  // An unknown preset.
  expect_error("collective: {bytes: 1MiB}\ncluster:\n  gpus: 8\n  system: dgx-h900\n",
               "bad.yaml:4: cluster.system: unknown system 'dgx-h900'");
}

}  // namespace
}  // namespace anatomy::scenario
