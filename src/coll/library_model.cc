#include "coll/library_model.h"

#include <algorithm>
#include <bit>
#include <string>

#include "hw/system.h"

namespace anatomy::coll {
namespace {

// NCCL 2.28 src/graph/tuning.cc, baseLat[algo][LL, LL128, Simple] in us.
constexpr double kBaseLat[3][3] = {
    {6.8, 14.0, 8.4},  // Tree
    {6.6, 14.0, 8.4},  // Ring
    {0.0, 0.0, 0.0},   // NVLS (NCCL charges its hop latency instead)
};
// hwLat[link][algo][LL, LL128, Simple] in us.
constexpr double kHwLat[3][3][3] = {
    {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0.0, 0.0, 25.0}},     // NVLink
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0.0, 0.0, 0.0}},       // PCI
    {{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}, {0.0, 0.0, 18.0}},    // NET
};

int idx(AlgoClass a) { return static_cast<int>(a); }
int idx(LinkClass l) { return static_cast<int>(l); }
int idx(Protocol p) { return p == Protocol::kLL ? 0 : p == Protocol::kLL128 ? 1 : 2; }

SimTime us(double v) { return SimTime::from_seconds(v * 1e-6); }

// NCCL indexes its per-generation tables (llMaxBws' one-node row,
// nvlsEfficiency, the NVLS channel count) by one compute-capability index;
// the architecture record carries the first row (87.7 Ampere, 141 Hopper,
// 282 Blackwell GB/s), which names the index. RCCL has no NVLS.
int compute_capability(const hw::Architecture& a) {
  if (a.library != hw::CollectiveLibrary::kNccl) return 0;
  return a.ll_max_one_node_GBps >= 282.0 ? 100 : a.ll_max_one_node_GBps >= 141.0 ? 90 : 80;
}

}  // namespace

double LibraryModel::efficiency(Protocol p) const {
  if (ideal) return 1.0;
  switch (p) {
    case Protocol::kLL: return 0.5;
    case Protocol::kLL128: return static_cast<double>(ll128_line_words - 1) / ll128_line_words;
    case Protocol::kSimple: return 1.0;
  }
  return 1.0;
}

SimTime LibraryModel::base_latency(AlgoClass a, Protocol p) const {
  return ideal ? SimTime::zero() : us(kBaseLat[idx(a)][idx(p)]);
}

SimTime LibraryModel::hop_latency(LinkClass l, AlgoClass a, Protocol p) const {
  return ideal ? SimTime::zero() : us(kHwLat[idx(l)][idx(a)][idx(p)]);
}

SimTime LibraryModel::hop_on_path(LinkClass l, AlgoClass a, Protocol p, SimTime path) const {
  const SimTime hw = hop_latency(l, a, p);
  const SimTime wire = hop_latency(l, a, Protocol::kLL);
  // NCCL's network figures differ between ring and tree LL, so they are not
  // a path plus work; PCI hops keep the same rule (not measured on a longer
  // path), and NVLS has no LL figure.
  if (l != LinkClass::kNvlink || wire == SimTime::zero()) return std::max(hw, path);
  return path > wire ? hw + (path - wire) : hw;
}

SimTime LibraryModel::ring_step_floor(Protocol p, int domains) const {
  return domains <= 1 ? SimTime::zero() : net_posts(p == Protocol::kSimple ? 3 : 1);
}

SimTime LibraryModel::net_posts(int ops) const {
  if (ideal || ops <= 0) return SimTime::zero();
  return us(net_overhead_us * ops);
}

SimTime LibraryModel::nvls_tree_net_latency() const { return ideal ? SimTime::zero() : us(20.9); }

double LibraryModel::ll_max_busbw_GBps(int nodes) const {
  if (ideal) return 0;
  return ll_max_GBps[nodes <= 1 ? 0 : nodes == 2 ? 1 : 2];
}

double LibraryModel::tree_efficiency(Protocol p, int nodes) const {
  if (ideal) return 1.0;
  switch (p) {
    case Protocol::kLL: return 0.92 / 3.8;
    case Protocol::kLL128: return 0.92 * (nodes <= 1 ? 7.0 / 9.0 : efficiency(p));
    case Protocol::kSimple: return 0.92;
  }
  return 0.92;
}

double LibraryModel::nvls_tree_max_per_head_GBps(int nodes) const {
  if (ideal || nodes <= 1) return 0;
  if (compute_capability >= 100) return nodes == 2 ? 96.0 : 80.0;
  if (compute_capability >= 90) return nodes == 2 ? 57.7 : 45.5;
  return 0;
}

Bytes LibraryModel::chunk(AlgoClass a, Protocol p) const {
  // NCCL's defaults (enqueue.cc calcCollChunking; RCCL's computeCollChunkInfo
  // alike): Simple steps of NCCL_BUFFSIZE/NCCL_STEPS = 512 KiB, 4 per ring
  // chunk; LL and LL128 one step's payload (NCCL 32 KiB and 576,000 B, RCCL
  // 16 KiB and 50,176 B); tree Simple 512 KiB; NVLS 128 KiB.
  if (a == AlgoClass::kNvls) return Bytes::KiB(128);
  switch (p) {
    case Protocol::kLL: return Bytes(ll_step.count() / 2);
    case Protocol::kLL128:
      return Bytes(ll128_step.count() / ll128_line_words * (ll128_line_words - 1));
    case Protocol::kSimple: return a == AlgoClass::kRing ? Bytes::MiB(2) : Bytes::KiB(512);
  }
  return Bytes::MiB(2);
}

