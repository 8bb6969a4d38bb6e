#pragma once
// ComputeModel: how long the kernels of a training step take on one GPU.
//
// Two sources, one interface:
//  * a roofline over the datasheet (peak tensor FLOP/s, HBM bandwidth) with
//    efficiency curves by op shape: time = max(FLOPs / (peak x eff(shape)),
//    bytes / (HBM x eff_mem x pace)) plus a kernel launch overhead, pace
//    below 1 only on a power-limited part carried from a sibling's table;
//  * a calibration table measured on a real GPU (the format of
//    data/calibration/h200.json, written by `anatomy calibrate`), whose
//    measured GEMM, attention, memory-bound and optimizer rates are
//    interpolated (log-space in the shape) instead;
//  * a table of measured peaks only (no "gemm_grid": a few published
//    maximum-achievable GEMM rates per precision, e.g.
//    data/calibration/b200.json): the roofline, its plateau per precision
//    the best efficiency measured (FP8 and FP4 by their own rows), and
//    flash attention at published kernel rates where it has "attention"
//    rows (own_attention_shortfall).
// A table measured on one GPU can lend its *efficiencies* (achieved/peak by
// shape) to another GPU of the same architecture family; the model says
// which source it used (describe()).
//
//   ComputeModel cm = make_compute_model(hw::find_accelerator("H200"), &table);
//   SimTime t = cm.gemm(8192, 10240, 8192, Precision::kBf16);

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/units.h"
#include "hw/accelerator.h"
#include "hw/kernel_choice.h"
#include "hw/precision.h"

