#pragma once
// One training iteration, simulated on the engine over the network.
//
// Every data-parallel replica, tensor-parallel rank and context-parallel
// rank of a pipeline stage does the same work at the same time, so the
// compute of one representative GPU per stage is simulated, step by step,
// in its pipeline schedule (1F1B or interleaved). What is not symmetric is
// run for real on the shared network: pipeline sends between the stages'
// representatives, every data-parallel communicator's gradient and
// parameter collectives (all of them at once, per bucket, so they contend
// in the fabric as they would), and every expert-parallel group's token
// all-to-alls (dispatch and combine, all EP groups of a stage at once, on
// the same network, so they share links with the gradient traffic). The
// other model-parallel collectives inside a step (TP/CP) are timed on the
// network alone and memoized (step_cost.h).
//
// Each GPU's iteration is split into buckets that add up to the iteration
// time exactly (integer picoseconds):
//   forward compute | backward compute (incl. recomputation) | optimizer |
//   exposed TP comm | exposed CP comm | exposed EP comm | exposed DP comm |
//   exposed PP comm | pipeline bubble | waiting on others
// Idle time before a step is a bubble until the upstream stage starts
// sending its input, and PP communication after; idle time waiting for a
// gradient or parameter collective is DP communication, and so is the
// compute time a step loses to the SMs of a DP collective running beside
// it; the time after a
// GPU has finished while the slowest stage has not is waiting on others,
// and so is the part of a step's compute the mean GPU does not spend while
// the job's slowest GPU computes (IterationInputs::compute_mean).

#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "coll/collective.h"
#include "coll/executor.h"
#include "hw/compute_model.h"
#include "workload/memory.h"
#include "workload/model.h"
#include "workload/training.h"

namespace anatomy::workload {

using core::SimTime;

enum class IntervalKind;

struct TimeBreakdown {
  SimTime forward_compute, backward_compute, optimizer;
  SimTime tp_comm;  // tensor-parallel collectives (and the embedding's and output layer's)
  SimTime cp_comm;  // context parallelism's K/V passes, gathers and all-to-alls
  SimTime ep_comm;  // expert-parallel token all-to-alls (MoE dispatch and combine)
  SimTime dp_comm, pp_comm, bubble, waiting;
  SimTime recompute;  // part of backward_compute, shown for information
  // Part of waiting: the mean GPU waiting for the job's slowest GPU to end
  // its compute (IterationInputs::compute_mean), shown for information. No
  // GPU has it to spare: the slowest one does not wait.
  SimTime on_slowest;
  // Part of dp_comm and ep_comm: compute time a step lost to the
  // collectives beside it (the SMs they held, or with one hardware queue
  // all of it), shown for information.
  SimTime on_collective_sms;

