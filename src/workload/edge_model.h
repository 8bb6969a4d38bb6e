#pragma once
// EdgeModel: a model an edge site serves and retrains, as the list of
// matrix products one sample (an image, or a sequence of tokens) costs,
// with the FLOPs and parameters derived from its dimensions; and the time
// a step of inference or of fine-tuning takes on one accelerator's compute
// model (hw/compute_model.h), product by product.
//
// Presets: ResNet-50 (He et al. 2015, torchvision v1.5: stride on the 3x3
// convolution) and ViT-B/16 (Dosovitskiy et al. 2020, Table 1: 12 layers,
// hidden 768, MLP 3072, 12 heads, 16x16 patches), both at 224x224; and
// Llama 2 70B (MLPerf Training's LoRA benchmark model) and every
// transformer preset of model.h, at a given sequence length. A
// convolution is the implicit GEMM cuDNN/MIOpen run: rows = output pixels,
// columns = output channels, depth = input channels x kernel area.
//   resnet-50: 25,557,032 parameters, 4.089 GMACs (8.18 GFLOPs) per image
//   vit-b16:   86,567,656 parameters, 17.56 GMACs per image
// (the parameter counts are torchvision's and timm's; a test derives both.)
//
// Time per product: ComputeModel::gemm of its shape (attention:
// attention_fwd / attention_bwd), plus its memory-bound passes, each at its
// kernel's rate (ComputeModel::elementwise): what a convolution's batch
// norm and ReLU or a transformer's norms, activation and residual adds cost
// beside the GEMMs.
//
// Fine-tuning modes and what a step computes, per sample (F = forward):
//   full             F + 2F backward (activation and weight gradients), every weight updated
//   frozen_backbone  F + the head's backward only; the head's weights updated
//   lora             F + F backward (activation gradients through the frozen
//                    weights) + the adapters' own products; rank-r adapters
//                    A (k x r), B (r x n) on every adaptable product, updated
// Recomputed layers (Megatron's full recompute, "block" method: the first
// n layers keep only their input and run their forward again in the
// backward) add n layers' forward to any mode; a layer is one repeat of
// the products that repeat (a transformer's per-layer products).
// FP8 and FP4 products also pay the framework's casts, memory-bound: the
// input X[m,k] read in bf16 and written at the product's precision before
// the forward product, dY[m,n] likewise before the backward ones; a
// fine-tuning step also casts every product's weights once (frozen ones
// too: Transformer Engine recasts them on each step's first micro-batch).
// FP8 attention (Transformer Engine's FP8 DotProductAttention, which
// MLPerf's NVIDIA LoRA recipes turn on with FP8_DPA=1) runs a fine-tuning
// step's flash kernels at FP8 (hw::ComputeModel::attention_fwd) and casts
// their 16-bit inputs first: Q, K and V forward, the output gradient
// backward, each read at 2 B and written at 1 B an element (delayed
// scaling, the recipe those configs set: no amax pass of its own).
//
//   const EdgeModel& m = find_edge_model("resnet-50");
//   m.forward_flops();   // 8.18e9

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/time.h"
#include "hw/compute_model.h"
#include "hw/precision.h"
#include "workload/model.h"
#include "workload/training.h"

namespace anatomy::workload {

enum class FineTune { kFull, kFrozenBackbone, kLora };
const char* to_string(FineTune f);

struct ModelOp {
  enum Kind { kGemm, kAttention } kind = kGemm;
  std::string name;
  // kGemm: rows (per sample) x columns x depth; kAttention: seq x seq over
  // heads x head_dim (causal for decoders).
  int64_t m = 0, n = 0, k = 0;
  int64_t heads = 0, head_dim = 0;
  // kAttention: elements per token of Q, K and V together, and of the
  // output (what FP8 attention casts forward and backward); of Q and of K
  // alone (V takes the rest of qkv_width), and the KV heads.
  int64_t qkv_width = 0, out_width = 0;
  int64_t q_width = 0, k_width = 0, kv_heads = 0;
  bool causal = false;
  int64_t window = 0;       // kAttention, causal: a sliding window of this many tokens (0: none)
  // kAttention: the sequence is split over this many accelerators (context
  // parallelism, split_sequence): ring attention, one kernel a ring step,
  // the steps merged after (cp_passes.h).
  int64_t ring = 1;
  // kAttention: context parallelism by all-to-all over this many
  // accelerators (split_sequence): the heads, KV heads and widths are this
  // accelerator's share and m the whole sequence.
  int64_t a2a = 1;
  int64_t repeat = 1;       // identical layers
  int64_t params = 0;       // weights of one repeat (and biases / norms)
  // kGemm: elements of the weights behind one repeat's product, when more
  // than its k x n (a MoE layer's every expert, of which a token's rows
  // visit top_k): what a step casts. 0: k x n.
  int64_t weight_elems = 0;
  bool head = false;        // the task head (trained with a frozen backbone)
  bool adaptable = false;   // a LoRA target
  // Memory-bound passes over the product's output that go with it, as
  // eager PyTorch runs them (read + write of a norm, an activation, a
  // residual add), each at its kernel's rate: bytes = rows x columns x 2
  // (bf16) x passes, forward; twice that backward.
  struct Passes {
    hw::ComputeModel::Kernel kernel = hw::ComputeModel::Kernel::kStream;
    int64_t passes = 0;
  };
  std::vector<Passes> passes;
};

struct EdgeModel {
  std::string name;
  std::string description;  // with its source
  std::string sample;       // what one sample is: "224x224 image", "4096 tokens"
  std::vector<ModelOp> ops;
  int64_t extra_params = 0;  // weights no product touches as a GEMM (embeddings, position tables, norms)
  int64_t seq = 0;           // tokens per sample of a transformer (0: not a sequence model)

