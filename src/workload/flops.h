#pragma once
// FLOP counts of a training iteration.
//
// megatron_flops(): the Megatron-LM papers' count, which charges full
// activation recomputation whatever the run did: every layer's forward four
// times (forward, recomputed forward, backward = 2 forwards) and the output
// layer three times, over the same exact GEMM shapes as model_flops(), so
// per model kind it counts what that kind runs:
//   F = B s (4 (layer GEMMs + attention core) + 3 logits)   [forward per token]
// For a Megatron GPT (kv_heads = heads, ungated 4h MLP, dense) the layer
// GEMMs are 24 h^2 per token and this is Narayanan et al. SC'21 eq. 3,
// F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)). Eq. 3 itself is only that
// case: applied to a GQA model it counts K and V at full width, and to a
// mixture of experts one 4h MLP instead of top_k experts and the router, so
// it came out below model_flops() for Mixtral. The papers report TFLOP/s
// per GPU as F / (GPUs x iteration time).
// model_flops(): the FLOPs the model needs without recomputation (MFU's
// numerator): 3 x forward (backward = 2 x forward: gradients of inputs and
// of weights); under LoRA the frozen weights' GEMMs 2 x forward (no weight
// gradients), the attention core still 3 x, and the adapters' 3 x their own. Forward, per token, from the exact GEMM shapes:
//   per layer  2 (h (q + 2 kv hd) + o h + MLP)
//              MLP: a dense layer (gated ? 3 : 2) h dense_ffn; a MoE layer
//              (gated ? 3 : 2) h ffn (top_k + shared experts) + h E router
//              (MLA: the Q/KV down and up projections in place of Q, K, V)
//              + 2 s (q + o)  attention scores Q K^T and A V, causal masking
//                       not discounted, as the papers count it; a sliding-
//                       window layer twice the keys a query sees on average
//                       instead of s (Megatron's count, megatron_flops, has
//                       no window)
//              (q = heads x Q head width, o = heads x V head width: both h
//              unless the model sets head_dim or uses MLA)
//   per hybrid block (model.h) its one part of the above: attention and
//              its core, or an MLP; a Mamba-2 mixer 2 h (2d + 2GN + heads)
//              + 2 d h for in_proj and out_proj, and its SSD's chunked
//              products over chunks of Q tokens, 2 Q N G + 2 Q P H + 4 N P H
//   once       2 h V    the output layer (logits)
//   per MTP module  its 2h -> h projection, one layer and its attention
//                   core, and the output layer again
// GQA and MoE are in the shapes. Left out, here as in eq. 3: the embedding
// lookup (a gather, no FLOPs), biases, norms, activations (GeLU/SwiGLU),
// softmax, dropout, residual adds and the cross-entropy — O(s h) or O(s V)
// elementwise work, under 1% of the total for every preset.
// model_flops_causal(): model_flops with the attention core counted as the
//   causal half a decoder's kernels compute (s (q + o) per token, not
//   2 s (q + o)), as Megatron-LM's training.py has counted it since 2025 (250b79415d) and
//   MaxText since its PR 1988; PaLM, torchtitan, llm-foundry and the 2021
//   Megatron papers count the full square. The two differ by half the
//   attention's share of the FLOPs: 4% for Llama 3 405B at 8K tokens, 11%
//   for Llama 3 8B at 8K, 29% for 405B at 128K.
// hardware_flops(): model_flops plus what the GPU re-runs (HFU's numerator):
//   selective recompute  + the replayed modules' GEMMs (training.h): the
//                        attention core's forward by default
//   full recompute       + every transformer layer's forward once more (the
//                        output layer is not checkpointed, so it is not re-run:
//                        eq. 3's logits term is 6 B s h V, three passes); with
//                        training.recompute_layers, the recomputed layers, each
//                        of its kind, counted chunk by chunk over the plan;
//                        with training.recompute_keeps_attention, without
//                        their attention core
//   FlashAttention       + Q K^T again in backward, 2 s q per token per layer
//                        (backward is 2.5 x forward's attention matmuls, Dao 2023)
// With full recompute and flash_attention off, hardware_flops() of a
// Megatron GPT equals eq. 3 exactly (24 h^2 + 4 s h per token per layer
// forward, 4 passes; 2 h V, 3 passes).

#include <cstdint>

#include "workload/model.h"
#include "workload/training.h"

namespace anatomy::workload {

double megatron_flops(const ModelSpec& m, int64_t global_batch, int64_t seq_len);
// Keys a query counts in the attention core's FLOPs, on average over a
// sequence of `seq` tokens: seq (the full square, as the papers count it),
// or with a sliding window of `window` < seq tokens twice the keys a query
// sees, (w (w + 1) / 2 + (s - w) w) / s x 2.
double attended_keys(int64_t seq, int64_t window);
double model_flops(const ModelSpec& m, const TrainingSpec& t);
double model_flops_causal(const ModelSpec& m, const TrainingSpec& t);
double hardware_flops(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t);

}  // namespace anatomy::workload
