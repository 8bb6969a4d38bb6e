#pragma once
// What a checkpoint costs, measured on the network.
//
// Size: every GPU writes its shard of the model state — the bf16 weights
// (2 B/param) and the fp32 master weights with Adam's two moments
// (12 B/param), or without master weights the two bf16 moments (4 B/param),
// of the parameters its pipeline stage and tensor rank hold,
// divided over the data- and context-parallel ranks (sharded, as torch
// distributed checkpoint and Megatron's dist-ckpt write), times the
// compression ratio.
//
// Synchronous: all GPUs write to the storage servers at once over the
// storage path (the storage fabric, or the training fabric when storage is
// shared); training waits for the last byte (plus compression).
// Asynchronous: training waits for the GPU-to-host snapshot only (a pinned
// copy over the GPU-host link, at the GPU's measured copy rate where its
// calibration table has one for that link); the hosts
// then write in the background while training goes on — the iteration is
// re-simulated with the writes sharing its network, which measures how
// much they slow it. Hierarchical: the snapshot goes to local NVMe
// (training waits), then drains to storage in the background like the
// asynchronous case.

#include <string>

#include "job/job_spec.h"
#include "workload/iteration.h"

namespace anatomy::job {

struct CheckpointCost {
  Bytes bytes_per_gpu;        // largest shard
  Bytes bytes_total;
  Bytes bytes_written;        // bytes_total x the compression ratio: what leaves the GPUs
  SimTime stall;              // training waits this long per checkpoint
  SimTime background;         // then writing goes on this long
  SimTime slowed_iteration;   // an iteration while the background write runs
  int64_t slowed_iterations = 0;  // iterations that overlap it
  std::string how;            // one line naming the inputs
  // What a checkpoint taken every `every` iterations costs the job, in wall
  // time: the stall, the extra time of the iterations its write slows, and,
  // when that write outlasts the interval, the wait for it to end before the
  // next checkpoint starts (one write in flight: callers of PyTorch DCP's
  // async_save wait on the previous save's future first, and a host holds
  // one staged copy of its shard).
  SimTime cost(SimTime steady_iteration, int64_t every) const;
};

// Bytes one GPU writes (before compression), for pipeline stage `stage`.
// The state is weights and optimizer state as trained (precision, master
// weights: workload::checkpoint_bytes_per_param), sharded over DP x CP.
Bytes shard_bytes(const workload::ModelSpec& m, const workload::ParallelPlan& p, const workload::TrainingSpec& t, int stage);
// What a LoRA job's checkpoint does not hold and a restart reads besides it:
// the frozen base weights of the GPU's stage, its TP shard, in the training
// dtype as a base model is stored (every data-parallel replica reads its
// own copy); 0 for a job that trains every weight.
Bytes frozen_weight_bytes(const workload::ModelSpec& m, const workload::ParallelPlan& p, const workload::TrainingSpec& t,
                          int stage);

// `bulk` builds the network the bulk transfers (16,384 shards) run on: the
// same model, allowed to batch flow completions (flow_network.h).
CheckpointCost measure_checkpoint(const CheckpointSpec& spec, const workload::IterationInputs& base,
                                  const workload::IterationResult& steady, const coll::NetworkFactory& bulk);

// Reading the last checkpoint back at restart: every GPU reads its shard
// (and under LoRA its frozen base weights, frozen_weight_bytes) from
// storage at once (the load storm), measured on the network.
SimTime measure_checkpoint_load(const workload::IterationInputs& base, double compression_ratio,
                                const coll::NetworkFactory& bulk);

}  // namespace anatomy::job
