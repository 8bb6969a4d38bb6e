#include "hw/architecture.h"

#include <fmt/format.h>

#include "core/error.h"

namespace anatomy::hw {
namespace {

// Tensor clock fraction: datasheet peaks assume the boost clock (H100 SXM:
// 989 TFLOP/s = 132 SMs x 4,096 FLOP/clk x 1.83 GHz); dense tensor kernels
// at the board power limit settle ~10% lower on NVIDIA parts; CDNA 3/4
// parts quote a 2.1-2.4 GHz peak engine clock and are reported to settle
// far lower under dense matrix load at 750-1,400 W (medium-low confidence).
//
// FLOPs per exp: the multi-function unit runs 16 exp/clk/SM on Ampere,
// Hopper and Blackwell, so 2,048 / 4,096 / 8,192 dense BF16 tensor
// FLOP/clk per SM give 128 / 256 / 512. Blackwell Ultra doubles the exp
// rate at the same tensor rate (NVIDIA's Blackwell Ultra technical brief:
// 10.7 against 5 TeraExponentials/s), so 256. CDNA 3 runs 16/clk/CU against
// 2,048 FLOP/clk; CDNA 4 doubles both, so 128 for both.
//
// nvlsEfficiency (NCCL 2.28 src/graph/tuning.cc): Hopper 0.85, Blackwell
// 0.74. Ampere and the AMD parts have no NVLink SHARP; their 0.85 is never
// applied (no system of theirs has in-network reduction).
//
// p2p channel rate (Architecture::p2p_channel_GBps): XLA's published
// timings (openxla/xla collective_interpolator_data.h, read at ROCm/xla
// d02afb4fc1; none of them a validation case) of a collective-permute that
// shifts 8 GPUs of a node by one, as nccl-tests' sendrecv does: each GPU
// sends to the next and receives from the one before in one round, so one
// CTA carries both, as in an all-to-all's rounds. At 16-64 MiB NCCL cuts
// the transfer into 4 parts of at most 16 MiB (coll/p2p_plan.h), one a
// channel, and only 4 CTAs run, far under the links: a part over (the time
// less 10 us) is one CTA's rate. Hopper (key sm_90): 18.4 / 19.0 / 19.4
// GB/s at 16 / 32 / 64 MiB, so 19.0. Blackwell (sm_100_B200): 19.9 / 20.4 /
// 20.5, so 20.4; the all-to-all rows of a GB200 rack (sm_100_GB200, 4 to 32
// GPUs, 256 MiB to 1 GiB, the busiest channel's bytes over the time less 10
// us) give a median of 20.5, and NCCL's own sizing, two p2p channels to an
// NVLink of 40.1 GB/s (graph/paths.cc), 20.05. Hopper's all-to-all rows give
// only 12.1: there 24-32 channels at 19 GB/s would outrun the links, so
// those rows measure the links, not a CTA. On a GB200 rack's 64 GPUs the
// shift takes 750-782 us from 16 to 256 MiB, flat while its parts double
// from 1 to 16: NCCL's cut, seen whole. Ampere: that sizing's 20.0 / 2, not measured (A100's 12
// links fill with 24 such channels, so it never binds).
//
// p2p receive copy (Architecture::p2p_recv_copy_GBps): a part reaches the
// receiver's FIFO a 512 KiB step at a time and its last step is copied out
// after it lands (coll/p2p_plan.h), so a part of one step costs the write
// and the copy and a longer one adds one step's copy to its writes. XLA's
// GB200 all-to-all rows on 4, 8 and 16 GPUs of a rack (sm_100_GB200, 16
// MiB to 512 MiB, where NCCL sends Simple in one batch; none of them a
// case) separate the two: their busiest channel's bytes at 20.4 GB/s plus
// anatomy's own fixed cost (NCCL's Simple base latency and a rack's Simple
// hop) leave the last step's copy at 35 GB/s (rms 3.8% over the 39 rows;
// with the copy at the sender's rate 11.5%, every row slow). The same fit
// on GB300's rows (sm_103) gives 35-40. An NCCL maintainer puts a ring's
// last local copy step at about 2x the speed of its other steps
// (NVIDIA/nccl issue 398); 35 / 20.4 = 1.7. Hopper's rows measure the
// links, not a CTA, so its copy is not measured.
//
// LL p2p rate (Architecture::p2p_ll_channel_GBps): the same tables' shifts
// at 64 KiB to 512 KiB a peer, which NCCL 2.22-2.28 sends as LL (a peer's
// bytes at most p2pnChannelsPerPeer x 16 KiB: 32 x 16 KiB on these
// NVLink switches). The slope of time against a part's bytes, fitted over
// every row, is one CTA's LL rate; the intercept (10-17 us) is the
// launch's. On 64 GPUs of a rack each peer is one part on one channel
// (sm_100_GB200: 64 KiB 22.4 us, 128 KiB 35.0, 256 KiB 60.3, 512 KiB
// 110.8): 5.20 GB/s; 72 GPUs 5.23. GB300 (sm_103) 5.33 and 5.38. Eight
// GPUs cut each peer into 4 parts: B200 5.66, H100 (sm_90) 5.55. A quarter
// of Simple's rate, where LL's format alone would halve it. So Hopper
// 5.55, Blackwell 5.20 (the rack, one part a channel as in a rack-wide
// all-to-all), Blackwell Ultra 5.33; Ampere not measured.
//
// Collective channels on an NVLink switch (Architecture::nvlink_coll_channels):
// NCCL's init logs, "N coll channels": 24 on one 8x H100 (AWS EKS p5.48xlarge
// logs, docs/research/nccl_tuning.md), 32 on one DGX B200 (NVIDIA/nccl issue
// 1646, NCCL 2.25.1). A ring's channel is one CTA, and a CTA writes to the next
// GPU at about the p2p rate above: XLA's GB200 all-gather rows on 64 GPUs of
// a rack, where a ring runs (no NVLS past 32 local ranks; none of them a
// case), move 656 GB/s a GPU once their steps' fixed cost is taken off, 20.5
// on each of 32 channels (docs/research/nccl-choice-issue19.md). On Blackwell
// 32 x 20.4 = 653 GB/s sits under NVLink 5's 721.8 GB/s payload rate; on
// Hopper 24 x 19.0 = 456 is above NVLink 4's, so it never binds there.
// GB200 and GB300 racks take DGX B200's 32 (the same NVLink 5 and SM10x
// search); no rack log was found. The rate is a CTA's, not its warps': a
// p2p send has about 10 warps and a ring CTA 16-20, and both move it. So
// NVLS's CTAs, whose scatter and gather warps copy the whole buffer in and
// out of the NVLS buffer, copy at it too (coll/nvls.cc): 24 x 20.4 = 489.6
// GB/s of algorithm bandwidth on one Blackwell rack, the ceiling XLA's GB200
// all-reduce rows reach at 16-18 GPUs.
//
// llMaxBws one-node row (NCCL 2.28 tuning.cc, GB/s): Ampere 87.7, Hopper
// 141, Blackwell 2 x 141 = 282; RCCL keeps NCCL's table and AMD GPUs fall in
// the Hopper row.
//
// CDNA GEMMs under board power (Architecture::gemm_power_exponent): AMD's
// max-achievable FLOPs table (ROCm blog, 2025-02-28) has the same die at
// 750 W (MI300X) and 1,000 W (MI325X) run bf16 GEMMs at 708 and 843
// TFLOP/s, at median clocks of 1,115-1,230 and 1,354-1,464 MHz of a
// 2,100 MHz peak: ln(843 / 708) / ln(1000 / 750) = 0.607.
constexpr double kCdnaGemmPowerExponent = 0.607;
//
// An all-to-all on one MI355X node moves 51.6 GB/s to each peer where the
// same node's ring all-reduce moves 57.5-58.1 GB/s over each xGMI link:
// Oracle's MI355X quick start (oracle-quickstart/oci-gpu-quickstarts
// amd/MI355X/README-MI355X.md and README-MI355X-Pollara.md, 44e4e6c, RCCL
// 2.26.6, alltoall_perf -g 8 on one node) prints 41,593 and 41,626 us for
// 16 GiB, a peer's 2 GiB each, beside 406.8 and 407.8 GB/s of all-reduce
// busbw at 8 GiB (7 links). Those two rows are read here and are not
// cases. MI300X's links (45-48 GB/s realized, B7) bind before any such
// limit, and nothing measures CDNA 3's per-peer rate, so it has none.
constexpr double kCdna4MeshPeerGBps = 51.6;

std::vector<Architecture> make_architectures() {
  std::vector<Architecture> out;
  out.push_back(Architecture{.family = "ampere",
                             .description = "NVIDIA Ampere (SM80)",
                             .compute_unit_name = "SMs",
                             .typical_compute_units = 108,  // A100 SXM
                             .tensor_clock_fraction = 0.90,
                             .flops_per_exp = 128,
                             .nvls_efficiency = 0.85,
                             .p2p_channel_GBps = 10.0,
                             .ll_max_one_node_GBps = 87.7,
                             .library = CollectiveLibrary::kNccl,
                             .calibration_table = ""});
  out.push_back(Architecture{.family = "hopper",
                             .description = "NVIDIA Hopper (SM90)",
                             .compute_unit_name = "SMs",
                             .typical_compute_units = 132,  // H100 / H200 SXM
                             .tensor_clock_fraction = 0.90,
                             .flops_per_exp = 256,
                             // NVIDIA H100 Tensor Core GPU Architecture whitepaper: an SM has
                             // 128 FP32 cores, and 1,979 dense FP8 TFLOP/s over 132 SMs at the
                             // 1,830 MHz boost is 8,192 FLOPs a clock: 8,192 / 128.
                             .fp8_flops_per_fp32_fma = 64,
                             .nvls_efficiency = 0.85,
                             // nccl-tests all_reduce_perf on one 8x H100 (NVIDIA/nccl-tests
                             // issue 290, NVLS per an NVIDIA maintainer there; 2 iterations
                             // a size, so noisy): over
                             // anatomy's 128 KiB-chunk curve, 0.918 from 128 to 512 MiB
                             // (64 KiB chunks) and 0.978 from 1 to 4 GiB, a ratio of
                             // 0.939: f = 0.069 of a 128 KiB step's time on 16 channels,
                             // 8 heads, 0.85 x 370.8 GB/s.
                             .nvls_step_us = 0.52,
                             .p2p_channel_GBps = 19.0,
                             .p2p_ll_channel_GBps = 5.55,
                             .nvlink_coll_channels = 24,
                             .ll_max_one_node_GBps = 141.0,
                             .library = CollectiveLibrary::kNccl,
                             // Measured on an H200 (data/calibration/h200.json); an H100 shares
                             // its GH100 compute and takes it scaled by HBM bandwidth.
                             .calibration_table = "h200.json"});
  out.push_back(Architecture{.family = "blackwell",
                             .description = "NVIDIA Blackwell (SM100)",
                             .compute_unit_name = "SMs",
                             .typical_compute_units = 148,  // B200: two dies of 74
                             .tensor_clock_fraction = 0.90,
                             .flops_per_exp = 512,
                             .fp8_gemm_any_layout = true,
                             .mx_formats = true,
                             .nvfp4 = true,
                             .nvls_efficiency = 0.74,
                             // nccl-tests all_reduce_perf on one 8x B300 (NVLink 5 and NCCL's
                             // SM10x tuning, as B200 and GB200), NCCL 2.29.7, 24
                             // NVLS channels, 5-run means (eunomia-bpf/nccl-eBPF,
                             // docs/tmp/experiment-results-b300.md): over anatomy's 128
                             // KiB-chunk curve, 1.016 from 2 to 8 GiB, 0.907 from 128 MiB
                             // to 1 GiB (64 KiB chunks), 0.70-0.73 at 32-64 MiB (32 KiB; the
                             // step model gives 0.75): f = 0.136 of a 128 KiB step's time
                             // on 24 channels, 8 heads, 0.74 x 721.8 GB/s.
                             .nvls_step_us = 0.90,
                             .p2p_channel_GBps = 20.4,
                             .p2p_ll_channel_GBps = 5.20,
                             .p2p_recv_copy_GBps = 35.0,
                             .nvlink_coll_channels = 32,
                             .ll_max_one_node_GBps = 282.0,
                             .library = CollectiveLibrary::kNccl,
                             // Published maximum-achievable GEMM rates on a B200
                             // (data/calibration/b200.json): the plateau per precision.
                             .calibration_table = "b200.json",
                             // The only Blackwell part whose FP4 GEMMs were
                             // measured (pytorch/ao #2427): GB200's table has none.
                             .precision_ratio_table = "b200.json"});
  out.push_back(Architecture{.family = "blackwell-ultra",
                             .description = "NVIDIA Blackwell Ultra (SM103)",
                             .compute_unit_name = "SMs",
                             .typical_compute_units = 160,  // B300: two dies of 80
                             .tensor_clock_fraction = 0.90,
                             .flops_per_exp = 256,
                             .fp8_gemm_any_layout = true,
                             .mx_formats = true,
                             .nvfp4 = true,
                             // NCCL tunes SM103 as Blackwell (compute capability 10.x).
                             .nvls_efficiency = 0.74,
                             // Measured on a B300 (Blackwell's entry above has the source).
                             .nvls_step_us = 0.90,
                             // Blackwell's (XLA's sm_103 all-to-all rows agree: 8 GPUs, 256 MiB, 20.4).
                             .p2p_channel_GBps = 20.4,
                             .p2p_ll_channel_GBps = 5.33,
                             .p2p_recv_copy_GBps = 35.0,
                             // Blackwell's: the same NVLink 5 and NCCL's SM10x search.
                             .nvlink_coll_channels = 32,
                             .ll_max_one_node_GBps = 282.0,
                             .library = CollectiveLibrary::kNccl,
                             .calibration_table = "b300.json",
                             // No FP4 GEMM measured on SM103: B200's FP4 / BF16
                             // plateau, the same tcgen05 block-scaled MMA. SM103
                             // does 1.5x SM100's FP4 math on the same operand
                             // paths, so that ratio is if anything generous.
                             .precision_ratio_table = "b200.json"});
  out.push_back(Architecture{.family = "cdna3",
                             .description = "AMD CDNA 3 (gfx942)",
                             .compute_unit_name = "CUs",
                             .typical_compute_units = 304,  // MI300X / MI325X
                             .tensor_clock_fraction = 0.75,
                             .flops_per_exp = 128,
                             .nvls_efficiency = 0.85,
                             .ll_max_one_node_GBps = 141.0,
                             .library = CollectiveLibrary::kRccl,
                             // RCCL 2.22.3 for ROCm 6.4.2 added LL128 on gfx942
                             // (its CHANGELOG), for 4-NIC platforms alone.
                             .ll128_only_with_nics = 4,
                             .gemm_power_exponent = kCdnaGemmPowerExponent,
                             .calibration_table = "mi300x.json"});
  out.push_back(Architecture{.family = "cdna4",
                             .description = "AMD CDNA 4 (gfx950)",
                             .compute_unit_name = "CUs",
                             .typical_compute_units = 256,  // MI350X / MI355X: 8 XCDs of 32
                             .tensor_clock_fraction = 0.75,
                             .flops_per_exp = 128,
                             .mx_formats = true,  // CDNA 4's MXFP8 / MXFP6 / MXFP4 matrix cores
                             .nvls_efficiency = 0.85,
                             .mesh_p2p_peer_GBps = kCdna4MeshPeerGBps,
                             .ll_max_one_node_GBps = 141.0,
                             .library = CollectiveLibrary::kRccl,
                             // Assumed as CDNA 3's (no CDNA 4 pair measured at
                             // two board powers): the MI350X (1,000 W) and
                             // MI355X (1,400 W) share the die, and AMD rates
                             // them 2.2 and 2.4 GHz peak.
                             .gemm_power_exponent = kCdnaGemmPowerExponent,
                             .calibration_table = "mi355x.json",
                             // A precision the CDNA 4 table has no rows of takes
                             // CDNA 3's plateau over BF16 where that table has one
                             // (AMD's own max-achievable rates on an MI300X, FP8
                             // 1,273 of 2,615 TFLOP/s against 708 of 1,307). The
                             // MI355X table now carries its own FP8 and MXFP4
                             // rows, so it borrows nothing.
                             .precision_ratio_table = "mi300x.json"});
  return out;
}

}  // namespace

const std::vector<Architecture>& architectures() {
  static const std::vector<Architecture> kAll = make_architectures();
  return kAll;
}

const Architecture& find_architecture(std::string_view family) {
  for (const auto& a : architectures())
    if (a.family == family) return a;
  std::string known;
  for (const auto& a : architectures()) known += (known.empty() ? "" : ", ") + a.family;
  throw core::InputError(fmt::format("unknown architecture '{}' (known: {})", std::string(family), known));
}

}  // namespace anatomy::hw
