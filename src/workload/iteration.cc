#include "workload/iteration.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "coll/executor.h"
#include "coll/forwarded_all_to_all.h"
#include "coll/p2p_bound.h"
#include "core/error.h"
#include "net/link_recorder.h"
#include "workload/flops.h"
#include "workload/grad_buckets.h"
#include "workload/layout.h"
#include "workload/moe_routing.h"
#include "workload/params.h"
#include "workload/pipeline_schedule.h"
#include "workload/step_cost.h"
#include "workload/unlike_groups.h"

namespace anatomy::workload {

std::vector<std::pair<const char*, SimTime>> TimeBreakdown::buckets() const {
  return {{"forward compute", forward_compute}, {"backward compute", backward_compute},
          {"optimizer", optimizer},             {"exposed TP comm", tp_comm},
          {"exposed CP comm", cp_comm},         {"exposed EP comm", ep_comm},
          {"exposed DP comm", dp_comm},         {"exposed PP comm", pp_comm},
          {"pipeline bubble", bubble},          {"waiting on others", waiting}};
}

SimTime& TimeBreakdown::of(IntervalKind k) {
  switch (k) {
    case IntervalKind::kForward: return forward_compute;
    case IntervalKind::kBackward: return backward_compute;
    case IntervalKind::kOptimizer: return optimizer;
    case IntervalKind::kTpComm: return tp_comm;
    case IntervalKind::kCpComm: return cp_comm;
    case IntervalKind::kEpComm: return ep_comm;
    case IntervalKind::kDpComm: return dp_comm;
    case IntervalKind::kPpComm: return pp_comm;
    case IntervalKind::kBubble: return bubble;
    case IntervalKind::kWaiting: return waiting;
  }
  return waiting;
}

const char* to_string(IntervalKind k) {
  switch (k) {
    case IntervalKind::kForward: return "forward";
    case IntervalKind::kBackward: return "backward";
    case IntervalKind::kOptimizer: return "optimizer";
    case IntervalKind::kTpComm: return "tp_comm";
    case IntervalKind::kCpComm: return "cp_comm";
    case IntervalKind::kEpComm: return "ep_comm";
    case IntervalKind::kDpComm: return "dp_comm";
    case IntervalKind::kPpComm: return "pp_comm";
    case IntervalKind::kBubble: return "bubble";
    case IntervalKind::kWaiting: return "waiting";
  }
  return "?";
}

namespace {

// Each simulated bucket costs a collective's worth of events and pays its
// latency. Only a chunk of many tensors at a bucket_size below one tensor
// has more buckets than this; past it neighbours are merged, bytes kept,
// and IterationResult::dp_buckets reports how many the plan has, so the
// latency left unpaid is named.
constexpr int kMaxBucketsPerChunk = 256;
// ZeRO-3's gradient reduce-scatters are units of bytes, not whole tensors:
// at least this, so that a bucket_size of a few bytes does not launch a
// collective per few bytes.
constexpr int64_t kZero3MinReduceBytes = 1'000'000;
// Below this a step's settlement is done: less than a nanosecond of overlap.
constexpr SimTime kSettled = SimTime::ps(1000);
const SimTime kNever = SimTime::max();

uint32_t gpu_of(const IterationInputs& in, uint32_t rank) {
  return in.rank_to_gpu.empty() ? rank : in.rank_to_gpu[rank];
}

std::vector<uint32_t> gpus_of(const IterationInputs& in, std::vector<uint32_t> ranks) {
  for (auto& r : ranks) r = gpu_of(in, r);
  return ranks;
}

// Times collectives alone on the network, memoized by their shape, and
// remembers which algorithm "auto" chose for each.
class IsolatedCollectives {
 public:
  explicit IsolatedCollectives(const IterationInputs& in) : in_(in) {
    for (size_t c = 0; c < libraries_.size(); ++c) {
      const auto comm = static_cast<Communicator>(c);
      libraries_[c] = coll::with_ctas(in.library, ctas_for(in.plan->nccl_min_ctas, comm),
                                      ctas_for(in.plan->nccl_max_ctas, comm));
    }
  }

  // The library as `c`'s collectives run it: within its CTA limits.
  const coll::LibraryModel& library(Communicator c) const { return libraries_[static_cast<size_t>(c)]; }

  // `forced`: "algorithm/protocol" to run instead of auto's choice (empty: auto).
  const coll::CollectiveResult& run(Communicator c, coll::Op op, Bytes bytes, const std::vector<uint32_t>& ranks,
                                    const std::string& forced = {}) {
    const coll::Group g = coll::make_group(*in_.topology, gpus_of(in_, ranks));
    size_t widest = 0;
    for (const auto& d : g.domains) widest = std::max(widest, d.size());
    const coll::LibraryModel& lib = library(c);
    const CollectiveKey key{static_cast<int>(op), bytes.count(), g.size(), g.domains.size(), widest, forced,
                            lib.min_ctas,       lib.max_ctas};
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    // Inside one scale-up domain: the same whatever the fabric, so the
    // caller's cache may hold it from an earlier run.
    DomainCollectives* shared = g.domains.size() == 1 ? in_.domain_collectives : nullptr;
    if (shared) {
      if (auto hit = shared->results.find(key); hit != shared->results.end())
        return memo_.emplace(key, hit->second).first->second;
    }
    coll::Request r;
    r.op = op;
    r.bytes = bytes;
    r.fidelity = g.size() <= 1024 ? coll::Fidelity::kStep : coll::Fidelity::kBulk;
    std::string algo = "auto";
    if (const size_t slash = forced.find('/'); slash != std::string::npos) {
      algo = forced.substr(0, slash);
      if (algo.rfind("nvls", 0) == 0) algo = "nvls";
      r.protocol = coll::parse_protocol(forced.substr(slash + 1), "protocol");
    }
    auto runner = runners_.find({lib.min_ctas, lib.max_ctas});
    if (runner == runners_.end())
      runner = runners_
                   .try_emplace({lib.min_ctas, lib.max_ctas}, *in_.topology, *in_.algorithms, lib, in_.make_network,
                                in_.choose_network)
                   .first;
    const coll::CollectiveResult& result = memo_.emplace(key, runner->second.run(g, r, algo)).first->second;
    if (shared) shared->results.emplace(key, result);
    return result;
  }

 private:
  const IterationInputs& in_;
  std::array<coll::LibraryModel, kCommunicators> libraries_;
  std::map<std::pair<int, int>, coll::CollectiveRunner> runners_;  // by CTA limits
  std::map<CollectiveKey, coll::CollectiveResult> memo_;
};

class IterationSim {
 public:
  explicit IterationSim(const IterationInputs& in)
      : in_(in),
        m_(*in.model),
        p_(*in.plan),
        t_(*in.training),
        layout_(p_),
        isolated_(in),
        net_(in.make_network(sim_, *in.topology)) {}

  IterationResult run();

 private:
  struct DpJob {
    coll::Op op;
    Bytes bytes;
    int chunk = -1;  // for parameter gathers at the start: which chunk waits on it
    bool experts = false;  // over the expert-data-parallel groups, not DP x CP
    int bucket = -1;  // of a bucketed chunk's gathers: which (in the forward's order)
  };
  // A chunk whose parameters are gathered bucket by bucket (Megatron's DDP
  // buckets the first stage's first chunk, grad_buckets): its first forward
  // starts on the first bucket and needs bucket k once it has done
  // 1 - rest[k] of its work; done[k] is when k's gather ended.
  struct GatherBuckets {
    std::vector<double> rest;
    std::vector<SimTime> done;
    int pending = 0;
  };
  // A chunk's parameter gather (ZeRO-1/2 overlapped): its collectives, the
  // forward (counted from 0 on its stage) that launches it, -1 for its own
  // first forward, whether it is launched, and its buckets when gathered
  // bucket by bucket (empty: whole).
  struct ChunkGather {
    std::vector<DpJob> jobs;
    int64_t at = 0;
    bool launched = false;
    GatherBuckets buckets;
  };
  struct Stage {
    std::vector<PipelineStep> order;
    size_t next = 0;
    bool running = false;
    SimTime cursor;  // accounted up to here
    std::vector<SimTime> fwd_ready, fwd_sent, bwd_ready, bwd_sent;
    std::vector<SimTime> param_ready;  // per chunk
    std::vector<ChunkGather> gathers;  // per chunk; empty: none overlapped
    // A first forward's end waiting for its chunk's last buckets, and the
    // time the running step has waited for them.
    engine::Callback bucket_waiter;
    SimTime gather_wait;
    int64_t forwards_seen = 0;  // forwards of `order` looked at for gathers due
    size_t gathers_checked = 0; // the order's steps looked at so far
    std::vector<size_t> last_backward;  // index in order of each chunk's last backward
    std::deque<DpJob> dp_queue;
    // Without grad-reduce overlap: every chunk's reductions, queued when the
    // stage's last step is done (Megatron reduces after the pipeline flush).
    std::vector<DpJob> after_flush;
    bool dp_busy = false;
    // How long the DP stream has been busy in all, up to dp_since when it
    // is busy now: what a step's compute overlapped is the difference.
    SimTime dp_busy_total, dp_since;
    SimTime dp_mark;     // dp_busy_until at the running step's last settlement
    SimTime dp_stretch;  // the running step's compute time lost to the DP collectives beside it
    SimTime ep_stretch;  // the running pair's compute time lost to its all-to-alls
    // Combined 1F1B beside its all-to-alls (several queues): they run from
    // the pair's start until ep_busy_to (SimTime::max() while they run), and
    // their overlap with the pair's compute is settled up to ep_mark.
    bool pair_ep = false;
    SimTime ep_busy_to, ep_mark;
    // One queue: a step's settlement parked until the DP stream is idle
    // (`held`), since parked_at, and the compute it still owes then.
    engine::Callback held;
    SimTime parked_at, owed;
    bool compute_done = false;
    bool finished = false;
    SimTime end;
    TimeBreakdown b;
    std::vector<Interval> timeline;
    // The running step.
    SimTime step_start;
    SimTime ep_end;        // when its EP all-to-alls finished (= compute + TP comm without)
    bool send_blocking = false;  // waiting for its own pipeline send to complete
    int pending_parts = 0;
    // Combined 1F1B (ParallelPlan::ep_comm_overlap): whether the step at
    // each index of `order` starts a forward-backward pair with the next;
    // the running pair's blocking sends still to arrive.
    std::vector<bool> starts_pair;
    int pair_sends = 0;
  };

