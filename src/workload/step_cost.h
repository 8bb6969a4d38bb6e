#pragma once
// What one pipeline step costs on one GPU: a micro-batch through one model
// chunk of one stage, forward or backward.
//
// Compute is summed kernel by kernel from the compute model (hw/
// compute_model.h) over the exact shards a GPU runs: with tensor
// parallelism t and sequence parallelism, the QKV, attention-output and
// MLP GEMMs see all T = micro_batch x seq / cp tokens with their weight
// dimension split by t; attention runs heads / t heads over s / cp queries
// (under cp_all_to_all heads / (t cp) heads over all s, under cp_a2a_size a
// heads / (t a) over s a / cp; ParallelPlan);
// norms, residuals and dropout run on T / t tokens. Layers are costed by
// kind (a dense MLP, or routed and shared experts); MLA's down projections
// run whole on the T / t sequence-parallel tokens before the latents are
// gathered. The multi-token-prediction modules run a lookup, a 2h -> h
// projection and a layer each where they are held (holds_mtp), their
// output layer and loss with the model's on the last stage. Backward is the data-
// and weight-gradient GEMMs (twice the forward's) plus attention's backward;
// full recomputation replays the forward first, selective replays its
// modules (the attention core unless told others, training.h). A hybrid
// model's blocks (model.h) cost their one mixer or MLP, norm and residual;
// a Mamba-2 mixer's kernels are listed in step_cost.cc. Under LoRA
// (TrainingSpec::lora_rank) no weight has a gradient: every GEMM's backward
// is its data gradient alone, the embedding takes none, and the rank-r
// adapters beside QKV and the output projection add their thin GEMMs. A MoE layer also
// copies the tokens it receives into expert order and back (Megatron-Core's
// permutation kernels, and the alltoall dispatcher's sort by expert;
// memory-bound, step_cost.cc).
//
// Model-parallel communication inside a step runs on the GPU's critical
// path unless overlapped: per layer, forward, two all-gathers and two
// reduce-scatters of T h elements across the TP group (two all-reduces
// without sequence parallelism; MLA gathers its latents, not T h, before
// attention; a hybrid block one of the two pairs), mirrored in backward;
// under LoRA the adapters' own TP collectives (NeMo's, step_cost.cc). CP:
// the ring's K/V passes hidden behind attention when they fit (its steps'
// merges, cp_passes.h, cover none of it); cp_all_gather's gathers and
// cp_all_to_all's exchanges exposed; under cp_a2a_size the exchanges among
// each group of a and a ring over cp / a behind the kernels (the K/V of
// heads / a). Each is timed on the network by the
// caller's CommTimer; with tp_comm_overlap a TP collective is exposed only
// beyond the GEMM it is pipelined with, and a gather whose layer's overlap
// is disabled (tp_comm_overlap_disable_qkv, _fc1) whole.
//
// Expert parallelism is not timed here: the step only says how many token
// all-to-alls it runs across its EP group and how large each is, and the
// iteration runs them on the shared network (iteration.h), where they meet
// the data-parallel traffic. From first principles, per MoE layer:
//   forward   2 all-to-alls: dispatch (each token's hidden state to the
//             top_k experts it was routed to) and combine (the experts'
//             outputs back to the token's rank)
//   backward  2: the gradients of combine and of dispatch, the same sizes
//             in the opposite direction; full recomputation replays the
//             forward's 2 first
// Each all-to-all's send buffer per GPU is T x top_k x h x 2 bytes (T =
// micro_batch x seq / cp tokens, x expert_tp / tp when the experts are
// folded below TP, bf16 hidden states); with balanced
// routing 1/ep of it stays on the GPU and (ep - 1)/ep goes to the other
// EP ranks, which is what the all-to-all schedule sends (coll/direct.cc).

#include <functional>
#include <vector>

#include "coll/ops.h"
#include "hw/compute_model.h"
#include "workload/layout.h"
#include "workload/model.h"
#include "workload/training.h"

