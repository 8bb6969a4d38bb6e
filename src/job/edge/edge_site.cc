#include "job/edge/edge_site.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "core/error.h"
#include "core/rng.h"
#include "hw/sync_pace.h"
#include "job/edge/edge_tiers.h"
#include "workload/cp_passes.h"

namespace anatomy::job::edge {
namespace {

using core::InputError;
using core::transfer_time;

struct Uncovered {
  SimTime from, to;
  int lines = 0;
};

class Site {
 public:
  explicit Site(const EdgeInputs& in) : in_(in), sp_(in.spec), streams_(sp_.seed) { prepare(); }

  EdgeResult run() {
    r_.registry.push_back({0, -1, "serving"});
    live_.push_back(0);
    SimTime t;
    for (int c = 0; sp_.retrain.interval > SimTime::zero(); ++c) {
      // c x interval in 128 bits: past a duration near SimTime's 106 days
      // the product overflows int64 (a fuzz finding).
      const core::JobTime due = core::JobTime(sp_.retrain.interval) * c;
      if (due >= core::JobTime(sp_.duration)) break;
      const SimTime start = std::max(due.to_sim(), t);
      if (start >= sp_.duration) break;
      t = cycle(c, start).end();
    }
    if (sp_.faults.power.enabled && sp_.faults.power.at < sp_.duration) power_outage();
    r_.simulated = std::max(sp_.duration, t);
    coverage();
    tiers();
    accounting();
    return r_;
  }