  int positions() const { return p_.pp * p_.virtual_stages; }
  int stage_of(int pos) const { return pos % p_.pp; }
  // A chunk's parameters as gathered and its gradients as reduced.
  int64_t param_bytes(int s, int chunk) const { return cost_[s].chunk_params[chunk] * gathered_param_bytes(t_, p_); }
  int64_t grad_bytes(int s, int chunk) const { return cost_[s].chunk_params[chunk] * reduced_grad_bytes(t_, p_); }
  // Of a chunk's parameters, the routed experts' that data parallelism
  // moves over their own expert-DP groups (EP > 1): `per_param` bytes
  // each; 0 when no expert is replicated.
  int64_t expert_dp_bytes(int s, int chunk, int64_t per_param) const {
    if (p_.ep <= 1 || p_.expert_dp() <= 1) return 0;
    return cost_[s].chunk_expert_params[chunk] * per_param;
  }
  // Of a chunk's parameters, the part that DP x CP moves: all but the routed
  // experts when EP > 1 (theirs go over their own groups, or nowhere).
  int64_t dense_dp_bytes(int s, int chunk, int64_t per_param) const {
    const int64_t experts = p_.ep > 1 ? cost_[s].chunk_expert_params[chunk] : 0;
    return (cost_[s].chunk_params[chunk] - experts) * per_param;
  }
  // A chunk's gradient buckets as the plan forms them (configured), and
  // the collectives that simulate them: at most kMaxBucketsPerChunk, each
  // with the parameters of those before it and it (for bucket_share).
  struct ChunkBuckets {
    size_t configured = 0;
    std::vector<GradBucket> simulated;
    std::vector<int64_t> params_through;
  };
  std::vector<GradBucket> configured_buckets(int s, int chunk) const;
  void plan_buckets();  // worked out once a run
  const ChunkBuckets& grad_buckets(int s, int chunk) const {
    return buckets_[static_cast<size_t>(s)][static_cast<size_t>(chunk)];
  }
  void gather_after_step(int s, int chunk, int bucket);
  size_t idx(int64_t mb, int chunk) const { return static_cast<size_t>(mb * p_.virtual_stages + chunk); }
  // The representative pipeline's GPU of a stage, and its node.
  uint32_t rep_gpu(int stage) const { return gpu_of(in_, layout_.rank({0, 0, 0, stage})); }
  topo::NodeId rep_node(int stage) const { return in_.topology->gpu_node(rep_gpu(stage)); }
  // The least time NCCL's p2p channels give a pipeline send between two
  // stages of one NVLink domain (coll/p2p_bound.h): one round of the
  // pipeline group's communicator, which spans domains when its stages do.
  // Zero across domains, where the network paces it.
  SimTime pp_channel_bound(int from_stage, int to_stage);

  void account(Stage& st, IntervalKind kind, SimTime until, int64_t mb = -1, int chunk = -1);
  // A step's compute from st.cursor to `until`: the mean GPU's share as
  // compute, the rest as waiting for the slowest GPU.
  void account_compute(Stage& st, const PipelineStep& step, int s, SimTime until);
  void try_start(int s);
  void step_done(int s, PipelineStep step);
  // Whether a step's input has arrived (and its parameters, forward):
  // then when it was sent and when it arrived.
  bool inputs_ready(const Stage& st, int s, const PipelineStep& step, SimTime* sent, SimTime* arrived) const;
  // The gradient buckets of a chunk's last backward (order index `at`),
  // reduced as the step of length `busy` fills them.
  void reduce_grads_during(int s, const PipelineStep& step, size_t at, SimTime busy);
  // Combined 1F1B: the next two steps as one (combined_pairs).
  void start_pair(int s);
  void pair_done(int s);
  // Of step's compute, the share the mean GPU computes (IterationInputs::compute_mean).
  double mean_share(int s, const PipelineStep& step) const {
    if (mean_share_.empty()) return 1.0;
    const auto& v = step.forward ? mean_share_[s].first : mean_share_[s].second;
    return v[step.chunk];
  }
  // A step's cost; a chunk's first forward also casts its weights
  // (StageCost::weight_casts).
  StepCost cost_of(int s, const PipelineStep& step) const {
    if (!step.forward) return cost_[s].backward[step.chunk];
    StepCost c = cost_[s].forward[step.chunk];
    if (step.micro_batch == 0) c.compute += cost_[s].weight_casts[step.chunk];
    return c;
  }
  // Sends a step's output to pipeline position to_pos; `sent` (may be
  // empty) runs when it has arrived.
  void send(int from_stage, int to_pos, int64_t mb, bool forward, engine::Callback sent);
  void after_step(int s);
  void enqueue_dp(int s, DpJob job);
  // The parameter gathers due when the stage reaches step `i` of its order
  // (align_param_gather), and chunk `c`'s, launched once.
  void launch_gathers_due(int s, size_t i);
  void launch_gather(int s, size_t c);
  // Whether chunk `c`'s first forward still waits for some of its buckets.
  bool buckets_pending(const Stage& st, int c) const {
    return !st.gathers.empty() && st.gathers[static_cast<size_t>(c)].buckets.pending > 0;
  }
  // A bucketed chunk's gathers, in the order its forward needs them.
  std::vector<DpJob> bucket_gathers(int s, int c, GatherBuckets* b) const;
  // A first forward's compute is done at `computed` (the step's compute
  // `work` long): `then` once every bucket it needed had arrived in time.
  void await_buckets(int s, int chunk, SimTime work, SimTime computed, engine::Callback then);
  void start_next_dp(int s);
  void dp_done(int s, DpJob job);
  void maybe_finish(int s);
  // The share of the SMs communicator `c`'s collective holds while it runs
  // (its channels, one CTA each), and a compute time stretched by it.
  double collective_sm_share(Communicator c) const;
  SimTime slowed(SimTime compute, Communicator c) const;
  // Of each second a collective runs beside a step, what the step loses:
  // the SMs the collective holds, or with one hardware queue
  // (ParallelPlan::one_hardware_queue) all of it.
  double beside_share() const { return p_.one_hardware_queue() ? 1.0 : collective_sm_share(Communicator::kDp); }
  // The DP stream's busy time in all up to now.
  SimTime dp_busy_until(const Stage& st) const {
    return st.dp_busy ? st.dp_busy_total + (sim_.now() - st.dp_since) : st.dp_busy_total;
  }
  // At the end of a step's compute as scheduled: what the DP collectives
  // that ran alongside took from it (their SMs, or with one queue all of
  // it), added to st.dp_stretch until nothing more overlapped; then `then`.
  // With one queue it waits while the stream is busy (resume_held).
  void settle_compute(int s, engine::Callback then);
  void resume_held(int s);
  // `then` once the running step's compute, `compute` from now, is done:
  // settled against the DP stream as it ran, unless the step was priced
  // whole (`priced`: its own collectives start with it, st.dp_stretch).
  void after_compute(int s, SimTime compute, bool priced, engine::Callback then);
  SimTime zero3_step_comm(int s, PipelineStep step);
  coll::Schedule* shared_schedule(int s, coll::Op op, Bytes bytes, bool experts);
  void launch_shared(int s, coll::Op op, Bytes bytes, engine::Callback done, bool experts = false);
  // One merged schedule of `a` run by every group in `groups` at once.
  using GroupSchedule = std::function<coll::Schedule(const coll::Group&)>;
  std::unique_ptr<coll::Schedule> merged_schedule(const GroupSchedule& build,
                                                  const std::vector<std::vector<uint32_t>>& groups) const;
  std::unique_ptr<coll::Schedule> merged_schedule(const coll::Algorithm& a, const coll::Request& r,
                                                  const coll::LibraryModel& lib,
                                                  const std::vector<std::vector<uint32_t>>& groups) const {
    return merged_schedule([&](const coll::Group& g) { return a.build(g, r, lib); }, groups);
  }
  const coll::Schedule& ep_schedule(int s, int64_t all_to_alls);
  void launch_ep(int s, int64_t all_to_alls, engine::Callback done);
  coll::Executor& new_executor(const std::string& communicator,
                               net::TrafficClass traffic = net::TrafficClass::kUnlabelled);
  // The busiest links' utilization in in_.link_samples intervals, from the recorder.
  void sample_links(IterationResult& r) const;

