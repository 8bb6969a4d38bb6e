#pragma once
// GradBucket: one collective that reduces part of a pipeline chunk's
// gradients while the backward still runs, as the data-parallel wrapper
// forms it from the chunk's parameter tensors. Counts are parameters on one
// GPU (after TP, before any sharding over data-parallel ranks).
//
// Megatron-Core's DDP (param_and_grad_buffer.py) walks a buffer's parameters
// in reverse registration order, which is the order the backward finishes
// their gradients, and closes a bucket after the parameter that brings it to
// bucket_size parameters: a bucket holds whole tensors, so a bucket_size
// below the smallest tensor gives one bucket a tensor. With FP8 weights
// (fp8_param_gather) the GEMM weights are one buffer and everything else
// (norms, biases, router, embeddings, output layer) another, and
// partition_buckets merges every bucket of the second into the first
// buffer's last group, reduced when the backward ends ("merge all non-fp8
// buckets into the last fp8 bucket group"). DeepSpeed's ZeRO-1/2 fills its
// reduce bucket the same way, tensor by tensor.
//
//   for (const GradBucket& b : grad_buckets(model, plan, t, stage, chunk)) ...
//   // b.params of the chunk's dense parameters, full once the backward has
//   // finished b.ready of them

#include <cstdint>
#include <vector>

#include "workload/model.h"
#include "workload/training.h"

namespace anatomy::workload {

struct GradTensor {
  int64_t params = 0;
  bool gemm_weight = false;  // a GEMM's weight: the FP8 buffer under fp8_param_gather
};

struct GradBucket {
  int64_t params = 0;  // the bucket's parameters
  int64_t ready = 0;   // of the chunk's, in backward order, done when the bucket is full
};

// A chunk's dense parameter tensors (all but routed experts when EP > 1
// moves them separately; with EP 1 they are the layer's too) on one GPU, in
// the order the backward finishes their gradients: the multi-token
// prediction modules and output layer first, the input embedding last;
// inside a layer the MLP's down and up projections, its norm, attention's
// output and QKV projections, its norm. Biases count with their weights.
// They add up to chunk_params(...).dense (plus the routed experts when
// `with_experts`).
std::vector<GradTensor> backward_tensors(const ModelSpec& m, const ParallelPlan& p, int stage, int chunk,
                                         bool with_experts);

// The buckets `tensors` make at `bucket_params` parameters a bucket (see
// the header comment); `split_fp8`: GEMM weights in one buffer, the rest
// merged into its last bucket. Empty tensors make no bucket.
std::vector<GradBucket> form_buckets(const std::vector<GradTensor>& tensors, int64_t bucket_params, bool split_fp8);

// `buckets` merged, neighbours together, into at most `most`, parameters
// kept (each merged bucket full when its last part is).
std::vector<GradBucket> merge_buckets(const std::vector<GradBucket>& buckets, int most);

}  // namespace anatomy::workload
