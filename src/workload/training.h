#pragma once
// TrainingSpec: how a model is trained — the parallelism plan (how the
// GPUs are split) and the batch, sequence and numerics.
//
// GPUs = TP x CP x PP x DP (x EP folded into DP for MoE: EP divides DP).
// Ranks are laid out TP fastest, then CP, then DP, then PP (Megatron's
// order, so a TP group shares an NVLink domain and a pipeline spans nodes).
// global_batch = micro_batch x micro_batches x DP sequences per iteration.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hw/kernel_choice.h"
#include "hw/precision.h"
#include "workload/model.h"
#include "workload/pipeline_layout.h"

namespace anatomy::workload {

enum class Recompute { kNone, kSelective, kFull };
const char* to_string(Recompute r);

// How the language-model loss runs over the output layer's logits (one
// element per token per vocabulary entry of this TP rank): the kernels it
// launches and so the bytes they stream, counted from each implementation's
// code. The logits themselves are 16-bit, written by the output GEMM.
//   kMegatron       Megatron's vocab-parallel cross-entropy as it runs
//                   unfused (megatron/core/tensor_parallel/cross_entropy.py,
//                   the same ops in Megatron-LM 2021's mpu/cross_entropy.py;
//                   Megatron's default, --cross-entropy-loss-fusion off):
//                   forward: the cast to fp32 (2 read + 4 written), max (4),
//                   in-place subtract (4 + 4), exp (4 + 4), sum (4) and the
//                   in-place divide to the softmax kept for the backward
//                   (4 + 4): 38 B; backward: the in-place multiply by the
//                   loss gradient (4 + 4) and the cast's backward to 16 bits
//                   (4 + 2): 14 B.
//   kMegatronFused  --cross-entropy-loss-fusion with the native implementation
//                   (megatron/core/fusions/fused_cross_entropy.py): the same
//                   steps in three compiled functions, each one pass: cast
//                   and max (2 + 4), subtract, exp and sum (4 + 4), divide
//                   (4 + 4): 22 B; backward: multiply and cast in one pass,
//                   the in-place softmax written back (4 + 4 + 2): 10 B.
//   kFused          one online-softmax kernel on the 16-bit logits
//                   (Transformer Engine's parallel_cross_entropy, which
//                   Megatron runs with --cross-entropy-fusion-impl te;
//                   flash-attn's CrossEntropyLoss, llm-foundry's
//                   fused_crossentropy): forward reads them once for the
//                   running max and sum (2 B); backward reads them and writes
//                   the gradient over them (2 + 2 B).
enum class CrossEntropy { kMegatron, kMegatronFused, kFused };
const char* to_string(CrossEntropy c);
// Bytes a cross-entropy implementation streams per logit element, forward
// and backward (see CrossEntropy).
struct CrossEntropyBytes {
  int64_t forward;
  int64_t backward;
};
CrossEntropyBytes cross_entropy_bytes(CrossEntropy c);

// How FP8 training scales a tensor before it casts it (Megatron-Core's
// --fp8-recipe; Transformer Engine's recipes), which decides how many
// passes over the 16-bit tensor each FP8 GEMM input costs:
//   kDelayed     DelayedScaling: the scale comes from earlier iterations'
//                amaxes, so a norm or activation kernel writes FP8 itself
//                and a standalone cast finds the amax as it goes: one pass.
//   kTensorwise  Float8CurrentScaling: the scale is this tensor's own amax,
//                known only after a whole pass over it. TE's norm (and its
//                activation, where TE runs it) writes 16-bit output and the
//                amax, then a scale kernel and the cast read it again; any
//                other tensor (the attention output, most gradients) takes
//                an amax kernel first. Under sequence parallelism the amax
//                of an input gathered over TP (forward) or of a gradient
//                gathered (backward) is all-reduced over the TP group
//                before the scale (TE v2.7 pytorch/csrc/quantizer.cpp
//                quantize_impl; extensions/normalization.cpp's unfused path
//                with create_hp_tensor_with_amax, activation.cpp; module/
//                linear.py's amax reduction groups; the same at HEAD).
//   kMxfp8       MXFP8 (Blackwell, CDNA 4): a scale per 32 elements, found
//                in the cast's one pass, which TE's activation writes
//                itself; TE's norm does not (normalization.cpp runs it
//                unfused for these quantizers unless
//                NVTE_NORM_FWD_USE_CUDNN), so the cast after a norm reads
//                its 16-bit output again.
//   kBlockwise   Float8BlockScaling, DeepSeek-V3's scheme: a scale per 128
//                consecutive values of an input or gradient, per 128 x 128
//                tile of a weight, found in the cast's one pass (no amax
//                first). TE's norm and activation run unfused for these
//                quantizers (normalization.cpp, activation.cpp), so every
//                cast reads its 16-bit input; a value's rowwise and
//                columnwise blocks differ, so each cast writes two copies
//                (TE docs, "FP8 Blockwise Scaling": both quantized from the
//                high-precision source). Hopper scales in software: every
//                128 of k the partial sums leave the tensor cores for an
//                FP32 multiply-add on the CUDA cores
//                (ComputeModel::gemm_fp8_blockwise); Blackwell runs the
//                recipe as MXFP8 (the same docs, "Supported devices").
enum class Fp8Recipe { kDelayed, kTensorwise, kMxfp8, kBlockwise };
const char* to_string(Fp8Recipe r);

// The parts of a layer selective recomputation replays in the backward
// instead of keeping their outputs (Megatron-LM's --recompute-modules),
// as bits. Each keeps its input and drops what it makes:
//   core_attn       the attention kernel (its softmax statistics; without
//                   FlashAttention the s x s scores)
//   layernorm       the norms that are modules of their own in Megatron-
//                   LM's Transformer Engine layers: MLA's input norm and a
//                   MoE layer's pre-MLP norm (the others are fused into the
//                   GEMM after them and keep their output); their outputs
//   moe_act         the routed experts' activation function (its output,
//                   the second GEMM's input)
//   mla_up_proj     MLA's up projections and RoPE (Q, K and V)
//   mlp             a dense layer's whole MLP (its inner activations, and
//                   its TP collectives run again)
//   moe             a MoE layer's whole MLP: router, dispatch, experts and
//                   shared experts, combine (their all-to-alls run again)
//   shared_experts  the shared experts' MLP
enum RecomputeModule : uint32_t {
  kRecomputeCoreAttn = 1,
  kRecomputeLayernorm = 2,
  kRecomputeMoeAct = 4,
  kRecomputeMlaUpProj = 8,
  kRecomputeMlp = 16,
  kRecomputeMoe = 32,
  kRecomputeSharedExperts = 64,
};
// Megatron's names, in the order above.
const std::vector<std::pair<RecomputeModule, const char*>>& recompute_module_names();
// Parses "mla_up_proj, moe_act layernorm" (commas or spaces) into bits;
// "" or the reason ("unknown module 'moe_ac' (known: ...)").
std::string parse_recompute_modules(std::string_view text, uint32_t& out);
// "core_attn,moe_act": the bits as the field writes them.
std::string recompute_modules_text(uint32_t modules);
// How many of a layer's norms are modules of their own, which the
// layernorm module replays: MLA's input norm and a MoE layer's pre-MLP norm.
int standalone_norms(const ModelSpec& m, bool moe_layer);

// Which implementation shards the model state under ZeRO, where that changes
// what a GPU holds at once.
//   kMegatron: Megatron-LM's distributed optimizer, or PyTorch FSDP with one
//     unit per transformer block: a whole layer's parameters (and
//     gradients) are gathered (reduce-scattered) at once.
//   kDeepSpeed: DeepSpeed ZeRO (Rajbhandari et al. 2020). Stage 3 gathers a
//     sub-module's (an nn.Linear's) parameters in its forward pre-hook and
//     releases them after it (deepspeed/runtime/zero/stage3.py,
//     fetch_sub_module / release_sub_module), prefetching up to
//     stage3_prefetch_bucket_size elements ahead (under full recomputation
//     once for the recomputed forward and once more for the backward);
//     gradients are copied into a
//     reduce_bucket_size bucket and reduce-scattered as it fills. Mixed-
//     precision Adam keeps 2 + 2 + 12 bytes per parameter (ZeRO paper
//     Section 3.1, K = 12): the fp32 copy of a gradient partition exists only
//     inside step(), after the activations are freed.
enum class ShardingFramework { kMegatron, kDeepSpeed };

// How a MoE layer moves tokens to their experts and back over its EP group
// (Megatron-LM --moe-token-dispatcher-type).
//   kAllToAll  one copy of a token per expert it visits, sent straight to
//              the expert's rank (NCCL all-to-all over the permuted tokens)
//   kFlex      DeepEP / HybridEP (--moe-token-dispatcher-type flex): one
//              copy per rank that holds any of its experts, and across
//              scale-up domains one copy per domain, sent over the network
//              to the rank in the same place of that domain, which
//              forwards it over the domain's links to its experts' ranks
//              (combine: the way back, summed where it was forwarded).
//              DeepEP's NVLink domain is at most 8 GPUs; on NVL72 racks
//              this is HybridEP, the backend Megatron-LM says supports
//              multi-node NVLink.
enum class MoeDispatcher { kAllToAll, kFlex };

// The order ranks are numbered in, fastest dimension first (Megatron-Core's
// RankGenerator order; expert parallelism folds inside a stage's TP x CP x DP
// ranks either way). kTpCpDpPp is Megatron-LM's default, tp-cp-ep-dp-pp: a
// pipeline stage's ranks are contiguous and its stages lie TP x CP x DP ranks
// apart. kTpCpPpDp is --use-tp-pp-dp-mapping (NeMo's TP_PP_DP_MAPPING),
// tp-cp-ep-pp-dp: a pipeline's stages are neighbouring TP x CP blocks, so a
// whole pipeline shares a scale-up domain when it fits one, and data
// parallelism is the slowest dimension.
enum class RankOrder { kTpCpDpPp, kTpCpPpDp };
const char* to_string(RankOrder o);  // "tp-cp-dp-pp", "tp-cp-pp-dp"

// NCCL CTA limits by communicator (ParallelPlan::nccl_min_ctas and
// nccl_max_ctas), under Megatron-Core's names for them in the file its
// --nccl-communicator-config-path reads: tp, cp, dp (its dp_cp: the
// gradient and parameter collectives over DP x CP) and ep (the MoE
// all-to-alls). 0: NCCL's own.
struct CommunicatorCtas {
  int tp = 0;
  int cp = 0;
  int dp = 0;
  int ep = 0;
};
// kTpUserbuffers: the TP gathers and reduce-scatters Transformer Engine's
// userbuffers pipeline with their GEMMs (tp_comm_overlap), which are not
// NCCL's; kExpertDp: the experts' own data-parallel groups.
enum class Communicator { kTp, kTpUserbuffers, kCp, kDp, kEp, kExpertDp };
inline constexpr size_t kCommunicators = 6;
static_assert(static_cast<size_t>(Communicator::kExpertDp) + 1 == kCommunicators, "one count of the communicators");
// The limit for `c`; 0 (none) for userbuffers and for the experts'
// data-parallel groups, which keep NCCL's own (Megatron-Core's ep_dp, which
// no file sets).
int ctas_for(const CommunicatorCtas& ctas, Communicator c);
// The communicators a plan can limit, by the key CommunicatorCtas reads them from.
inline constexpr std::array<std::pair<const char*, Communicator>, 4> kLimitedCommunicators = {
    {{"tp", Communicator::kTp}, {"cp", Communicator::kCp}, {"dp", Communicator::kDp}, {"ep", Communicator::kEp}}};

struct ParallelPlan {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int cp = 1;
  int ep = 1;                   // expert parallel (MoE)
  // Expert tensor parallelism (Megatron-LM's --expert-tensor-parallel-size,
  // "parallel folding"): the MoE layers' experts split over etp ranks, not
  // TP, and expert groups folded over the TP x CP x DP ranks of a stage,
  // expert-TP fastest, then EP, then expert-DP. 0: tp (Megatron's default).
  int expert_tp = 0;
  RankOrder rank_order = RankOrder::kTpCpDpPp;
  bool sequence_parallel = true;  // with TP: norms/dropout sharded, all-gather + reduce-scatter instead of all-reduce
  int virtual_stages = 1;       // interleaved 1F1B: model chunks per pipeline rank
  // Interleaved 1F1B: micro-batches a chunk takes at a time before the next
  // chunk (Megatron-Core's --microbatch-group-size-per-virtual-pipeline-
  // stage, pipeline_schedule.h); 0: PP, Megatron's default.
  int64_t microbatch_group = 0;
  // The layers of every chunk by hand (Megatron-LM's
  // --pipeline-model-parallel-layout); empty: split evenly
  // (layers_per_stage, chunk_layers).
  PipelineLayout layout;
  // Megatron-LM's other ways to split unevenly, each as Megatron's
  // get_num_layers_to_build does it. The first (last) pipeline rank holds
  // this many layers and the others share the rest equally
  // (--decoder-first/last-pipeline-num-layers; 0: not set); or the
  // embedding (the output layer and loss) counts as a layer, so that the
  // layers plus those divide equally over the ranks and chunks and the first
  // chunk of the first rank (the last of the last) holds one layer fewer
  // (--account-for-embedding/loss-in-pipeline-split).
  int64_t first_stage_layers = 0;
  int64_t last_stage_layers = 0;
  bool embedding_in_split = false;
  bool loss_in_split = false;
  int zero_stage = 1;           // 0 none, 1 optimizer, 2 + gradients, 3 + parameters (FSDP)
  bool overlap_grad_reduce = true;   // DP reduce-scatter/all-reduce per bucket during backward (false: every chunk's after the flush)
  // Gradients reduced over DP in fp32 (4 bytes a parameter) rather than in
  // the 16-bit training dtype: Megatron-LM turns it on for every bf16 run
  // (accumulate_allreduce_grads_in_fp32), Llama 3 did it on purpose;
  // NeMo's MLPerf recipes and PyTorch FSDP's bf16 mixed precision do not.
  bool grad_reduce_in_fp32 = false;
  // ZeRO-1/2: the updated parameters gathered during the next forward
  // rather than after the optimizer. ZeRO-3: a step's gathers (and
  // gradient reduce-scatters) run beside its compute; false, before it.
  bool overlap_param_gather = true;
  // Interleaved 1F1B with overlapped ZeRO-1/2 gathers: when each chunk's
  // gather is launched. Megatron-LM's default (--no-align-param-gather
  // turns it off; NeMo's ALIGN_PARAM_GATHER): the first two chunks' at the
  // step's start, chunk k's (k >= 2) from the schedule's forward step whose
  // virtual micro-batch plus the stage's rank is chunk k - 1's first
  // (schedules.py forward_step_helper), so every stage launches it at about
  // the same time. False: each chunk's at its first forward (the DDP
  // forward pre-hook, finish_param_sync).
  bool align_param_gather = true;
  // Megatron-LM's --overlap-param-gather-with-optimizer-step (NeMo's
  // OVERLAP_PARAM_GATHER_WITH_OPTIM_STEP; interleaved 1F1B only): the first
  // chunk's gather starts beside the previous step's optimizer, which
  // anatomy takes as the step's start, and training.py then turns bucketing
  // off for every chunk, the first stage's first too ("disable_bucketing =
  // (model_chunk_idx > 0) or args.overlap_param_gather_with_optimizer_step").
  bool overlap_param_gather_with_optimizer_step = false;
  // The parameters kept in FP8 and gathered so, one byte each (Megatron-LM
  // --fp8-param-gather; NeMo's FP8_PARAM_GATHER): FP8 recipes only.
  bool fp8_param_gather = false;
  // Hardware work queues the GPU feeds its streams into
  // (CUDA_DEVICE_MAX_CONNECTIONS; CUDA's default is 8). At 1, which
  // Megatron-LM requires for tensor or context parallelism before Blackwell
  // (arguments.py) and NeMo's recipes set, every stream shares one queue:
  // a collective launched on the data-parallel stream holds back the
  // compute kernels launched after it until it ends, so DP collectives, a
  // ZeRO-3 step's gathers and a combined 1F1B pair's all-to-alls hide
  // behind no compute (Megatron-LM issues #827 and #1468: no overlap in
  // the trace at 1, overlap once unset; arguments.py asks FSDP and the MoE
  // overlap for more than 1 "for better parallelization"). Any value above
  // 1 is modelled alike: each stream has a queue of its own. Megatron-Core's
  // own comment on bucket groups (partition_buckets) reads the queue more
  // weakly, holding compute back only behind a second queued collective;
  // which rule holds is open (docs/research/one-queue-evidence.md).
  int device_max_connections = 8;
  // A communicator's collectives run no more (no fewer) channels than
  // these, one CTA each (ncclConfig_t maxCTAs / minCTAs, which
  // Megatron-Core sets per process group from its
  // --nccl-communicator-config-path file; NCCL_MAX_CTAS / NCCL_MIN_CTAS
  // override them on every communicator, init.cc envConfigOverride).
  // Fewer channels carry less (coll::with_ctas) and hold fewer SMs beside
  // the compute.
  CommunicatorCtas nccl_min_ctas, nccl_max_ctas;
  bool tp_comm_overlap = false;      // TP collectives hidden behind GEMMs
  // With tp_comm_overlap under sequence parallelism, Megatron-Core's
  // tp_comm_overlap_disable_qkv and _fc1: the all-gather before QKV (or the
  // MLP's up projection) is a plain collective its GEMM waits for, not
  // pipelined with it (Transformer Engine's ub_overlap_ag off for that
  // layer). NeMo's LoRA recipes disable the QKV one so that its adapter reads
  // the norm output TE gathered rather than gathering it again.
  bool tp_comm_overlap_disable_qkv = false;
  bool tp_comm_overlap_disable_fc1 = false;
  // MoE: Megatron-LM's combined 1F1B (--overlap-moe-expert-parallel-comm).
  // In the steady state a stage runs one micro-batch's forward and
  // another's backward as a pair, each one's dispatch and combine
  // all-to-alls beside the other's compute; the warm-up forwards and the
  // drained backwards stay exposed. With PP > 1 it needs interleaving
  // (virtual_stages > 1), as Megatron-LM does.
  bool ep_comm_overlap = false;
  MoeDispatcher moe_dispatcher = MoeDispatcher::kAllToAll;
  // Pipeline sends and receives run asynchronously to compute (Megatron's
  // --overlap-p2p-communication); otherwise a stage waits for its send to
  // complete before its next step, as Megatron-LM's blocking p2p does.
  bool overlap_p2p_comm = false;
  // Gradients reduced together; 0: the framework's default (gradient_bucket_bytes).
  int64_t bucket_bytes = 0;
  // ZeRO-3: parameters all-gathered per collective; 0 = one transformer
  // layer (FSDP's per-block wrapping). DeepSpeed gathers in prefetch buckets
  // (stage3_prefetch_bucket_size, 5e7 elements = 100 MB in fp16).
  int64_t param_gather_bytes = 0;
  // ZeRO-3: ranks of the DP x CP group that share one copy of the sharded
  // state, consecutive ranks (the GPUs of a node first): PyTorch FSDP's
  // HYBRID_SHARD and DeepSpeed's MiCS. Each group gathers and reduce-
  // scatters among itself, and the groups, one a replica, all-reduce each
  // reduced gradient shard. 0: every rank (FULL_SHARD).
  int shard_group = 0;
  ShardingFramework framework = ShardingFramework::kMegatron;
  // Context parallelism's K/V exchange. false (and cp_all_to_all false):
  // ring attention, K/V blocks passed around the CP ring behind the
  // attention kernels (Megatron-LM's default; Transformer Engine's ring
  // refuses sliding-window attention, and so does validate_plan). true: K
  // and V all-gathered
  // before attention and their
  // gradients reduce-scattered after it, on the critical path, as Llama 3
  // does (arXiv 2407.21783 Section 3.3.2: "the all-gather communication
  // latency is exposed in the critical path").
  bool cp_all_gather = false;
  // Context parallelism by all-to-all instead (Megatron-Core --cp-comm-type
  // a2a, Transformer Engine's AttnFuncWithCPAndQKVOA2A, DeepSpeed-Ulysses):
  // before attention each CP rank swaps its tokens of every head for all
  // tokens of heads / cp of them, an all-to-all each of Q, K and V, runs one
  // kernel over the whole sequence, and swaps the output back; backward, the
  // output gradient and dQ, dK, dV likewise. Each exchanged tensor is laid
  // out before and reordered after in a memory pass. On the critical path,
  // and again when core attention is recomputed. Refused with cp 1, with
  // cp_all_gather, without flash attention, where a TP rank's heads or KV
  // heads do not divide by cp, and where seq_len does not split into 2 cp
  // chunks (TE reorders the sequence in them).
  bool cp_all_to_all = false;
  // Hierarchical context parallelism (Transformer Engine's a2a+p2p,
  // Megatron-Core --cp-comm-type a2a+p2p with --hierarchical-context-
  // parallel-sizes a cp/a): the all-to-all above among each `cp_a2a_size`
  // consecutive CP ranks (a node's, typically), which hands each of them
  // seq_len / (cp / a) tokens of heads / a heads, then ring attention over
  // the cp / a ranks that hold the same heads, its K/V passes behind the
  // kernels. 1: not hierarchical. Refused unless it divides cp and lies
  // strictly between 1 and cp, with cp_all_to_all or cp_all_gather, without
  // flash attention, where a TP rank's heads or KV heads do not divide by
  // it, and where seq_len does not split into 2 cp chunks.
  int cp_a2a_size = 1;