 private:
  void prepare() {
    const workload::EdgeModel& m = in_.model;
    const Serving& sv = sp_.serving;
    nodes_ = sv.nodes;
    rollout_nodes_ = sp_.rollout.nodes == 0 ? nodes_ : sp_.rollout.nodes;
    if (rollout_nodes_ > nodes_)
      throw InputError({"", 0, "edge.rollout.nodes"},
                       fmt::format("{} nodes to roll out to, but only {} serve (edge.serving.nodes)", rollout_nodes_, nodes_));
    r_.training_gpus = sv.shared ? in_.gpus : in_.gpus - nodes_;
    if (nodes_ > in_.gpus || r_.training_gpus < 1)
      throw InputError({"", 0, "edge.serving.nodes"},
                       fmt::format("{} serving nodes of {} accelerators leave none to train (or set shared: true)", nodes_,
                                   in_.gpus));
    const hw::ComputeModel& c = *in_.compute;
    const Retrain& rt = sp_.retrain;
    r_.inference_time = workload::inference_time(m, 1, c, in_.precision);
    const hw::ComputeModel train =
        in_.pace_training ? c.paced(hw::synchronous_pace(c.accelerator(), r_.training_gpus), "") : c;
    if (r_.training_gpus % rt.context_parallel != 0)
      throw InputError({"", 0, "edge.retrain.context_parallel"},
                       fmt::format("{} does not divide the {} training accelerators", rt.context_parallel,
                                   r_.training_gpus));
    r_.samples_per_step = rt.batch_per_gpu * (r_.training_gpus / rt.context_parallel);
    const workload::EdgeModel shard = workload::split_sequence(m, rt.context_parallel, rt.context_parallel_comm);
    step_compute_ = workload::train_step_time(shard, rt.mode, rt.lora_rank,
                                              rt.batch_per_gpu, train, in_.precision,
                                              {.recompute_layers = rt.recompute_layers,
                                               .fp8_attention = in_.fp8_attention,
                                               .quantized_weights = rt.quantized_weights,
                                               .lora_dropout = rt.lora_dropout > 0});
    // All-to-all context parallelism's exchanges, on the critical path: the
    // forward's four a layer, again for the layers it recomputes (as
    // train_step_time replays them), and the backward's four where the
    // backward passes through attention (full and LoRA fine-tuning). Under
    // FP8 attention the FP8 data, as delayed scaling exchanges it
    // (workload/cp_passes.h; every tensor the same width then).
    const bool through_attention = workload::backward_through_inputs(rt.mode);
    const int64_t width = workload::cp_exchange_bytes(in_.fp8_attention, workload::kEdgeAttentionRecipe).qkv;
    for (const workload::ModelOp& op : shard.ops) {
      const int64_t passes = op.repeat + workload::recomputed_repeats(op, rt.recompute_layers) +
                             (through_attention ? op.repeat : 0);
      for (Bytes b : workload::cp_all_to_all_bytes(op, rt.batch_per_gpu, width)) {
        if (!in_.all_to_all)
          throw std::logic_error("EdgeInputs::all_to_all is needed for all-to-all context parallelism");
        r_.cp_all_to_all_time += in_.all_to_all(b, rt.context_parallel) * passes;
      }
    }
    const int64_t trainable = m.trainable_params(rt.mode, rt.lora_rank);
    r_.allreduce_time = r_.training_gpus > 1 && in_.allreduce ? in_.allreduce(Bytes(trainable * 2), r_.training_gpus)
                                                              : SimTime::zero();
    r_.model_bytes = Bytes(m.params() * 2);
    r_.package_bytes = rt.mode == workload::FineTune::kLora ? Bytes(trainable * 2) : r_.model_bytes;
    r_.hot_swap = r_.model_bytes * 2 <= in_.hbm_per_gpu;
    if (sp_.rollout.strategy == RolloutStrategy::kBlueGreen && !r_.hot_swap)
      throw InputError({"", 0, "edge.rollout.strategy"},
                       fmt::format("blue_green keeps two copies on each node: {:.1f} GB of {:.1f} GB of HBM",
                                   r_.model_bytes.as_double() * 2e-9, in_.hbm_per_gpu.as_double() * 1e-9));
    for (const SensorStream& s : sp_.sensor.streams)
      if (s.inference) frames_per_s_ += s.count / s.period.seconds();
    capacity_per_node_ = 1.0 / r_.inference_time.seconds();
    r_.serving_load = nodes_ > 0 ? frames_per_s_ / (nodes_ * capacity_per_node_) : 0;
    if (r_.serving_load >= 1)
      throw InputError({"", 0, "edge.serving.nodes"},
                       fmt::format("{} nodes serve {:.0f} frames/s of the {:.0f} the inference streams send ({} per frame)",
                                   nodes_, nodes_ * capacity_per_node_, frames_per_s_, core::format_time(r_.inference_time)));
    per_line_ = frames_per_s_ / std::max(1, sv.lines);
    r_.step_time = step_compute_ + r_.cp_all_to_all_time + r_.allreduce_time;
    if (sv.shared && sv.inference_priority && r_.serving_load > 0)
      r_.step_time = SimTime::from_seconds(step_compute_.seconds() / (1 - r_.serving_load)) +
                     r_.cp_all_to_all_time + r_.allreduce_time;
    if (sp_.coordination.base_model.count() > 0) {
      r_.base_pull = transfer_time(sp_.coordination.base_model, detail::pull_rate(sp_.coordination)) + sp_.coordination.rtt;
      pull_from_ = sp_.coordination.pull_at;
      if (link_hits("coordination", pull_from_, pull_from_ + r_.base_pull)) r_.base_pull += link_delay();
    }
  }

  // Lines a set of `up` serving nodes can take.
  int servable(int up) const {
    if (per_line_ <= 0) return sp_.serving.lines;
    return std::min(sp_.serving.lines, static_cast<int>(std::floor(up * capacity_per_node_ / per_line_ + 1e-9)));
  }

  bool link_hits(const std::string& tier, SimTime from, SimTime to) {
    const LinkFailure& l = sp_.faults.link;
    if (!l.enabled || link_used_ || l.tier != tier || l.at < from || l.at >= to) return false;
    link_used_ = true;
    return true;
  }
  SimTime link_delay() const { return sp_.faults.link.redundant ? sp_.faults.link.switchover : sp_.faults.link.repair; }

