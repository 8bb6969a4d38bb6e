#pragma once
// Architecture: what one GPU family shares, whatever the part — the
// constants the compute and collective models take from the silicon rather
// than from a datasheet line. Every accelerator carries its family's record
// (Accelerator::arch), so the models read fields and never compare names.
//
//   const Architecture& a = find_architecture("hopper");
//   a.tensor_clock_fraction;   // 0.90: dense tensor kernels hold 90% of boost
//   a.nvls_efficiency;         // 0.85: NCCL's nvlsEfficiency for SM90
//   a.calibration_table;       // "h200.json" under data/calibration/
//
// Units: fractions are dimensionless (0..1), FLOP per exp is tensor FLOPs
// per softmax exponential at one SM's rates, bandwidths are GB/s of NCCL
// bus bandwidth. Every figure names its source in architecture.cc.

#include <string>
#include <string_view>
#include <vector>

namespace anatomy::hw {

// The collective library the vendor ships (RCCL keeps NCCL's tuning model).
enum class CollectiveLibrary { kNccl, kRccl };

struct Architecture {
  std::string family;       // catalog key: "ampere", "hopper", "blackwell", "blackwell-ultra", "cdna3", "cdna4"
  std::string description;  // "NVIDIA Hopper (SM90)", for `anatomy list`
  std::string compute_unit_name;  // what the parts call a compute unit in reports: "SMs" or "CUs"
  // Compute units assumed when a part does not give its own count
  // (Accelerator::compute_units == 0): the family's usual full-size part.
  int typical_compute_units = 0;
  // Sustained tensor clock under dense GEMM load over the clock the
  // datasheet peak assumes (the roofline's plateau is this x the mainloop's
  // issue efficiency).
  double tensor_clock_fraction = 0.9;
  // Dense BF16 tensor FLOPs per exponential of the softmax unit, per clock
  // per SM: attention whose matmul work per score is below this waits on the
  // exponentials (they overlap the matmuls, ComputeModel::attention).
  double flops_per_exp = 256;
  // FP8 GEMMs take their operands in either layout (Transformer Engine's
  // nvte_is_non_tn_fp8_gemm_supported, compute capability 10 on): a
  // per-tensor FP8 cast writes one copy, not one and a transposed one.
  bool fp8_gemm_any_layout = false;
  // The tensor cores scale FP8 by blocks (MXFP8: OCP microscaling).
  bool mx_formats = false;
  // Where FP8 GEMMs with a scale per 128 values of k run in software
  // (Hopper, without mx_formats): dense FP8 tensor FLOPs per FP32 CUDA-core
  // multiply-add, per SM per clock, the rate at which the partial sums are
  // scaled into the FP32 accumulators every 128 of k. 0: not supported.
  double fp8_flops_per_fp32_fma = 0;
  // FP4 training means NVFP4 (Transformer Engine's NVFP4BlockScaling): a
  // per-tensor FP32 scale from the tensor's amax above an E4M3 scale per 16
  // values. false: MXFP4, whose scales are per 32 values alone.
  bool nvfp4 = false;
  // NCCL's nvlsEfficiency: what NVLink SHARP keeps of the NVLink bandwidth.
  double nvls_efficiency = 0.85;
  // What each chunk step of NCCL's NVLS kernel costs beyond moving the
  // chunk (waiting on and posting the step's flags), in microseconds, a CTA
  // at a time: it makes NVLS slower in proportion to 1 / chunk, so the
  // smaller chunks NCCL takes below its size thresholds cost bandwidth.
  // nvls_efficiency is taken as the rate at NCCL's default 128 KiB chunk,
  // so the 256 KiB chunks NCCL's NVLSTree tuning takes for a few GPUs a
  // domain on fast NICs run a little above it (0.787 on Blackwell).
  // 0: not measured (no NVLS).
  double nvls_step_us = 0;
  // What one channel of NCCL's send/receive kernel (one CTA) moves to other
  // GPUs over NVLink, GB/s. An all-to-all or send/receive inside one NVLink
  // domain runs on at most 32 such channels, however many links the GPU
  // has, so its busiest channel can bound it below the links' rate
  // (coll/p2p_plan.h). 0: not modelled (RCCL, or no NVLink switch).
  double p2p_channel_GBps = 0;
  // The same channel's payload rate for an LL part (NCCL 2.22-2.28's protocol
  // for a peer's transfer of at most p2pnChannelsPerPeer x 16 KiB, coll/p2p_plan.h): LL
  // writes 8-byte words each beside a flag the receiver polls, far slower
  // a CTA than Simple's copies. 0: not measured (LL parts then take half
  // of p2p_channel_GBps, LL's payload share of the wire).
  double p2p_ll_channel_GBps = 0;
  // What the same channel's receiving warps copy out of their FIFO into the
  // user's buffer, GB/s. The FIFO is in the receiver's own memory (NCCL's
  // P2P write mode, all but Ampere), so this copy never crosses NVLink and
  // runs faster than the sender's writes; it is paid once, for a part's
  // last FIFO step (coll/p2p_bound.h). 0: not measured (the sender's rate).
  double p2p_recv_copy_GBps = 0;
  // What RCCL's send/receive channels to one peer carry over an Infinity
  // Fabric mesh on one node, GB/s of payload: a peer's transfer rides its few
  // p2p channels (RCCL doubles a peer's channels on one gfx942 / gfx950
  // node, graph/paths.cc), one workgroup each, and on CDNA 4 they carry less
  // than the peer's xGMI link. It bounds an all-to-all (or send/receive)
  // inside one mesh domain (coll/direct.cc). 0: the link bounds it.
  double mesh_p2p_peer_GBps = 0;
  // NCCL's collective channels (ring and tree CTAs) inside one NVLink-switch
  // domain, as its init log prints them ("N coll channels"). Each is one CTA,
  // which moves at most p2p_channel_GBps, so together they can bound a ring
  // below the links (coll/ring.cc). 0: not known.
  int nvlink_coll_channels = 0;
  // NCCL's llMaxBws cap on an LL collective inside one node (GB/s); the
  // cross-node rows depend on the host CPU, not the GPU (System::cpu_vendor).
  double ll_max_one_node_GBps = 0;
  CollectiveLibrary library = CollectiveLibrary::kNccl;
  // Hosts on which the library enables LL128 by default only with this many
  // NICs; 0: on every host. RCCL sets LL128 on gfx942 only where one of its
  // Rome models matches the platform and says ll128Enabled (graph/tuning.cc,
  // rome_models.cc); its documentation: "enabled for 4-NIC configurations"
  // on MI300X, by default on gfx950.
  int ll128_only_with_nics = 0;
  // Where dense GEMMs run at the clock the board's power limit allows (not
  // at the boost clock): a GEMM plateau measured on one part of the family
  // carries to another by (its board power / the measuring part's)^this,
  // not by datasheet peak, and so does a training step's memory-bound rate
  // (ComputeModel::memory_pace_). 0: not known to be power-limited (peak
  // scaling).
  double gemm_power_exponent = 0;
  // The calibration table shipped for this family (file name under
  // data/calibration/, measured on one of its parts and scaled to the
  // others by peak and HBM bandwidth); "" when none ships.
  std::string calibration_table;
  // A table of peaks whose fp8 and fp4 plateaus, each over its bf16 one,
  // stand in for the low precisions a part's own table of peaks did not
  // measure (borrow_precision_ratios); "" when none.
  std::string precision_ratio_table;
};

const std::vector<Architecture>& architectures();
// Throws InputError listing the known families.
const Architecture& find_architecture(std::string_view family);

}  // namespace anatomy::hw
