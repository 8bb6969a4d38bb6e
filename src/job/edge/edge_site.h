#pragma once
// run_edge_site: an edge site's lifecycle on one simulated clock — cycles
// of collect, train, validate, package, roll out (and roll back) — with
// what it costs the site's three network tiers and its production lines.
//
// Cycles are sequential: cycle c starts at c x interval, or when cycle c-1
// ends if that is later. Within a cycle each phase's time comes from a
// model whose inputs EdgeInputs names:
//   collect   samples x bytes_per_sample / staging_rate (+ the rest of a
//             base-model pull still in progress)
//   train     ceil(samples x epochs / (batch_per_gpu x training GPUs / cp)) steps of
//             workload::train_step_time (slowed by 1 / clock_fraction while a
//             thermal throttle lasts) + the gradient all-reduce of the
//             trainable parameters (bf16, not overlapped), delayed by a
//             switchover when a training-tier link fails under it
//   validate  validate_samples / training GPUs, in batches, of inference_time
//   package   overhead + package bytes / package_rate (adapters only for LoRA)
//   rollout   per node: transfer (package / distribution_rate, shared by the
//             nodes updated together) + load (full weights / load_rate) + warmup
// Coverage: a production line is covered while the nodes serving a valid
// model can take its frames (capacity = 1 / inference time per frame).
// A node that can hold two copies in HBM swaps hot (rolling, canary,
// blue/green keep serving); naive stop-then-start takes every node down for
// the whole update. A version fails in production with failure_probability
// (stream "edge.quality", one draw per version); it is noticed after
// detection_delay and rolled back to the last good version the registry
// keeps (already on the nodes: no transfer). A canary that fails during its
// soak is rolled back alone; the other nodes never get the version.
// The sensor network and the WAN are simulated frame by frame (net/tsn)
// for `window` per traffic state (training traffic on or off, a base-model
// pull on or off, a link failure), weighted by the time the site spends in
// each state, so percentiles and deadline misses over 24 hours come from a
// few seconds of frames.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hw/compute_model.h"
#include "hw/precision.h"
#include "job/edge/edge_spec.h"
#include "workload/edge_model.h"

namespace anatomy::job::edge {

struct EdgeInputs {
  EdgeSpec spec;
  workload::EdgeModel model;
  const hw::ComputeModel* compute = nullptr;
  // Retraining is a synchronous data-parallel job: its step runs at the
  // pace of its slowest accelerator (hw/sync_pace.h); serving does not.
  bool pace_training = true;
  hw::Precision precision = hw::Precision::kBf16;
  bool fp8_attention = false;  // retraining's flash kernels at FP8 (training.fp8_attention)
  int gpus = 8;
  int gpus_per_host = 8;
  Bytes hbm_per_gpu = Bytes::GiB(256);
  // Gradient all-reduce of `bytes` over `ranks` of the training cluster (app
  // wires the collective model in).
  std::function<SimTime(Bytes bytes, int ranks)> allreduce;
  // An all-to-all of `bytes` sent by each of the first `ranks` training
  // accelerators (one context-parallel group), for all-to-all context
  // parallelism.
  std::function<SimTime(Bytes bytes, int ranks)> all_to_all;
};

struct CycleResult {
  int index = 0;
  int version = 0;
  SimTime start;
  SimTime collect, train, validate, package, rollout, rollback;
  int64_t steps = 0;
  bool failed = false;       // the version failed in production
  SimTime coverage_gap;      // wall time with a line uncovered
  SimTime end() const { return start + collect + train + validate + package + rollout + rollback; }
};

struct TierLatency {
  int64_t p50_ps = 0, p99_ps = 0, p999_ps = 0, max_ps = 0;
  double samples = 0;        // weighted: messages over the whole period
  double utilization = 0;    // the tier's busiest port, time-weighted
};

// One kind of sensor stream (all its sensors) over the whole period.
struct StreamLatency {
  std::string name;
  TierLatency latency;
  SimTime deadline;
  double misses = 0;  // past the deadline or lost
  double lost = 0;    // UDP-like messages a frame loss or an outage destroyed
};

struct RegistryEntry {
  int version = 0;
  int cycle = -1;  // -1: the base model
  std::string status;  // serving, superseded, failed (rolled back), pruned
};

struct EdgeResult {
  std::vector<CycleResult> cycles;
  SimTime coverage_gap;         // wall time with at least one line uncovered
  struct Gap {
    SimTime from, to;
    int lines = 0;
  };
  std::vector<Gap> gaps;        // each interval with lines uncovered, by start
  double uncovered_line_s = 0;  // line-seconds uncovered
  SimTime bad_version;          // wall time nodes served a version that failed
  double deadline_misses = 0;   // network + end to end + frames with no model
  double misses_network = 0, misses_inference = 0, misses_uncovered = 0;
  TierLatency sensor, training, coordination, end_to_end;
  std::vector<StreamLatency> streams;  // the sensor tier by stream kind, in the scenario's order
  double acc_inference_s = 0, acc_training_s = 0, acc_rollout_s = 0, acc_down_s = 0, acc_idle_s = 0;
  std::vector<RegistryEntry> registry;
  SimTime base_pull;            // each site's base-model pull (0: none)
  SimTime step_time, allreduce_time, inference_time;
  SimTime cp_all_to_all_time;   // a step's context-parallel all-to-alls (context_parallel_comm: all_to_all)
  int training_gpus = 0;
  int64_t samples_per_step = 0;  // batch_per_gpu x the training GPUs / context_parallel
  double serving_load = 0;      // busy fraction of each serving node
  Bytes package_bytes, model_bytes;
  bool hot_swap = false;
  uint64_t frame_events = 0;    // events of the packet-level windows
  SimTime simulated;            // wall time covered (the last cycle may run past duration)
};

// Throws core::InputError (fields named as in the scenario, "edge.rollout.nodes")
// for what the site cannot do: a rollout to more nodes than serve, no GPU
// left to train, blue/green without room for two copies.
EdgeResult run_edge_site(const EdgeInputs& in);

}  // namespace anatomy::job::edge