  double clock_at(SimTime t) const {
    const Thermal& th = sp_.faults.thermal;
    return th.enabled && t >= th.at && t < th.at + th.duration ? th.clock_fraction : 1.0;
  }

  // One node's update with `together` nodes fetching at once.
  SimTime node_update(Bytes transfer, int together) const {
    return transfer_time(transfer * together, sp_.rollout.distribution_rate) +
           transfer_time(r_.model_bytes, sp_.rollout.load_rate) + sp_.rollout.warmup;
  }

  // Updates `n` nodes from `t0` by the strategy; returns how long it took.
  // soak_after_first: canary (the first node soaks before the rest go).
  SimTime update(SimTime t0, Bytes transfer, int n, bool canary_soak) {
    const Rollout& ro = sp_.rollout;
    SimTime t = t0;
    auto batch = [&](int b, bool down) {
      SimTime d = node_update(transfer, b);
      if (link_hits("training", t, t + d)) d += link_delay();
      rollout_node_s_ += d.seconds() * b;
      if (down) {
        const int lost = sp_.serving.lines - servable(nodes_ - b);
        if (lost > 0) uncovered_.push_back({t, t + d, lost});
      }
      t += d;
    };
    switch (ro.strategy) {
      case RolloutStrategy::kNaive: batch(n, true); break;
      case RolloutStrategy::kBlueGreen: batch(n, false); break;
      case RolloutStrategy::kRolling:
      case RolloutStrategy::kCanary: {
        int left = n;
        if (ro.strategy == RolloutStrategy::kCanary && left > 0) {
          batch(1, !r_.hot_swap);
          --left;
          if (canary_soak) t += ro.canary_soak;
        }
        while (left > 0) {
          const int b = std::min(left, std::max(1, ro.max_unavailable));
          batch(b, !r_.hot_swap);
          left -= b;
        }
        break;
      }
    }
    return t - t0;
  }

  CycleResult cycle(int index, SimTime start) {
    const Retrain& rt = sp_.retrain;
    CycleResult c;
    c.index = index;
    c.version = index + 1;
    c.start = start;
    c.collect = transfer_time(rt.bytes_per_sample * rt.samples, rt.staging_rate);
    if (r_.base_pull > SimTime::zero() && !pull_waited_ && start + c.collect >= pull_from_) {
      pull_waited_ = true;  // train on the new base: wait for the pull to finish
      c.collect = std::max(c.collect, pull_from_ + r_.base_pull - start);
    }
    // Train, step by step (throttling, a link failure and a power event
    // change single steps).
    const int64_t global = r_.samples_per_step;
    c.steps = (rt.samples * rt.epochs + global - 1) / global;
    SimTime t = start + c.collect;
    const PowerEvent& pw = sp_.faults.power;
    const bool power_hits_training = pw.enabled && pw.host * in_.gpus_per_host < in_.gpus &&
                                     (sp_.serving.shared || (pw.host + 1) * in_.gpus_per_host > nodes_);
    for (int64_t s = 0; s < c.steps; ++s) {
      const SimTime compute = SimTime::from_seconds((r_.step_time - r_.allreduce_time).seconds() / clock_at(t));
      SimTime ar = r_.allreduce_time;
      SimTime end = t + compute + ar;
      if (power_hits_training && pw.at < end && pw.at + pw.down > t) {  // the step is lost; wait for the host
        t = std::max(t, pw.at + pw.down);
        end = t + compute + ar;
      }
      if (link_hits("training", t, end)) ar += link_delay(), end += link_delay();
      training_.add(ar.count_ps(), 1);
      t = end;
    }
    c.train = t - start - c.collect;
    train_s_ += c.train.seconds();
    const int64_t per_gpu = (rt.validate_samples + r_.training_gpus - 1) / r_.training_gpus;
    const int64_t batches = (per_gpu + rt.batch_per_gpu - 1) / rt.batch_per_gpu;
    c.validate = workload::inference_time(in_.model, std::min(per_gpu, rt.batch_per_gpu), *in_.compute, in_.precision) * batches;
    validate_s_ += c.validate.seconds();
    c.package = rt.package_overhead + transfer_time(r_.package_bytes, rt.package_rate);
    t += c.validate + c.package;

    const bool bad = sp_.quality.failure_probability > 0 &&
                     streams_.stream("edge.quality", static_cast<uint64_t>(c.version)).bernoulli(sp_.quality.failure_probability);
    c.failed = bad;
    const bool canary = sp_.rollout.strategy == RolloutStrategy::kCanary;
    const SimTime detect = sp_.quality.detection_delay;
    const Bytes cached = sp_.rollout.keep_versions >= 2 ? Bytes(0) : r_.package_bytes;
    if (bad && canary && detect <= sp_.rollout.canary_soak) {
      // Caught on the canary: only it goes back; the rest never get the version.
      c.rollout = update(t, r_.package_bytes, 1, false) + detect;
      c.rollback = update(t + c.rollout, cached, 1, false);
      r_.bad_version += detect;
    } else {
      c.rollout = update(t, r_.package_bytes, rollout_nodes_, true);
      if (bad) c.rollback = detect + update(t + c.rollout + detect, cached, rollout_nodes_, false);
      if (bad) r_.bad_version += detect;
    }
    record_version(c);
    r_.cycles.push_back(c);
    return c;
  }