  SimTime compute() const { return forward_compute + backward_compute + optimizer; }
  SimTime communication() const { return tp_comm + cp_comm + ep_comm + dp_comm + pp_comm; }
  SimTime total() const { return compute() + communication() + bubble + waiting; }
  // The bucket time of kind `k` is booked to.
  SimTime& of(IntervalKind k);
  // (name, value) of every bucket, in report order (recompute excluded).
  std::vector<std::pair<const char*, SimTime>> buckets() const;
};

enum class IntervalKind {
  kForward,
  kBackward,
  kOptimizer,
  kTpComm,
  kCpComm,
  kEpComm,
  kDpComm,
  kPpComm,
  kBubble,
  kWaiting
};
const char* to_string(IntervalKind k);

struct Interval {
  IntervalKind kind;
  SimTime start, end;
  int64_t micro_batch = -1;
  int chunk = -1;
};

// How much a link carried during the iteration (flows of the simulated
// representatives and of every data-parallel communicator).
struct LinkLoad {
  topo::LinkId link = topo::kNoLink;
  std::string name;        // topo::Topology::link_label: "host 3 nic 2 -> leaf 5 port 3"
  std::string kind;        // scale-up, pcie, fabric, storage
  core::Bytes bytes;
  double utilization = 0;  // bytes / (bandwidth x iteration time)
  // With IterationInputs::link_samples: the utilization in each of that
  // many equal intervals of the iteration (bytes carried in the interval /
  // (bandwidth x interval)), interval after interval.
  std::vector<double> utilization_series;
};

struct IterationResult {
  SimTime iteration;
  std::vector<TimeBreakdown> stages;           // one representative GPU per pipeline stage
  std::vector<uint32_t> stage_gpus;             // which GPU represents each stage
  std::vector<std::vector<Interval>> timeline;  // per stage
  TimeBreakdown mean;                           // over all GPUs (every stage has as many)
  int64_t micro_batches = 0;
  double tokens_per_s = 0;
  double model_flops = 0;                // per iteration, no recomputation (MFU's numerator)
  double tflops_per_gpu = 0;             // model FLOPs / time / GPU
  double megatron_tflops_per_gpu = 0;    // Megatron-LM eq. 3 / time / GPU (counts recomputation); 0 under LoRA
  double mfu = 0;                        // model FLOPs / (time x GPUs x dense peak)
  double hfu = 0;                        // with recomputation
  double mfu_causal = 0;                 // mfu with causal attention counted at half (flops.h)
  double peak_tflops = 0;
  MemoryBreakdown memory;
  std::string memory_warning;  // set when the plan does not fit and enforce_memory was false
  // Set when the TP, CP or EP groups of one dimension span different
  // numbers of scale-up domains (unlike_groups.h): how, and what the prices
  // make of it.
  std::string placement_note;
  std::string compute_source;
  std::string library;
  std::string dp_algorithm;              // what "auto" chose for the gradient collectives
  // The gradient buckets the plan forms of the chunk with the most
  // (grad_buckets.h) at dp_bucket_bytes (gradient_bucket_bytes), and how
  // many collectives stand for them: at most 256 a chunk are simulated,
  // each carrying its buckets' bytes and paying one collective's latency,
  // so past 256 the latency of the rest is not paid. 0 and 0 without
  // overlapped grad reduce over data parallelism.
  int64_t dp_buckets = 0;
  int dp_buckets_simulated = 0;
  int64_t dp_bucket_bytes = 0;
  bool algorithms_chosen_elsewhere = false;  // ... on IterationInputs::choose_network, not on the network itself
  int64_t network_transfers = 0;
  // The busiest links: those of highest mean utilization over the iteration
  // (ties: more bytes, then the lower id), the 8 busiest of each kind,
  // busiest first. The one ranking every report, trace and the cascade use.
  std::vector<LinkLoad> busiest_links;
  SimTime background_finished;          // when the last background transfer arrived (0: none)
};

// Subscribers to one iteration's telemetry (IterationInputs::telemetry).
struct IterationTelemetry {
  // Called with the iteration's network before anything runs on it: a
  // subscriber attaches to its NetworkSignals (link rates, packets, marks).
  std::function<void(net::Network&)> on_network;
  // (communicator, start, end) of every data- and expert-parallel
  // collective the iteration runs on its network: "dp stage 0" (the
  // stage's gradient and parameter collectives, every (tp, cp) slice's
  // communicator at once), "ep stage 0".
  coll::CollectiveSignal collective;
};

// Collectives timed alone whose group lies inside one scale-up domain
// cross no fabric link. A caller that runs one system's iterations again
// and again with only fabric links changed (the fleet's re-simulations,
// fleet/fleet_sim.h) keeps their results here between runs
// (IterationInputs::domain_collectives), keyed as an iteration memoizes
// them: operation, bytes, group size, domains, widest domain, forced
// algorithm, and the communicator's CTA limits (least, most).
using CollectiveKey = std::tuple<int, int64_t, int, size_t, size_t, std::string, int, int>;
struct DomainCollectives {
  std::map<CollectiveKey, coll::CollectiveResult> results;
};

struct IterationInputs {
  const ModelSpec* model = nullptr;
  const ParallelPlan* plan = nullptr;
  const TrainingSpec* training = nullptr;
  const topo::Topology* topology = nullptr;  // at least plan.gpus() GPUs; rank r on GPU r
  const hw::ComputeModel* compute = nullptr;
  // The mean GPU's kernels, where `compute` times the slowest GPU's (the
  // job's pace, hw/sync_pace.h): of each step's compute, the mean GPU
  // computes this model's share and waits for the slowest the rest
  // ("waiting on others"). Null: the representative's compute is all compute.
  const hw::ComputeModel* compute_mean = nullptr;
  coll::LibraryModel library;
  coll::NetworkFactory make_network;
  // Where "auto" picks algorithms (coll/collective.h); empty: on make_network.
  coll::NetworkFactory choose_network;
  const coll::AlgorithmRegistry* algorithms = nullptr;
  // false: a plan that does not fit in memory is simulated anyway and the
  // result's memory_warning says by how much.
  bool enforce_memory = true;
  // Where each rank runs: rank r on GPU rank_to_gpu[r] (empty: GPU r).
  std::vector<uint32_t> rank_to_gpu;
  // Traffic that shares the network with the iteration from its start
  // (e.g. checkpoint writes to storage); the result says when it finished.
  struct Background {
    topo::NodeId src = topo::kNoNode, dst = topo::kNoNode;
    core::Bytes bytes;
  };
  std::vector<Background> background;
  // > 0: also give the busiest links' load in this many equal intervals
  // of the iteration (LinkLoad::utilization_series). The busiest are known
  // only at the end: a net::LinkRecorder subscribed to the network's
  // signals keeps every link's load through the run, and the series are
  // read from it afterwards (the recorder only listens: the run is the same).
  int link_samples = 0;
  // Extra subscribers (may be null; must outlive the call).
  IterationTelemetry* telemetry = nullptr;
  // Time-varying conditions and the controllers reacting to them
  // (job/adaptation.h) re-simulate the iteration with these; left at their
  // defaults the iteration is the one described above.
  // Per pipeline stage: its compute takes this many times as long (a
  // straggler in the stage: its TP peers wait for it at every TP collective
  // and its DP peers at the gradient sync, so the whole stage runs at its
  // pace). Empty, or 1 for a stage: as the compute model says.
  std::vector<double> stage_compute_scale;
  // "algorithm/protocol" for the gradient and parameter collectives instead
  // of what "auto" picks on this topology (e.g. the choice a static tuner
  // made on the healthy fabric); empty: auto.
  std::string dp_algorithm;
  // Kept between runs by the caller (may be null; see DomainCollectives).
  DomainCollectives* domain_collectives = nullptr;
  // false: leave IterationResult::busiest_links empty (ranking them reads
  // every link of the topology once; a caller that only wants the time
  // skips it).
  bool rank_links = true;
};

// Throws InputError when the plan does not fit the GPUs' memory (unless
// enforce_memory is false).
IterationResult simulate_iteration(const IterationInputs& in);

}  // namespace anatomy::workload
