#include "job/adaptation.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "core/error.h"
#include "core/rng.h"
#include "workload/layout.h"

namespace anatomy::job {

using core::JobTime;
using core::SimTime;

const char* to_string(ConditionKind k) {
  switch (k) {
    case ConditionKind::kBackgroundTraffic: return "background_traffic";
    case ConditionKind::kLinkDegradation: return "link_degradation";
    case ConditionKind::kLinkFlap: return "link_flap";
    case ConditionKind::kStraggler: return "straggler";
    case ConditionKind::kPause: return "pause";
    case ConditionKind::kStorageCongestion: return "storage_congestion";
  }
  return "?";
}

const char* to_string(ControllerKind k) {
  switch (k) {
    case ControllerKind::kCollectiveTuner: return "collective_tuner";
    case ControllerKind::kCheckpoint: return "checkpoint";
    case ControllerKind::kBatch: return "batch";
    case ControllerKind::kStraggler: return "straggler";
    case ControllerKind::kReroute: return "reroute";
  }
  return "?";
}

namespace {

// A link keeping less than this carries nothing useful: its flows stall.
constexpr double kStallFraction = 1e-3;
constexpr int64_t kMaxSteps = 20'000'000;
constexpr double kDefaultSamples = 2'000'000;
constexpr size_t kMaxEpisodes = 100000;

bool is_link(ConditionKind k) {
  return k == ConditionKind::kBackgroundTraffic || k == ConditionKind::kLinkDegradation ||
         k == ConditionKind::kLinkFlap;
}

// What a link keeps of its bandwidth under a condition.
double link_fraction(const ConditionSpec& c) {
  switch (c.kind) {
    case ConditionKind::kBackgroundTraffic:
      // A tenant sending at a fixed rate takes its share; the job's flows
      // share the rest.
      return std::clamp(1 - c.load, 0.0, 1.0);
    case ConditionKind::kLinkFlap: return 0;
    case ConditionKind::kLinkDegradation:
      if (c.bit_error_rate > 0) {
        // Bit errors: a 4 KiB packet is lost with p = 1 - (1 - BER)^(8 x
        // 4096); RoCE's go-back-N resends the window behind it (64 packets
        // in flight), so the link delivers (1 - p) / (1 + 64 p) of its rate.
        const double p = 1 - std::pow(1 - c.bit_error_rate, 8.0 * 4096);
        return (1 - p) / (1 + 64 * p);
      }
      return c.bandwidth_fraction;
    default: return 1;
  }
}

std::string pct(double f) { return fmt::format("{:.3g}%", 100 * f); }
std::string at_text(JobTime t) { return core::format_time(t); }
// A time on the job's clock, to the millisecond.
std::string clock(JobTime t) {
  const int64_t ms = static_cast<int64_t>(std::llround(t.seconds() * 1000));
  const int64_t h = ms / 3'600'000, m = ms / 60'000 % 60, s = ms / 1000 % 60, milli = ms % 1000;
  return h > 0 ? fmt::format("{}:{:02}:{:02}.{:03}", h, m, s, milli) : fmt::format("{:02}:{:02}.{:03}", m, s, milli);
}

struct ClusterState {
  std::vector<std::pair<int, double>> links;  // (busiest-fabric index, fraction kept), sorted
  std::vector<double> stage_scale;
  std::string algo;
  int accum = 1;
  std::string key() const {
    std::string k = algo + "|" + std::to_string(accum) + "|";
    for (const auto& [l, f] : links) k += fmt::format("{}:{:.9g},", l, f);
    k += "|";
    for (double s : stage_scale) k += fmt::format("{:.9g},", s);
    return k;
  }
};

struct Measured {
  SimTime iteration, dp_exposed;
  // The gradient and parameter collectives' time per iteration as their
  // communicators' executors report it (coll::CollectiveSignal): the
  // busiest stage's sum of its "dp stage" collectives' durations. Zero
  // when not observed (no collective tuner).
  SimTime dp_collectives;
  std::vector<SimTime> stage_compute;
  double tokens_per_s = 0;
  int64_t tokens_per_iteration = 0;
  std::string dp_algorithm;
};

// One controller's trigger: true at samples; fires once it has held reaction_time.
struct Trigger {
  std::optional<JobTime> since;
  void update(bool on, JobTime t) {
    if (!on) since.reset();
    else if (!since) since = t;
  }
  bool due(JobTime t, SimTime reaction) const { return since && t >= *since + reaction; }
};

struct ControllerState {
  const ControllerSpec* spec = nullptr;
  Trigger trigger, release;
  std::map<int, Trigger> link_trigger, link_release;  // reroute, per link
  bool acted = false;                                 // checkpoint compression / straggler
  std::string last_signal;
};

class Adaptation {
 public:
  explicit Adaptation(const AdaptationInputs& in) : in_(in), spec_(*in.spec), D_(in.spec->duration) {}
  AdaptationResult run();

 private:
  void expand_episodes();
  const Measured& measure(const ClusterState& s);
  // Every "algorithm/protocol" the library offers for the data-parallel
  // collectives on this plan's communicators (NCCL's own algorithms).
  std::vector<std::string> tuner_candidates() const;
  // The conditions in force at t (pass_ended(t) first: the episodes before
  // first_open_ have ended, and they are in start order).
  ClusterState state_at(JobTime t, bool with_reroute = true) const;
  SimTime checkpoint_cost_at(double storage_fraction, bool compressed);
  // The checkpoint measured with storage at that fraction, compressed or not.
  const CheckpointCost& checkpoint_at(double storage_fraction, bool compressed);
  // The compression ratio once the checkpoint controller compresses.
  double compression_with_controller() const;
  double reroute_fraction(int link) const;
  void decide(JobTime t, ControllerState& c, const std::string& signal, const std::string& action,
              const std::string& effect);
  void blackout(JobTime from, SimTime len, JobTime* bucket);
  // Skips the episodes and the downtime spans that ended by t (t only grows).
  void pass_ended(JobTime t);
  // Where the job does not train though nothing stops it for a condition:
  // the timeline's downtime (AdaptationInputs::downtime) and the last
  // checkpoint's steady stall. idle_in gives how much of [a, b) (a >= t, the
  // last time passed) is idle, next_idle_edge the first edge of it after t.
  JobTime idle_in(JobTime a, JobTime b) const;
  JobTime next_idle_edge(JobTime t) const;
  void end_stall(JobTime t, bool rerouted);