namespace anatomy::hw {

namespace detail {
struct CalibratedRates;  // the table's interpolators (compute_model.cc)
struct RooflineShape;    // the roofline's per-GPU constants: SMs, plateau (compute_model.cc)
}  // namespace detail

// Parsed calibration table (see data/calibration/h200.json for the format).
struct CalibrationTable {
  struct Gemm {
    Precision dtype = Precision::kBf16;
    int64_t m = 0, n = 0, k = 0;
    double seconds = 0;
    // From "gemm_grid" (the power-of-two lattice) rather than "gemm" (named
    // model shapes). Where both measured one shape, the "gemm" rows win.
    bool from_grid = false;
  };
  struct Attention {
    int64_t seq = 0, heads = 0, head_dim = 0;
    bool causal = true;
    double fwd_seconds = 0, fwd_bwd_seconds = 0;
  };
  std::string source;      // file it was read from
  std::string gpu_name;    // meta.name, e.g. "NVIDIA H200"
  // meta.attention_measured_on: the part the "attention" rows were timed on
  // where it is not meta.name's (a family's kernels measured on its sibling:
  // the B300's table carries the GB300's rows); empty: meta.name's part.
  std::string attention_gpu_name;
  std::vector<Gemm> gemms;  // "gemm" and "gemm_grid" together
  std::vector<Attention> attention;  // "attention" and "attention_grid"
  double memory_GBps_rw = 0;         // memory.elementwise_inplace_GBps_rw
  // Measured rate of each memory-bound training kernel ("elementwise":
  // layernorm, gelu, silu_mul, dropout, residual_add, softmax, ...), bytes
  // read plus written per second, averaged over the shapes measured.
  std::vector<std::pair<std::string, double>> elementwise_GBps;
  // For a table without "elementwise" rows: each kernel's rate as a fraction
  // of the streaming rate on the GPU that measured it (borrow_kernel_rates),
  // and that table's file. How far a layernorm or SwiGLU falls short of a
  // plain stream is the kernel's code, not the part: it carries over to a
  // part whose own kernels nobody measured, at that part's streaming rate.
  std::vector<std::pair<std::string, double>> elementwise_of_stream;
  std::string elementwise_of_stream_source;
  // For a table of peaks: how far the GEMMs and flash attention of a fully
  // measured table fell short of the roofline that table's own best rows
  // give, shape by shape (borrow_roofline_shortfall), and that table's file.
  // A peaks table's rows are the best shape a search found; a model's shapes
  // are not that shape, and attention is not a GEMM.
  struct GemmRatio {
    Precision dtype = Precision::kBf16;
    int64_t m = 0, n = 0, k = 0;
    double roofline_over_measured = 1;  // < 1: the measured GEMM was slower
  };
  struct AttentionRatio {
    int64_t seq = 0, heads = 0, head_dim = 0;  // batch 1
    double fwd_roofline_over_measured = 1, bwd_roofline_over_measured = 1;
  };
  std::vector<GemmRatio> gemm_of_roofline;
  std::vector<AttentionRatio> attention_of_roofline;
  std::string of_roofline_source;
  // Where attention_of_roofline comes from when not of_roofline_source: a
  // table of peaks that measured its own part's flash attention
  // (own_attention_shortfall).
  std::string attention_of_roofline_source;
  // Beside a part's own attention rows: the fully measured table's shortfall
  // (borrow_roofline_shortfall), which carries them to shapes outside the box
  // they span. A kernel's shortfall at the shapes its part measured is its
  // own; how it changes from there to fewer heads or a shorter sequence (a
  // partial wave, the prologue of a short kernel) is read off the table that
  // measured every shape: own(nearest measured) x lent(shape) / lent(nearest).
  std::vector<AttentionRatio> attention_lent_of_roofline;
  // For a table of peaks without rows of a low precision (fp8, fp4): that
  // precision's plateau over the bf16 one as a table of peaks of the same
  // generation measured them (borrow_precision_ratios), index Precision,
  // 0 where nothing is lent; and that table's file and part. A block-scaled
  // FP4 GEMM falls further short of its peak than a BF16 one on the same
  // tensor cores, so BF16's plateau overstates it.
  std::array<double, 5> plateau_over_bf16{};
  std::string plateau_over_bf16_source;
  // Flash attention with dropout against the same kernel without
  // ("attention_dropout" rows, each shape timed both ways): the extra time
  // per causal score element, for which the kernel draws a random number,
  // forward and backward (the median over rows); the SMs of the part that
  // measured it (meta.sms; 0: unknown), and that table's file when another
  // table lent it (borrow_dropout_cost). Not measured: dropout costs the
  // kernel nothing.
  bool dropout_measured = false;
  double dropout_fwd_s_per_score = 0, dropout_bwd_s_per_score = 0;
  int dropout_sms = 0;
  std::string dropout_lent_by;
  // FP8 flash attention against BF16 on the same shapes, timed by one
  // harness ("attention_fp8" rows): the FP8 kernel's time over the BF16
  // kernel's, forward and backward, by sequence and mask. An FP8 kernel is
  // not a BF16 one at twice the tensor rate: it quantizes P each tile, and
  // its backward on Hopper transposes its FP8 operands (cuDNN's own
  // benchmark puts the H200's causal FP8 backward slower than BF16's at
  // 8K tokens and up). Empty: the roofline's FP8 over BF16 stands in.
  struct AttentionFp8 {
    int64_t seq = 0;
    int64_t width = 128;  // (head_dim + head_dim_vo) / 2, the kernel's width
    bool causal = true;
    double fwd_over_bf16 = 1, bwd_over_bf16 = 1;
  };
  std::vector<AttentionFp8> attention_fp8;
  double optimizer_ns_per_param = 0;       // fused AdamW, fp32 params
  double optimizer_bf16_ns_per_param = 0;  // fused AdamW, bf16 params (0: not measured)
  double h2d_GBps = 0, d2h_GBps = 0;  // copy.*_pinned_GBps
  std::string copy_link;              // copy.link: the link those copies crossed ("pcie-gen5"); empty: unstated
  double disk_write_GBps = 0;         // disk.seq_write_fsync_GBps
  // No "gemm_grid": the table gives measured peak rates only (its "gemm"
  // rows, per precision), which set the roofline's plateau; attention,
  // memory, optimizer and copy sections are optional (0 / empty: absent).
  bool peaks_only = false;
};

// Throws InputError naming the file (and field) when it is missing or malformed.
CalibrationTable load_calibration(const std::string& path);
// Lends `from`'s per-kernel rates, each over `from`'s streaming rate, to a
// table that measured none (`to.elementwise_GBps` empty); no-op otherwise,
// or when `from` has no kernel rows or no streaming rate.
void borrow_kernel_rates(CalibrationTable& to, const CalibrationTable& from);
// Lends a fully measured table's shortfall against its own peaks roofline
// to a table of peaks (`to.peaks_only`): for every bf16 and fp8 GEMM shape
// and every attention shape `from` measured, the roofline time over the
// measured time, where the roofline's plateau is `from`'s best row of that
// precision. No-op when `to` is not a table of peaks or `from` is one, or
// names no catalog part. Attention measured on `to`'s own part
// (own_attention_shortfall) is kept.
void borrow_roofline_shortfall(CalibrationTable& to, const CalibrationTable& from);
// A table of peaks with "attention" rows (published flash-attention kernel
// rates on its own part, causal ones used): attention's shortfall against
// that part's roofline from those rows, replacing any lent one. Kernels
// differ by vendor and generation (CK and AITER on CDNA, FlashAttention-3
// or cuDNN on Hopper), so a part's own measurement beats another part's
// shortfall. No-op without such rows or when meta.name names no catalog part.
void own_attention_shortfall(CalibrationTable& t);
// A table of peaks that measured no attention takes `family`'s own
// attention shortfall (its "attention" rows, against its own roofline) in
// place of a lent one: a part on the same die runs the same kernels
// (MI325X the MI300X's). No-op when `to` has attention rows of its own or
// `family` has none.
void borrow_attention_shortfall(CalibrationTable& to, const CalibrationTable& family);
// Lends a table of peaks `from`'s best fp8 and fp4 efficiency over its best
// bf16 efficiency (each against the datasheet peak of the part it was
// measured on) to a table of peaks `to` with no rows of that precision.
// No-op when either is not a table of peaks or `from` names no catalog part.
void borrow_precision_ratios(CalibrationTable& to, const CalibrationTable& from);
// To a table without "attention_dropout" rows: the extra time per score
// element that attention dropout cost where `from` measured it, with the SMs
// it was measured on (the numbers are drawn on the SMs' ordinary pipes, so
// a part with more SMs draws them faster); no-op when `to` has its own.
void borrow_dropout_cost(CalibrationTable& to, const CalibrationTable& from);
// A table reduced to a table of peaks: its best bf16 and fp8 GEMM rows (the
// roofline borrow_roofline_shortfall measures `from` against).
CalibrationTable peaks_of(const CalibrationTable& t);
// The same from text (the fuzz target); `path` names it in errors.
CalibrationTable parse_calibration(const std::string& text, const std::string& path);

// Of the 128 x 128 tiles of scores a causal FlashAttention kernel computes
// over `seq` tokens, the fraction a sliding window of `window` tokens
// needs: each block of 128 queries takes the key blocks from the one
// holding its first query's earliest key to its own. 1 when the window
// covers the sequence (or is 0, none).
double sliding_window_tiles(int64_t seq, int64_t window);

// Flash attention's FLOPs for `batch` sequences, as FlashAttention counts
// them: forward QK^T and PV, 4 x seq^2 x head_dim a head, causal at half
// (the window's tiles when `window` > 0); backward 2.5 times forward.
double attention_flops(int64_t batch, int64_t seq, int64_t heads, int64_t head_dim, bool causal, bool backward,
                       int64_t window = 0);

class ComputeModel {
 public:
  // C[m,n] = A[m,k] B[k,n]: 2mnk FLOPs. A precision the part has no tensor
  // units for (peak_tflops() == 0, e.g. FP8 on A100) runs at the BF16 rate.
  SimTime gemm(int64_t m, int64_t n, int64_t k, Precision p) const;
  // An FP8 GEMM whose inputs carry a scale per 128 values of k (DeepSeek-V3's
  // block scaling, Transformer Engine's Float8BlockScaling). Where the tensor
  // cores scale by blocks (Architecture::mx_formats) it is an FP8 GEMM; on
  // Hopper every 128 of k each output's partial sum is scaled into its FP32
  // accumulator on the CUDA cores (DeepSeek-V3, arXiv 2412.19437, 3.3.2:
  // promotion at N_C = 128), m n ceil(k / 128) multiply-adds at the FP32
  // rate (Architecture::fp8_flops_per_fp32_fma), taken as not overlapping
  // the MMAs (TE's docs: "on Hopper, block-scaled GEMMs are software-
  // emulated"). A part with neither runs it as gemm() does an FP8 GEMM.
  SimTime gemm_fp8_blockwise(int64_t m, int64_t n, int64_t k) const;
  // Flash attention for `batch` sequences: forward, and backward alone.
  // `window` > 0: causal sliding-window attention, each query seeing
  // itself and the window - 1 keys before it; the kernel computes whole
  // 128 x 128 tiles of scores, those the window overlaps, at the rate the
  // full causal kernel runs at on that sequence (sliding_window_tiles).
  // `kernel`: the part's best flash kernel, or FlashAttention-2's rates
  // (kernel_choice.h). `precision` kFp8: FP8 attention (cuDNN's, Transformer
  // Engine's FP8 DotProductAttention): the two matmuls on the FP8 tensor
  // pipes, the softmax's exponentials on the same unit at the same rate, so
  // a head width whose matmuls already only just keep the unit busy gains
  // nothing; Q, K, V and the output gradient read at one byte, the output
  // and dQ, dK, dV 16-bit. The time at bf16 (measured or roofline) times the
  // roofline's FP8 / BF16 ratio at that shape. The casts are the caller's.
  SimTime attention_fwd(int64_t batch, int64_t seq, int64_t heads, int64_t head_dim, bool causal,
                        int64_t window = 0, AttentionKernel kernel = AttentionKernel::kFlash,
                        Precision precision = Precision::kBf16) const;
  SimTime attention_bwd(int64_t batch, int64_t seq, int64_t heads, int64_t head_dim, bool causal,
                        int64_t window = 0, AttentionKernel kernel = AttentionKernel::kFlash,
                        Precision precision = Precision::kBf16) const;
  // What attention dropout adds to a flash kernel, forward or backward: a
  // random number per score element it computes (the causal and sliding-
  // window tiles as attention_fwd counts them), at the table's measured cost
  // per element, scaled by SMs from the part that measured it. Zero without
  // a table that measured it (or lent it).
  SimTime attention_dropout(int64_t batch, int64_t seq, int64_t heads, bool causal, int64_t window,
                            bool backward) const;
  // A memory-bound kernel that reads plus writes this many bytes, in a
  // training step (at memory_pace_ on a power-limited sibling).
  SimTime memory_bound(Bytes bytes_read_plus_written) const;
  // The same stream timed alone (STREAM, BabelStream): it does not reach
  // the board's power limit, so the memory clocks keep their rate.
  SimTime stream_alone(Bytes bytes_read_plus_written) const;
  // Casting `elems` 16-bit values to an FP8 or FP4 GEMM's format, in
  // `copies` layouts: each element read at 2 B and written at the format's
  // bytes a copy; NVFP4 first finds the amax in a pass of its own. Zero for
  // any other precision.
  SimTime cast_from_16bit(double elems, double copies, Precision p) const;
  // One of a training step's memory-bound kernels, at the rate measured for
  // that kernel when the table has it (norms are taken at the fused
  // layernorm's rate), else at the fraction of the streaming rate another
  // GPU measured for it (borrow_kernel_rates), else at the generic
  // memory-bound rate.
  // kStream: a plain read-and-write pass (an in-place ReLU), at the
  // streaming rate itself.
  enum class Kernel { kNorm, kResidualAdd, kDropout, kGelu, kSiluMul, kSoftmax, kStream };
  SimTime elementwise(Kernel k, Bytes bytes_read_plus_written) const;
  // A dropout over a 16-bit tensor moves 5 B an element: it reads the
  // tensor and writes it and a 1-byte mask (forward), or reads the gradient
  // and the mask and writes the gradient (backward).
  static constexpr int64_t kDropoutBytesPerElement = 2 + 2 + 1;
  // What fused AdamW updates: fp32 master weights with fp32 moments (mixed
  // precision), fp32 master weights with bf16 moments (Megatron-LM's
  // precision-aware optimizer), or 16-bit parameters with moments in the
  // same dtype (torch.optim.AdamW keeps its state in the parameter's dtype).
  enum class OptimizerState { kFp32, kBf16Moments, kBf16 };
  // AdamW over this many parameters: one fused kernel, or (foreach,
  // for-loop) one kernel per operation of the update, each a pass at the
  // streaming rate (kBf16Moments is fused only).
  SimTime optimizer_step(int64_t params, OptimizerState state = OptimizerState::kFp32,
                         OptimizerImpl impl = OptimizerImpl::kFused) const;
  // A pinned device-to-host copy (a checkpoint's snapshot) over a GPU-host
  // link of `link_per_direction`: the table's measured rate when the table
  // names the link its copies crossed and that link has this bandwidth
  // (PCIe's packet and flow-control overheads are in the measurement), else
  // the link's own rate.
  core::Bandwidth device_to_host(core::Bandwidth link_per_direction) const;
  // The efficiency this model applies to a GEMM of this shape (achieved /
  // peak), at this model's pace (paced()).
  double gemm_efficiency(int64_t m, int64_t n, int64_t k, Precision p) const;