  // The CP ranks one of CP's all-to-alls spans: every one (cp_all_to_all),
  // a hierarchical group (cp_a2a_size), or 1 where CP has no all-to-all.
  int cp_a2a_ways() const { return cp <= 1 ? 1 : cp_all_to_all ? cp : cp_a2a_size; }
  // Every stream in one hardware queue (device_max_connections 1).
  bool one_hardware_queue() const { return device_max_connections == 1; }
  // ZeRO-1/2 whose updated parameters are gathered during the next forward
  // (overlap_param_gather), where align_param_gather and
  // overlap_param_gather_with_optimizer_step apply.
  bool overlapped_sharded_gathers() const { return zero_stage >= 1 && zero_stage < 3 && overlap_param_gather; }
  int gpus() const { return tp * pp * dp * cp; }
  int etp() const { return expert_tp > 0 ? expert_tp : tp; }
  // The ranks an expert is replicated over in a stage (expert data parallelism).
  int expert_dp() const { return tp * cp * dp / (etp() * ep); }
  // Ranks one copy of the ZeRO-sharded state is split over: DP x CP, or
  // the shard group under ZeRO-3 with HYBRID_SHARD.
  int zero_shards() const { return zero_stage >= 3 && shard_group > 0 ? shard_group : dp * cp; }
};

struct TrainingSpec {
  int64_t seq_len = 2048;
  int64_t global_batch = 512;  // sequences per iteration
  int64_t micro_batch = 1;     // sequences per micro-batch per DP rank
  hw::Precision precision = hw::Precision::kBf16;
  Recompute recompute = Recompute::kNone;
  // Under full recomputation, the layers of each model chunk whose forward
  // runs again in the backward; the others keep their activations. As
  // Megatron-LM's --recompute-method block --recompute-num-layers N (the
  // first N layers of every chunk) and fms-fsdp's selective_checkpointing
  // (a fraction of the blocks, here as a count). More than a chunk holds
  // recomputes them all. 0: every layer.
  int64_t recompute_layers = 0;
  // Under full recomputation, the attention kernel's output and softmax
  // statistics are kept, so the replay runs the layer's GEMMs, norms and
  // activations but not the kernel: PyTorch's selective activation
  // checkpointing with only the attention kernels on its save list. That
  // is torchtitan's "op" policy once its linears are float8: the policy
  // saves aten.mm outputs, and a float8 linear runs torch._scaled_mm.
  bool recompute_keeps_attention = false;
  // Under selective recomputation, the modules replayed (RecomputeModule
  // bits); 0: core_attn alone, Megatron-LM's default.
  uint32_t recompute_modules = 0;
  // FlashAttention (Dao et al.): the s x s attention scores are never stored
  // (activations drop Korthikanti et al.'s 5 a s^2 b term) and backward
  // recomputes Q K^T (hardware FLOPs add 2 s h per token per layer). Megatron-LM
  // SC'21 and Korthikanti et al. 2022 predate it: set false to reproduce them.
  bool flash_attention = true;
  // Mixed precision keeps fp32 master weights and fp32 Adam moments beside
  // the 16-bit weights (Megatron-LM, DeepSpeed, FSDP with fp32 parameters;
  // Micikevicius et al. 2018). false: the 16-bit parameters are the only
  // copy, their gradients are 16-bit and torch.optim.AdamW keeps its two
  // moments in the parameter's dtype (a model cast with .to(bfloat16)):
  // 2 + 2 + 4 bytes a parameter, the optimizer steps over 16-bit state.
  bool master_weights = true;
  // Adam's two moments in bf16 beside fp32 master weights (Megatron-LM's
  // --use-precision-aware-optimizer --exp-avg-dtype bf16 --exp-avg-sq-dtype
  // bf16, with its distributed optimizer): 2 + 2 bytes a parameter instead
  // of 4 + 4. In bf16 and FP4 training (FP4 keeps --fp8-recipe at its
  // default, delayed) Transformer Engine's FusedAdam keeps the master
  // weight as the bf16 weight plus a 16-bit remainder (Megatron sets
  // store_param_remainders for TE >= 2.1): 2 bytes more, not 4. The FP8
  // recipes this models (current scaling, MXFP8, blockwise) keep
  // Megatron's own fp32 master copy (optimizer/__init__.py: "Master weight
  // is managed by MCore when main_params_dtype is fp32 ... to use fp8
  // primary weight"); FP8 delayed scaling, which takes TE's path, is not
  // told apart.
  bool bf16_moments = false;
  // How each micro-batch's weight gradients join those of the micro-batches
  // before it. true: the weight-gradient GEMM accumulates into the gradient
  // buffer in its epilogue (Megatron-Core's gradient_accumulation_fusion,
  // Transformer Engine), inside a compute-bound kernel. false: a separate
  // elementwise kernel adds them, reading both and writing the sum over
  // every parameter the GPU holds: PyTorch autograd's AccumulateGrad
  // (`grad += new_grad`, DDP and Megatron-LM 2021's --DDP-impl torch) or
  // Megatron-LM 2021's local DDP (`param.main_grad.add_(param.grad)`).
  bool fused_grad_accumulation = true;
  // How Adam's update runs (PyTorch's three implementations): one fused
  // kernel (Megatron's and Transformer Engine's FusedAdam, apex, DeepSpeed,
  // torch.optim.AdamW(fused=True)); foreach, one multi-tensor kernel per
  // operation of the update (torch.optim.AdamW's default on CUDA); or a
  // for-loop of elementwise kernels per tensor (foreach=False, Composer's
  // DecoupledAdamW). hw::ComputeModel::optimizer_step counts their bytes.
  hw::OptimizerImpl optimizer_impl = hw::OptimizerImpl::kFused;
  // The flash attention kernel (with flash_attention): the part's best, or
  // an Ampere-style one such as FlashAttention-2 (hw/kernel_choice.h).
  hw::AttentionKernel attention_kernel = hw::AttentionKernel::kFlash;
  // Transformer Engine's FP8 dot-product attention (Megatron-Core
  // --fp8-dot-product-attention; NeMo's and the MLPerf configs' FP8_DPA):
  // the flash kernel's matmuls at FP8 (ComputeModel::attention_fwd), Q, K
  // and V cast to FP8 before it and the output gradient before its
  // backward; the output stays 16-bit. With precision fp8 or fp4.
  bool fp8_attention = false;
  // The MLP activation's input kept for its backward in FP8 rather than 16
  // bits (Megatron-Core --activation-func-fp8-input-store; NeMo's
  // activation_func_fp8_input_store, MLPerf's FP8_ACT=1): half the bytes of
  // the largest tensor a layer keeps, for a cast of it each way (the
  // forward reads 2 B and writes 1 B an element, the backward the reverse).
  // With precision fp8 or fp4.
  bool fp8_activation_input = false;
  // MoE routing as it is, not balanced: the busiest expert-parallel rank's
  // routed tokens over the mean rank's, in every MoE layer (a run's
  // tokens-per-expert counts give it; Megatron-LM logs them per layer).
  // Each layer's all-to-alls and experts go at the busiest rank's pace, so
  // that rank's expert GEMMs, permutes, kept copies and received bytes are
  // priced at this many times the mean's. 1: every rank the same
  // (balanced routing, or --moe-router-force-load-balancing). At most ep.
  double expert_load_imbalance = 1.0;
  // LoRA fine-tuning (Hu et al. 2021, as NeMo's and Megatron-Bridge's
  // PEFT runs it with target_modules: attention): rank-r adapters A (k x r)
  // and B (r x n) beside every attention layer's QKV and output projections,
  // each split over TP like its projection (with TP collectives of their
  // own, step_cost.cc), and every other weight frozen.
  // A frozen GEMM's backward computes only its input gradient, and keeps no
  // input for a weight gradient; gradients, their reduction, the optimizer,
  // the parameter gather and the checkpoint carry the adapters alone. 0:
  // every weight trained.
  int64_t lora_rank = 0;
  // Under LoRA, the dropout probability on each adapter's input (NeMo's
  // LoRA dropout, position "pre": MLPerf's runs 0.1): a memory-bound pass
  // over the input each way and a 1-byte mask an element kept. 0: none.
  double lora_dropout = 0;
  // Under LoRA with sequence parallelism, the output projection's adapter
  // returns its output to the sequence-parallel layout by an all-to-all
  // (NeMo's a2a_experimental, MLPerf's LORA_A2A=1) rather than a gather.
  bool lora_all_to_all = false;
  // The loss over the logits (see CrossEntropy); Megatron's own default.
  CrossEntropy cross_entropy = CrossEntropy::kMegatron;
  // How FP8 GEMM inputs are scaled (see Fp8Recipe); with precision fp8.
  Fp8Recipe fp8_recipe = Fp8Recipe::kDelayed;
  // The MLP's activation runs in Transformer Engine (its op fuser, NeMo's
  // USE_TE_OPS; Megatron-Core's --use-te-activation-func), which writes the
  // down projection's FP8 input and, backward, the up projection's FP8
  // output gradient itself. false: Megatron-Core's own activation kernel,
  // whose 16-bit output a cast reads again.
  bool te_activation = false;