  const IterationInputs& in_;
  const ModelSpec& m_;
  const ParallelPlan& p_;
  const TrainingSpec& t_;
  Layout layout_;
  IsolatedCollectives isolated_;
  engine::Simulator sim_;
  std::unique_ptr<net::Network> net_;
  std::vector<StageCost> cost_;
  std::vector<std::vector<ChunkBuckets>> buckets_;  // per stage, per chunk
  // Per stage, per chunk: the mean GPU's share of a forward and a backward
  // step's compute (empty: all of it).
  std::vector<std::pair<std::vector<double>, std::vector<double>>> mean_share_;
  std::vector<Stage> st_;
  std::vector<std::unique_ptr<coll::Schedule>> schedules_;  // kept alive for their executors
  std::vector<std::unique_ptr<coll::Executor>> executors_;
  Bytes ep_bytes_;  // one EP all-to-all's send buffer per GPU
  std::map<std::pair<int, int64_t>, std::unique_ptr<coll::Schedule>> ep_schedules_;  // by (stage, all-to-alls)
  int64_t micro_batches_ = 0;
  std::map<std::pair<int, int>, SimTime> pp_bounds_;  // by (from stage, to stage)
  std::string dp_algorithm_;
  std::unique_ptr<net::LinkRecorder> recorder_;      // with link_samples
  std::map<std::string, std::string> communicators_;  // names the collective signals carry, kept alive
  bool dp_chosen_elsewhere_ = false;
};

SimTime IterationSim::zero3_step_comm(int s, PipelineStep step) {
  const int64_t chunk_param_bytes = param_bytes(s, step.chunk);
  if (chunk_param_bytes == 0) return SimTime::zero();  // a chunk a pipeline layout left empty
  const int64_t chunk_layers = cost_[s].chunk_layers[step.chunk];
  const int64_t layers = std::max<int64_t>(1, chunk_layers);
  const int64_t gather_unit =
      p_.param_gather_bytes > 0 ? p_.param_gather_bytes : (chunk_param_bytes + layers - 1) / layers;
  const int64_t gathers = (chunk_param_bytes + gather_unit - 1) / gather_unit;
  // Collectives of one shard group (every DP x CP rank, or under
  // HYBRID_SHARD its first `shard_group` ranks: every group runs the same
  // ones at once), timed alone and memoized: a ZeRO-3 plan has no other
  // traffic to contend with in the fabric (no pipeline), and there are
  // thousands of them per iteration.
  const std::vector<uint32_t> all = layout_.dp_cp_group({0, 0, 0, s});
  const size_t shard = static_cast<size_t>(p_.zero_shards());
  const std::vector<uint32_t> group(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(shard));
  const coll::CollectiveResult& gather =
      isolated_.run(Communicator::kDp, coll::Op::kAllGather, Bytes(gather_unit), group);
  if (dp_algorithm_.empty()) {
    dp_algorithm_ = "ZeRO-3 gathers " + gather.algorithm + "/" + gather.protocol;
    if (shard < all.size())
      dp_algorithm_ +=
          fmt::format(" in groups of {}, gradient shards all-reduced over {} replicas", shard, all.size() / shard);
    dp_chosen_elsewhere_ = gather.chosen_elsewhere;
  }
  // DeepSpeed's recomputation re-runs each checkpointed block's forward
  // inside its backward, and the sub-modules' forward pre-hooks gather
  // their parameters again before the backward pre-hooks gather them for
  // the gradients (each sub-module releases them after its forward):
  // two gathers per backward. FSDP gathers a unit once for both.
  // Only the recomputed layers' units gather again (recompute_layers).
  const bool regather = !step.forward && p_.framework == ShardingFramework::kDeepSpeed;
  SimTime t = gather.time * gathers;
  if (regather) t += gather.time * (gathers * recomputed_layers(t_, chunk_layers)) / layers;
  if (!step.forward) {
    const int64_t chunk_grad_bytes = grad_bytes(s, step.chunk);
    const int64_t bucket = std::max(gradient_bucket_bytes(t_, p_), kZero3MinReduceBytes);
    const int64_t unit = std::max<int64_t>(1, std::min(bucket, chunk_grad_bytes));
    const int64_t buckets = (chunk_grad_bytes + unit - 1) / unit;
    const SimTime reduce = isolated_.run(Communicator::kDp, coll::Op::kReduceScatter, Bytes(unit), group).time;
    if (shard < all.size()) {
      // HYBRID_SHARD: each reduce-scattered shard is then all-reduced over
      // the replicas (the ranks in the same place of every shard group) on
      // a stream of its own (FSDP's _reduce_grad: all_reduce over
      // _inter_node_pg on _all_reduce_stream): a two-stage pipeline, each
      // bucket's all-reduce after its reduce-scatter, the slower of the two
      // setting the pace.
      std::vector<uint32_t> replicas;
      for (size_t k = 0; k < all.size(); k += shard) replicas.push_back(all[k]);
      const Bytes piece(std::max<int64_t>(1, unit / static_cast<int64_t>(shard)));
      const SimTime reduce_all = isolated_.run(Communicator::kDp, coll::Op::kAllReduce, piece, replicas).time;
      t += reduce + reduce_all + std::max(reduce, reduce_all) * (buckets - 1);
    } else {
      t += reduce * buckets;
    }
  }
  return t;
}

// The buckets that reduce a chunk's gradients under ZeRO-0/1/2. Without
// overlap, one a chunk: Megatron-Core sets no bucket size then
// (distributed_data_parallel.py: "Set bucket_size to infinity if
// overlap_grad_reduce is False"), and the 2021 stack all-reduces each
// chunk's buffer whole. With overlap, Megatron's DDP buckets only the first
// pipeline stage's first chunk, whose reduction ends the iteration: "Turn
// off bucketing if we are on a pipeline stage that is not the first (since
// data-parallel communication on these stages is not on the critical
// path)", and training.py disables it for the chunks after the first, and
// for the first too when its gather overlaps the optimizer step.
// DeepSpeed buckets every chunk. A bucket is whole tensors (grad_buckets.h),
// bucket_size counted in the gradients' bytes.
// Under LoRA the buffer holds the adapters alone, far below any bucket
// size: one bucket, full when the chunk's first layer's adapters have their
// gradients, at the backward's end.
std::vector<GradBucket> IterationSim::configured_buckets(int s, int chunk) const {
  const std::vector<GradTensor> tensors = backward_tensors(m_, p_, s, chunk, p_.ep <= 1);
  if (t_.lora_rank > 0) {
    GradBucket adapters{.params = trained_chunk_params(m_, p_, t_, s, chunk).total()};
    for (const GradTensor& t : tensors) adapters.ready += t.work;
    return {adapters};
  }
  if (!p_.overlap_grad_reduce ||
      (p_.framework == ShardingFramework::kMegatron &&
       (s > 0 || chunk > 0 || p_.overlap_param_gather_with_optimizer_step))) {
    GradBucket whole;  // full when the backward is done
    for (const GradTensor& t : tensors) {
      whole.params += t.params;
      whole.ready += t.work;
    }
    return {whole};
  }
  const int64_t bucket_params = std::max<int64_t>(1, gradient_bucket_bytes(t_, p_) / reduced_grad_bytes(t_, p_));
  const BucketRule rule =
      p_.framework == ShardingFramework::kDeepSpeed ? BucketRule::kCloseBefore : BucketRule::kCloseAfter;
  return form_buckets(tensors, bucket_params, rule, fp8_weights(t_, p_));
}

void IterationSim::plan_buckets() {
  buckets_.assign(static_cast<size_t>(p_.pp), {});
  for (int s = 0; s < p_.pp; ++s)
    for (int c = 0; c < p_.virtual_stages; ++c) {
      ChunkBuckets b;
      const std::vector<GradBucket> configured = configured_buckets(s, c);
      b.configured = configured.size();
      b.simulated = merge_buckets(configured, kMaxBucketsPerChunk);
      int64_t through = 0;
      for (const GradBucket& g : b.simulated) b.params_through.push_back(through += g.params);
      buckets_[static_cast<size_t>(s)].push_back(std::move(b));
    }
}

namespace {

// Of `bytes`, the share of bucket j: what the buckets through it hold, less
// what those before it hold, so that the shares add up exactly.
Bytes bucket_share(int64_t bytes, const std::vector<int64_t>& params_through, size_t j) {
  const int64_t all = params_through.back();
  if (all == 0) return Bytes(j + 1 == params_through.size() ? bytes : 0);
  auto part = [&](size_t i) { return static_cast<int64_t>(static_cast<double>(bytes) * params_through[i] / all); };
  const int64_t before = j == 0 ? 0 : part(j - 1);
  return Bytes(j + 1 == params_through.size() ? bytes - before : part(j) - before);
}

}  // namespace

double IterationSim::collective_sm_share(Communicator c) const {
  const double units = in_.compute->compute_units();
  return std::min(0.5, isolated_.library(c).collective_ctas / units);
}

SimTime IterationSim::slowed(SimTime compute, Communicator c) const {
  return SimTime::from_seconds(compute.seconds() / (1.0 - collective_sm_share(c)));
}

// A DP collective's CTAs hold their SMs for as long as it runs, so compute
// alongside it proceeds at (1 - taken) of its rate: each second of overlap
// leaves `taken` seconds of the step's work undone, which runs after it,
// itself beside whatever DP collective still runs, and is settled again
// until nothing more overlapped. With the stream busy throughout, that is
// the step at (1 - taken) of its rate, as slowed() prices it. The
// collectives that start or end inside a step (a backward's own gradient
// buckets) count as they ran. The time is the DP collectives' doing, so
// the breakdown books it as DP communication, not compute: a step's
// compute is the compute model's whatever the network, and what the
// collectives cost shows where they do. A combined 1F1B pair's EP
// all-to-alls are settled here too, at the EP communicator's share for as
// long as they ran beside the pair's compute, and booked as EP time.
// (ZeRO-3's per-step gathers and reduce-scatters start with the step: it is
// priced at once, slowed() for as long as they run.)
// With one hardware queue a collective holds back all the compute launched
// after it (beside_share() 1): each second of overlap is a second of the
// step undone, and a step whose compute is due while the stream is busy
// waits for it to go idle (resume_held); ZeRO-3's steps and a pair wait
// for their own collectives whole, before they compute.
void IterationSim::settle_compute(int s, engine::Callback then) {
  Stage& st = st_[s];
  const SimTime busy = dp_busy_until(st);
  const SimTime overlap = busy - st.dp_mark;
  st.dp_mark = busy;
  SimTime ep_overlap;
  if (st.pair_ep) {
    const SimTime until = std::min(sim_.now(), st.ep_busy_to);
    if (until > st.ep_mark) ep_overlap = until - st.ep_mark;
    st.ep_mark = std::max(st.ep_mark, until);
  }
  if (p_.one_hardware_queue() && st.dp_busy && overlap > kSettled) {
    // Held back: no compute until the stream is idle, then the work the
    // overlap left undone (one wait a collective, not a chase of its tail).
    // A collective queued at the compute's very end held nothing back.
    st.owed = overlap;
    st.parked_at = sim_.now();
    st.held = std::move(then);
    return;
  }
  const SimTime extra_dp = SimTime::from_seconds(overlap.seconds() * beside_share());
  const SimTime extra_ep = SimTime::from_seconds(ep_overlap.seconds() * collective_sm_share(Communicator::kEp));
  if (extra_dp + extra_ep <= kSettled) return then();
  st.dp_stretch += extra_dp;
  st.ep_stretch += extra_ep;
  sim_.schedule_in(extra_dp + extra_ep,
                   [this, s, then = std::move(then)]() mutable { settle_compute(s, std::move(then)); });
}

// The DP stream has gone idle: a step held back by it waits no longer and
// does the work it owes, settled again against whatever runs meanwhile.
void IterationSim::resume_held(int s) {
  Stage& st = st_[s];
  if (!st.held) return;
  const SimTime owed = st.owed;
  st.dp_stretch += (sim_.now() - st.parked_at) + owed;
  st.owed = SimTime::zero();
  st.dp_mark = dp_busy_until(st);  // the wait is counted already
  engine::Callback then = std::move(st.held);
  sim_.schedule_in(owed, [this, s, then = std::move(then)]() mutable { settle_compute(s, std::move(then)); });
}

void IterationSim::after_compute(int s, SimTime compute, bool priced, engine::Callback then) {
  if (priced) return sim_.schedule_in(compute, std::move(then));
  sim_.schedule_in(compute, [this, s, then = std::move(then)]() mutable { settle_compute(s, std::move(then)); });
}

// The mean GPU's part of the slowest GPU's `t` (recomputation is part of
// the backward compute the split books).
SimTime at_mean_share(SimTime t, double share) {
  return share < 1.0 ? SimTime::from_seconds(t.seconds() * share) : t;
}

void IterationSim::account_compute(Stage& st, const PipelineStep& step, int s, SimTime until) {
  const IntervalKind kind = step.forward ? IntervalKind::kForward : IntervalKind::kBackward;
  const double share = mean_share(s, step);
  if (share < 1.0 && until > st.cursor) {
    const SimTime computing = SimTime::from_seconds((until - st.cursor).seconds() * share);
    account(st, kind, st.cursor + computing, step.micro_batch, step.chunk);
  }
  const SimTime before = st.b.waiting;
  account(st, share < 1.0 ? IntervalKind::kWaiting : kind, until, step.micro_batch, step.chunk);
  st.b.on_slowest += st.b.waiting - before;
}

void IterationSim::account(Stage& st, IntervalKind kind, SimTime until, int64_t mb, int chunk) {
  if (until <= st.cursor) return;
  const SimTime d = until - st.cursor;
  st.b.of(kind) += d;
  if (!st.timeline.empty() && st.timeline.back().kind == kind && st.timeline.back().end == st.cursor &&
      st.timeline.back().micro_batch == mb && st.timeline.back().chunk == chunk) {
    st.timeline.back().end = until;
  } else {
    st.timeline.push_back(Interval{kind, st.cursor, until, mb, chunk});
  }
  st.cursor = until;
}

coll::Schedule* IterationSim::shared_schedule(int s, coll::Op op, Bytes bytes, bool experts) {
  // Every (tp, cp) slice of the stage has its own data-parallel communicator
  // (over dp x cp ranks for gradients); they all run at once. "auto" picks
  // the algorithm from one of them, run alone. The experts' own groups
  // likewise, each once (found at its lowest rank).
  std::vector<std::vector<uint32_t>> groups;
  if (!experts) {
    for (int tp = 0; tp < p_.tp; ++tp) groups.push_back(layout_.dp_cp_group({tp, 0, 0, s}));
  } else {
    groups = layout_.distinct_groups(s, &Layout::expert_dp_group);
  }
  const auto first = experts ? groups.front() : layout_.dp_cp_group({0, 0, 0, s});
  const Communicator comm = experts ? Communicator::kExpertDp : Communicator::kDp;
  const coll::CollectiveResult& choice = isolated_.run(comm, op, bytes, first, in_.dp_algorithm);
  std::string algo = choice.algorithm;
  if (algo.rfind("nvls", 0) == 0) algo = "nvls";  // nvls-tree, nvls-sharp: one registry entry
  if (dp_algorithm_.empty() && !experts) {
    dp_algorithm_ = choice.algorithm + "/" + choice.protocol;
    dp_chosen_elsewhere_ = choice.chosen_elsewhere;
  }
  const coll::Algorithm& a = in_.algorithms->find(algo);
  coll::Request r;
  r.op = op;
  r.bytes = bytes;
  r.protocol = coll::parse_protocol(choice.protocol, "protocol");
  r.fidelity = coll::Fidelity::kBulk;
  schedules_.push_back(merged_schedule(a, r, isolated_.library(comm), groups));
  return schedules_.back().get();
}

std::unique_ptr<coll::Schedule> IterationSim::merged_schedule(const GroupSchedule& build,
                                                              const std::vector<std::vector<uint32_t>>& groups) const {
  auto merged = std::make_unique<coll::Schedule>();
  for (size_t k = 0; k < groups.size(); ++k) {
    const coll::Group g = coll::make_group(*in_.topology, gpus_of(in_, groups[k]));
    coll::Schedule one = build(g);
    if (k == 0) {
      *merged = std::move(one);
      continue;
    }
    for (size_t i = 0; i < one.phases.size(); ++i) {
      if (i >= merged->phases.size()) {
        merged->phases.push_back(one.phases[i]);
        continue;
      }
      auto& dst = merged->phases[i].sends;
      dst.insert(dst.end(), one.phases[i].sends.begin(), one.phases[i].sends.end());
      merged->phases[i].latency_after = std::max(merged->phases[i].latency_after, one.phases[i].latency_after);
    }
  }
  return merged;
}

const coll::Schedule& IterationSim::ep_schedule(int s, int64_t all_to_alls) {
  auto& slot = ep_schedules_[{s, all_to_alls}];
  if (slot) return *slot;
  // Every EP group of the stage exchanges its tokens at the same time.
  const std::vector<std::vector<uint32_t>> groups = layout_.distinct_groups(s, &Layout::ep_group);
  if (p_.moe_dispatcher == MoeDispatcher::kFlex) {
    // A token's hidden state goes once to each rank and each other domain
    // holding some of its experts (moe_routing.h), all the step's
    // dispatches and combines as one exchange, as below. NCCL's Simple
    // framing stands in for DeepEP's and HybridEP's own, and the routing
    // metadata sent beside each token (indices and probabilities, under 1%
    // of a hidden state) is left out.
    const double tokens = ep_bytes_.as_double() / static_cast<double>(m_.top_k) * static_cast<double>(all_to_alls);
    slot = merged_schedule(
        [&](const coll::Group& g) {
          std::vector<int64_t> ranks;
          for (const auto& d : g.domains) ranks.push_back(static_cast<int64_t>(d.size()));
          const TokenSpread spread = token_spread(m_, ranks);
          std::vector<Bytes> to_domain;
          for (const double hit : spread.domain_hit) to_domain.emplace_back(std::llround(tokens * hit));
          return coll::build_forwarded_all_to_all(g, to_domain, Bytes(std::llround(tokens * spread.rank_hit)),
                                                  coll::Protocol::kSimple, isolated_.library(Communicator::kEp));
        },
        groups);
  } else {
    const coll::CollectiveResult& choice =
        isolated_.run(Communicator::kEp, coll::Op::kAllToAll, ep_bytes_, groups.front());
    coll::Request r;
    r.op = coll::Op::kAllToAll;
    // Bulk: every rank sends to all its peers at once, as NCCL's grouped
    // send/recv does (coll/direct.cc; step fidelity runs the same group).
    // The step's all-to-alls back to back, as one exchange of all their bytes:
    // the links carry the same bytes; each all-to-all still pays its own
    // launch and latency (scaled below). Separate repetitions would cost a
    // barrier per layer in the flow model for no difference in the load.
    r.bytes = ep_bytes_ * all_to_alls;
    r.protocol = coll::parse_protocol(choice.protocol, "protocol");
    r.fidelity = coll::Fidelity::kBulk;
    slot = merged_schedule(in_.algorithms->find(choice.algorithm), r, isolated_.library(Communicator::kEp), groups);
  }
  slot->base_latency = slot->base_latency * all_to_alls;
  for (auto& ph : slot->phases) ph.latency_after = ph.latency_after * all_to_alls;
  return *slot;
}

coll::Executor& IterationSim::new_executor(const std::string& communicator, net::TrafficClass traffic) {
  coll::Executor::Options o{.exclusive = false, .traffic = traffic};
  if (in_.telemetry && in_.telemetry->collective) {
    o.done = &in_.telemetry->collective;
    o.communicator = &communicators_.try_emplace(communicator, communicator).first->second;
  }
  executors_.push_back(std::make_unique<coll::Executor>(*net_, o));
  return *executors_.back();
}

void IterationSim::launch_ep(int s, int64_t all_to_alls, engine::Callback done) {
  const coll::Schedule& sched = ep_schedule(s, all_to_alls);
  new_executor(in_.telemetry ? fmt::format("ep stage {}", s) : std::string()).start(sched, std::move(done));
}

void IterationSim::launch_shared(int s, coll::Op op, Bytes bytes, engine::Callback done, bool experts) {
  coll::Schedule* sched = shared_schedule(s, op, bytes, experts);
  new_executor(in_.telemetry ? fmt::format("dp stage {}", s) : std::string(), net::TrafficClass::kDataParallel)
      .start(*sched, std::move(done));
}

void IterationSim::enqueue_dp(int s, DpJob job) {
  st_[s].dp_queue.push_back(job);
  if (!st_[s].dp_busy) start_next_dp(s);
}

void IterationSim::start_next_dp(int s) {
  Stage& st = st_[s];
  if (st.dp_queue.empty()) {
    if (st.dp_busy) st.dp_busy_total += sim_.now() - st.dp_since;
    st.dp_busy = false;
    resume_held(s);
    maybe_finish(s);
    return;
  }
  if (!st.dp_busy) st.dp_since = sim_.now();
  st.dp_busy = true;
  const DpJob job = st.dp_queue.front();
  st.dp_queue.pop_front();
  // NCCL runs a communicator's collectives one after another on its stream.
  launch_shared(s, job.op, job.bytes, [this, s, job] { dp_done(s, job); }, job.experts);
}

void IterationSim::dp_done(int s, DpJob job) {
  Stage& st = st_[s];
  if (job.chunk >= 0 && job.bucket >= 0) {
    GatherBuckets& b = st.gathers[static_cast<size_t>(job.chunk)].buckets;
    b.done[static_cast<size_t>(job.bucket)] = sim_.now();
    --b.pending;
    if (job.bucket == 0) st.param_ready[job.chunk] = sim_.now();
    if (b.pending == 0 && st.bucket_waiter) {
      engine::Callback resume = std::move(st.bucket_waiter);  // leaves the waiter empty
      resume();
    }
    try_start(s);
  } else if (job.chunk >= 0) {
    st.param_ready[job.chunk] = sim_.now();
    try_start(s);
  }
  start_next_dp(s);
}

std::vector<IterationSim::DpJob> IterationSim::bucket_gathers(int s, int c, GatherBuckets* b) const {
  const ChunkBuckets& chunk = grad_buckets(s, c);
  const std::vector<GradBucket>& buckets = chunk.simulated;
  const int64_t per_param = gathered_param_bytes(t_, p_);
  const int64_t dense = dense_dp_bytes(s, c, per_param), experts = expert_dp_bytes(s, c, per_param);
  const double all = static_cast<double>(std::max<int64_t>(1, buckets.back().ready));
  std::vector<DpJob> jobs;
  // The backward fills the buckets from the chunk's last layers to its
  // first; the forward needs them the other way round, and a bucket as
  // soon as it reaches the first of its tensors: with the backward's
  // `ready` of the chunk's work done once the bucket is full, the forward
  // has that much of its own work left then (its work lies over the
  // tensors as the backward's does).
  for (size_t j = buckets.size(); j-- > 0;) {
    const int k = static_cast<int>(b->rest.size());
    b->rest.push_back(static_cast<double>(buckets[j].ready) / all);
    const Bytes d = bucket_share(dense, chunk.params_through, j), e = bucket_share(experts, chunk.params_through, j);
    if (d.count() > 0) jobs.push_back(DpJob{coll::Op::kAllGather, d, e.count() > 0 ? -1 : c, false, k});
    if (e.count() > 0) jobs.push_back(DpJob{coll::Op::kAllGather, e, c, true, k});
  }
  b->done.assign(b->rest.size(), kNever);
  b->pending = static_cast<int>(b->rest.size());
  return jobs;
}

void IterationSim::await_buckets(int s, int chunk, SimTime work, SimTime computed, engine::Callback then) {
  Stage& st = st_[s];
  const GatherBuckets& b = st.gathers[static_cast<size_t>(chunk)].buckets;
  if (b.pending > 0) {
    st.bucket_waiter = [this, s, chunk, work, computed, then = std::move(then)]() mutable {
      await_buckets(s, chunk, work, computed, std::move(then));
    };
    return;
  }
  // The forward cannot end before each bucket's arrival plus the work it
  // had left when it needed that bucket.
  SimTime end = sim_.now();
  for (size_t k = 0; k < b.rest.size(); ++k)
    end = std::max(end, b.done[k] + SimTime::from_seconds(work.seconds() * b.rest[k]));
  st.gather_wait += end - computed;
  if (end == sim_.now()) return then();
  sim_.schedule_at(end, std::move(then));
}

bool IterationSim::inputs_ready(const Stage& st, int s, const PipelineStep& step, SimTime* sent,
                                SimTime* arrived) const {
  const int pos = step.chunk * p_.pp + s;
  const size_t i = idx(step.micro_batch, step.chunk);
  *sent = *arrived = SimTime::zero();
  if (step.forward && pos > 0) {
    if (st.fwd_ready[i] == kNever) return false;
    *arrived = st.fwd_ready[i];
    *sent = st.fwd_sent[i];
  } else if (!step.forward && pos < positions() - 1) {
    if (st.bwd_ready[i] == kNever) return false;
    *arrived = st.bwd_ready[i];
    *sent = st.bwd_sent[i];
  }
  return !step.forward || st.param_ready[step.chunk] != kNever;
}

void IterationSim::reduce_grads_during(int s, const PipelineStep& step, size_t at, SimTime busy) {
  Stage& st = st_[s];
  if (step.forward || at != st.last_backward[step.chunk]) return;
  // The last micro-batch's backward finishes each layer's gradients in
  // turn; each bucket is reduced as soon as it is full: the dense part
  // over DP x CP, the routed experts' over their expert-DP groups. (With
  // EP > 1 Megatron keeps the experts in buffers of their own; here each
  // bucket carries their share of the bytes, at the dense bucket's time.)
  const int64_t per_param = reduced_grad_bytes(t_, p_);
  const int64_t dense = p_.dp * p_.cp > 1 ? dense_dp_bytes(s, step.chunk, per_param) : 0;
  const int64_t experts = expert_dp_bytes(s, step.chunk, per_param);
  if (dense == 0 && experts == 0) return;
  const ChunkBuckets& chunk = grad_buckets(s, step.chunk);
  const std::vector<GradBucket>& buckets = chunk.simulated;
  ANATOMY_CHECK(!buckets.empty(), "a chunk with gradients to reduce has buckets");
  const coll::Op op = p_.zero_stage >= 1 ? coll::Op::kReduceScatter : coll::Op::kAllReduce;
  // A bucket is full once the backward has done its last tensor: at the
  // share of the step's work (its GEMMs' multiply-adds) done by then.
  const double done = static_cast<double>(std::max<int64_t>(1, buckets.back().ready));
  for (size_t j = 0; j < buckets.size(); ++j) {
    std::vector<DpJob> jobs;
    if (dense > 0) jobs.push_back(DpJob{op, bucket_share(dense, chunk.params_through, j), -1, false});
    if (experts > 0) jobs.push_back(DpJob{op, bucket_share(experts, chunk.params_through, j), -1, true});
    const SimTime ready =
        j + 1 == buckets.size() ? busy : SimTime::from_seconds(busy.seconds() * buckets[j].ready / done);
    for (const DpJob& job : jobs) {
      if (!p_.overlap_grad_reduce) {
        // Megatron without overlap (the 2021 stack's train_step, and
        // Megatron-Core's finalize_model_grads) reduces every chunk's
        // gradients after forward_backward returns: after the flush, not
        // at the chunk's own last backward.
        st.after_flush.push_back(job);
        continue;
      }
      sim_.schedule_in(ready, [this, s, job] { enqueue_dp(s, job); });
    }
  }
}

void IterationSim::launch_gather(int s, size_t c) {
  Stage& st = st_[s];
  ChunkGather& g = st.gathers[c];
  if (g.launched) return;
  g.launched = true;
  for (const DpJob& job : g.jobs) enqueue_dp(s, job);
}

void IterationSim::launch_gathers_due(int s, size_t i) {
  Stage& st = st_[s];
  if (st.gathers.empty() || i < st.gathers_checked || i >= st.order.size()) return;
  st.gathers_checked = i + 1;
  const PipelineStep& step = st.order[i];
  if (!step.forward) return;
  const int64_t forward = st.forwards_seen++;
  for (size_t c = 0; c < st.gathers.size(); ++c)
    if (st.gathers[c].at > 0 && st.gathers[c].at <= forward) launch_gather(s, c);
  // The chunk's own, if nothing launched it yet: its forward pre-hook does.
  launch_gather(s, static_cast<size_t>(step.chunk));
}

void IterationSim::try_start(int s) {
  Stage& st = st_[s];
  if (st.running || st.next >= st.order.size()) return;
  launch_gathers_due(s, st.next);
  if (!st.starts_pair.empty() && st.starts_pair[st.next]) return start_pair(s);
  const PipelineStep step = st.order[st.next];
  SimTime arrived, sent;
  if (!inputs_ready(st, s, step, &sent, &arrived)) return;
  const SimTime now = sim_.now();
  // Idle until now: a bubble until the upstream stage started sending, then
  // pipeline communication, then waiting for this chunk's parameters.
  account(st, IntervalKind::kBubble, std::min(now, sent));
  account(st, IntervalKind::kPpComm, std::min(now, arrived));
  account(st, IntervalKind::kDpComm, now);

  const StepCost& c = cost_of(s, step);
  st.running = true;
  st.step_start = now;
  st.pending_parts = 1;
  const bool zero3 = p_.zero_stage >= 3 && p_.dp * p_.cp > 1;
  // With one hardware queue the step's own gathers and reduce-scatters hold
  // its compute back for as long as they run: serial, as without overlap.
  const bool zero3_serial = zero3 && (!p_.overlap_param_gather || p_.one_hardware_queue());
  if (zero3_serial) {
    // Gathers not overlapped (DeepSpeed ZeRO-3 of 2021: every parameter
    // all-gather synchronized the device before the sub-module ran): the
    // step's collectives come first and its compute starts after them.
    const SimTime comm = zero3_step_comm(s, step);
    account(st, IntervalKind::kDpComm, now + comm, step.micro_batch, step.chunk);
    st.step_start = now + comm;
  }
  // A data-parallel collective running alongside takes from the step: its
  // SMs, or with one queue all of it. ZeRO-3's own gathers and
  // reduce-scatters start with the step and take their share for as long
  // as they run: the whole step (slowed()) when they outlast it, else x of
  // each second they run, the compute making up the rest after them. The
  // DP stream's collectives take theirs as they overlap the compute
  // (settle_compute).
  const bool own_gathers = zero3 && !zero3_serial;
  const SimTime own_comm = own_gathers ? zero3_step_comm(s, step) : SimTime::zero();
  st.dp_mark = dp_busy_until(st);
  st.dp_stretch = own_gathers ? std::min(slowed(c.compute, Communicator::kDp) - c.compute,
                                         SimTime::from_seconds(own_comm.seconds() *
                                                               collective_sm_share(Communicator::kDp)))
                              : SimTime::zero();
  st.ep_stretch = SimTime::zero();
  st.gather_wait = SimTime::zero();
  const SimTime busy = (st.step_start - now) + c.compute + st.dp_stretch + c.in_step_comm();
  if (zero3_serial) {
    // Already accounted for above.
  } else if (zero3) {
    // ZeRO-3 / FSDP: every step gathers this chunk's parameters, and every
    // backward reduce-scatters its gradients, overlapped with the compute,
    // one collective per gather unit (FSDP: a layer; DeepSpeed: its prefetch
    // bucket) on the data-parallel stream, so each pays its latency.
    ++st.pending_parts;
    sim_.schedule_in(own_comm, [this, s, step] {
      if (--st_[s].pending_parts == 0) step_done(s, step);
    });
  } else {
    reduce_grads_during(s, step, st.next, busy);
  }
  // Scheduled after the bucket events: a bucket ready at the step's last
  // instant is queued before the step's end looks at the queue.
  // Then the step's EP all-to-alls, on the shared network: the MoE layers'
  // tokens cannot move on before their experts' outputs are back.
  engine::Callback computed = [this, s, step, a2a = c.ep_all_to_alls, comm = c.in_step_comm()] {
    sim_.schedule_in(comm, [this, s, step, a2a] {
      auto finish = [this, s, step] {
        st_[s].ep_end = sim_.now();
        if (--st_[s].pending_parts == 0) step_done(s, step);
      };
      if (a2a > 0)
        launch_ep(s, a2a, std::move(finish));
      else
        finish();
    });
  };
  // A chunk's first forward may have started on its first gathered bucket:
  // it ends once the rest have arrived in time for the layers that use them.
  if (step.forward && buckets_pending(st, step.chunk))
    computed = [this, s, chunk = step.chunk, work = c.compute, then = std::move(computed)]() mutable {
      await_buckets(s, chunk, work, sim_.now(), std::move(then));
    };
  after_compute(s, busy - c.in_step_comm(), own_gathers, std::move(computed));
}

// Combined 1F1B: the pair starts when both steps' inputs are there. Their
// compute runs one after the other on the compute stream, with the SMs
// the all-to-alls take; both steps' all-to-alls start with the pair on the
// communication stream, each hidden behind the other step's compute (the
// layers interleave: F.attn, B.combine, F.dispatch, B.experts, ...), except
// with one hardware queue, where they hold the compute back until they end.
// The pair ends when both are done, and only then are its outputs sent, as
// Megatron-LM sends after its combined forward-backward step.
void IterationSim::start_pair(int s) {
  Stage& st = st_[s];
  const PipelineStep a = st.order[st.next], b = st.order[st.next + 1];
  launch_gathers_due(s, st.next + 1);
  SimTime sent_a, arrived_a, sent_b, arrived_b;
  if (!inputs_ready(st, s, a, &sent_a, &arrived_a) || !inputs_ready(st, s, b, &sent_b, &arrived_b)) return;
  // A pair's forward takes its chunk whole: every bucket gathered.
  for (const PipelineStep& x : {a, b})
    if (x.forward && buckets_pending(st, x.chunk)) return;
  const SimTime now = sim_.now();
  account(st, IntervalKind::kBubble, std::min(now, std::max(sent_a, sent_b)));
  account(st, IntervalKind::kPpComm, std::min(now, std::max(arrived_a, arrived_b)));
  account(st, IntervalKind::kDpComm, now);
  const StepCost &ca = cost_of(s, a), &cb = cost_of(s, b);
  const int64_t a2a = ca.ep_all_to_alls + cb.ep_all_to_alls;
  const bool shared_sms = a2a > 0;
  st.running = true;
  st.step_start = st.ep_end = now;
  st.dp_mark = dp_busy_until(st);
  st.dp_stretch = st.ep_stretch = SimTime::zero();
  const SimTime comm = ca.in_step_comm() + cb.in_step_comm();
  const SimTime busy = ca.compute + cb.compute + comm;
  auto part_done = [this, s] {
    Stage& cur = st_[s];
    cur.ep_end = std::max(cur.ep_end, sim_.now());
    if (--cur.pending_parts == 0) pair_done(s);
  };
  if (shared_sms && p_.one_hardware_queue()) {
    // One queue: the all-to-alls hold the pair's compute back until they
    // end (Megatron-LM asks for more connections for this overlap), so the
    // pair computes after them, its gradients filled from then on, settled
    // against the DP stream as usual; the wait is exposed EP time, as the
    // plain schedule's all-to-alls are.
    st.pending_parts = 1;
    launch_ep(s, a2a, [this, s, a, b, busy, comm, part_done] {
      Stage& cur = st_[s];
      cur.ep_stretch = sim_.now() - cur.step_start;
      cur.dp_mark = dp_busy_until(cur);  // the DP stream held nothing back while no compute ran
      reduce_grads_during(s, a, cur.next, busy);
      reduce_grads_during(s, b, cur.next + 1, busy);
      after_compute(s, busy - comm, false, [this, comm, part_done] { sim_.schedule_in(comm, part_done); });
    });
    return;
  }
  reduce_grads_during(s, a, st.next, busy);
  reduce_grads_during(s, b, st.next + 1, busy);
  st.pending_parts = a2a > 0 ? 2 : 1;
  // The all-to-alls take their SMs while they run, as the DP stream's
  // collectives take theirs, both settled against the pair's compute at its
  // end (settle_compute): a pair whose compute outlasts them loses their
  // share of their own time, not of its.
  st.pair_ep = shared_sms;
  st.ep_mark = now;
  st.ep_busy_to = SimTime::max();
  if (a2a > 0)
    launch_ep(s, a2a, [this, s, part_done] {
      st_[s].ep_busy_to = sim_.now();
      part_done();
    });
  after_compute(s, busy - comm, false, [this, comm, part_done] { sim_.schedule_in(comm, part_done); });
}

void IterationSim::pair_done(int s) {
  Stage& st = st_[s];
  st.pair_ep = false;
  const PipelineStep a = st.order[st.next], b = st.order[st.next + 1];
  const StepCost &ca = cost_of(s, a), &cb = cost_of(s, b);
  const SimTime t0 = st.step_start;
  account_compute(st, a, s, t0 + ca.compute);
  account_compute(st, b, s, t0 + ca.compute + cb.compute);
  const PipelineStep& back = a.forward ? b : a;
  st.b.recompute += at_mean_share((a.forward ? cb : ca).recompute, mean_share(s, back));
  const SimTime computed = t0 + ca.compute + cb.compute;
  account(st, IntervalKind::kEpComm, computed + st.ep_stretch, b.micro_batch, b.chunk);
  const SimTime stretched = computed + st.ep_stretch + st.dp_stretch;
  account(st, IntervalKind::kDpComm, stretched, b.micro_batch, b.chunk);
  // With one queue a pair's all-to-alls ran before its compute, not beside it.
  st.b.on_collective_sms += (p_.one_hardware_queue() ? SimTime::zero() : st.ep_stretch) + st.dp_stretch;
  account(st, IntervalKind::kTpComm, stretched + ca.tp_comm + cb.tp_comm, b.micro_batch, b.chunk);
  account(st, IntervalKind::kCpComm, stretched + ca.in_step_comm() + cb.in_step_comm(), b.micro_batch, b.chunk);
  account(st, IntervalKind::kEpComm, st.ep_end, b.micro_batch, b.chunk);
  account(st, IntervalKind::kDpComm, sim_.now(), b.micro_batch, b.chunk);
  st.next += 2;
  // Both outputs go on; blocking p2p holds the stage until both have arrived.
  struct Out {
    int to;
    PipelineStep step;
  };
  std::vector<Out> outs;
  for (const PipelineStep& x : {a, b}) {
    const int pos = x.chunk * p_.pp + s;
    const int to = x.forward ? pos + 1 : pos - 1;
    if (to >= 0 && to < positions()) outs.push_back({to, x});
  }
  st.pair_sends = 0;
  for (const Out& o : outs)
    if (!p_.overlap_p2p_comm && stage_of(o.to) != s) ++st.pair_sends;
  const bool blocking = st.pair_sends > 0;
  for (const Out& o : outs) {
    if (!p_.overlap_p2p_comm && stage_of(o.to) != s) {
      send(s, o.to, o.step.micro_batch, o.step.forward, [this, s] {
        if (--st_[s].pair_sends == 0) after_step(s);
      });
    } else {
      send(s, o.to, o.step.micro_batch, o.step.forward, {});
    }
  }
  if (!blocking) after_step(s);
}

void IterationSim::send(int from_stage, int to_pos, int64_t mb, bool forward, engine::Callback sent) {
  const int to = stage_of(to_pos);
  const int chunk = to_pos / p_.pp;
  const size_t i = idx(mb, chunk);
  const SimTime now = sim_.now();
  (forward ? st_[to].fwd_sent : st_[to].bwd_sent)[i] = now;
  auto deliver = [this, to, i, forward, sent = std::move(sent)]() mutable {
    Stage& d = st_[to];
    (forward ? d.fwd_ready : d.bwd_ready)[i] = sim_.now();
    if (sent) sent();
    try_start(to);
  };
  if (to == from_stage) {
    deliver();
    return;
  }
  // Delivered when both the bytes have crossed and NCCL's channels are done
  // (the bound is zero across domains, where the network paces the send).
  const SimTime done = now + pp_channel_bound(from_stage, to);
  net_->transfer(rep_node(from_stage), rep_node(to), cost_[from_stage].activation_bytes,
                 [this, done, deliver = std::move(deliver)]() mutable {
                   if (sim_.now() < done) sim_.schedule_at(done, std::move(deliver));
                   else deliver();
                 });
}

SimTime IterationSim::pp_channel_bound(int from_stage, int to_stage) {
  const auto key = std::make_pair(from_stage, to_stage);
  if (auto it = pp_bounds_.find(key); it != pp_bounds_.end()) return it->second;
  const topo::Topology& t = *in_.topology;
  const uint32_t d = t.domain_of(rep_gpu(from_stage));
  SimTime bound;
  if (d == t.domain_of(rep_gpu(to_stage)) && t.domain(d).switch_node != topo::kNoNode) {
    bool spans = false;
    for (int s = 0; s < p_.pp && !spans; ++s) spans = t.domain_of(rep_gpu(s)) != d;
    bound = coll::p2p_channel_bound(in_.library, {.ranks = p_.pp, .spans_domains = spans},
                                    cost_[from_stage].activation_bytes, {1}, SimTime::zero())
                .time;
  }
  pp_bounds_.emplace(key, bound);
  return bound;
}

void IterationSim::step_done(int s, PipelineStep step) {
  Stage& st = st_[s];
  const StepCost& c = cost_of(s, step);
  const SimTime t0 = st.step_start;
  account_compute(st, step, s, t0 + c.compute);
  if (!step.forward) st.b.recompute += at_mean_share(c.recompute, mean_share(s, step));
  const SimTime stretched = t0 + c.compute + st.dp_stretch + st.gather_wait;
  account(st, IntervalKind::kDpComm, stretched, step.micro_batch, step.chunk);
  st.b.on_collective_sms += st.dp_stretch;
  account(st, IntervalKind::kTpComm, stretched + c.tp_comm, step.micro_batch, step.chunk);
  account(st, IntervalKind::kCpComm, stretched + c.in_step_comm(), step.micro_batch, step.chunk);
  account(st, IntervalKind::kEpComm, st.ep_end, step.micro_batch, step.chunk);
  account(st, IntervalKind::kDpComm, sim_.now(), step.micro_batch, step.chunk);  // FSDP beyond compute
  ++st.next;
  const int pos = step.chunk * p_.pp + s;
  const int to = step.forward ? pos + 1 : pos - 1;
  const bool sends = to >= 0 && to < positions();
  if (sends && !p_.overlap_p2p_comm && stage_of(to) != s) {
    // Blocking p2p: the stage is held until its send has arrived.
    send(s, to, step.micro_batch, step.forward, [this, s] { after_step(s); });
    return;
  }
  if (sends) send(s, to, step.micro_batch, step.forward, {});
  after_step(s);
}

void IterationSim::after_step(int s) {
  Stage& st = st_[s];
  account(st, IntervalKind::kPpComm, sim_.now());
  st.running = false;
  if (st.next == st.order.size()) {
    st.compute_done = true;
    for (const DpJob& job : st.after_flush) enqueue_dp(s, job);
    st.after_flush.clear();
    maybe_finish(s);
  }
  try_start(s);
}

void IterationSim::maybe_finish(int s) {
  Stage& st = st_[s];
  if (!st.compute_done || st.finished || st.dp_busy || !st.dp_queue.empty()) return;
  // The gradient buckets still being scheduled would have been queued by
  // now: the last backward's bucket events all fire before it ends.
  st.finished = true;
  account(st, IntervalKind::kDpComm, sim_.now());
  // ZeRO shards the optimizer over DP x CP (or a shard group), the
  // routed experts over their expert-DP ranks.
  const bool sharded = p_.zero_stage >= 1;
  const int64_t shards = sharded ? static_cast<int64_t>(p_.zero_shards()) : 1;
  const int64_t expert_shards = sharded ? std::max(1, p_.expert_dp()) : 1;
  const int64_t experts = cost_[s].expert_params();
  const int64_t updated = (cost_[s].params() - experts) / shards + experts / expert_shards;
  const SimTime opt =
      in_.compute->optimizer_step(std::max<int64_t>(1, updated), optimizer_state(t_), t_.optimizer_impl);
  sim_.schedule_in(opt, [this, s] {
    Stage& st = st_[s];
    account(st, IntervalKind::kOptimizer, sim_.now());
    const bool gather_after = p_.zero_stage >= 1 && p_.zero_stage < 3 && !p_.overlap_param_gather && p_.dp * p_.cp > 1;
    if (!gather_after) {
      st.end = sim_.now();
      return;
    }
    // Megatron-Core's distributed optimizer without overlap gathers each
    // chunk's updated parameters bucket by bucket, every all-gather
    // synchronous (distrib_optimizer.py step_with_ready_grads: "launch
    // synchronous all-gather communication calls here"); the parameters
    // share the gradients' buckets.
    gather_after_step(s, 0, 0);
  });
}

// Bucket `bucket` of chunk `chunk`, then the next, until the stage's last.
void IterationSim::gather_after_step(int s, int chunk, int bucket) {
  if (chunk == p_.virtual_stages) {
    Stage& st = st_[s];
    account(st, IntervalKind::kDpComm, sim_.now());
    st.end = sim_.now();
    return;
  }
  const ChunkBuckets& buckets = grad_buckets(s, chunk);
  if (bucket == static_cast<int>(buckets.simulated.size())) return gather_after_step(s, chunk + 1, 0);
  // The dense part over DP x CP, then the routed experts' over their own groups.
  const int64_t per_param = gathered_param_bytes(t_, p_);
  const size_t j = static_cast<size_t>(bucket);
  const Bytes dense = bucket_share(dense_dp_bytes(s, chunk, per_param), buckets.params_through, j);
  const Bytes experts = bucket_share(expert_dp_bytes(s, chunk, per_param), buckets.params_through, j);
  auto next = [this, s, chunk, bucket] { gather_after_step(s, chunk, bucket + 1); };
  if (dense.count() == 0 && experts.count() == 0) return next();  // an empty chunk
  launch_shared(s, coll::Op::kAllGather, dense, [this, s, experts, next] {
    if (experts.count() > 0)
      launch_shared(s, coll::Op::kAllGather, experts, next, true);
    else
      next();
  });
}

IterationResult IterationSim::run() {
  micro_batches_ = t_.micro_batches(p_);
  plan_buckets();
  CommTimer timer = [this](Communicator c, coll::Op op, Bytes bytes, const std::vector<uint32_t>& ranks) {
    return isolated_.run(c, op, bytes, ranks).time;
  };
  StepCostModel costs(m_, p_, t_, *in_.compute, timer);
  ep_bytes_ = costs.ep_all_to_all_bytes();
  // The same steps on the mean GPU (their collectives as before), for the
  // share of each step's compute it computes.
  std::optional<StepCostModel> mean;
  if (in_.compute_mean != nullptr) mean.emplace(m_, p_, t_, *in_.compute_mean, timer);
  const int v = p_.virtual_stages;
  st_ = std::vector<Stage>(static_cast<size_t>(p_.pp));
  for (int s = 0; s < p_.pp; ++s) {
    cost_.push_back(costs.stage(s));
    if (mean) {
      // Before a straggler condition scales the stage below: the share is
      // the spread's alone, and the scaled remainder stays the straggler's
      // compute, as its telemetry reads it.
      const StageCost average = mean->stage(s);
      auto shares = [](const std::vector<StepCost>& slow, const std::vector<StepCost>& avg) {
        std::vector<double> out;
        for (size_t i = 0; i < slow.size(); ++i)
          out.push_back(slow[i].compute > SimTime::zero()
                            ? std::min(1.0, avg[i].compute.seconds() / slow[i].compute.seconds())
                            : 1.0);
        return out;
      };
      mean_share_.emplace_back(shares(cost_.back().forward, average.forward),
                               shares(cost_.back().backward, average.backward));
    }
    if (static_cast<size_t>(s) < in_.stage_compute_scale.size() && in_.stage_compute_scale[s] != 1.0) {
      const double k = in_.stage_compute_scale[s];
      for (auto* steps : {&cost_.back().forward, &cost_.back().backward})
        for (StepCost& c : *steps) {
          c.compute = SimTime::from_seconds(c.compute.seconds() * k);
          c.recompute = SimTime::from_seconds(c.recompute.seconds() * k);
        }
    }
    Stage& st = st_[s];
    // Combined 1F1B runs one more warm-up forward with interleaving, so
    // that every steady-state pair is independent (Megatron-LM).
    const bool pairs = p_.ep_comm_overlap && m_.moe() && p_.ep > 1;
    st.order = pipeline_order(s, p_.pp, micro_batches_, v, pairs && v > 1 ? 1 : 0, p_.microbatch_group);
    const size_t n = static_cast<size_t>(micro_batches_ * v);
    st.fwd_ready.assign(n, kNever);
    st.bwd_ready.assign(n, kNever);
    st.fwd_sent.assign(n, SimTime::zero());
    st.bwd_sent.assign(n, SimTime::zero());
    st.last_backward.assign(v, 0);
    for (size_t i = 0; i < st.order.size(); ++i)
      if (!st.order[i].forward) st.last_backward[st.order[i].chunk] = i;
    if (pairs) {
      st.starts_pair.assign(st.order.size(), false);
      for (const size_t first : combined_pairs(s, p_.pp, micro_batches_, v, p_.microbatch_group))
        st.starts_pair[first] = true;
    }
    st.param_ready.assign(v, SimTime::zero());
  }
  // ZeRO-1/2 with overlapped parameter gathers: the previous iteration's
  // updated parameters are gathered while this one's first forwards run;
  // with interleaving, Megatron-LM launches a chunk's a pipeline's depth of
  // forwards before its first use (align_param_gather), or at it.
  const bool gather_ahead = p_.overlapped_sharded_gathers() && p_.dp * p_.cp > 1;
  const bool lazy = v > 1 && p_.framework == ShardingFramework::kMegatron;
  const int64_t group = p_.microbatch_group > 0 ? p_.microbatch_group : p_.pp;
  for (int s = 0; s < p_.pp && gather_ahead; ++s) {
    Stage& st = st_[s];
    st.gathers.assign(v, {});
    for (int c = 0; c < v; ++c) {
      // The dense part over DP x CP, then the routed experts' over their
      // own groups; the chunk waits for the last.
      const int64_t per_param = gathered_param_bytes(t_, p_);
      const int64_t dense = dense_dp_bytes(s, c, per_param), experts = expert_dp_bytes(s, c, per_param);
      if (dense == 0 && experts == 0) continue;  // an empty chunk: nothing to wait for
      st.param_ready[c] = kNever;
      if (p_.framework == ShardingFramework::kMegatron && grad_buckets(s, c).simulated.size() > 1) {
        // Megatron's DDP gathers a bucketed chunk bucket by bucket, in the
        // buckets its gradients are reduced in, and each layer's forward
        // pre-hook waits for its own bucket only (finish_param_sync).
        st.gathers[c].jobs = bucket_gathers(s, c, &st.gathers[c].buckets);
      } else {
        st.gathers[c].jobs.push_back(DpJob{coll::Op::kAllGather, Bytes(dense), experts > 0 ? -1 : c});
        if (experts > 0) st.gathers[c].jobs.push_back(DpJob{coll::Op::kAllGather, Bytes(experts), c, true});
      }
      // Megatron-LM's interleaved schedule launches chunk c >= 2's gather
      // in the forward step whose virtual micro-batch plus the stage's rank
      // is chunk c - 1's first (group x (c - 1)).
      if (lazy) st.gathers[c].at = !p_.align_param_gather ? -1 : c < 2 ? 0 : group * (c - 1) - s;
    }
    for (int c = 0; c < v; ++c)
      if (st.gathers[c].at == 0) launch_gather(s, c);
  }
  if (in_.link_samples > 0) recorder_ = std::make_unique<net::LinkRecorder>(*net_);
  if (in_.telemetry && in_.telemetry->on_network) in_.telemetry->on_network(*net_);
  for (int s = 0; s < p_.pp; ++s) try_start(s);
  SimTime background_finished;
  for (const auto& b : in_.background)
    net_->transfer(b.src, b.dst, b.bytes, [this, &background_finished] { background_finished = sim_.now(); });
  sim_.run();

  IterationResult r;
  SimTime T;
  for (const auto& st : st_) {
    ANATOMY_CHECK(st.finished, "a pipeline stage did not finish its iteration");
    T = std::max(T, st.end);
  }
  r.iteration = T;
  for (int s = 0; s < p_.pp; ++s) r.stage_gpus.push_back(rep_gpu(s));
  for (auto& st : st_) {
    account(st, IntervalKind::kWaiting, T);
    ANATOMY_CHECK(st.b.total() == T, "a stage's time buckets do not add up to the iteration");
    r.stages.push_back(st.b);
    r.timeline.push_back(st.timeline);
  }
  auto mean_of = [&](SimTime TimeBreakdown::*field) {
    int64_t sum = 0;
    for (const auto& b : r.stages) sum += (b.*field).count_ps();
    return SimTime::ps(sum / static_cast<int64_t>(r.stages.size()));
  };
  for (SimTime TimeBreakdown::*f :
       {&TimeBreakdown::forward_compute, &TimeBreakdown::backward_compute, &TimeBreakdown::optimizer,
        &TimeBreakdown::tp_comm, &TimeBreakdown::cp_comm, &TimeBreakdown::ep_comm, &TimeBreakdown::dp_comm,
        &TimeBreakdown::pp_comm, &TimeBreakdown::bubble,
        &TimeBreakdown::waiting, &TimeBreakdown::recompute, &TimeBreakdown::on_slowest,
        &TimeBreakdown::on_collective_sms})
    r.mean.*f = mean_of(f);
  r.micro_batches = micro_batches_;
  const double secs = T.seconds();
  const double gpus = p_.gpus();
  r.tokens_per_s = static_cast<double>(t_.tokens_per_iteration()) / secs;
  r.model_flops = model_flops(m_, t_);
  r.tflops_per_gpu = r.model_flops / secs / gpus / 1e12;
  // The papers' count is of a model whose every weight trains: none for LoRA.
  r.megatron_tflops_per_gpu =
      t_.lora_rank > 0 ? 0 : megatron_flops(m_, t_.global_batch, t_.seq_len) / secs / gpus / 1e12;
  r.peak_tflops = hw::peak_tflops(in_.compute->accelerator(), t_.precision);
  if (r.peak_tflops <= 0) r.peak_tflops = hw::peak_tflops(in_.compute->accelerator(), hw::Precision::kBf16);
  r.mfu = r.tflops_per_gpu / r.peak_tflops;
  r.hfu = hardware_flops(m_, p_, t_) / secs / gpus / 1e12 / r.peak_tflops;
  r.mfu_causal = model_flops_causal(m_, t_) / secs / gpus / 1e12 / r.peak_tflops;
  r.compute_source = in_.compute->describe();
  r.library = in_.library.name;
  r.dp_algorithm = dp_algorithm_.empty() ? "none (no data parallelism)" : dp_algorithm_;
  if (p_.overlap_grad_reduce && p_.zero_stage < 3 && p_.dp * p_.cp > 1) {
    for (int s = 0; s < p_.pp; ++s)
      for (int c = 0; c < p_.virtual_stages; ++c)
        r.dp_buckets = std::max(r.dp_buckets, static_cast<int64_t>(grad_buckets(s, c).configured));
    r.dp_buckets_simulated = static_cast<int>(std::min<int64_t>(r.dp_buckets, kMaxBucketsPerChunk));
    r.dp_bucket_bytes = gradient_bucket_bytes(t_, p_);
  }
  r.algorithms_chosen_elsewhere = dp_chosen_elsewhere_;
  r.network_transfers = static_cast<int64_t>(net_->counters().transfers_started);
  r.background_finished = background_finished;
  const topo::Topology& topo = *in_.topology;
  std::vector<LinkLoad> loads;
  for (topo::LinkId l = 0; in_.rank_links && l < topo.num_links(); ++l) {
    const Bytes b = net_->link_bytes(l);
    if (b.count() <= 0) continue;
    const topo::Link& link = topo.link(l);
    LinkLoad x;
    x.link = l;
    x.bytes = b;
    x.utilization = b.as_double() * 8 / (link.bandwidth.bps() * secs);
    loads.push_back(x);
  }
  // Busiest by utilization, not bytes: a slower link carrying fewer bytes
  // can be the fuller one. The 8 busiest of each kind, so the fabric's show
  // up beside the busier NVLink and PCIe links.
  std::stable_sort(loads.begin(), loads.end(), [](const LinkLoad& a, const LinkLoad& b) {
    if (a.utilization != b.utilization) return a.utilization > b.utilization;
    return a.bytes > b.bytes;
  });
  std::map<topo::LinkKind, int> kept;
  std::vector<LinkLoad> busiest;
  for (const auto& x : loads)
    if (kept[topo.link(x.link).kind]++ < 8) busiest.push_back(x);
  loads = std::move(busiest);
  for (auto& x : loads) {
    const topo::Link& link = topo.link(x.link);
    x.name = topo.link_label(x.link);
    x.kind = topo::to_string(link.kind);
  }
  r.busiest_links = std::move(loads);
  if (recorder_) sample_links(r);
  return r;
}

void IterationSim::sample_links(IterationResult& r) const {
  if (r.iteration <= SimTime::zero()) return;
  const SimTime interval = SimTime::ps(std::max<int64_t>(1, r.iteration.count_ps() / in_.link_samples));
  for (LinkLoad& l : r.busiest_links) {
    const double capacity = in_.topology->link(l.link).bandwidth.bps() / 8 * interval.seconds();
    for (int k = 0; k < in_.link_samples; ++k)
      l.utilization_series.push_back(recorder_->bytes_between(l.link, interval * k, interval * (k + 1)) / capacity);
  }
}

}  // namespace

IterationResult simulate_iteration(const IterationInputs& in) {
  const hw::Accelerator& gpu = in.compute->accelerator();
  if (!in.rank_to_gpu.empty() && static_cast<int>(in.rank_to_gpu.size()) != in.plan->gpus())
    throw core::InputError({"", 0, "placement"}, fmt::format("{} GPUs placed for a plan of {}", in.rank_to_gpu.size(),
                                                             in.plan->gpus()));
  if (static_cast<int>(in.topology->num_gpus()) < in.plan->gpus())
    throw core::InputError({"", 0, "cluster.gpus"},
                           fmt::format("the plan needs {} GPUs but the cluster has {}", in.plan->gpus(),
                                       in.topology->num_gpus()));
  std::string warning;
  try {
    check_memory_fits(*in.model, *in.plan, *in.training, gpu.hbm_capacity, gpu.name, memory_part(gpu));
  } catch (const core::InputError& e) {
    if (in.enforce_memory) throw;
    warning = e.message();
  }
  IterationSim sim(in);
  IterationResult r = sim.run();
  r.memory_warning = warning;
  r.placement_note = unlike_groups_note(unlike_groups(Layout(*in.plan), *in.topology, in.rank_to_gpu));
  r.memory = estimate_memory(*in.model, *in.plan, *in.training, memory_part(gpu));
  return r;
}

}  // namespace anatomy::workload