  const Accelerator& accelerator() const { return gpu_; }
  // Streaming multiprocessors (NVIDIA) or compute units (AMD): what a
  // communication kernel running alongside takes its share of.
  int compute_units() const;
  // One line naming the source: "roofline over the H100 datasheet", "calibration
  // table data/calibration/h200.json (NVIDIA H200)", ...
  const std::string& describe() const { return description_; }
  // This model with its GEMM and attention kernels (and attention's dropout
  // draws) at `pace` (0, 1] of their rate: the slowest GPU of a synchronous
  // job (sync_pace.h); `why` joins the description. The slowest GPU's
  // spread is its SM clock's, not its HBM's: the roofline paces a kernel's
  // compute term, not its HBM term or launch; a table's measured time,
  // which cannot be split, is paced whole; memory-bound kernels keep their
  // rate (a board power limit carried to a sibling part is memory_pace_'s,
  // below). Pacing again replaces the pace and its reason.
  ComputeModel paced(double pace, const std::string& why) const;
  double tensor_pace() const { return tensor_pace_; }
  // The same model, its description followed by `note` (what it was meant
  // to read and could not, say). Note before pacing: pacing keeps it.
  ComputeModel noted(const std::string& note) const;

 private:
  friend ComputeModel make_compute_model(const Accelerator&, const CalibrationTable*);
  SimTime roofline_gemm(int64_t m, int64_t n, int64_t k, Precision p) const;
  SimTime table_gemm(int64_t m, int64_t n, int64_t k, Precision p) const;
  SimTime attention(int64_t batch, int64_t seq, int64_t heads, int64_t head_dim, bool causal, int64_t window,
                    bool backward, AttentionKernel kernel, Precision precision) const;
  // attention() with 16-bit matmuls: FlashAttention-2's measured rates, a
  // measured table's, or the roofline's over the table's shortfall.
  SimTime attention_bf16(int64_t batch, int64_t seq, int64_t heads, int64_t head_dim, bool causal, int64_t window,
                         bool backward, AttentionKernel kernel) const;
  // The roofline's flash attention at bf16 or fp8 matmuls, in seconds,
  // before a table's shortfall: the longer of its tiles and its HBM
  // traffic, plus a launch.
  double attention_roofline_seconds(int64_t batch, int64_t seq, int64_t heads, int64_t head_dim, bool causal,
                                    int64_t window, bool backward, Precision precision) const;
  SimTime at_pace(SimTime t) const;
  // HBM bytes per second in a training step (memory_pace_ below).
  double hbm_Bps() const { return gpu_.hbm_bandwidth.bytes_per_second() * memory_pace_; }
  SimTime memory_bound_at(Bytes bytes_read_plus_written, double pace) const;