double LibraryModel::cta_GBps(Protocol p) const {
  if (p != Protocol::kLL) return p2p_channel_GBps;
  return p2p_ll_channel_GBps > 0 ? p2p_ll_channel_GBps : p2p_channel_GBps * efficiency(Protocol::kLL);
}

int clamp_ctas(int channels, int min_ctas, int max_ctas) {
  if (max_ctas > 0) channels = std::min(channels, max_ctas);
  return std::max(channels, min_ctas);
}

int LibraryModel::clamp_ctas(int channels) const { return coll::clamp_ctas(channels, min_ctas, max_ctas); }

std::string crossed_ctas(int min_ctas, int max_ctas, std::string_view max_name) {
  if (min_ctas <= 0 || max_ctas <= 0 || min_ctas <= max_ctas) return "";
  return std::to_string(min_ctas) + " is above " + std::string(max_name) + " (" + std::to_string(max_ctas) +
         "): NCCL needs min_ctas <= max_ctas";
}

LibraryModel with_ctas(LibraryModel lib, int min_ctas, int max_ctas) {
  if (lib.ideal) return lib;  // no library, no CTAs
  lib.min_ctas = min_ctas;
  lib.max_ctas = max_ctas;
  lib.collective_ctas = lib.clamp_ctas(lib.collective_ctas);
  if (lib.nvlink_coll_channels > 0) lib.nvlink_coll_channels = lib.clamp_ctas(lib.nvlink_coll_channels);
  // init.cc: p2pnChannels = pow2Up(min(nChannels, NCCL_MAX_P2P_NCHANNELS)),
  // and a peer's channels no more than those.
  if (max_ctas > 0) {
    lib.p2p_channels = static_cast<int>(std::bit_ceil(static_cast<unsigned>(std::min(lib.p2p_channels, max_ctas))));
    lib.p2p_channels_per_peer = std::min(lib.p2p_channels_per_peer, lib.p2p_channels);
  }
  return lib;
}

std::string ctas_text(int min_ctas, int max_ctas) {
  if (min_ctas > 0 && max_ctas > 0) return std::to_string(min_ctas) + "-" + std::to_string(max_ctas);
  if (max_ctas > 0) return "at most " + std::to_string(max_ctas);
  if (min_ctas > 0) return "at least " + std::to_string(min_ctas);
  return "";
}

LibraryModel ideal_library() {
  LibraryModel m;
  m.name = "ideal (no library overheads)";
  m.ideal = true;
  return m;
}

LibraryModel nccl_library(const hw::System& system) {
  const hw::Architecture& arch = system.gpu.arch;
  LibraryModel m;
  m.ll128 = arch.ll128_only_with_nics == 0 || system.nics_per_host == arch.ll128_only_with_nics;
  const std::string no_ll128 = m.ll128 ? "" : ", no LL128 on " + std::to_string(system.nics_per_host) + "-NIC hosts";
  m.name = arch.library == hw::CollectiveLibrary::kRccl
               ? "RCCL (NCCL 2.28 tuning model, RCCL's protocol formats" + no_ll128 + ")"
               : "NCCL 2.28 tuning model" + no_ll128;
  m.nvls_efficiency = arch.nvls_efficiency;
  m.nvls_step_us = arch.nvls_step_us;
  m.compute_capability = compute_capability(arch);
  m.collective_ctas = 16;
  // llMaxBws (NCCL 2.28 tuning.cc): the one-node row by GPU generation (the
  // architecture record's), the rows across nodes by host CPU vendor (Intel
  // and others: 39.0 / 20.4 GB/s for 2 / 3+ nodes; AMD: 22.5 / 19.0).
  const bool amd_cpu = system.cpu_vendor == hw::CpuVendor::kAmd;
  m.ll_max_GBps[0] = arch.ll_max_one_node_GBps;
  m.ll_max_GBps[1] = amd_cpu ? 22.5 : 39.0;
  m.ll_max_GBps[2] = amd_cpu ? 19.0 : 20.4;
  m.net_overhead_us = amd_cpu ? 2.0 : 1.0;
  if (arch.library == hw::CollectiveLibrary::kNccl && system.scaleup.kind == hw::ScaleUpKind::kSwitch) {
    const auto two_per_link = static_cast<unsigned>(std::max(1, 2 * system.gpu.scaleup_links));
    m.p2p_channels_per_peer = std::min(m.p2p_channels, static_cast<int>(std::bit_ceil(two_per_link)));
    m.p2p_channel_GBps = arch.p2p_channel_GBps;
    m.p2p_ll_channel_GBps = arch.p2p_ll_channel_GBps;
    m.p2p_recv_copy_GBps = arch.p2p_recv_copy_GBps;
    m.nvlink_coll_channels = arch.nvlink_coll_channels;
    m.p2p_net_nics = std::max(1, system.nics_per_host / std::max(1, system.gpus_per_host));
    if (system.cpu_vendor == hw::CpuVendor::kNvidia && m.compute_capability >= 100) m.p2p_net_chunk = Bytes::KiB(256);
  }
  if (arch.library == hw::CollectiveLibrary::kRccl) {
    m.mesh_p2p_peer_GBps = arch.mesh_p2p_peer_GBps;
    // RCCL's device.h: NCCL_LL128_LINESIZE 64, NCCL_LL128_ELEMS_PER_THREAD 28
    // and NCCL_LL128_MAX_NTHREADS 256 (28 x 256 x 8 B a step), NCCL_MAX_NTHREADS
    // 256 for LL (8 lines x 256 x 16 B a step).
    m.ll128_line_words = 8;
    m.ll128_step = Bytes(28 * 256 * 8);
    m.ll_step = Bytes(8 * 256 * 16);
  }
  return m;
}

}  // namespace anatomy::coll
