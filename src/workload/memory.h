#pragma once
// Memory a training plan needs on each GPU, and whether it fits.
//
// Every pipeline rank is estimated and the one that needs the most is
// reported (MemoryBreakdown::stage): rank 0 holds the most micro-batches of
// activations, the last rank the output layer and the logits.
//
// Parameters on pipeline rank r: its layers (layers_per_stage), each of
// its kind (ModelSpec::dense_layer_params, moe_layer_params), plus the
// input embedding (and position table) on rank 0 and the final norm and
// output layer on the last rank (with PP > 1 Megatron-LM keeps a copy of
// a tied embedding there too), divided by TP; experts by expert TP x EP.
// Bytes per parameter for mixed-precision Adam, as Megatron-LM's
// distributed-optimizer notes give them
// (docs/source/distrib_optimizer.md):
//   bf16, fp8  2 weights + 4 gradients (accumulated in fp32) + 12 (fp32 master weights, Adam m and v)
//   fp16       2 + 2 + 16 (fp32 master weights, fp32 gradient copy, m, v)
//   fp32       4 + 4 + 8 (m, v)
// (fp8 training keeps bf16 weights, or with fp8_param_gather FP8 ones:
// MemoryPart; the transient fp8 copies are left out.) Under LoRA
// (TrainingSpec::lora_rank) the frozen weights are held whole and only the
// adapters have gradients and optimizer state.
// ZeRO shards over the DP x CP group (Megatron's distributed optimizer
// shards over data- x context-parallel ranks; experts over DP x CP / EP, x TP / expert TP):
// stage 1 the optimizer state, 2 also the gradients, 3 also the weights.
// Sharded gradients and weights keep the unsharded ones of two layers (or of
// the embedding, if larger) in flight: the one being reduce-scattered or
// computed, and the next one prefetched. DeepSpeed (framework: deepspeed)
// gathers per sub-module instead: the largest weight matrix (or the
// embedding) plus the prefetch bucket (param_gather_size) of weights, and
// that matrix's gradient plus the reduce bucket (bucket_size) of gradients;
// its fp16 optimizer keeps 12 bytes per parameter, not 16 (no fp32 gradient
// copy outside step(); ZeRO paper Section 3.1).
//
// Activations follow Korthikanti et al. 2022, "Reducing Activation
// Recomputation in Large Transformer Models" (arXiv 2205.05198) Section 4,
// with each tensor's exact shape. Per layer, per token, with e = 2 bytes per
// 16-bit element (4 for fp32), q, k, v, o the widths of Q, K, V and the
// attention output (ModelSpec), k' = 1 for a dense layer's MLP and top_k +
// shared experts for a MoE layer's:
//   norm inputs 2 e h, QKV input e h, MLP input e h, dropout masks 2 h
//       (1 byte each; GPT only), MLA's latents e (q_lora_rank + kv_lora_rank
//       + rope)                      — whole on every TP rank, / TP with
//                                      sequence parallelism
//   Q e q, K and V e (k + v), attention output e o, MLP up (and gate)
//       output (gated ? 2 : 1) e ffn k', activation output e ffn k',
//       MoE: the dispatched copies e h top_k etp (every GPU holds its
//       T x etp / tp tokens' top_k copies)     — / TP
//   attention scores a s^2 per sequence: softmax output e, dropout mask 1 and
//       output e (GPT) — / TP; not stored with FlashAttention (which keeps a
//       4-byte log-sum-exp per head per token) or when selective recompute
//       replays the attention core. The other recompute_modules drop their
//       own outputs (training.h).
// Under FP8 and FP4 the tensors kept only as a GEMM's input for its weight
// gradient take saved_gemm_input_bytes instead of e (Transformer Engine
// keeps the quantized copy): the norms' outputs (not a MoE layer's pre-MLP
// norm, which the router keeps in 16 bits), the activation's output, the
// dispatched copies, a shared expert's input, the gated norm's output; the
// attention output is kept twice, e by the flash kernel and quantized by
// the output projection. Under LoRA no frozen GEMM keeps an input: the
// attention's norm output is kept at e by the QKV adapter and none of the
// others above is; with LoRA dropout each adapter keeps its dropped input
// (e) and a 1-byte mask. With fp8_activation_input the activation's input
// (up and gate) is kept at 1 B.
// A hybrid block (model.h) keeps one norm's input and output and one mask,
// and its part of the above; a Mamba-2 mixer, on Megatron-LM's default
// fused path, in_proj's output e (2d + 2GN + heads), the SSD's output and
// the gated norm's, e d each — / TP.
// For Megatron's GPT this is the paper's s b h (34 + 5 a s / h) / t with
// sequence parallelism, and 34 s b h / t with selective recompute. Full
// recompute keeps only each layer's input, e s b h (/ t with sequence
// parallelism; the paper's 2 s b h), plus one layer's whole activations
// while that layer is recomputed. Everything is divided by CP.
// Micro-batches in flight on rank r: 1F1B holds min(PP - r, micro-batches);
// interleaved 1F1B with v chunks holds min(2 (PP - r - 1) + (v - 1) PP + 1,
// v x micro-batches) chunk-micro-batches (Megatron-LM's warm-up count; on
// rank 0 the paper's factor 1 + (PP - 1) / (PP v)), each chunk as many as
// the schedule has run of it by then, PP at a time, and each with its own
// layers. Rank 0 adds the embedding's dropout mask per micro-batch of its
// first chunk; the last rank, for one micro-batch, the inputs of the final
// norm and the output layer and the fp32 logits for the cross-entropy,
// 4 s b V / t, and the same output-layer tensors per multi-token-prediction
// module; the chunk holding the modules, per micro-batch in flight, each
// one's layer and its projection's 2h input.
//
// Workspace: a fixed 3 GB that the above does not see: the CUDA context and
// kernel images (~0.5-1 GB), cuBLAS / cuDNN / Transformer Engine workspaces
// (~0.5 GB), NCCL channel buffers for the TP, PP and DP communicators
// (~0.5-1 GB) and the caching allocator's fragmentation (~1 GB).