  const AdaptationInputs& in_;
  const JobSpec& spec_;
  const JobTime D_;
  AdaptationResult r_;
  Telemetry own_;
  std::map<std::string, Measured> cache_;
  std::map<std::pair<int, int>, CheckpointCost> ckpt_cache_;  // by (storage fraction x 1e6, compressed)
  std::vector<const workload::LinkLoad*> fabric_;  // busiest fabric links of the steady iteration
  std::vector<std::vector<std::pair<int, double>>> straggler_stages_;  // per condition: (stage, slowdown)
  std::vector<ControllerState> ctl_;
  // Mutable state of the run.
  std::map<int, bool> rerouted_;
  std::map<int, bool> crashed_links_;  // routed around after a crash
  std::vector<bool> swapped_;          // per episode: a straggler swapped out
  std::vector<bool> rebalanced_;
  std::string algo_, default_algo_;  // the gradient collectives' pinned choice; the static one
  bool observe_collectives_ = false;  // a collective tuner listens to the executors' signals
  SimTime tuner_reference_;           // the collectives' time when the tuner last chose
  int accum_ = 1;
  bool compress_ = false;
  JobTime stall_start_ = JobTime::max(), down_until_;
  int stall_link_ = -1;
  JobTime resume_;  // no progress before this (stall tail, pauses, restarts, decisions)
  size_t first_open_ = 0;  // episodes before this have ended
  size_t down_ = 0;        // the first downtime span not ended
  JobTime ckpt_stall_from_, ckpt_stall_until_;  // the last checkpoint's steady stall
  JobTime* resume_bucket_ = nullptr;
  JobTime cum_cost_, progress_since_ckpt_, last_ckpt_;
  std::optional<size_t> chain_ckpt_;  // the first checkpoint after the last stall
  JobTime chain_delay_;
};

void Adaptation::expand_episodes() {
  const core::RngStreams streams(spec_.seed);
  for (size_t i = 0; i < spec_.conditions.size(); ++i) {
    const ConditionSpec& c = spec_.conditions[i];
    std::vector<JobTime> starts;
    if (c.after_checkpoints) {
      if (c.kind != ConditionKind::kStorageCongestion || !in_.checkpoint)
        throw core::InputError({"", 0, fmt::format("job.conditions[{}].after_checkpoints", i)},
                               c.kind != ConditionKind::kStorageCongestion
                                   ? std::string("only a storage_congestion follows the checkpoints")
                                   : std::string("the job takes no checkpoints"));
      // The next tenant's write starts `at` (the gap the storage's schedule
      // leaves) after ours is scheduled to end: our steady write (the stall,
      // then any background part) after each of the steady timeline's
      // checkpoints. A checkpoint later than the gap runs into it.
      const JobTime write(in_.checkpoint->stall + in_.checkpoint->background);
      for (JobTime ck : in_.checkpoint_times)
        if (ck + write + c.at < D_) starts.push_back(ck + write + c.at);
    } else if (c.rate_per_hour > 0) {
      core::Rng rng = streams.stream("conditions", i);
      for (double h = rng.exponential(c.rate_per_hour); h * 3600 < D_.seconds() && starts.size() < kMaxEpisodes;
           h += rng.exponential(c.rate_per_hour))
        starts.push_back(JobTime::from_seconds(h * 3600));
    } else {
      const int n = c.every > JobTime::zero() ? (c.count > 0 ? c.count : static_cast<int>(kMaxEpisodes)) : 1;
      for (int k = 0; k < n; ++k) {
        const JobTime s = c.at + c.every * k;
        if (s >= D_) break;
        starts.push_back(s);
      }
    }
    for (JobTime s : starts) {
      ConditionEpisode e{static_cast<int>(i), c.kind, s, std::min(D_, s + JobTime(c.duration)), {}};
      switch (c.kind) {
        case ConditionKind::kBackgroundTraffic:
          e.what = fmt::format("another tenant takes {} of fabric link #{}", pct(c.load), c.link);
          break;
        case ConditionKind::kLinkDegradation:
          e.what = c.bit_error_rate > 0 ? fmt::format("fabric link #{} at a bit-error rate of {:.3g} keeps {}", c.link,
                                                      c.bit_error_rate, pct(link_fraction(c)))
                                        : fmt::format("fabric link #{} keeps {}", c.link, pct(c.bandwidth_fraction));
          break;
        case ConditionKind::kLinkFlap: e.what = fmt::format("fabric link #{} down", c.link); break;
        case ConditionKind::kStraggler:
          e.what = fmt::format("{} GPU(s) compute {} slower", c.gpus, pct(c.slowdown));
          break;
        case ConditionKind::kPause:
          e.what = fmt::format("a rank stops for {} every {}", core::format_time(c.pause),
                               core::format_time(c.pause_every));
          break;
        case ConditionKind::kStorageCongestion:
          e.what = fmt::format("checkpoint storage keeps {} of its bandwidth", pct(c.bandwidth_fraction));
          break;
      }
      r_.episodes.push_back(std::move(e));
    }
  }
  std::stable_sort(r_.episodes.begin(), r_.episodes.end(),
                   [](const ConditionEpisode& a, const ConditionEpisode& b) { return a.start < b.start; });
  swapped_.assign(r_.episodes.size(), false);
  rebalanced_.assign(r_.episodes.size(), false);

  // Each straggler condition slows GPUs drawn once; a stage runs at its
  // slowest GPU's pace.
  const workload::ParallelPlan& p = *in_.iteration->plan;
  const workload::Layout layout(p);
  straggler_stages_.resize(spec_.conditions.size());
  for (size_t i = 0; i < spec_.conditions.size(); ++i) {
    const ConditionSpec& c = spec_.conditions[i];
    if (c.kind != ConditionKind::kStraggler) continue;
    core::Rng rng = streams.stream("conditions.gpus", i);
    std::map<int, double> worst;
    for (int g = 0; g < std::min(c.gpus, p.gpus()); ++g) {
      const auto rank = static_cast<uint32_t>(rng.uniform_index(static_cast<uint64_t>(p.gpus())));
      const double s = c.slowdown * (1 + c.slowdown_spread * (2 * rng.uniform01() - 1));
      double& w = worst[layout.coord(rank).pp];
      w = std::max(w, s);
    }
    for (const auto& [stage, s] : worst) straggler_stages_[i].push_back({stage, s});
  }
}

const Measured& Adaptation::measure(const ClusterState& s) {
  const std::string key = s.key();
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  const workload::IterationInputs& base = *in_.iteration;
  if (s.links.empty() && s.stage_scale.empty() && s.accum == 1 && s.algo == default_algo_ && !observe_collectives_) {
    // The healthy cluster with the static choice: the steady iteration itself.
    const workload::IterationResult& it = *in_.steady;
    Measured m;
    m.iteration = it.iteration;
    m.dp_exposed = it.mean.dp_comm;
    for (const auto& st : it.stages) m.stage_compute.push_back(st.forward_compute + st.backward_compute);
    m.tokens_per_s = it.tokens_per_s;
    m.tokens_per_iteration = base.training->tokens_per_iteration();
    m.dp_algorithm = it.dp_algorithm;
    return cache_.emplace(key, std::move(m)).first->second;
  }
  topo::Topology topo = *base.topology;
  for (const auto& [l, f] : s.links)
    if (static_cast<size_t>(l) < fabric_.size()) topo.scale_link_bandwidth(fabric_[l]->link, std::max(1e-6, f));
  workload::TrainingSpec training = *base.training;
  training.global_batch *= s.accum;
  workload::IterationInputs with = base;
  with.topology = &topo;
  with.training = &training;
  with.stage_compute_scale = s.stage_scale;
  with.dp_algorithm = s.algo;
  with.enforce_memory = false;
  with.link_samples = 0;
  // The tuner's view: each communicator's collective durations, summed per iteration.
  workload::IterationTelemetry observed;
  std::map<std::string, SimTime> per_communicator;
  if (observe_collectives_) {
    observed.collective.subscribe([&](const std::string& comm, SimTime start, SimTime end) {
      if (comm.rfind("dp ", 0) == 0) per_communicator[comm] += end - start;
    });
    with.telemetry = &observed;
  }
  const workload::IterationResult it = workload::simulate_iteration(with);
  Measured m;
  for (const auto& [comm, d] : per_communicator) m.dp_collectives = std::max(m.dp_collectives, d);
  m.iteration = it.iteration;
  m.dp_exposed = it.mean.dp_comm;
  for (const auto& st : it.stages) m.stage_compute.push_back(st.forward_compute + st.backward_compute);
  m.tokens_per_s = it.tokens_per_s;
  m.tokens_per_iteration = training.tokens_per_iteration();
  m.dp_algorithm = it.dp_algorithm;
  return cache_.emplace(key, std::move(m)).first->second;
}

std::vector<std::string> Adaptation::tuner_candidates() const {
  const workload::IterationInputs& it = *in_.iteration;
  const workload::ParallelPlan& p = *it.plan;
  // ZeRO-3's gathers are timed alone, outside the executors the tuner
  // watches; without data parallelism there is nothing to tune.
  if (p.dp * p.cp <= 1 || p.zero_stage >= 3) return {};
  std::vector<coll::Op> ops = p.zero_stage >= 1 ? std::vector<coll::Op>{coll::Op::kReduceScatter, coll::Op::kAllGather}
                                                : std::vector<coll::Op>{coll::Op::kAllReduce};
  std::vector<uint32_t> gpus = workload::Layout(p).dp_cp_group({0, 0, 0, 0});
  if (!it.rank_to_gpu.empty())
    for (auto& g : gpus) g = it.rank_to_gpu[g];
  const coll::Group group = coll::make_group(*it.topology, gpus);
  std::vector<std::string> out;
  for (const coll::Algorithm& a : it.algorithms->all()) {
    if (!a.in_auto) continue;
    const bool fits = std::all_of(ops.begin(), ops.end(), [&](coll::Op op) {
      return a.supports(op) && (!a.applicable || a.applicable(group, op));
    });
    if (!fits) continue;
    for (coll::Protocol pr : a.protocols) out.push_back(a.name + "/" + coll::to_string(pr));
  }
  return out;
}

double Adaptation::reroute_fraction(int link) const {
  // Adaptive routing spreads the link's flows over its parallel uplinks
  // (the k fabric links leaving the same switch or NIC): they keep
  // (k - 1) / k of the capacity. A NIC's single uplink fails over to a
  // neighbour GPU's NIC over NVLink (PXN), which it then shares: 1/2.
  if (static_cast<size_t>(link) >= fabric_.size()) return 1;
  const topo::Topology& t = *in_.iteration->topology;
  const topo::NodeId from = t.links()[fabric_[link]->link].from;
  int k = 0;
  for (const topo::Link& l : t.links())
    if (l.from == from && l.kind == topo::LinkKind::kFabric) ++k;
  return k > 1 ? static_cast<double>(k - 1) / k : 0.5;
}

ClusterState Adaptation::state_at(JobTime t, bool with_reroute) const {
  ClusterState s;
  s.algo = algo_;
  s.accum = accum_;
  const int stages = in_.iteration->plan->pp;
  const int dp = in_.iteration->plan->dp;
  std::map<int, double> links;
  for (size_t e = first_open_; e < r_.episodes.size() && r_.episodes[e].start <= t; ++e) {
    const ConditionEpisode& ep = r_.episodes[e];
    if (t >= ep.end) continue;
    const ConditionSpec& c = spec_.conditions[ep.condition];
    if (is_link(c.kind)) {
      double f = link_fraction(c);
      const bool around = crashed_links_.count(c.link) || (with_reroute && rerouted_.count(c.link) && rerouted_.at(c.link));
      if (around) f = std::max(f, reroute_fraction(c.link));
      auto [it, fresh] = links.emplace(c.link, f);
      if (!fresh) it->second = std::min(it->second, f);
    } else if (c.kind == ConditionKind::kStraggler && !swapped_[e]) {
      if (s.stage_scale.empty()) s.stage_scale.assign(static_cast<size_t>(stages), 1.0);
      for (const auto& [stage, slow] : straggler_stages_[ep.condition]) {
        double k = 1 + slow;
        // Rebalancing gives the slow replica w = 1 / (1 + k (dp - 1)) of
        // the stage's micro-batches and the others the rest: everyone then
        // takes k dp / (1 + k (dp - 1)) of the balanced time.
        if (rebalanced_[e] && dp > 1) k = k * dp / (1 + k * (dp - 1));
        s.stage_scale[stage] = std::max(s.stage_scale[stage], k);
      }
    }
  }
  s.links.assign(links.begin(), links.end());
  return s;
}

SimTime Adaptation::checkpoint_cost_at(double f, bool compressed) {
  return checkpoint_at(f, compressed).cost(in_.steady->iteration, in_.checkpoint_every);
}

const CheckpointCost& Adaptation::checkpoint_at(double f, bool compressed) {
  const auto key = std::pair{static_cast<int>(std::lround(f * 1e6)), compressed ? 1 : 0};
  if (auto it = ckpt_cache_.find(key); it != ckpt_cache_.end()) return it->second;
  const workload::IterationInputs& base = *in_.iteration;
  topo::Topology topo = *base.topology;
  for (topo::LinkId l = 0; l < topo.num_links(); ++l)
    if (topo.links()[l].kind == topo::LinkKind::kStorage) topo.scale_link_bandwidth(l, std::max(1e-6, f));
  workload::IterationInputs with = base;
  with.topology = &topo;
  with.link_samples = 0;
  CheckpointSpec cs = spec_.checkpoint;
  if (compressed) cs.compression_ratio = compression_with_controller();
  const coll::NetworkFactory& bulk = in_.bulk_network ? in_.bulk_network : base.make_network;
  return ckpt_cache_.emplace(key, measure_checkpoint(cs, with, *in_.steady, bulk)).first->second;
}

double Adaptation::compression_with_controller() const {
  double ratio = spec_.checkpoint.compression_ratio;
  for (const auto& c : spec_.controllers)
    if (c.kind == ControllerKind::kCheckpoint) ratio = std::min(ratio, c.compression_ratio);
  return ratio;
}

void Adaptation::decide(JobTime t, ControllerState& c, const std::string& signal, const std::string& action,
                        const std::string& effect) {
  r_.decisions.push_back({t, to_string(c.spec->kind), signal, action, effect});
  if (c.spec->decision_cost > SimTime::zero()) {
    JobTime* bucket = c.spec->kind == ControllerKind::kStraggler    ? &r_.waiting
                      : c.spec->kind == ControllerKind::kCheckpoint ? &r_.checkpoint
                                                                    : &r_.communication;
    blackout(t, c.spec->decision_cost, bucket);
    r_.decisions_cost += c.spec->decision_cost;
  }
}

// No progress from `from` for `len`, paid into `bucket` (after any earlier one).
void Adaptation::blackout(JobTime from, SimTime len, JobTime* bucket) {
  const JobTime start = std::max(from, resume_);
  const JobTime end = std::min(D_, start + JobTime(len));
  if (end <= start) return;
  *bucket += end - start;
  cum_cost_ += end - start;
  resume_ = end;
  resume_bucket_ = bucket;
}

void Adaptation::pass_ended(JobTime t) {
  while (first_open_ < r_.episodes.size() && r_.episodes[first_open_].end <= t) ++first_open_;
  while (down_ < in_.downtime.size() && in_.downtime[down_].second <= t) ++down_;
}

JobTime Adaptation::idle_in(JobTime a, JobTime b) const {
  const auto overlap = [](JobTime a0, JobTime b0, JobTime a1, JobTime b1) {
    const JobTime from = std::max(a0, a1), to = std::min(b0, b1);
    return to > from ? to - from : JobTime::zero();
  };
  // The stall's window, less where a downtime span already covers it.
  JobTime covered = overlap(a, b, ckpt_stall_from_, ckpt_stall_until_);
  for (size_t i = down_; i < in_.downtime.size() && in_.downtime[i].first < b; ++i) {
    const auto& [start, end] = in_.downtime[i];
    covered += overlap(a, b, start, end);
    const JobTime a1 = std::max(a, start), b1 = std::min(b, end);
    if (b1 > a1) covered -= overlap(a1, b1, ckpt_stall_from_, ckpt_stall_until_);
  }
  return covered;
}

JobTime Adaptation::next_idle_edge(JobTime t) const {
  JobTime next = JobTime::max();
  if (down_ < in_.downtime.size()) {
    const auto& [start, end] = in_.downtime[down_];
    next = start > t ? start : end;
  }
  if (ckpt_stall_from_ > t) next = std::min(next, ckpt_stall_from_);
  else if (ckpt_stall_until_ > t) next = std::min(next, ckpt_stall_until_);
  return next;
}

void Adaptation::end_stall(JobTime t, bool rerouted) {
  const MechanismSpec& m = spec_.mechanisms;
  const JobTime outage = t - stall_start_;
  const SimTime timeout = m.retry_timeout;
  const int64_t retries = std::max<int64_t>(1, (outage.count_ps() + timeout.count_ps() - 1) / timeout.count_ps());
  JobTime resume = stall_start_ + JobTime(timeout) * retries;
  std::string how;
  if (rerouted && outage < JobTime(timeout)) {
    resume = t;
    how = fmt::format("the reroute moved the queue pairs after {}, before the first retry timer ({}) fired: no packet "
                      "is resent, the chain stops here",
                      at_text(outage), core::format_time(timeout));
  } else {
    r_.retries += static_cast<int>(retries);
    how = fmt::format("the dropped packets are resent when the retry timer fires: {} retry(ies) of {} (NCCL_IB_TIMEOUT), "
                      "the step waits {}",
                      retries, core::format_time(timeout), at_text(resume - stall_start_));
  }
  const JobTime stall = resume - stall_start_;
  r_.communication += stall;
  cum_cost_ += stall;
  resume_ = std::max(resume_, resume);
  r_.chain.push_back({t, "transport timeout and retry", how, stall});
  if (in_.telemetry) in_.telemetry->event.emit(t, how);
  stall_start_ = JobTime::max();
  if (rerouted && outage < JobTime(timeout)) {
    r_.chain_broken = fmt::format("reroute at {}: the link's traffic moved before a retry was needed", clock(t));
    return;
  }
  // Memory pressure: gradient buckets produced during the stall wait in HBM.
  const workload::IterationResult& st = *in_.steady;
  const double grad_rate = st.memory.gradients.as_double() / std::max(1e-9, st.mean.backward_compute.seconds());
  const double queued = grad_rate * stall.seconds();
  const double hbm = in_.iteration->compute->accelerator().hbm_capacity.as_double();
  const double headroom = m.memory_headroom.count() >= 0 ? m.memory_headroom.as_double()
                                                         : std::max(0.0, hbm - st.memory.total().as_double());
  if (queued <= headroom) {
    r_.chain.push_back({resume, "memory pressure",
                        fmt::format("{:.2f} GB of gradient buckets queued during the {} stall fit in the {:.2f} GB of "
                                    "HBM headroom: no allocator pause, the chain stops here",
                                    queued / 1e9, at_text(stall), headroom / 1e9),
                        JobTime::zero()});
    chain_ckpt_.reset();
    return;
  }
  // Load imbalance: the paused stage's peers wait for it.
  SimTime slack = SimTime::max();
  for (const auto& s : st.stages) slack = std::min(slack, s.waiting - s.on_slowest);
  const SimTime wait = m.allocator_pause > slack ? m.allocator_pause - slack : SimTime::zero();
  r_.chain.push_back({resume, "memory pressure",
                      fmt::format("{:.2f} GB of gradient buckets queued during the {} stall exceed the {:.2f} GB of HBM "
                                  "headroom: the caching allocator frees its cache and retries, a {} pause",
                                  queued / 1e9, at_text(stall), headroom / 1e9, core::format_time(m.allocator_pause)),
                      JobTime::zero()});
  blackout(resume, wait, &r_.waiting);
  r_.chain.push_back({resume + JobTime(m.allocator_pause), "load imbalance",
                      fmt::format("the paused rank's peers wait for it at the next collective: {} beyond the {} it "
                                  "idles anyway, on every GPU",
                                  core::format_time(wait), core::format_time(slack)),
                      wait});
  chain_delay_ = stall + JobTime(wait);
  chain_ckpt_ = 0;  // set to "the next checkpoint" by the loop
}

AdaptationResult Adaptation::run() {
  const workload::IterationResult& steady = *in_.steady;
  for (const auto& l : steady.busiest_links)
    if (l.kind == "fabric") fabric_.push_back(&l);
  for (size_t i = 0; i < spec_.conditions.size(); ++i) {
    const ConditionSpec& c = spec_.conditions[i];
    if (!is_link(c.kind) || static_cast<size_t>(c.link) < fabric_.size()) continue;
    throw core::InputError({"", 0, fmt::format("job.conditions[{}].link", i)},
                           fabric_.empty() ? std::string("the iteration sends nothing over the scale-out fabric")
                                           : fmt::format("the iteration's busiest fabric links are 0-{} (got {})",
                                                         fabric_.size() - 1, c.link));
  }
  expand_episodes();
  for (const auto& c : spec_.controllers) ctl_.push_back(ControllerState{&c});
  r_.tokens_per_iteration = r_.max_tokens_per_iteration = in_.iteration->training->tokens_per_iteration();

  // The static cluster keeps the collective the tuner chose on the healthy
  // fabric: NCCL's own choice comes from its model, not from what it sees.
  const std::string& chosen = steady.dp_algorithm;
  if (chosen.find('/') != std::string::npos && chosen.find(' ') == std::string::npos) algo_ = chosen;
  default_algo_ = algo_;
  const std::string& default_algo = default_algo_;
  observe_collectives_ = std::any_of(spec_.controllers.begin(), spec_.controllers.end(), [](const ControllerSpec& c) {
    return c.kind == ControllerKind::kCollectiveTuner;
  });
  const std::vector<std::string> candidates = observe_collectives_ ? tuner_candidates() : std::vector<std::string>{};
  const SimTime healthy_collectives = observe_collectives_ ? measure(ClusterState{{}, {}, default_algo_, 1}).dp_collectives
                                                           : SimTime::zero();
  tuner_reference_ = healthy_collectives;
  const double steady_rate = steady.tokens_per_s;
  const SimTime T = steady.iteration;
  // Samples between change points only add telemetry (a state's pace holds
  // until its next edge, a controller's due time or action, a checkpoint),
  // so by default a job takes one per steady iteration but no more than
  // kDefaultSamples in all: a year of one-second steps is sampled every 15.8 s.
  const SimTime sample = spec_.mechanisms.telemetry_interval > SimTime::zero()
                             ? spec_.mechanisms.telemetry_interval
                             : std::max(T, SimTime::from_seconds(D_.seconds() / kDefaultSamples));
  const SimTime steady_ckpt = in_.checkpoint ? in_.checkpoint->cost(T, in_.checkpoint_every) : SimTime::zero();
  // How long a checkpoint's write holds storage: the stall, then any background part.
  const JobTime write_len = in_.checkpoint ? JobTime(in_.checkpoint->stall + in_.checkpoint->background) : JobTime();
  Telemetry& tel = own_;
  Telemetry* ext = in_.telemetry;

  // Controllers read the telemetry they subscribe to.
  struct Sample {
    double iteration_ratio = 1, collective_ratio = 1, exposed = 0, stage_ratio = 1, storage = 1;
    std::map<int, double> link;  // raw health of each degraded link
    SimTime collective;
  } obs;
  tel.iteration.subscribe([&](JobTime, SimTime o, SimTime s) { obs.iteration_ratio = o.seconds() / s.seconds(); });
  tel.collective.subscribe([&](JobTime, const std::string&, SimTime o, SimTime healthy) {
    obs.collective = o;
    obs.collective_ratio = healthy > SimTime::zero() ? o.seconds() / healthy.seconds() : 1;
  });
  tel.exposed_comm.subscribe([&](JobTime, double f) { obs.exposed = f; });
  tel.link.subscribe([&](JobTime, int l, double f) { obs.link[l] = f; });
  tel.stage_compute.subscribe([&](JobTime, int, double k) { obs.stage_ratio = std::max(obs.stage_ratio, k); });
  tel.storage.subscribe([&](JobTime, double f) { obs.storage = f; });

  std::vector<JobTime> ckpts = in_.checkpoint_times;
  size_t ci = 0;
  // What a monitor sees of each checkpoint's write, due at `at`: its bytes
  // (compressed when the controller has it so) and how long it held
  // storage, the write measured at the storage it met: `share` of it at
  // `fraction` of the bandwidth, the rest healthy. Every checkpoint of the
  // timeline is told once, those the loop jumps past too.
  const auto tell_checkpoint = [&](JobTime at, double fraction, double share) {
    if (!ext || !ext->checkpoint) return;
    const auto held = [](const CheckpointCost& c) { return c.stall + c.background; };
    const CheckpointCost& now = compress_ ? checkpoint_at(1.0, true) : *in_.checkpoint;
    const SimTime healthy = held(now);
    const SimTime slowed = share > 0 ? held(checkpoint_at(fraction, compress_)) : healthy;
    ext->checkpoint.emit(at, now.bytes_written,
                         healthy + SimTime::from_seconds((slowed - healthy).seconds() * std::min(1.0, share)));
  };
  JobTime t = r_.episodes.empty() ? D_ : r_.episodes.front().start;
  while (ci < ckpts.size() && ckpts[ci] < t) {
    last_ckpt_ = ckpts[ci++];
    tell_checkpoint(last_ckpt_, 1, 0);
  }
  int64_t steps = 0;
  while (t < D_) {
    if (++steps > kMaxSteps)
      throw core::InputError({"", 0, "job.mechanisms.telemetry_interval"},
                             fmt::format("more than {} telemetry samples: set a longer interval", kMaxSteps));
    pass_ended(t);
    const bool down = idle_in(t, t + JobTime(SimTime::ps(1))) > JobTime::zero();
    bool active = false;
    JobTime next_edge = D_;
    for (size_t e = first_open_; e < r_.episodes.size(); ++e) {
      const ConditionEpisode& ep = r_.episodes[e];
      if (ep.start > t) {
        next_edge = std::min(next_edge, ep.start);
        break;
      }
      if (t < ep.end) {
        active = true;
        next_edge = std::min(next_edge, ep.end);
      }
    }
    const bool checkpoint_due = ci < ckpts.size() && ckpts[ci] + cum_cost_ <= t;
    const bool holding = accum_ != 1 || algo_ != default_algo || compress_ ||
                         std::any_of(rerouted_.begin(), rerouted_.end(), [](auto& p) { return p.second; }) ||
                         stall_start_ != JobTime::max() || resume_ > t || checkpoint_due;
    if (!active && !holding) {
      // Nothing to watch: jump to the next episode, past the checkpoints
      // before it, except one whose write would still run when a storage
      // congestion begins there: the loop stops at that checkpoint.
      if (next_edge >= D_) break;
      const auto storage_starts = [&](JobTime at) {
        for (size_t e = first_open_; e < r_.episodes.size() && r_.episodes[e].start <= at; ++e)
          if (r_.episodes[e].start == at && r_.episodes[e].kind == ConditionKind::kStorageCongestion) return true;
        return false;
      };
      JobTime to = next_edge;
      bool passed = false;
      while (ci < ckpts.size() && ckpts[ci] + cum_cost_ < next_edge) {
        if (ckpts[ci] + cum_cost_ + write_len > next_edge && storage_starts(next_edge)) {
          to = ckpts[ci] + cum_cost_;
          break;
        }
        last_ckpt_ = ckpts[ci++] + cum_cost_;
        tell_checkpoint(last_ckpt_, 1, 0);
        passed = true;
      }
      progress_since_ckpt_ = passed ? to - last_ckpt_ : progress_since_ckpt_ + (to - t);
      t = to;
      continue;
    }

    // Telemetry of this instant.
    const ClusterState raw = state_at(t, false);
    const ClusterState now = state_at(t, true);
    obs = Sample{};
    for (const auto& [l, f] : raw.links) {
      tel.link.emit(t, l, f);
      if (ext) ext->link.emit(t, l, f);
    }
    double storage = 1;
    bool pause_active = false;
    for (size_t e = first_open_; e < r_.episodes.size() && r_.episodes[e].start <= t; ++e) {
      const ConditionSpec& c = spec_.conditions[r_.episodes[e].condition];
      if (t >= r_.episodes[e].end) continue;
      if (c.kind == ConditionKind::kStorageCongestion) storage = std::min(storage, c.bandwidth_fraction);
      if (c.kind == ConditionKind::kPause) pause_active = true;
    }
    tel.storage.emit(t, storage);
    if (ext) ext->storage.emit(t, storage);
    bool stalled_link = false;
    int down_link = -1;
    std::vector<std::pair<int, double>> usable;
    for (const auto& [l, f] : now.links) {
      if (f < kStallFraction) {
        stalled_link = true;
        down_link = l;
      } else {
        usable.push_back({l, f});
      }
    }
    // A stall begins, ends, or exhausts the retries.
    if (stalled_link && stall_start_ == JobTime::max()) {
      stall_start_ = t;
      stall_link_ = down_link;
      r_.chain.push_back({t, "congestion",
                          fmt::format("fabric link #{} ({}) carries nothing: the synchronous step stops", down_link,
                                      static_cast<size_t>(down_link) < fabric_.size() ? fabric_[down_link]->name : "?"),
                          JobTime::zero()});
      if (ext) ext->event.emit(t, "stall");
    } else if (!stalled_link && stall_start_ != JobTime::max()) {
      const bool rerouted = rerouted_.count(stall_link_) && rerouted_[stall_link_];
      end_stall(t, rerouted);
    }
    if (stall_start_ != JobTime::max()) {
      const JobTime give_up = stall_start_ + JobTime(spec_.mechanisms.retry_timeout) * spec_.mechanisms.retry_count;
      if (t >= give_up) {
        // The queue pairs give up: the job crashes and restarts around the link.
        const FailureSpec& f = spec_.failures;
        r_.communication += t - stall_start_;
        cum_cost_ += t - stall_start_;
        const JobTime lost = progress_since_ckpt_;
        r_.lost_work += lost;
        cum_cost_ += lost;
        ++r_.crashes;
        r_.chain.push_back(
            {t, "transport timeout and retry",
             fmt::format("the link stays down for {} retries x {}: the queue pairs give up, NCCL reports a transport "
                         "error and the job crashes; the {} of work since the last checkpoint is lost",
                         spec_.mechanisms.retry_count, core::format_time(spec_.mechanisms.retry_timeout),
                         at_text(lost)),
             (t - stall_start_) + lost});
        blackout(t, f.crash_detection + f.teardown + in_.restart, &r_.recovery);
        r_.chain.push_back({t, "restart",
                            fmt::format("detection {}, teardown {}, restart {} (checkpoint load included); the "
                                        "restarted job routes around the link",
                                        core::format_time(f.crash_detection), core::format_time(f.teardown),
                                        core::format_time(in_.restart)),
                            JobTime(f.crash_detection + f.teardown + in_.restart)});
        crashed_links_[stall_link_] = true;
        progress_since_ckpt_ = JobTime::zero();
        stall_start_ = JobTime::max();
        if (ext) ext->event.emit(t, "crash");
      }
    }
    const Measured* m = nullptr;
    if (stall_start_ == JobTime::max()) {
      ClusterState s = now;
      s.links = usable;
      m = &measure(s);
      tel.iteration.emit(t, m->iteration, T);
      if (observe_collectives_) tel.collective.emit(t, std::string("dp"), m->dp_collectives, healthy_collectives);
      tel.exposed_comm.emit(t, m->dp_exposed.seconds() / m->iteration.seconds());
      for (size_t st = 0; st < m->stage_compute.size() && st < steady.stages.size(); ++st) {
        const SimTime base = steady.stages[st].forward_compute + steady.stages[st].backward_compute;
        const double k = base > SimTime::zero() ? m->stage_compute[st].seconds() / base.seconds() : 1;
        tel.stage_compute.emit(t, static_cast<int>(st), k);
        if (ext) ext->stage_compute.emit(t, static_cast<int>(st), k);
      }
      if (ext) {
        ext->iteration.emit(t, m->iteration, T);
        if (observe_collectives_) ext->collective.emit(t, std::string("dp"), m->dp_collectives, healthy_collectives);
      }
    }

    // Controllers.
    JobTime next_due = D_;
    const size_t decisions_before = r_.decisions.size();
    for (ControllerState& c : ctl_) {
      const ControllerSpec& cs = *c.spec;
      const SimTime react = cs.reaction_time;
      switch (cs.kind) {
        case ControllerKind::kReroute: {
          for (const auto& [l, f] : obs.link) {
            const bool on = rerouted_.count(l) && rerouted_[l];
            const double better = reroute_fraction(l);
            Trigger& tr = c.link_trigger[l];
            Trigger& rel = c.link_release[l];
            tr.update(!on && f < 1 / cs.threshold && better > f, t);
            rel.update(on && f >= 1 / cs.release, t);
            if (tr.due(t, react)) {
              rerouted_[l] = true;
              tr.since.reset();
              decide(t, c, fmt::format("link #{} keeps {}", l, pct(f)), fmt::format("reroute link #{}", l),
                     fmt::format("its flows keep {} on the detour instead of {}", pct(better), pct(f)));
              if (stall_start_ != JobTime::max() && l == stall_link_) end_stall(t, true);
            } else if (rel.due(t, react)) {
              rerouted_[l] = false;
              rel.since.reset();
              decide(t, c, fmt::format("link #{} keeps {}", l, pct(f)), fmt::format("restore link #{}", l),
                     "its flows return to their ECMP paths");
            }
            if (tr.since) next_due = std::min(next_due, *tr.since + JobTime(react));
            if (rel.since) next_due = std::min(next_due, *rel.since + JobTime(react));
          }
          // A link whose episode ended while rerouted is healthy: release it.
          for (auto& [l, on] : rerouted_) {
            if (!on || obs.link.count(l)) continue;
            Trigger& rel = c.link_release[l];
            rel.update(true, t);
            if (rel.due(t, react)) {
              on = false;
              rel.since.reset();
              decide(t, c, fmt::format("link #{} healthy", l), fmt::format("restore link #{}", l),
                     "its flows return to their ECMP paths");
            } else if (rel.since) {
              next_due = std::min(next_due, *rel.since + JobTime(react));
            }
          }
          break;
        }
        case ControllerKind::kCollectiveTuner: {
          // What a tuner plugin sees: its communicator's collective times.
          // When they drift past the threshold from those it chose on
          // (either way: a degraded fabric, or one that has healed), it
          // tries every candidate on the cluster as it now is and keeps the
          // fastest observed; a candidate must beat the current choice by
          // the threshold, so noise-level differences do not flip it.
          if (!m || tuner_reference_ <= SimTime::zero()) break;
          const double drift = m->dp_collectives.seconds() / tuner_reference_.seconds();
          c.trigger.update(drift > cs.threshold || drift * cs.threshold < 1, t);
          if (c.trigger.due(t, react)) {
            c.trigger.since.reset();
            ClusterState s = now;
            s.links = usable;
            std::string best = algo_;
            SimTime best_time = m->dp_collectives;
            const Measured* best_m = m;
            for (const std::string& cand : candidates) {
              if (cand == algo_) continue;
              s.algo = cand;
              const Measured& x = measure(s);
              if (x.dp_collectives < best_time) {
                best = cand;
                best_time = x.dp_collectives;
                best_m = &x;
              }
            }
            if (best_time.seconds() * cs.threshold >= m->dp_collectives.seconds()) {
              best = algo_;  // not enough faster to be worth the switch
              best_time = m->dp_collectives;
              best_m = m;
            }
            tuner_reference_ = best_time;
            if (best != algo_) {
              const std::string from = algo_;
              algo_ = best;
              decide(t, c,
                     fmt::format("gradient collectives {} per iteration, {:.2f}x what they took at the last choice",
                                 core::format_time(m->dp_collectives), drift),
                     fmt::format("{} -> {} (fastest of {} candidates observed: {})", from.empty() ? "auto" : from,
                                 best, candidates.size(), core::format_time(best_time)),
                     fmt::format("iteration {} -> {}", core::format_time(m->iteration),
                                 core::format_time(best_m->iteration)));
            }
          }
          if (c.trigger.since) next_due = std::min(next_due, *c.trigger.since + JobTime(react));
          break;
        }
        case ControllerKind::kBatch: {
          if (!m) break;
          c.trigger.update(obs.exposed > cs.threshold && accum_ * 2 <= cs.max_accumulation, t);
          c.release.update(obs.exposed < cs.release && accum_ > 1, t);
          if (c.trigger.due(t, react) || c.release.due(t, react)) {
            const bool up = c.trigger.due(t, react);
            const int before = accum_;
            accum_ = up ? accum_ * 2 : accum_ / 2;
            c.trigger.since.reset();
            c.release.since.reset();
            ClusterState s = state_at(t, true);
            s.links = usable;
            const Measured& after = measure(s);
            r_.max_tokens_per_iteration = std::max(r_.max_tokens_per_iteration, after.tokens_per_iteration);
            decide(t, c, fmt::format("exposed DP communication {} of the iteration", pct(obs.exposed)),
                   fmt::format("gradient accumulation x{} -> x{} ({} -> {} tokens per step)", before, accum_,
                               m->tokens_per_iteration, after.tokens_per_iteration),
                   fmt::format("{:.0f} -> {:.0f} tokens/s", m->tokens_per_s, after.tokens_per_s));
          }
          if (c.trigger.since) next_due = std::min(next_due, *c.trigger.since + JobTime(react));
          if (c.release.since) next_due = std::min(next_due, *c.release.since + JobTime(react));
          break;
        }
        case ControllerKind::kStraggler: {
          if (!m) break;
          c.trigger.update(obs.stage_ratio > cs.threshold, t);
          if (c.trigger.due(t, react)) {
            c.trigger.since.reset();
            for (size_t e = first_open_; e < r_.episodes.size() && r_.episodes[e].start <= t; ++e) {
              if (r_.episodes[e].kind != ConditionKind::kStraggler || t >= r_.episodes[e].end) continue;
              if (cs.rebalance) {
                if (rebalanced_[e]) continue;
                rebalanced_[e] = true;
                ClusterState s = state_at(t, true);
                s.links = usable;
                const Measured& after = measure(s);
                decide(t, c, fmt::format("a stage computes {:.2f}x its steady time", obs.stage_ratio),
                       "rebalance micro-batches away from the slow replica",
                       fmt::format("iteration {} -> {}", core::format_time(m->iteration),
                                   core::format_time(after.iteration)));
              } else {
                swapped_[e] = true;
                ++r_.swaps;
                const FailureSpec& f = spec_.failures;
                const JobTime lost = progress_since_ckpt_;
                r_.lost_work += lost;
                cum_cost_ += lost;
                progress_since_ckpt_ = JobTime::zero();
                decide(t, c, fmt::format("a stage computes {:.2f}x its steady time", obs.stage_ratio),
                       "swap the slow GPU's host for a spare (restart)",
                       fmt::format("teardown {}, reschedule {}, restart {}, {} of work since the last checkpoint lost; "
                                   "iteration {} -> {} after",
                                   core::format_time(f.teardown), core::format_time(f.reschedule),
                                   core::format_time(in_.restart_new_host), at_text(lost),
                                   core::format_time(m->iteration), core::format_time(T)));
                blackout(t, f.teardown + f.reschedule + in_.restart_new_host, &r_.recovery);
              }
            }
          }
          if (c.trigger.since) next_due = std::min(next_due, *c.trigger.since + JobTime(react));
          break;
        }
        case ControllerKind::kCheckpoint: {
          if (!cs.compression) break;
          c.trigger.update(!compress_ && obs.storage < 1 / cs.threshold, t);
          c.release.update(compress_ && obs.storage >= 1 / cs.release, t);
          if (c.trigger.due(t, react)) {
            compress_ = true;
            c.trigger.since.reset();
            decide(t, c, fmt::format("storage keeps {} of its bandwidth", pct(obs.storage)),
                   fmt::format("compress checkpoints to {} of their bytes", pct(cs.compression_ratio)),
                   fmt::format("a checkpoint costs {} instead of {}",
                               core::format_time(checkpoint_cost_at(obs.storage, true)),
                               core::format_time(checkpoint_cost_at(obs.storage, false))));
          } else if (c.release.due(t, react)) {
            compress_ = false;
            c.release.since.reset();
            decide(t, c, fmt::format("storage keeps {} of its bandwidth", pct(obs.storage)), "stop compressing",
                   "checkpoints at full size again");
          }
          if (c.trigger.since) next_due = std::min(next_due, *c.trigger.since + JobTime(react));
          if (c.release.since) next_due = std::min(next_due, *c.release.since + JobTime(react));
          break;
        }
      }
    }

    // Pauses during a pause episode: one every pause_every.
    JobTime next_pause = D_;
    if (pause_active) {
      SimTime slack = SimTime::max();
      for (const auto& s : steady.stages) slack = std::min(slack, s.waiting - s.on_slowest);
      for (size_t e = first_open_; e < r_.episodes.size() && r_.episodes[e].start <= t; ++e) {
        const ConditionEpisode& ep = r_.episodes[e];
        const ConditionSpec& c = spec_.conditions[ep.condition];
        if (c.kind != ConditionKind::kPause || t >= ep.end) continue;
        const int64_t k = (t - ep.start).count_ps() / std::max<int64_t>(1, c.pause_every.count_ps());
        const JobTime due = ep.start + JobTime(c.pause_every) * k;
        if (due == t && c.pause > slack && !down) blackout(t, c.pause - slack, &r_.waiting);
        next_pause = std::min(next_pause, ep.start + JobTime(c.pause_every) * (k + 1));
      }
    }

    // A checkpoint, delayed by what the conditions cost so far.
    const JobTime ckpt_at = ci < ckpts.size() ? ckpts[ci] + cum_cost_ : D_;
    if (ci < ckpts.size() && ckpt_at <= t) {
      const bool after_chain = chain_ckpt_.has_value();
      const JobTime nominal = ckpts[ci] + (cum_cost_ - chain_delay_);
      ++ci;
      last_ckpt_ = t;
      progress_since_ckpt_ = JobTime::zero();
      // The write occupies storage for [t, t + W): congestion there at t
      // slows all of it; an episode starting inside it (the next tenant's
      // slot, which a late checkpoint runs into) slows the share of the
      // bytes still to write when it starts, (t + W - start) / W.
      double congested = storage, share = storage < 1 ? 1.0 : 0.0;
      JobTime overlap_start;
      const JobTime write = write_len;
      if (storage >= 1 && write > JobTime::zero()) {
        for (size_t e = first_open_; e < r_.episodes.size() && r_.episodes[e].start < t + write; ++e) {
          const ConditionEpisode& ep = r_.episodes[e];
          const ConditionSpec& c = spec_.conditions[ep.condition];
          if (c.kind != ConditionKind::kStorageCongestion || ep.start <= t || ep.end <= t) continue;
          congested = c.bandwidth_fraction;
          share = (t + write - ep.start).seconds() / write.seconds();
          overlap_start = ep.start;
          break;
        }
      }
      if (share > 0) {
        const SimTime full = checkpoint_cost_at(congested, compress_);
        const SimTime whole = full > steady_ckpt ? full - steady_ckpt : SimTime::zero();
        const SimTime extra = share >= 1 ? whole : SimTime::from_seconds(whole.seconds() * share);
        const SimTime cost = steady_ckpt + extra;
        blackout(t, extra, &r_.checkpoint);
        if (after_chain && storage < 1)
          r_.chain.push_back({t, "checkpoint overwhelms storage",
                              fmt::format("the checkpoint due at {}, {} late, lands in storage congestion (storage at "
                                          "{}): it costs {} instead of {}{}",
                                          clock(nominal), at_text(chain_delay_), pct(congested),
                                          core::format_time(cost), core::format_time(steady_ckpt),
                                          compress_ ? " (compressed)" : ""),
                              JobTime(extra)});
        else if (after_chain)
          r_.chain.push_back({t, "checkpoint overwhelms storage",
                              fmt::format("the checkpoint due at {}, {} late, runs into the next storage write at {} "
                                          "(storage at {}): the last {} of its bytes write congested, it costs {} "
                                          "instead of {}{}",
                                          clock(nominal), at_text(chain_delay_), clock(overlap_start), pct(congested),
                                          pct(share), core::format_time(cost), core::format_time(steady_ckpt),
                                          compress_ ? " (compressed)" : ""),
                              JobTime(extra)});
      } else if (after_chain) {
        r_.chain.push_back({t, "checkpoint overwhelms storage",
                            fmt::format("the next checkpoint, {} late, finds storage uncongested: the chain stops here",
                                        at_text(chain_delay_)),
                            JobTime::zero()});
      }
      if (after_chain && share > 0 && compress_)
        r_.chain_broken = "checkpoint controller: compression shrank the congested write";
      tell_checkpoint(ckpt_at, congested, share);
      chain_ckpt_.reset();
      // Training stops for the write's steady stall (its extra above, when
      // storage slowed it, is stopped time of its own first): the timeline
      // already counts that stall, so a condition slows nothing there.
      if (in_.checkpoint) {
        ckpt_stall_from_ = std::max(t, resume_);
        ckpt_stall_until_ = ckpt_stall_from_ + JobTime(in_.checkpoint->stall);
      }
    }

    // Advance to the next change point.
    JobTime next = std::min({t + JobTime(sample), next_edge, next_due, next_pause, D_});
    if (resume_ > t) next = std::min(next, resume_);
    next = std::min(next, next_idle_edge(t));  // the pace changes there
    if (ci < ckpts.size()) {
      // The checkpoint is due after so much more work. Stepping to where it
      // would be at the steady pace creeps up on it when conditions slow
      // the iteration (the cost of each step delays it again), and below
      // half the pace a picosecond step does no whole picosecond of work:
      // step to where this pace reaches it instead.
      JobTime due = ckpts[ci] + cum_cost_;
      const JobTime from = std::max(t, resume_);
      const double pace = m ? std::min(1.0, m->tokens_per_s / steady_rate) : 1.0;
      if (stall_start_ == JobTime::max() && !down && due > from && pace > 0 && pace < 1)
        due = from + JobTime::from_seconds((due - from).seconds() / pace);
      next = std::min(next, std::max(t + JobTime(SimTime::ps(1)), due));
    }
    if (stall_start_ != JobTime::max())
      next = std::min(next, stall_start_ + JobTime(spec_.mechanisms.retry_timeout) * spec_.mechanisms.retry_count);
    // An action changes the pace from now on: `m` is the state's before
    // it, so look again at once rather than charge it until the next sample.
    if (r_.decisions.size() > decisions_before) next = std::min(next, t + JobTime(SimTime::ps(1)));
    if (next <= t) next = t + JobTime(SimTime::ps(1));
    const JobTime dt = next - t;
    // Progress over [t, next): none while stalled or stopped, nor where the
    // timeline does not train.
    const JobTime stopped = stall_start_ != JobTime::max() ? dt : std::clamp(resume_ - t, JobTime::zero(), dt);
    const JobTime running = dt - stopped - (stopped < dt ? idle_in(t + stopped, next) : JobTime::zero());
    if (m && running > JobTime::zero()) {
      const double trained = running.seconds() * m->tokens_per_s / steady_rate;  // steady seconds of work
      const JobTime work = JobTime::from_seconds(std::min(trained, running.seconds()));
      const JobTime cost = running - work;
      const bool net = !usable.empty() || algo_ != default_algo;
      (net ? r_.communication : r_.waiting) += cost;
      cum_cost_ += cost;
      progress_since_ckpt_ += work;
      if (accum_ > 1) r_.larger_batch_time += running;
    }
    t = next;
  }
  // The checkpoints after the last condition (or of a job without one).
  for (; ci < ckpts.size() && ckpts[ci] + cum_cost_ < D_; ++ci) tell_checkpoint(ckpts[ci] + cum_cost_, 1, 0);
  r_.checkpoints_unreached = static_cast<int64_t>(ckpts.size() - ci);
  if (stall_start_ != JobTime::max()) {
    r_.communication += D_ - stall_start_;
    r_.chain.push_back({D_, "transport timeout and retry", "the job ends while the link is still down", D_ - stall_start_});
  }
  for (const auto& d : r_.decisions)
    if (ext) ext->event.emit(d.at, d.controller + ": " + d.action);
  return r_;
}

}  // namespace

AdaptationResult run_adaptation(const AdaptationInputs& in) {
  Adaptation a(in);
  return a.run();
}

}  // namespace anatomy::job