  int64_t params() const;
  double forward_flops() const;  // per sample
  double train_flops(FineTune f, int lora_rank) const;
  int64_t trainable_params(FineTune f, int lora_rank) const;
};

const std::vector<EdgeModel>& edge_model_presets();
// A preset above, or a transformer preset (model.h) at `seq_len` tokens per
// sample. Throws InputError (field "model") listing the names.
EdgeModel find_edge_model(std::string_view name, int64_t seq_len);
// A transformer (model.h) at `seq` tokens per sample, layer by layer.
EdgeModel from_transformer(const ModelSpec& t, int64_t seq);

// One accelerator's share of `m` when each sample's sequence is split over
// `cp` of them (Megatron-Core's context parallelism, Transformer Engine's
// ring attention, which NeMo runs by default): every product on seq / cp
// tokens; attention as the ring runs it, each accelerator holding two of
// the sequence's 2 cp chunks (which balances the causal work): its own
// chunks under the causal mask, a causal kernel over seq / cp tokens, then
// cp - 1 steps of seq / cp queries against seq / (2 cp) keys without a
// mask, each half an unmasked seq / cp kernel (workload/step_cost.cc prices
// training iterations alike). The K and V the ring passes on are taken as
// hidden behind those kernels, as TE overlaps them. Throws InputError
// (field edge.retrain.context_parallel) for a model that is not a
// transformer, a sequence that does not split into 2 cp chunks, or
// sliding-window attention (TE's ring refuses it).
//
// With CpComm::kAllToAll (Transformer Engine's cp_comm_type a2a, the
// DeepSpeed-Ulysses scheme, NeMo's MLPerf LoRA default) each accelerator
// instead swaps its tokens of every head for all tokens of heads / cp
// heads: an all-to-all of Q, K and V before attention and of the output
// after it (their gradients backward), each tensor laid out for the
// exchange and its chunks put back in order after it (a memory pass each
// side), and one attention kernel over the whole sequence on its heads.
// Its heads and KV heads must divide by cp; a sliding window is kept. The
// step times (train_step_time) leave the exchanges out: the caller times
// them on its network with cp_all_to_all_bytes (job/edge/edge_site.cc).
enum class CpComm { kRing, kAllToAll };
const char* to_string(CpComm c);
EdgeModel split_sequence(const EdgeModel& m, int cp, CpComm comm = CpComm::kRing);

// The bytes one accelerator sends in each of an attention op's all-to-alls
// under CpComm::kAllToAll, for `batch` samples: forward Q, K, V and the
// output, backward their gradients (the same sizes), `element_bytes` an
// element (1 under FP8 attention, where Transformer Engine exchanges the
// FP8 data, delayed scaling's gradients too). Empty without one.
std::vector<core::Bytes> cp_all_to_all_bytes(const ModelOp& op, int64_t batch, int64_t element_bytes = 2);

// One forward pass of `batch` samples on one accelerator.
core::SimTime inference_time(const EdgeModel& m, int64_t batch, const hw::ComputeModel& c, hw::Precision p);
// The recipe of a fine-tuning step's FP8 attention: delayed scaling, which
// NeMo's LoRA recipes set even under NVFP4 (MLPerf v5.1 llama2_70b_lora
// config_common_fp4.sh: NVTE_DPA_FP8_RECIPE="DelayedScaling").
inline constexpr Fp8Recipe kEdgeAttentionRecipe = Fp8Recipe::kDelayed;

// How a fine-tuning step runs beside its precision.
struct TrainStepOptions {
  int64_t recompute_layers = 0;  // layers whose forward runs again in the backward
  bool fp8_attention = false;    // flash kernels at FP8, with their casts (FP8 or FP4 training: the caller checks)
  // The weights are kept at the products' precision (Megatron-Core's FP8
  // parameters, NeMo's fp8_params): no weight is cast in the step. (On a
  // part whose FP8 GEMMs take one layout, rebuilding such a weight's FP8
  // transpose is left out.)
  bool quantized_weights = false;
  // LoRA: each adapter's input passes a dropout first (NeMo's LoRA dropout,
  // position "pre"): read and written with a 1-byte mask forward, its
  // gradient likewise backward.
  bool lora_dropout = false;
};

// What a fine-tuning step runs of an op, as train_step_time charges it
// (for a caller timing what goes with each pass): whether the backward
// passes through the op's input (full and LoRA fine-tuning take dX through
// every layer), and how many of its repeats recompute their forward.
bool backward_through_inputs(FineTune f);
int64_t recomputed_repeats(const ModelOp& op, int64_t recompute_layers);

// One fine-tuning step of `batch` samples on one accelerator: forward,
// backward as the mode needs, the options' recomputed forward, and AdamW
// over the trainable parameters.
core::SimTime train_step_time(const EdgeModel& m, FineTune f, int lora_rank, int64_t batch, const hw::ComputeModel& c,
                              hw::Precision p, const TrainStepOptions& options = {});

}  // namespace anatomy::workload
