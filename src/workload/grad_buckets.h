#pragma once
// GradBucket: one collective that reduces part of a pipeline chunk's
// gradients while the backward still runs, as the data-parallel wrapper
// forms it from the chunk's parameter tensors. Counts are parameters on one
// GPU (after TP, before any sharding over data-parallel ranks); work is
// multiply-adds a token on one GPU, the share of the backward a tensor's
// gradient takes.
//
// Megatron-Core's DDP (param_and_grad_buffer.py) walks a buffer's parameters
// in reverse registration order, roughly the order the backward finishes
// their gradients, and closes a bucket after the parameter that brings it to
// bucket_size parameters: a bucket holds whole tensors, so a bucket_size
// below the smallest tensor gives one bucket a tensor. A tied embedding
// shared across pipeline stages takes a bucket of its own under the
// distributed optimizer (_does_param_require_new_bucket). With FP8 weights
// (fp8_param_gather) the GEMM weights are one buffer and the other tensors
// (norms, router, embeddings, output layer) another, and partition_buckets
// merges every bucket of the second into the first buffer's last group,
// reduced when the backward ends ("merge all non-fp8 buckets into the last
// fp8 bucket group"). DeepSpeed's ZeRO-1/2 reduces its bucket before adding
// the tensor that would overflow it (stage_1_and_2.py, reduce_ipg_grads),
// when that tensor's gradient is ready.
//
// Approximations, said here once: biases count with their weights (in the
// FP8 buffer, where Megatron keeps them 16-bit; a bias is under 0.1% of its
// weight), and a Mamba layer's convolution and state parameters with its in
// projection; the buffer follows the order the backward finishes (Megatron's
// lists a layer's QKV before its output projection, which moves a boundary
// inside a layer at most); attention's score and softmax work, which has no
// parameters, is not counted in when a bucket is full.
//
//   const auto buckets = form_buckets(backward_tensors(m, p, stage, chunk, true),
//                                     bucket_params, BucketRule::kCloseAfter, false);
//   // buckets[j].params of the chunk's parameters, full once the backward
//   // has done buckets[j].ready of its work (buckets.back().ready: all)

#include <cstdint>
#include <vector>

#include "workload/model.h"
#include "workload/training.h"

namespace anatomy::workload {

struct GradTensor {
  int64_t params = 0;        // reduced with data parallelism (0: work only, e.g. experts over EP)
  int64_t work = 0;          // multiply-adds a token on one GPU
  bool gemm_weight = false;  // a GEMM's weight: the FP8 buffer under fp8_param_gather
  bool own_bucket = false;   // a tied embedding shared across stages
};

struct GradBucket {
  int64_t params = 0;  // the bucket's parameters
  int64_t ready = 0;   // of the chunk's work, what is done when the bucket is full
};

// A chunk's tensors on one GPU in the order the backward finishes their
// gradients: the multi-token-prediction modules and output layer first, the
// input embedding last; inside a layer the routed experts, the MLP's down
// and up projections (shared experts' too), the router, its norm,
// attention's output and QKV projections, its norm. Their parameters add up
// to chunk_params(...).dense, plus the routed experts' when `with_experts`
// (with EP > 1 those move over their own groups: work only).
std::vector<GradTensor> backward_tensors(const ModelSpec& m, const ParallelPlan& p, int stage, int chunk,
                                         bool with_experts);

enum class BucketRule {
  kCloseAfter,   // Megatron-Core: after the tensor that reaches the size
  kCloseBefore,  // DeepSpeed: before the tensor that would pass it
};

// The buckets `tensors` make at `bucket_params` parameters a bucket;
// `split_fp8`: GEMM weights in one buffer, the rest merged into its last
// bucket. Tensors without parameters make no bucket.
std::vector<GradBucket> form_buckets(const std::vector<GradTensor>& tensors, int64_t bucket_params, BucketRule rule,
                                     bool split_fp8);

// `buckets` merged, neighbours together, into at most `most` (>= 1),
// parameters kept (each merged bucket full when its last part is).
std::vector<GradBucket> merge_buckets(const std::vector<GradBucket>& buckets, int most);

}  // namespace anatomy::workload
