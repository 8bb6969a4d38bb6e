// The systems of the catalog: nodes and racks as vendors ship them, in
// named fields.
//
// NVLink payload efficiency: NCCL's per-link NVLink bandwidth (src/graph/
// topo.h: SM80 20.0, SM90 20.6, SM100 40.1 GB/s) over the raw per-link rate
// (25 GB/s for NVLink 3 and 4, 50 GB/s for NVLink 5). Infinity Fabric: ~48
// of 64 GB/s per xGMI link (ROCm RCCL/xGMI notes).
//
// Common to the presets unless said otherwise: 700 ns GPU to GPU through
// the scale-up domain, 1 us of NIC processing per end, two 200 Gb/s storage
// NICs per host.

#include "hw/catalog.h"
#include "hw/catalog_data.h"

namespace anatomy::hw::detail {
namespace {

Bandwidth Gbps(double v) { return Bandwidth::gbps(v); }

constexpr double kNvlinkSm80 = 20.0 / 25.0;
constexpr double kNvlinkSm90 = 20.6 / 25.0;
constexpr double kNvlinkSm100 = 40.1 / 50.0;
constexpr double kInfinityFabric = 0.75;

}  // namespace

std::vector<System> make_systems() {
  const SimTime kScaleUpHop = SimTime::ns(700);
  const SimTime kNicLatency = SimTime::ns(1000);

  // 8 GPUs on an NVSwitch baseboard, NVLink 3 (600 GB/s bidirectional per GPU).
  const ScaleUp kNvlink3Board{.kind = ScaleUpKind::kSwitch,
                              .fabric = "NVLink 3 + NVSwitch",
                              .domain_gpus = 8,
                              .per_gpu = GBps(300),
                              .hop_latency = kScaleUpHop,
                              .in_network_reduction = false,
                              .payload_efficiency = kNvlinkSm80};
  // 8 GPUs on an NVSwitch baseboard with NVLink SHARP, NVLink 4 (900 GB/s bidirectional).
  const ScaleUp kNvlink4Board{.kind = ScaleUpKind::kSwitch,
                              .fabric = "NVLink 4 + NVSwitch",
                              .domain_gpus = 8,
                              .per_gpu = GBps(450),
                              .hop_latency = kScaleUpHop,
                              .in_network_reduction = true,
                              .payload_efficiency = kNvlinkSm90};
  // 8 GPUs on an NVLink 5 switch baseboard with SHARP (1.8 TB/s bidirectional).
  const ScaleUp kNvlink5Board{.kind = ScaleUpKind::kSwitch,
                              .fabric = "NVLink 5 + NVSwitch",
                              .domain_gpus = 8,
                              .per_gpu = GBps(900),
                              .hop_latency = kScaleUpHop,
                              .in_network_reduction = true,
                              .payload_efficiency = kNvlinkSm100};
  // 72 GPUs behind 9 NVLink switch trays, NVLink 5 with SHARP. A GPU-to-GPU
  // hop crosses the rack's switch trays, not a baseboard: 1.37 us, the slope
  // of XLA's GB200 all-reduce times against a ring's steps where NCCL's tuner
  // runs ring/LL and the bytes are negligible (openxla/xla
  // collective_interpolator_data.h, key sm_100_GB200, read at ROCm/xla
  // d02afb4fc1: medians at <= 16 KiB of 18.4 / 28.8 / 51.2 us on 4 / 8 / 16
  // GPUs, 6 / 14 / 30 steps; least squares 1.37 us a step, intercept 10.0 us
  // against NCCL's 6.6 us base). Boards keep kScaleUpHop.
  const ScaleUp kNvl72Rack{.kind = ScaleUpKind::kSwitch,
                           .fabric = "NVLink 5 + NVLink switch trays",
                           .domain_gpus = 72,
                           .per_gpu = GBps(900),
                           .hop_latency = SimTime::ns(1370),
                           .in_network_reduction = true,
                           .payload_efficiency = kNvlinkSm100};
  // 8 GPUs in a full Infinity Fabric mesh: 7 links of 64 GB/s each way.
  const ScaleUp kInfinityFabricMesh448{.kind = ScaleUpKind::kMesh,
                                       .fabric = "Infinity Fabric full mesh",
                                       .domain_gpus = 8,
                                       .per_gpu = GBps(448),
                                       .per_link = GBps(448) / 7,  // 7 links share the GPU's total
                                       .hop_latency = kScaleUpHop,
                                       .in_network_reduction = false,
                                       .payload_efficiency = kInfinityFabric};
  // 8 GPUs in a full Infinity Fabric mesh: 7 links of 76.8 GB/s each way.
  const ScaleUp kInfinityFabricMesh537{.kind = ScaleUpKind::kMesh,
                                       .fabric = "Infinity Fabric full mesh",
                                       .domain_gpus = 8,
                                       .per_gpu = GBps(537.6),
                                       .per_link = GBps(537.6) / 7,  // 76.8 GB/s
                                       .hop_latency = kScaleUpHop,
                                       .in_network_reduction = false,
                                       .payload_efficiency = kInfinityFabric};

  const Link pcie_gen4 = parse_link("pcie-gen4", "gpu_nic_link");
  const Link pcie_gen5 = parse_link("pcie-gen5", "gpu_nic_link");
  const Link pcie_gen6 = parse_link("pcie-gen6", "gpu_nic_link");
  const Link nvlink_c2c = parse_link("nvlink-c2c", "host_link");
  std::vector<System> out;
  // DGX A100: 8 A100 on 6 NVSwitch (gen 2), 8 ConnectX-6 200 Gb/s HDR for
  // compute, PCIe Gen4 switches between GPU and NIC; 2 AMD EPYC 7742.
  out.push_back(System{.name = "dgx-a100",
                       .description = "8x A100 80GB, NVLink 3 + NVSwitch, 8x 200G HDR",
                       .gpu = find_accelerator("A100"),
                       .gpus_per_host = 8,
                       .scaleup = kNvlink3Board,
                       .nics_per_host = 8,
                       .nic_speed = Gbps(200),
                       .gpu_nic_link = pcie_gen4,
                       .host_link = pcie_gen4,
                       .nic_latency = kNicLatency,
                       .cpu = "AMD EPYC 7742",
                       .cpu_vendor = CpuVendor::kAmd,
                       .storage_nics_per_host = 2,
                       .storage_nic_speed = Gbps(200),
                       .source = "NVIDIA DGX A100 datasheet / user guide"});
  // DGX H100: 8 H100 on 4 NVSwitch (gen 3, NVLink SHARP), 8 ConnectX-7
  // 400 Gb/s (in 4 OSFP cages), PCIe Gen5; 2 Xeon Platinum 8480C.
  out.push_back(System{.name = "dgx-h100",
                       .description = "8x H100 SXM, NVLink 4 + NVSwitch (NVLS), 8x 400G ConnectX-7",
                       .gpu = find_accelerator("H100"),
                       .gpus_per_host = 8,
                       .scaleup = kNvlink4Board,
                       .nics_per_host = 8,
                       .nic_speed = Gbps(400),
                       .gpu_nic_link = pcie_gen5,
                       .host_link = pcie_gen5,
                       .nic_latency = kNicLatency,
                       .cpu = "Intel Xeon Platinum 8480C",
                       .cpu_vendor = CpuVendor::kIntel,
                       .storage_nics_per_host = 2,
                       .storage_nic_speed = Gbps(200),
                       .source = "NVIDIA DGX H100 datasheet / user guide"});
  // DGX H200: the DGX H100 chassis with H200 GPUs.
  out.push_back(System{.name = "dgx-h200",
                       .description = "8x H200 SXM, NVLink 4 + NVSwitch (NVLS), 8x 400G ConnectX-7",
                       .gpu = find_accelerator("H200"),
                       .gpus_per_host = 8,
                       .scaleup = kNvlink4Board,
                       .nics_per_host = 8,
                       .nic_speed = Gbps(400),
                       .gpu_nic_link = pcie_gen5,
                       .host_link = pcie_gen5,
                       .nic_latency = kNicLatency,
                       .cpu = "Intel Xeon Platinum 8480C",
                       .cpu_vendor = CpuVendor::kIntel,
                       .storage_nics_per_host = 2,
                       .storage_nic_speed = Gbps(200),
                       .source = "NVIDIA DGX H200 datasheet"});
  // DGX B200: 8 B200 on 2 NVLink 5 switch chips, 8 ConnectX-7 400 Gb/s,
  // PCIe Gen5; 2 Xeon Platinum 8570.
  out.push_back(System{.name = "dgx-b200",
                       .description = "8x B200, NVLink 5 + NVSwitch (NVLS), 8x 400G ConnectX-7",
                       .gpu = find_accelerator("B200"),
                       .gpus_per_host = 8,
                       .scaleup = kNvlink5Board,
                       .nics_per_host = 8,
                       .nic_speed = Gbps(400),
                       .gpu_nic_link = pcie_gen5,
                       .host_link = pcie_gen5,
                       .nic_latency = kNicLatency,
                       .cpu = "Intel Xeon Platinum 8570",
                       .cpu_vendor = CpuVendor::kIntel,
                       .storage_nics_per_host = 2,
                       .storage_nic_speed = Gbps(200),
                       .source = "NVIDIA DGX B200 datasheet"});
  // GB200 NVL72: 18 compute trays of 2 superchips (4 B200 + 2 Grace) and
  // 9 NVLink switch trays make one 72-GPU NVLink domain; each tray has 4
  // ConnectX-7 400 Gb/s (one per GPU) for the scale-out fabric and one
  // 400 Gb/s BlueField-3 for storage; each B200 reaches its Grace's memory
  // over NVLink-C2C (900 GB/s bidirectional), not PCIe.
  out.push_back(
      System{.name = "gb200-nvl72",
             .description = "72x B200 (GB200) in one NVLink 5 domain, 4 trays' GPUs per host, 1x 400G per GPU",
             .gpu = find_accelerator("GB200"),
             .gpus_per_host = 4,
             .scaleup = kNvl72Rack,
             .nics_per_host = 4,
             .nic_speed = Gbps(400),
             .gpu_nic_link = pcie_gen5,
             .host_link = nvlink_c2c,
             .nic_latency = kNicLatency,
             .cpu = "NVIDIA Grace",
             .cpu_vendor = CpuVendor::kNvidia,
             .storage_nics_per_host = 1,
             .storage_nic_speed = Gbps(400),
             .source = "NVIDIA GB200 NVL72 datasheet / reference architecture"});
  // DGX B300: 8 B300 on NVLink 5 switches (14.4 TB/s aggregate), 8
  // single-port ConnectX-8 SuperNICs at up to 800 Gb/s, whose built-in PCIe
  // Gen6 switch joins GPU and NIC; 2 Intel Xeon 6776P (PCIe Gen5 to the
  // host); 2 dual-port BlueField-3 at up to 400 Gb/s for storage.
  out.push_back(System{.name = "dgx-b300",
                       .description = "8x B300, NVLink 5 + NVSwitch (NVLS), 8x 800G ConnectX-8 on PCIe Gen6",
                       .gpu = find_accelerator("B300"),
                       .gpus_per_host = 8,
                       .scaleup = kNvlink5Board,
                       .nics_per_host = 8,
                       .nic_speed = Gbps(800),
                       .gpu_nic_link = pcie_gen6,
                       .host_link = pcie_gen5,
                       .nic_latency = kNicLatency,
                       .cpu = "Intel Xeon 6776P",
                       .cpu_vendor = CpuVendor::kIntel,
                       .storage_nics_per_host = 2,
                       .storage_nic_speed = Gbps(400),
                       .source = "NVIDIA DGX B300 datasheet"});
  // GB300 NVL72: the GB200 NVL72 rack with Blackwell Ultra: 18 compute
  // trays of 4 B300 and 2 Grace (NVLink-C2C, 900 GB/s bidirectional, between
  // a GPU and its Grace), one 72-GPU NVLink domain, and one ConnectX-8 800
  // Gb/s per GPU on PCIe Gen6 (72 per rack); one BlueField-3 per tray (18).
  out.push_back(System{
      .name = "gb300-nvl72",
      .description = "72x B300 (GB300) in one NVLink 5 domain, 4 trays' GPUs per host, 1x 800G ConnectX-8 per GPU",
      .gpu = find_accelerator("GB300"),
      .gpus_per_host = 4,
      .scaleup = kNvl72Rack,
      .nics_per_host = 4,
      .nic_speed = Gbps(800),
      .gpu_nic_link = pcie_gen6,
      .host_link = nvlink_c2c,
      .nic_latency = kNicLatency,
      .cpu = "NVIDIA Grace",
      .cpu_vendor = CpuVendor::kNvidia,
      .storage_nics_per_host = 1,
      .storage_nic_speed = Gbps(400),
      .source = "NVIDIA GB300 NVL72 datasheet"});
  // AMD's 8-GPU OEM platforms: a full Infinity Fabric mesh (one link per
  // GPU pair), 8x 400 Gb/s NICs on PCIe Gen5, AMD EPYC hosts.
  out.push_back(System{.name = "mi300x-8",
                       .description = "8x MI300X, Infinity Fabric mesh, 8x 400G",
                       .gpu = find_accelerator("MI300X"),
                       .gpus_per_host = 8,
                       .scaleup = kInfinityFabricMesh448,
                       .nics_per_host = 8,
                       .nic_speed = Gbps(400),
                       .gpu_nic_link = pcie_gen5,
                       .host_link = pcie_gen5,
                       .nic_latency = kNicLatency,
                       .cpu = "AMD EPYC",
                       .cpu_vendor = CpuVendor::kAmd,
                       .storage_nics_per_host = 2,
                       .storage_nic_speed = Gbps(200),
                       .source = "AMD Instinct MI300X platform data sheet"});
  out.push_back(System{.name = "mi325x-8",
                       .description = "8x MI325X, Infinity Fabric mesh, 8x 400G",
                       .gpu = find_accelerator("MI325X"),
                       .gpus_per_host = 8,
                       .scaleup = kInfinityFabricMesh448,
                       .nics_per_host = 8,
                       .nic_speed = Gbps(400),
                       .gpu_nic_link = pcie_gen5,
                       .host_link = pcie_gen5,
                       .nic_latency = kNicLatency,
                       .cpu = "AMD EPYC",
                       .cpu_vendor = CpuVendor::kAmd,
                       .storage_nics_per_host = 2,
                       .storage_nic_speed = Gbps(200),
                       .source = "AMD Instinct MI325X platform data sheet"});
  out.push_back(System{.name = "mi350x-8",
                       .description = "8x MI350X, Infinity Fabric mesh, 8x 400G",
                       .gpu = find_accelerator("MI350X"),
                       .gpus_per_host = 8,
                       .scaleup = kInfinityFabricMesh537,
                       .nics_per_host = 8,
                       .nic_speed = Gbps(400),
                       .gpu_nic_link = pcie_gen5,
                       .host_link = pcie_gen5,
                       .nic_latency = kNicLatency,
                       .cpu = "AMD EPYC",
                       .cpu_vendor = CpuVendor::kAmd,
                       .storage_nics_per_host = 2,
                       .storage_nic_speed = Gbps(200),
                       .source = "AMD Instinct MI350X platform data sheet"});
  // MI355X platform: 8 MI355X in the MI350X's Infinity Fabric mesh, 8x
  // 400 Gb/s NICs (AMD Pensando Pollara 400) on PCIe Gen5, AMD EPYC hosts.
  out.push_back(System{.name = "mi355x-8",
                       .description = "8x MI355X, Infinity Fabric mesh, 8x 400G",
                       .gpu = find_accelerator("MI355X"),
                       .gpus_per_host = 8,
                       .scaleup = kInfinityFabricMesh537,
                       .nics_per_host = 8,
                       .nic_speed = Gbps(400),
                       .gpu_nic_link = pcie_gen5,
                       .host_link = pcie_gen5,
                       .nic_latency = kNicLatency,
                       .cpu = "AMD EPYC",
                       .cpu_vendor = CpuVendor::kAmd,
                       .storage_nics_per_host = 2,
                       .storage_nic_speed = Gbps(200),
                       .source = "AMD Instinct MI355X platform data sheet"});
  return out;
}

}  // namespace anatomy::hw::detail
