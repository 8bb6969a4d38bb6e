#pragma once
// System: a node or rack as a vendor ships it (a catalog preset) or as a
// scenario describes it — which accelerator, how its scale-up domain is
// wired, the NICs each host has and the links inside the host.
//
// A scale-up domain is the set of GPUs that reach each other without the
// scale-out network: 8 GPUs on an NVSwitch baseboard (DGX), 72 GPUs across
// 18 trays behind NVLink switch trays (GB200 NVL72), or 8 GPUs in a full
// Infinity Fabric mesh (AMD platforms, where each GPU pair has its own link).
// Bandwidths are per direction.

#include <string>

#include "hw/accelerator.h"
#include "hw/link.h"

namespace anatomy::hw {

enum class ScaleUpKind {
  kSwitch,  // every GPU has one aggregate link to a (logical) switch
  kMesh,    // every pair of GPUs in the domain has a direct link
};

// The host CPU's vendor: NCCL's LL bandwidth caps across nodes depend on it.
enum class CpuVendor { kIntel, kAmd, kNvidia };

struct ScaleUp {
  ScaleUpKind kind = ScaleUpKind::kSwitch;
  std::string fabric;           // "NVLink 4 + NVSwitch", "Infinity Fabric"
  int domain_gpus = 8;          // GPUs in one scale-up domain
  Bandwidth per_gpu;            // per GPU, per direction (all links)
  Bandwidth per_link;           // for kMesh: one GPU-to-GPU link, per direction
  SimTime hop_latency;          // GPU to GPU through the domain, one way
  bool in_network_reduction = false;  // NVLink SHARP (NVLS) in the switches
  // Payload a link delivers per byte of line rate (flow control, headers,
  // CRC). NVLink: NCCL's per-link bandwidth over the raw rate (SM90 20.6 of
  // 25 GB/s); Infinity Fabric: ~48 of 64 GB/s achievable (ROCm xGMI notes).
  double payload_efficiency = 1.0;
};

struct System {
  std::string name;         // preset key, e.g. "dgx-h100"
  std::string description;  // one line for `anatomy list`
  Accelerator gpu;
  int gpus_per_host = 8;
  ScaleUp scaleup;
  int nics_per_host = 8;      // scale-out NICs (one rail each)
  Bandwidth nic_speed;        // per NIC
  // Between a GPU and its NIC (and the host and its storage NICs): PCIe,
  // whose generation caps what a fast NIC can carry (Gen5 x16: 64 GB/s =
  // 512 Gb/s, under an 800G NIC's line rate).
  Link gpu_nic_link;
  Link host_link;             // between a GPU and host memory: PCIe, or NVLink-C2C to a Grace CPU
  SimTime nic_latency;        // NIC processing, one way, per end
  std::string cpu;            // host CPU, for reports
  CpuVendor cpu_vendor = CpuVendor::kIntel;
  int storage_nics_per_host = 0;
  Bandwidth storage_nic_speed;
  std::string source;
};

}  // namespace anatomy::hw