  // Only entries not yet pruned can change (a pruned one stays pruned and
  // never serves), so the walk covers those alone: a site of 100,000 cycles
  // stays linear instead of walking the whole registry every cycle.
  void record_version(const CycleResult& c) {
    for (size_t i : live_)
      if (r_.registry[i].status == "serving" && !c.failed) r_.registry[i].status = "superseded";
    r_.registry.push_back({c.version, c.index, c.failed ? "failed (rolled back)" : "serving"});
    live_.push_back(r_.registry.size() - 1);
    int kept = 0;
    for (size_t k = live_.size(); k-- > 0;) {
      RegistryEntry& e = r_.registry[live_[k]];
      if (++kept > sp_.rollout.keep_versions && e.status != "serving") {
        e.status = "pruned";
        live_.erase(live_.begin() + static_cast<std::ptrdiff_t>(k));
      }
    }
  }

  void power_outage() {
    const PowerEvent& pw = sp_.faults.power;
    int down = 0;
    for (int n = 0; n < nodes_; ++n) down += n / in_.gpus_per_host == pw.host;
    const int lost = sp_.serving.lines - servable(nodes_ - down);
    if (lost > 0) uncovered_.push_back({pw.at, pw.at + pw.down, lost});
    const int gpus_down = std::max(0, std::min(in_.gpus_per_host, in_.gpus - pw.host * in_.gpus_per_host));
    r_.acc_down_s = gpus_down * pw.down.seconds();
    serving_down_s_ = down * pw.down.seconds();
  }

  void coverage() {
    std::sort(uncovered_.begin(), uncovered_.end(), [](const Uncovered& a, const Uncovered& b) { return a.from < b.from; });
    SimTime reach;
    for (const Uncovered& u : uncovered_) {
      r_.gaps.push_back({u.from, u.to, u.lines});
      r_.uncovered_line_s += u.lines * (u.to - u.from).seconds();
      const SimTime from = std::max(u.from, reach);
      if (u.to > from) r_.coverage_gap += u.to - from;
      reach = std::max(reach, u.to);
    }
    // Cycles follow one another (each starts at or after the last one's
    // end), so the cycles a gap overlaps are found by binary search.
    for (const Uncovered& u : uncovered_) {
      auto c = std::upper_bound(r_.cycles.begin(), r_.cycles.end(), u.from,
                                [](SimTime t, const CycleResult& x) { return t < x.end(); });
      for (; c != r_.cycles.end() && c->start < u.to; ++c) {
        const SimTime a = std::max(u.from, c->start), b = std::min(u.to, c->end());
        if (b > a) c->coverage_gap += b - a;
      }
    }
    r_.misses_uncovered = r_.uncovered_line_s * per_line_;
  }

