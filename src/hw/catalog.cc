#include "hw/catalog.h"

#include <fmt/format.h>

#include "core/error.h"

namespace anatomy::hw {
namespace {

using core::SimTime;

Bandwidth GBps(double v) { return Bandwidth::gigabytes_per_s(v); }
Bandwidth Gbps(double v) { return Bandwidth::gbps(v); }
Bytes GB(double v) { return Bytes(static_cast<int64_t>(v * 1e9)); }

std::vector<Accelerator> make_accelerators() {
  std::vector<Accelerator> a;
  // Compute units (the figure before each source) from the architecture
  // whitepapers and data sheets: A100 108 SMs, H100/H200 SXM 132, B200 148
  // (two dies of 74), MI300X/MI325X 304 CUs, MI350X 256 CUs.
  // NVIDIA A100 Tensor Core GPU datasheet (2021): BF16/FP16 312 TFLOP/s dense
  // (624 with sparsity), no FP8; 80 GB HBM2e at 2,039 GB/s (SXM); NVLink 3
  // 600 GB/s bidirectional over 12 links; 400 W (SXM).
  a.push_back({"A100", "NVIDIA", "A100 SXM4 80GB", 312, 312, 0, GB(80), GBps(2039), GBps(300), 12, 400, 108,
               "NVIDIA A100 datasheet (SXM4 80GB)"});
  // NVIDIA H100 datasheet (SXM5): BF16/FP16 989.4 TFLOP/s dense, FP8 1,978.9
  // dense (datasheet lists 2x with sparsity); 80 GB HBM3 at 3.35 TB/s; NVLink 4
  // 900 GB/s bidirectional over 18 links; up to 700 W.
  a.push_back({"H100", "NVIDIA", "H100 SXM5 80GB", 989, 989, 1979, GB(80), GBps(3350), GBps(450), 18, 700, 132,
               "NVIDIA H100 datasheet (SXM5)"});
  // NVIDIA H200 datasheet (SXM): same GH100 compute as H100 SXM; 141 GB HBM3e
  // at 4.8 TB/s; NVLink 900 GB/s; up to 700 W.
  a.push_back({"H200", "NVIDIA", "H200 SXM 141GB", 989, 989, 1979, GB(141), GBps(4800), GBps(450), 18, 700, 132,
               "NVIDIA H200 datasheet (SXM)"});
  // NVIDIA DGX B200 / HGX B200 datasheet: per GPU 2.25 PFLOP/s dense
  // FP16/BF16 and 4.5 PFLOP/s dense FP8 (datasheets print 2x with sparsity);
  // 180 GB HBM3e at 7.7-8 TB/s (DGX B200: 1,440 GB and 64 TB/s for 8 GPUs);
  // NVLink 5 1.8 TB/s bidirectional over 18 links; 1,000 W.
  a.push_back({"B200", "NVIDIA", "B200 (HGX/DGX B200)", 2250, 2250, 4500, GB(180), GBps(8000), GBps(900), 18,
               1000, 148, "NVIDIA DGX B200 datasheet"});
  // NVIDIA GB200 NVL72 datasheet: 72 GPUs give 180 PFLOP/s dense FP16/BF16
  // (360 sparse) and 360 PFLOP/s dense FP8, i.e. 2.5 / 5 PFLOP/s per GPU;
  // 13.4-13.8 TB HBM3e for 72 GPUs (~186 GB each) at 8 TB/s each; NVLink 5
  // 1.8 TB/s per GPU; the superchip (1 Grace + 2 B200) is rated ~2.7 kW, of
  // which ~1.2 kW per GPU.
  a.push_back({"GB200", "NVIDIA", "B200 in GB200 NVL72", 2500, 2500, 5000, GB(186), GBps(8000), GBps(900), 18,
               1200, 148, "NVIDIA GB200 NVL72 datasheet"});
  // AMD Instinct MI300X data sheet: 1,307.4 TFLOP/s dense BF16/FP16, 2,614.9
  // dense FP8; 192 GB HBM3 at 5.3 TB/s; 7 Infinity Fabric links at 128 GB/s
  // bidirectional each (896 GB/s aggregate peer bandwidth); 750 W.
  a.push_back({"MI300X", "AMD", "Instinct MI300X OAM", 1307, 1307, 2615, GB(192), GBps(5300), GBps(448), 7, 750, 304,
               "AMD Instinct MI300X data sheet"});
  // AMD Instinct MI325X data sheet: same CDNA 3 compute as MI300X; 256 GB
  // HBM3e at 6 TB/s; 7 Infinity Fabric links (896 GB/s aggregate); 1,000 W.
  a.push_back({"MI325X", "AMD", "Instinct MI325X OAM", 1307, 1307, 2615, GB(256), GBps(6000), GBps(448), 7, 1000, 304,
               "AMD Instinct MI325X data sheet"});
  // AMD Instinct MI350X data sheet: 2.3 PFLOP/s dense FP16/BF16, 4.6 PFLOP/s
  // dense FP8; 288 GB HBM3e at 8 TB/s; 7 Infinity Fabric links, 1,075 GB/s
  // aggregate bidirectional (153.6 GB/s per link); 1,000 W air-cooled.
  a.push_back({"MI350X", "AMD", "Instinct MI350X OAM", 2307, 2307, 4614, GB(288), GBps(8000), GBps(537.6), 7,
               1000, 256, "AMD Instinct MI350X data sheet"});
  return a;
}

System dgx(std::string name, std::string description, const Accelerator& gpu, std::string fabric,
           Bandwidth nic, Bandwidth pcie, bool nvls, double nvlink_efficiency, std::string source) {
  System s;
  s.name = std::move(name);
  s.description = std::move(description);
  s.gpu = gpu;
  s.gpus_per_host = 8;
  s.scaleup.kind = ScaleUpKind::kSwitch;
  s.scaleup.fabric = std::move(fabric);
  s.scaleup.domain_gpus = 8;
  s.scaleup.per_gpu = gpu.scaleup_bandwidth;
  s.scaleup.hop_latency = SimTime::ns(700);
  s.scaleup.in_network_reduction = nvls;
  s.scaleup.payload_efficiency = nvlink_efficiency;
  s.nics_per_host = 8;
  s.nic_speed = nic;
  s.gpu_nic_link = pcie;
  s.nic_latency = SimTime::ns(1000);
  s.storage_nics_per_host = 2;
  s.storage_nic_speed = Gbps(200);
  s.source = std::move(source);
  return s;
}

System amd8(std::string name, std::string description, const Accelerator& gpu, std::string source) {
  System s;
  s.name = std::move(name);
  s.description = std::move(description);
  s.gpu = gpu;
  s.gpus_per_host = 8;
  s.scaleup.kind = ScaleUpKind::kMesh;
  s.scaleup.fabric = "Infinity Fabric full mesh";
  s.scaleup.domain_gpus = 8;
  s.scaleup.per_gpu = gpu.scaleup_bandwidth;
  s.scaleup.per_link = gpu.scaleup_bandwidth / gpu.scaleup_links;
  s.scaleup.hop_latency = SimTime::ns(700);
  s.scaleup.in_network_reduction = false;
  s.scaleup.payload_efficiency = 0.75;  // ~48 of 64 GB/s per xGMI link (ROCm RCCL/xGMI notes)
  s.nics_per_host = 8;
  s.nic_speed = Gbps(400);
  s.gpu_nic_link = GBps(64);  // PCIe Gen5 x16
  s.nic_latency = SimTime::ns(1000);
  s.storage_nics_per_host = 2;
  s.storage_nic_speed = Gbps(200);
  s.source = std::move(source);
  return s;
}

// NVLink payload efficiency: NCCL's per-link NVLink bandwidth (src/graph/
// topo.h: SM80 20.0, SM90 20.6, SM100 40.1 GB/s) over the raw per-link rate
// (25 GB/s for NVLink 3 and 4, 50 GB/s for NVLink 5).
constexpr double kNvlinkSm80 = 20.0 / 25.0;
constexpr double kNvlinkSm90 = 20.6 / 25.0;
constexpr double kNvlinkSm100 = 40.1 / 50.0;

std::vector<System> make_systems() {
  std::vector<System> s;
  // DGX A100: 8 A100 on 6 NVSwitch (gen 2), 8 ConnectX-6 200 Gb/s HDR for
  // compute, PCIe Gen4 switches between GPU and NIC (32 GB/s per direction).
  s.push_back(dgx("dgx-a100", "8x A100 80GB, NVLink 3 + NVSwitch, 8x 200G HDR", find_accelerator("A100"),
                  "NVLink 3 + NVSwitch", Gbps(200), GBps(32), false, kNvlinkSm80, "NVIDIA DGX A100 datasheet / user guide"));
  // DGX H100: 8 H100 on 4 NVSwitch (gen 3, NVLink SHARP), 8 ConnectX-7
  // 400 Gb/s (in 4 OSFP cages), PCIe Gen5 (64 GB/s per direction).
  s.push_back(dgx("dgx-h100", "8x H100 SXM, NVLink 4 + NVSwitch (NVLS), 8x 400G ConnectX-7", find_accelerator("H100"),
                  "NVLink 4 + NVSwitch", Gbps(400), GBps(64), true, kNvlinkSm90, "NVIDIA DGX H100 datasheet / user guide"));
  s.push_back(dgx("dgx-h200", "8x H200 SXM, NVLink 4 + NVSwitch (NVLS), 8x 400G ConnectX-7", find_accelerator("H200"),
                  "NVLink 4 + NVSwitch", Gbps(400), GBps(64), true, kNvlinkSm90, "NVIDIA DGX H200 datasheet"));
  // DGX B200: 8 B200 on 2 NVLink 5 switch chips, 8 ConnectX-7 400 Gb/s.
  s.push_back(dgx("dgx-b200", "8x B200, NVLink 5 + NVSwitch (NVLS), 8x 400G ConnectX-7", find_accelerator("B200"),
                  "NVLink 5 + NVSwitch", Gbps(400), GBps(64), true, kNvlinkSm100, "NVIDIA DGX B200 datasheet"));
  {
    // GB200 NVL72: 18 compute trays of 2 superchips (4 B200 + 2 Grace) and
    // 9 NVLink switch trays make one 72-GPU NVLink domain; each tray has 4
    // ConnectX-7 400 Gb/s (one per GPU) for the scale-out fabric.
    System g = dgx("gb200-nvl72", "72x B200 (GB200) in one NVLink 5 domain, 4 trays' GPUs per host, 1x 400G per GPU",
                   find_accelerator("GB200"), "NVLink 5 + NVLink switch trays", Gbps(400), GBps(64), true, kNvlinkSm100,
                   "NVIDIA GB200 NVL72 datasheet / reference architecture");
    g.gpus_per_host = 4;
    g.nics_per_host = 4;
    g.scaleup.domain_gpus = 72;
    g.storage_nics_per_host = 1;
    g.storage_nic_speed = Gbps(400);
    s.push_back(g);
  }
  s[0].cpu = "AMD EPYC 7742";                  // DGX A100
  s[1].cpu = "Intel Xeon Platinum 8480C";      // DGX H100
  s[2].cpu = "Intel Xeon Platinum 8480C";      // DGX H200
  s[3].cpu = "Intel Xeon Platinum 8570";       // DGX B200
  s[4].cpu = "NVIDIA Grace";                   // GB200 NVL72
  s.push_back(amd8("mi300x-8", "8x MI300X, Infinity Fabric mesh, 8x 400G", find_accelerator("MI300X"),
                   "AMD Instinct MI300X platform data sheet"));
  s.push_back(amd8("mi325x-8", "8x MI325X, Infinity Fabric mesh, 8x 400G", find_accelerator("MI325X"),
                   "AMD Instinct MI325X platform data sheet"));
  s.push_back(amd8("mi350x-8", "8x MI350X, Infinity Fabric mesh, 8x 400G", find_accelerator("MI350X"),
                   "AMD Instinct MI350X platform data sheet"));
  for (size_t i = 5; i < s.size(); ++i) s[i].cpu = "AMD EPYC";  // AMD's OEM platforms
  return s;
}

template <typename T>
const T& find_named(const std::vector<T>& items, std::string_view name, std::string_view what) {
  for (const auto& i : items)
    if (i.name == name) return i;
  std::string known;
  for (const auto& i : items) known += (known.empty() ? "" : ", ") + i.name;
  throw core::InputError(fmt::format("unknown {} '{}' (known: {})", what, std::string(name), known));
}

}  // namespace

const std::vector<Accelerator>& accelerators() {
  static const std::vector<Accelerator> kAll = make_accelerators();
  return kAll;
}

const std::vector<System>& systems() {
  static const std::vector<System> kAll = make_systems();
  return kAll;
}

const Accelerator& find_accelerator(std::string_view name) { return find_named(accelerators(), name, "accelerator"); }
const System& find_system(std::string_view name) { return find_named(systems(), name, "system"); }

}  // namespace anatomy::hw