namespace anatomy::workload {

using core::Bytes;
using core::SimTime;

// Time of a collective of communicator `c` (with its CTA limits,
// ParallelPlan::nccl_min_ctas / nccl_max_ctas) on `ranks` when nothing else
// runs (memoized by the caller).
using CommTimer = std::function<SimTime(Communicator c, coll::Op, Bytes, const std::vector<uint32_t>& ranks)>;

struct StepCost {
  SimTime compute;       // kernels, recomputation included
  SimTime recompute;     // of which replayed forward work
  SimTime tp_comm;       // exposed TP communication
  SimTime cp_comm;       // exposed CP communication
  int64_t ep_all_to_alls = 0;  // token all-to-alls across the EP group, run by the caller
  // The model-parallel communication the step's compute stream waits on
  // after its kernels, timed here rather than on the shared network.
  SimTime in_step_comm() const { return tp_comm + cp_comm; }
};

struct StageCost {
  std::vector<StepCost> forward;   // per chunk
  std::vector<StepCost> backward;  // per chunk
  std::vector<int64_t> chunk_params;  // parameters of each chunk held by one GPU (before ZeRO sharding)
  std::vector<int64_t> chunk_expert_params;  // of which routed experts (sharded over expert-DP ranks)
  std::vector<int64_t> chunk_layers;         // transformer layers in each chunk
  // Each chunk's cast of its layers' 16-bit weights to the GEMMs' FP8 or FP4
  // format, once an iteration, in its first micro-batch's forward
  // (Transformer Engine caches the cast while Megatron-Core passes
  // is_first_microbatch): in two layouts where the FP8 GEMMs take one (the
  // input gradient reads W transposed). Zero in 16-bit training and for
  // weights kept in FP8 (fp8_param_gather).
  std::vector<SimTime> weight_casts;
  // Sent to the next stage per micro-batch, per GPU: one T x h of hidden
  // states (a standalone MTP chunk's extra ones on its way to the loss are
  // left out).
  Bytes activation_bytes;
  int64_t params() const;
  int64_t expert_params() const;
};

class StepCostModel {
 public:
  StepCostModel(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t, const hw::ComputeModel& cm,
                CommTimer timer);
  // Costs of stage `stage` (0..pp-1): each chunk's layers (chunk_range),
  // each of its kind. Stage 0 chunk 0 adds the embedding, the last stage's
  // last chunk the output layer and the loss, and the multi-token-
  // prediction modules after them.
  StageCost stage(int stage) const;
  // One EP all-to-all's send buffer per GPU (see above); 0 without EP.
  Bytes ep_all_to_all_bytes() const;

 private:
  struct LayerCost {
    SimTime fwd_compute, bwd_compute;
    SimTime fwd_comm, bwd_comm;        // exposed TP communication
    SimTime fwd_cp_comm, bwd_cp_comm;  // exposed CP communication
    int64_t fwd_all_to_alls = 0, bwd_all_to_alls = 0;  // EP
    // What selective recomputation replays before the backward: the
    // forward of its modules (selective_modules), their TP collectives
    // (a whole MLP's), the core attention's exposed CP communication and EP
    // all-to-alls (a whole MoE layer's).
    SimTime selective_fwd, selective_comm, selective_cp_comm;
    int64_t selective_all_to_alls = 0;
    // The attention kernel's forward (with its casts and a CP ring's passes
    // outside it) and its exposed CP communication, which a full replay
    // leaves out when the kernel's output is kept
    // (TrainingSpec::recompute_keeps_attention).
    SimTime core_attn_fwd, core_attn_cp_comm;
    // What a sliding-window layer's attention kernels take less than the
    // full causal ones above (ModelSpec::sliding_window, FlashAttention).
    SimTime window_saving_fwd, window_saving_bwd;
  };
  LayerCost layer(LayerKind kind) const;
  hw::Precision gemm_precision() const;
  SimTime grad_accumulation(int64_t params) const;
  // A mean EP rank's routed count (copies, elements, bytes) on the busiest
  // rank, which sets every rank's pace (TrainingSpec::expert_load_imbalance).
  int64_t at_busiest_rank(int64_t mean_rank) const;
  // Tokens a GPU sends to its experts per micro-batch: all T of its TP
  // group's sequence slice, or its own T x etp / tp when expert TP is
  // below TP (parallel folding, sequence-parallel tokens).
  int64_t expert_tokens() const { return t_.micro_batch * t_.seq_len / p_.cp * p_.etp() / p_.tp; }

  ModelSpec m_;
  ParallelPlan p_;
  TrainingSpec t_;
  const hw::ComputeModel& cm_;
  CommTimer timer_;
  Layout layout_;
  PerLayerKind<LayerCost> kinds_;  // one layer of each kind the model has
};

}  // namespace anatomy::workload