  int64_t micro_batches(const ParallelPlan& p) const { return global_batch / (micro_batch * p.dp); }
  int64_t tokens_per_iteration() const { return global_batch * seq_len; }
};

// Transformer layers held by each pipeline rank (all its virtual stages
// together): what the layout gives it, if there is one. Otherwise, layers
// that do not divide evenly: every rank gets
// ceil(layers / PP), and the PP x ceil(layers / PP) - layers missing ones are
// taken one each from the ranks at the ends of the pipeline, first then
// last, then second then second-to-last, ... — the ranks that also hold the
// embedding and the output layer (Llama 3 405B: 126 layers on PP 16 are
// 7, 8 x 14, 7; arXiv 2407.21783 Section 3.3.2).
std::vector<int64_t> layers_per_stage(const ModelSpec& m, const ParallelPlan& p);

// Layers in chunk `chunk` of a stage holding `stage_layers` over v model
// chunks: as evenly as they go, the first chunks taking any extra layer.
int64_t chunk_layers(int64_t stage_layers, int v, int chunk);

// The layers of every virtual stage (chunk c of rank s at c x PP + s) when
// the plan says them: its layout, or Megatron-LM's uneven first and last
// stages, or the embedding and loss counted as layers. Empty: the even
// split (layers_per_stage, chunk_layers). The plan must be valid.
std::vector<int64_t> given_chunk_layers(const ModelSpec& m, const ParallelPlan& p);

// The model's layers a chunk holds, first .. first + count - 1. Model chunk
// c of stage s is the (c x PP + s)-th slice of the layers in order, as
// Megatron-LM's interleaved schedule assigns them and its layouts list
// them; without interleaving, stage s holds the slice after the stages
// before it.
struct LayerRange {
  int64_t first = 0, count = 0;
};
LayerRange chunk_range(const ModelSpec& m, const ParallelPlan& p, int stage, int chunk);

// Whether chunk `chunk` of `stage` holds the multi-token-prediction
// modules (the model has some): where the layout puts them, else the last
// chunk of the last stage, beside the output layer. Elsewhere ("standalone"
// in Megatron-LM) the chunk runs their lookups, projections and layers,
// and the output layer's stage their output layer and loss.
bool holds_mtp(const ModelSpec& m, const ParallelPlan& p, int stage, int chunk);

// Layers of a chunk of n whose forward is recomputed in the backward
// (TrainingSpec::recompute_layers): n under full recomputation of every
// layer, min(n, recompute_layers) when limited, 0 otherwise (selective
// recomputation re-runs attention, not whole layers).
int64_t recomputed_layers(const TrainingSpec& t, int64_t n);

// Of `modules`, those `m` has something for (what validate_plan accepts).
uint32_t applicable_modules(const ModelSpec& m, uint32_t modules);

// The modules selective recomputation replays: none without it, the
// given ones, or core_attn when none are given.
uint32_t selective_modules(const TrainingSpec& t);

// "full", "full (first 4 layers of each chunk)" or "selective (moe_act,
// layernorm)": the recomputation as reports print it.
std::string recompute_text(const TrainingSpec& t);

// ", FlashAttention-2 attention, for-loop AdamW, tensorwise scaling": the
// kernels a plan runs where they are not the defaults (the part's best
// attention, fused AdamW, FP8's delayed scaling, Megatron-Core's
// activation under FP8 or FP4), as the reports' plan line ends; "" when all
// are.
std::string kernels_text(const TrainingSpec& t);

// Checks the plan against the model and GPU count; throws InputError naming
// the field ("parallelism.tp", "training.global_batch", ...) with the reason
// (e.g. "parallelism.tp: 3 does not divide 64 attention heads"). Layers may
// split unevenly over PP (layers_per_stage); interleaving (virtual_stages >
// 1) needs a layer in every chunk and micro-batches in groups of N from PP
// to all of them, the last group whole or at least PP (N = PP: a multiple
// of PP), as Megatron-LM does. A layout must list PP x virtual_stages stages holding
// the model's layers and MTP modules, the MTP modules in their rank's last
// chunk (Megatron-LM's checks); its chunks may hold no layer. TP must divide the
// attention heads and the MLP's inner size, and divide the KV heads or be a
// multiple of them (GQA replicates a KV head on TP / kv_heads ranks).
void validate_plan(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t, int gpus);
// Why the flex dispatcher cannot serve this model and plan ("" when it
// can): it needs experts over EP ranks, and is modelled with expert TP 1.
std::string flex_refusal(const ModelSpec& m, const ParallelPlan& p);

}  // namespace anatomy::workload