  // One sensor window: its latencies and misses, each message standing for
  // `state_s / window` of the period's.
  void sensor_window(bool training_on, std::optional<SimTime> outage, double state_s, detail::Weighted& sensor,
                     detail::Weighted& e2e, double& utilization) {
    if (state_s <= 0) return;
    const SimTime window = sp_.sensor.window;
    const detail::SensorLayout layout = detail::sensor_layout(sp_, training_on, outage, window);
    const net::tsn::SegmentResult res = net::tsn::simulate_segment(layout.segment, window);
    r_.frame_events += res.events;
    const double w = state_s / window.seconds();
    if (!res.port_utilization.empty()) utilization += res.port_utilization[layout.egress_port] * state_s;
    // Requests in arrival order, each to its line's node (lines spread over the nodes).
    struct Request {
      int64_t arrive, network;
      int line;
    };
    std::vector<Request> requests;
    for (size_t s = 0; s < res.streams.size(); ++s) {
      const net::tsn::StreamStats& st = res.streams[s];
      r_.misses_network += st.deadline_misses * w;
      if (!layout.segment.streams[s].measured) continue;
      Kind& kind = kind_of(layout.segment.streams[s]);
      kind.misses += st.deadline_misses * w;
      kind.lost += st.lost * w;
      for (const auto& [released, latency] : st.deliveries) {
        sensor.add(latency, w);
        kind.samples.add(latency, w);
        if (layout.line_of[s] >= 0) requests.push_back({released + latency, latency, layout.line_of[s]});
      }
    }
    std::sort(requests.begin(), requests.end(), [](const Request& a, const Request& b) { return a.arrive < b.arrive; });
    std::vector<int64_t> free_at(std::max(1, nodes_), 0);
    core::Rng rng = streams_.stream("edge.serving", training_on ? 1 : 0);
    const int64_t service = r_.inference_time.count_ps();
    const bool contended = training_on && sp_.serving.shared;
    const int64_t quantum = (sp_.serving.inference_priority ? sp_.serving.preemption_quantum : r_.step_time).count_ps();
    for (const Request& q : requests) {
      int64_t& node = free_at[q.line % free_at.size()];
      int64_t begin = std::max(q.arrive, node);
      if (contended) begin += static_cast<int64_t>(rng.uniform01() * static_cast<double>(quantum));
      node = begin + service;
      const int64_t total = node + sp_.sensor.link_latency.count_ps() - q.arrive + q.network;
      e2e.add(total, w);
      if (total > sp_.serving.budget.count_ps()) r_.misses_inference += w;
    }
  }