  Accelerator gpu_;
  std::shared_ptr<const CalibrationTable> table_;  // null: roofline only
  std::shared_ptr<const detail::CalibratedRates> calibrated_;  // null: roofline only
  std::shared_ptr<const detail::RooflineShape> shape_;
  double table_peak_scale_ = 1.0;  // this GPU's peak over the table GPU's peak
  double table_hbm_scale_ = 1.0;   // this GPU's HBM bandwidth over the table GPU's
  // A part whose rates are carried by board power from a sibling's table
  // (Architecture::gemm_power_exponent) runs a training step's memory-bound
  // work at this fraction of the rate its HBM alone would give: the step's
  // GEMMs hold the board at its power limit, and AMD's power management sets
  // the memory clocks (UCLK/MCLK) from the same budget as the compute clock
  // (amd-smi, "Performance levels and performance determinism").
  double memory_pace_ = 1.0;
  double tensor_pace_ = 1.0;       // paced(): GEMM and attention times are divided by it
  size_t paced_at_ = std::string::npos;  // where paced() appended its reason to description_
  std::string description_;
};

// With `table` null: the roofline with the built-in efficiency curves. With a
// table: its measurements, scaled by peak (and HBM bandwidth) when the table
// was measured on a different GPU.
ComputeModel make_compute_model(const Accelerator& gpu, const CalibrationTable* table);

}  // namespace anatomy::hw