#include <string>
#include <string_view>
#include <vector>

#include "core/units.h"
#include "hw/accelerator.h"
#include "workload/model.h"
#include "workload/training.h"

namespace anatomy::workload {

struct MemoryBreakdown {
  core::Bytes weights, gradients, optimizer, activations, workspace;
  int stage = 0;  // the pipeline rank these figures are for
  core::Bytes total() const { return weights + gradients + optimizer + activations + workspace; }
};

// What the part changes in how the state is held. Transformer Engine keeps
// an FP8 weight (ParallelPlan::fp8_param_gather) with the transposed copy
// the backward's GEMMs read (1 + 1 B) on a part whose FP8 GEMMs take one
// layout (Hopper, Ada, MI3xx), and the weight alone (1 B) where they take
// either (Blackwell: nvte_is_non_tn_fp8_gemm_supported, the architecture's
// fp8_gemm_any_layout).
struct MemoryPart {
  bool fp8_any_layout = false;
};
MemoryPart memory_part(const hw::Accelerator& gpu);

// The pipeline rank that needs the most memory.
MemoryBreakdown estimate_memory(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t,
                                const MemoryPart& part = {});
// Every pipeline rank, in order.
std::vector<MemoryBreakdown> estimate_memory_per_stage(const ModelSpec& m, const ParallelPlan& p,
                                                        const TrainingSpec& t, const MemoryPart& part = {});

// Throws InputError (field "parallelism") when the total exceeds `capacity`,
// saying by how much and suggesting what would fit. Suggestions are found by
// re-running the estimate on the same GPUs: first one change at a time —
// selective, then full recompute; ZeRO up to 3; PP doubled or TP doubled (up
// to 8, one NVLink node) with DP halved; micro-batch 1 — and when none fits
// alone, the same changes piled up in that order. `gpu` names the GPU in the
// message ("H100"):
//   "parallelism: needs 97.3 GB per GPU but each H100 has 80 GB (17.3 GB over)
//    on pipeline rank 0 of 8: weights 35 GB, ...; fits with recompute: full (62.1 GB)"
void check_memory_fits(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t, core::Bytes capacity,
                       std::string_view gpu = {}, const MemoryPart& part = {});

}  // namespace anatomy::workload