  void tiers() {
    const double period = r_.simulated.seconds();
    const bool shared = sp_.sensor.switched && sp_.sensor.shared_with_training;
    const double train_on = shared || sp_.serving.shared ? std::min(period, train_s_) : 0;
    double off = period - train_on, on = train_on;
    std::optional<SimTime> outage;
    bool outage_on = false;
    double outage_s = 0;
    if (link_hits("sensor", SimTime::zero(), r_.simulated)) {
      outage = link_delay();
      outage_on = in_training(sp_.faults.link.at) && train_on > 0;
      // The window's second half is the outage; a longer outage stretches
      // the window's weight to cover it.
      outage_s = std::min(outage_on ? on : off, std::max(sp_.sensor.window.seconds(), 2 * outage->seconds()));
      (outage_on ? on : off) -= outage_s;
    }
    detail::Weighted sensor, e2e;
    double util = 0;
    if (!sp_.sensor.streams.empty()) {
      sensor_window(false, std::nullopt, off, sensor, e2e, util);
      sensor_window(true, std::nullopt, on, sensor, e2e, util);
      if (outage) sensor_window(outage_on, outage, outage_s, sensor, e2e, util);
    }
    r_.sensor = sensor.summarize();
    for (Kind& k : kinds_) r_.streams.push_back({k.name, k.samples.summarize(), k.deadline, k.misses, k.lost});
    r_.sensor.utilization = util / period;
    r_.end_to_end = e2e.summarize();
    r_.training = training_.summarize();
    r_.training.utilization = static_cast<double>(r_.training.samples) * r_.allreduce_time.seconds() / period;

    detail::Weighted wan;
    double wan_util = 0;
    const double pull = std::min(period, r_.base_pull.seconds());
    const auto wan_window = [&](std::optional<Bandwidth> rate, double state_s) {
      if (state_s <= 0) return;
      const net::tsn::SegmentResult res = net::tsn::simulate_segment(detail::wan_segment(sp_, rate), sp_.sensor.window);
      r_.frame_events += res.events;
      const double w = state_s / sp_.sensor.window.seconds();
      for (const auto& [released, latency] : res.streams[0].deliveries) wan.add(latency, w);
      wan_util += res.port_utilization[0] * state_s;
    };
    wan_window(std::nullopt, period - pull);
    if (pull > 0) wan_window(detail::pull_rate(sp_.coordination), pull);
    r_.coordination = wan.summarize();
    r_.coordination.utilization = wan_util / period;
    r_.deadline_misses = r_.misses_network + r_.misses_inference + r_.misses_uncovered;
  }

  struct Kind {
    std::string name;
    SimTime deadline;
    detail::Weighted samples;
    double misses = 0, lost = 0;
  };
  Kind& kind_of(const net::tsn::StreamSpec& s) {
    for (Kind& k : kinds_)
      if (k.name == s.name) return k;
    kinds_.push_back({s.name, s.deadline, {}, 0, 0});
    return kinds_.back();
  }

  bool in_training(SimTime t) const {
    for (const CycleResult& c : r_.cycles)
      if (t >= c.start + c.collect && t < c.start + c.collect + c.train) return true;
    return false;
  }

  void accounting() {
    const double period = r_.simulated.seconds();
    const double serving_time = nodes_ * period - rollout_node_s_ - serving_down_s_;
    r_.acc_inference_s = r_.serving_load * std::max(0.0, serving_time);
    r_.acc_rollout_s = rollout_node_s_;
    double training_gpus = r_.training_gpus;
    if (sp_.serving.shared) training_gpus -= nodes_ * r_.serving_load;  // their inference share is counted above
    r_.acc_training_s = training_gpus * (train_s_ + validate_s_);
    r_.acc_idle_s = std::max(0.0, in_.gpus * period - r_.acc_inference_s - r_.acc_rollout_s - r_.acc_training_s - r_.acc_down_s);
  }

  const EdgeInputs& in_;
  const EdgeSpec& sp_;
  core::RngStreams streams_;
  EdgeResult r_;
  int nodes_ = 0, rollout_nodes_ = 0;
  SimTime step_compute_;
  double frames_per_s_ = 0, capacity_per_node_ = 0, per_line_ = 0;
  SimTime pull_from_;
  bool pull_waited_ = false, link_used_ = false;
  std::vector<Uncovered> uncovered_;
  std::vector<size_t> live_;  // registry entries not pruned, oldest first
  detail::Weighted training_;
  std::vector<Kind> kinds_;
  double train_s_ = 0, validate_s_ = 0, rollout_node_s_ = 0, serving_down_s_ = 0;
};

}  // namespace

const char* to_string(RolloutStrategy s) {
  switch (s) {
    case RolloutStrategy::kRolling: return "rolling";
    case RolloutStrategy::kCanary: return "canary";
    case RolloutStrategy::kBlueGreen: return "blue_green";
    case RolloutStrategy::kNaive: return "naive";
  }
  return "?";
}

EdgeResult run_edge_site(const EdgeInputs& in) {
  ANATOMY_CHECK(in.compute != nullptr, "an edge site needs a compute model");
  return Site(in).run();
}

}  // namespace anatomy::job::edge
