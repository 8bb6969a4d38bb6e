#include "scenario/job_fields.h"

#include <fmt/format.h>

namespace anatomy::scenario::detail {
namespace {

using job::CheckpointPolicy;
using job::CheckpointSpec;
using job::FailureClass;
using job::FailureSpec;
using job::JobSpec;
using job::StartupSpec;

Check long_time_positive() {
  return [](const Value& v) {
    return v.long_time > core::JobTime::zero() ? std::string() : std::string("must be positive");
  };
}
Check ratio() {
  return [](const Value& v) {
    return v.number > 0 && v.number <= 1 ? std::string() : fmt::format("must be in (0, 1] (got {})", v.number);
  };
}

const std::vector<Field<JobSpec>>& job_fields() {
  static const std::vector<Field<JobSpec>> f = {
      {"duration", Kind::kLongTime, required(), long_time_positive(), "wall time the job runs, e.g. 54d or 2y",
       [](JobSpec& j, const Value& v) { j.duration = v.long_time; }, shows(&JobSpec::duration)},
      {"startup", Kind::kSection, derived("every key at its default"), {}, "image pull, launch, NCCL init", {}},
      {"checkpoint", Kind::kSection, derived("every key at its default"), {}, "checkpoint policy and interval", {}},
      {"failures", Kind::kSection, derived("no failures"), {}, "failure classes, detection and recovery", {}},
      {"cost", Kind::kSection, derived("no dollar figures"), {}, "price per GPU-hour", {}},
      {"congestion", Kind::kSection, derived("none"), {}, "a congestion event to follow through the cascade", {}},
      {"conditions", Kind::kSection, derived("none"), {}, "a list of time-varying conditions (a schedule or a seeded stream)", {}},
      {"controllers", Kind::kSection, derived("none"), {}, "a list of controllers that read telemetry and act", {}},
      {"mechanisms", Kind::kSection, derived("every key at its default"), {},
       "thresholds of the cascade's mechanisms (retry timer, HBM headroom, allocator pause)", {}},
  };
  return f;
}

const std::vector<Field<job::ConditionSpec>>& condition_fields() {
  using C = job::ConditionSpec;
  using K = job::ConditionKind;
  static const std::vector<Field<C>> f = {
      {"kind", Kind::kEnum, required(), {}, "what changes",
       [](C& c, const Value& v) {
         c.kind = v.text == "link_degradation"     ? K::kLinkDegradation
                  : v.text == "link_flap"          ? K::kLinkFlap
                  : v.text == "straggler"          ? K::kStraggler
                  : v.text == "pause"              ? K::kPause
                  : v.text == "storage_congestion" ? K::kStorageCongestion
                                                   : K::kBackgroundTraffic;
       },
       [](const C& c) { return std::string(job::to_string(c.kind)); },
       {"background_traffic", "link_degradation", "link_flap", "straggler", "pause", "storage_congestion"}},
      {"at", Kind::kLongTime, by_default("0s"), {}, "the first episode, from the job's start (after_checkpoints: the gap after each of this job's writes)",
       [](C& c, const Value& v) { c.at = v.long_time; }, shows(&C::at)},
      {"duration", Kind::kTime, by_default("1min"), time_positive(), "how long each episode lasts",
       [](C& c, const Value& v) { c.duration = v.time; }, shows(&C::duration)},
      {"every", Kind::kLongTime, by_default("0s"), {}, "an episode every this long from `at` (0: one episode)",
       [](C& c, const Value& v) { c.every = v.long_time; }, shows(&C::every)},
      {"count", Kind::kInt, by_default("1"), int_range(0, 100000), "episodes on the schedule (0: until the job ends)",
       [](C& c, const Value& v) { c.count = v.as_int(); }, shows(&C::count)},
      {"after_checkpoints", Kind::kBool, by_default("false"), {},
       "storage_congestion: an episode in the storage slot after each of this job's scheduled checkpoint writes (the "
       "next tenant's, starting `at` after ours ends) instead of at/every: a checkpoint later than `at` runs into it",
       [](C& c, const Value& v) { c.after_checkpoints = v.flag; }, shows(&C::after_checkpoints)},
      {"rate_per_hour", Kind::kDouble, by_default("0"), number_at_least(0),
       "episodes from a seeded Poisson stream at this rate instead of the schedule (0: the schedule)",
       [](C& c, const Value& v) { c.rate_per_hour = v.number; }, shows(&C::rate_per_hour)},
      {"link", Kind::kInt, by_default("0"), int_range(0, 7),
       "which fabric link: its rank among the steady iteration's busiest (0: the busiest)",
       [](C& c, const Value& v) { c.link = v.as_int(); }, shows(&C::link)},
      {"load", Kind::kDouble, by_default("0.5"), ratio(), "background traffic: the other tenant's share of the link",
       [](C& c, const Value& v) { c.load = v.number; }, shows(&C::load)},
      {"bandwidth_fraction", Kind::kDouble, by_default("0.1"), number_at_least(0),
       "link degradation: what the link keeps (below 0.001 it stalls); storage congestion: what storage keeps",
       [](C& c, const Value& v) { c.bandwidth_fraction = std::min(1.0, v.number); }, shows(&C::bandwidth_fraction)},
      {"bit_error_rate", Kind::kDouble, by_default("0"), number_at_least(0),
       "link degradation by bit errors instead (4 KiB packets, go-back-N over 64 in flight)",
       [](C& c, const Value& v) { c.bit_error_rate = v.number; }, shows(&C::bit_error_rate)},
      // A GPU a thousand times slower has stopped (a failure, not a
      // straggler); far beyond it the step's time overflows.
      {"slowdown", Kind::kDouble, by_default("0.2"), number_at_least_below(0, 1000),
       "straggler: compute takes 1 + this as long",
       [](C& c, const Value& v) { c.slowdown = v.number; }, shows(&C::slowdown)},
      {"slowdown_spread", Kind::kDouble, by_default("0"), number_at_least(0),
       "straggler: each GPU's slowdown uniform in slowdown x [1 - spread, 1 + spread]",
       [](C& c, const Value& v) { c.slowdown_spread = v.number; }, shows(&C::slowdown_spread)},
      {"gpus", Kind::kInt, by_default("1"), int_range(1, 1 << 20), "straggler: GPUs slowed (a seeded draw)",
       [](C& c, const Value& v) { c.gpus = v.as_int(); }, shows(&C::gpus)},
      {"pause", Kind::kTime, by_default("100ms"), time_positive(), "pause: how long a rank stops each time",
       [](C& c, const Value& v) { c.pause = v.time; }, shows(&C::pause)},
      {"pause_every", Kind::kTime, by_default("10s"), time_positive(), "pause: one stop per this, during the episode",
       [](C& c, const Value& v) { c.pause_every = v.time; }, shows(&C::pause_every)},
  };
  return f;
}

const std::vector<Field<job::ControllerSpec>>& controller_fields() {
  using C = job::ControllerSpec;
  using K = job::ControllerKind;
  static const std::vector<Field<C>> f = {
      {"kind", Kind::kEnum, required(), {}, "which strategy",
       [](C& c, const Value& v) {
         c.kind = v.text == "collective_tuner" ? K::kCollectiveTuner
                  : v.text == "checkpoint"     ? K::kCheckpoint
                  : v.text == "batch"          ? K::kBatch
                  : v.text == "straggler"      ? K::kStraggler
                                               : K::kReroute;
       },
       [](const C& c) { return std::string(job::to_string(c.kind)); },
       {"collective_tuner", "checkpoint", "batch", "straggler", "reroute"}},
      {"reaction_time", Kind::kTime, by_default("5s"), {}, "the trigger (or the release) must hold this long before it acts",
       [](C& c, const Value& v) { c.reaction_time = v.time; }, shows(&C::reaction_time)},
      {"decision_cost", Kind::kTime, by_default("0s"), {}, "training stops this long for each action",
       [](C& c, const Value& v) { c.decision_cost = v.time; }, shows(&C::decision_cost)},
      {"threshold", Kind::kDouble, by_default("1.1"), number_positive(),
       "trigger: observed / expected above this (tuner: collective time / time at its last choice, either way, "
       "and a candidate must be this much faster; straggler: stage "
       "compute / steady; reroute, checkpoint: 1 / bandwidth kept); batch: exposed DP communication as a fraction of "
       "the iteration",
       [](C& c, const Value& v) { c.threshold = v.number; }, shows(&C::threshold)},
      {"release", Kind::kDouble, by_default("1.05"), number_positive(),
       "undo below this, on the same scale as threshold (reroute, checkpoint, batch)",
       [](C& c, const Value& v) { c.release = v.number; }, shows(&C::release)},
      {"max_accumulation", Kind::kInt, by_default("4"), int_range(1, 1024),
       "batch: the largest gradient-accumulation multiple of the configured global batch",
       [](C& c, const Value& v) { c.max_accumulation = v.as_int(); }, shows(&C::max_accumulation)},
      {"rebalance", Kind::kBool, by_default("false"), {},
       "straggler: rebalance micro-batches across data-parallel replicas instead of swapping in a spare",
       [](C& c, const Value& v) { c.rebalance = v.flag; }, shows(&C::rebalance)},
      {"min_failures", Kind::kInt, by_default("1"), int_range(1, 1 << 20),
       "checkpoint: failures seen before Young/Daly replaces the configured interval",
       [](C& c, const Value& v) { c.min_failures = v.as_int(); }, shows(&C::min_failures)},
      {"compression", Kind::kBool, by_default("true"), {}, "checkpoint: compress while storage is congested",
       [](C& c, const Value& v) { c.compression = v.flag; }, shows(&C::compression)},
      {"compression_ratio", Kind::kDouble, by_default("0.5"), ratio(), "checkpoint: stored / raw bytes when compressing",
       [](C& c, const Value& v) { c.compression_ratio = v.number; }, shows(&C::compression_ratio)},
  };
  return f;
}

const std::vector<Field<job::MechanismSpec>>& mechanism_fields() {
  using M = job::MechanismSpec;
  static const std::vector<Field<M>> f = {
      {"retry_timeout", Kind::kTime, by_default("4.295s"), time_positive(),
       "a dropped packet is resent after this (NCCL_IB_TIMEOUT 20: 4.096 us x 2^20)",
       [](M& m, const Value& v) { m.retry_timeout = v.time; }, shows(&M::retry_timeout)},
      {"retry_count", Kind::kInt, by_default("7"), int_range(1, 64), "retries before a queue pair gives up (NCCL_IB_RETRY_CNT)",
       [](M& m, const Value& v) { m.retry_count = v.as_int(); }, shows(&M::retry_count)},
      {"memory_headroom", Kind::kBytes, derived("the GPU's HBM less the plan's memory fit"), {},
       "HBM free for buffers queued during a stall",
       [](M& m, const Value& v) { m.memory_headroom = v.bytes; },
       [](const M& m) { return m.memory_headroom.count() < 0 ? std::string() : show_value(m.memory_headroom); }},
      {"allocator_pause", Kind::kTime, by_default("100ms"), {},
       "the caching allocator frees its cache and retries when HBM runs out (an input: the article's figure)",
       [](M& m, const Value& v) { m.allocator_pause = v.time; }, shows(&M::allocator_pause)},
      {"telemetry_interval", Kind::kTime, derived("one steady iteration, at most 2,000,000 samples a job"), {},
       "how often signals are sampled between change points (an episode's start or end, a controller's due time or "
       "action, a checkpoint, where they are always sampled): it sets the telemetry series' detail, not the job's "
       "costs",
       [](M& m, const Value& v) { m.telemetry_interval = v.time; }, shows_unless_zero(&M::telemetry_interval)},
  };
  return f;
}

const std::vector<Field<StartupSpec>>& startup_fields() {
  using S = StartupSpec;
  static const std::vector<Field<S>> f = {
      {"image_size", Kind::kBytes, by_default("20GiB"), {}, "container image",
       [](S& s, const Value& v) { s.image_size = v.bytes; }, shows(&S::image_size)},
      {"registry_bandwidth", Kind::kBandwidth, by_default("100Gbps"), {}, "registry egress shared by all hosts",
       [](S& s, const Value& v) { s.registry_bandwidth = v.rate; }, shows(&S::registry_bandwidth)},
      {"image_cached", Kind::kBool, by_default("true"), {}, "the image is already on the hosts at the first start",
       [](S& s, const Value& v) { s.image_cached = v.flag; }, shows(&S::image_cached)},
      {"peer_to_peer", Kind::kBool, by_default("false"), {}, "hosts relay the image to each other",
       [](S& s, const Value& v) { s.peer_to_peer = v.flag; }, shows(&S::peer_to_peer)},
      {"bootstrap_per_rank", Kind::kTime, by_default("20us"), {}, "NCCL bootstrap: per rank at the root",
       [](S& s, const Value& v) { s.bootstrap_per_rank = v.time; }, shows(&S::bootstrap_per_rank)},
      {"topology_discovery", Kind::kTime, by_default("2s"), {}, "NCCL topology probing per host (in parallel)",
       [](S& s, const Value& v) { s.topology_discovery = v.time; }, shows(&S::topology_discovery)},
      {"connect_per_peer", Kind::kTime, by_default("2ms"), {}, "connection setup per peer per channel",
       [](S& s, const Value& v) { s.connect_per_peer = v.time; }, shows(&S::connect_per_peer)},
      {"framework_init", Kind::kTime, by_default("60s"), {}, "process launch, imports, model build",
       [](S& s, const Value& v) { s.framework_init = v.time; }, shows(&S::framework_init)},
  };
  return f;
}

const std::vector<Field<CheckpointSpec>>& checkpoint_fields() {
  using C = CheckpointSpec;
  static const std::vector<Field<C>> f = {
      {"enabled", Kind::kBool, by_default("true"), {}, "write checkpoints at all",
       [](C& c, const Value& v) { c.enabled = v.flag; }, shows(&C::enabled)},
      {"policy", Kind::kEnum, by_default("asynchronous"), {}, "how training waits for a checkpoint",
       [](C& c, const Value& v) {
         c.policy = v.text == "synchronous"    ? CheckpointPolicy::kSynchronous
                    : v.text == "hierarchical" ? CheckpointPolicy::kHierarchical
                                               : CheckpointPolicy::kAsynchronous;
       },
       [](const C& c) { return std::string(job::to_string(c.policy)); },
       {"synchronous", "asynchronous", "hierarchical"}},
      {"interval", Kind::kLongTime, derived("none (interval_iterations)"), {}, "wall time between checkpoints",
       [](C& c, const Value& v) { c.interval = v.long_time; }, shows_unless_zero(&C::interval)},
      {"interval_iterations", Kind::kInt, by_default("0"), int_range(0, int64_t{1} << 40),
       "iterations between checkpoints (0: use interval)",
       [](C& c, const Value& v) { c.interval_iterations = v.integer; }, shows(&C::interval_iterations)},
      {"compression_ratio", Kind::kDouble, by_default("1"), ratio(), "stored / raw bytes",
       [](C& c, const Value& v) { c.compression_ratio = v.number; }, shows(&C::compression_ratio)},
      {"compression_rate", Kind::kBandwidth, derived("none"), {}, "bytes compressed per second per GPU",
       [](C& c, const Value& v) { c.compression_rate = v.rate; }, shows_unless_zero(&C::compression_rate)},
      {"host_copy_rate", Kind::kBandwidth, derived("the GPU-host link"), {}, "GPU to host snapshot rate",
       [](C& c, const Value& v) { c.host_copy_rate = v.rate; }, shows_unless_zero(&C::host_copy_rate)},
      {"local_nvme_rate", Kind::kBandwidth, by_default("6GB/s"), {}, "per host, for hierarchical checkpoints",
       [](C& c, const Value& v) { c.local_nvme_rate = v.rate; }, shows(&C::local_nvme_rate)},
  };
  return f;
}

const std::vector<Field<FailureSpec>>& failure_fields() {
  using F = FailureSpec;
  static const std::vector<Field<F>> f = {
      {"watchdog_timeout", Kind::kTime, by_default("10min"), time_positive(),
       "a hung collective is noticed after this (PyTorch's NCCL watchdog default)",
       [](F& x, const Value& v) { x.watchdog_timeout = v.time; }, shows(&F::watchdog_timeout)},
      {"crash_detection", Kind::kTime, by_default("30s"), {}, "a crashed process is noticed after this",
       [](F& x, const Value& v) { x.crash_detection = v.time; }, shows(&F::crash_detection)},
      {"teardown", Kind::kTime, by_default("60s"), {}, "stopping the job and releasing its nodes",
       [](F& x, const Value& v) { x.teardown = v.time; }, shows(&F::teardown)},
      {"reschedule", Kind::kTime, by_default("2min"), {}, "attaching a spare host",
       [](F& x, const Value& v) { x.reschedule = v.time; }, shows(&F::reschedule)},
      {"repair", Kind::kTime, by_default("4h"), {}, "repairing a failed host (when no spare is left)",
       [](F& x, const Value& v) { x.repair = v.time; }, shows(&F::repair)},
      {"spare_hosts", Kind::kInt, by_default("16"), int_range(0, 1 << 20), "hosts held in reserve",
       [](F& x, const Value& v) { x.spare_hosts = static_cast<int>(v.integer); }, shows(&F::spare_hosts)},
      {"planned_interval", Kind::kLongTime, by_default("0s"), {}, "planned maintenance restarts (0: none)",
       [](F& x, const Value& v) { x.planned_interval = v.long_time; }, shows(&F::planned_interval)},
      {"classes", Kind::kSection, derived("none"), {}, "a list of failure classes", {}},
  };
  return f;
}

const std::vector<Field<FailureClass>>& class_fields() {
  using C = FailureClass;
  static const std::vector<Field<C>> f = {
      {"name", Kind::kString, required(), not_empty(), "the component, e.g. Faulty GPU",
       [](C& c, const Value& v) { c.name = v.text; }, shows(&C::name)},
      {"category", Kind::kString, by_default("Other"), {}, "for the root-cause mix: GPU, Network, Host, ...",
       [](C& c, const Value& v) { c.category = v.text; }, shows(&C::category)},
      {"per", Kind::kEnum, required(), {}, "what the rate counts",
       [](C& c, const Value& v) {
         c.per = v.text == "gpu"    ? C::Per::kGpu
                 : v.text == "host" ? C::Per::kHost
                 : v.text == "nic"  ? C::Per::kNic
                 : v.text == "switch" ? C::Per::kSwitch
                                      : C::Per::kJob;
       },
       [](const C& c) {
         switch (c.per) {
           case C::Per::kGpu: return std::string("gpu");
           case C::Per::kHost: return std::string("host");
           case C::Per::kNic: return std::string("nic");
           case C::Per::kSwitch: return std::string("switch");
           case C::Per::kJob: break;
         }
         return std::string("job");
       },
       {"gpu", "host", "nic", "switch", "job"}},
      {"rate_per_day", Kind::kDouble, required(), number_at_least(0), "failures per unit per day",
       [](C& c, const Value& v) { c.rate_per_unit_day = v.number; }, shows(&C::rate_per_unit_day)},
      {"hangs", Kind::kBool, by_default("false"), {}, "it hangs a collective (found by the watchdog) rather than crashing",
       [](C& c, const Value& v) { c.hangs = v.flag; }, shows(&C::hangs)},
      {"needs_replacement", Kind::kBool, by_default("true"), {}, "the unit must be swapped for a spare",
       [](C& c, const Value& v) { c.needs_replacement = v.flag; }, shows(&C::needs_replacement)},
  };
  return f;
}

const std::vector<Field<job::CongestionSpec>>& congestion_fields() {
  using C = job::CongestionSpec;
  static const std::vector<Field<C>> f = {
      {"bandwidth_fraction", Kind::kDouble, by_default("0.1"), ratio(), "what the congested link keeps",
       [](C& c, const Value& v) { c.bandwidth_fraction = v.number; }, shows(&C::bandwidth_fraction)},
      {"duration", Kind::kTime, by_default("50ms"), time_positive(), "how long the congestion lasts",
       [](C& c, const Value& v) { c.duration = v.time; }, shows(&C::duration)},
      {"at", Kind::kLongTime, derived("halfway through the job (duration / 2)"), long_time_positive(),
       "when the congestion begins, from the job's start (the first training after it, if the job is not training then)",
       [](C& c, const Value& v) { c.at = v.long_time; }, shows_unless_zero(&C::at)},
      {"retry_timeout", Kind::kTime, by_default("4.295s"), time_positive(),
       "one transport retry (NCCL_IB_TIMEOUT 20: 4.096 us x 2^20)",
       [](C& c, const Value& v) { c.retry_timeout = v.time; }, shows(&C::retry_timeout)},
      {"retry_count", Kind::kInt, by_default("7"), int_range(1, 64), "transport retries (NCCL_IB_RETRY_CNT)",
       [](C& c, const Value& v) { c.retry_count = static_cast<int>(v.integer); }, shows(&C::retry_count)},
  };
  return f;
}

const std::vector<Field<job::CostSpec>>& cost_fields() {
  static const std::vector<Field<job::CostSpec>> f = {
      {"dollars_per_gpu_hour", Kind::kDouble, by_default("0"), number_at_least(0), "price of a GPU-hour",
       [](job::CostSpec& c, const Value& v) { c.dollars_per_gpu_hour = v.number; }, shows(&job::CostSpec::dollars_per_gpu_hour)},
  };
  return f;
}

struct PlacementTarget {
  job::PlacementSpec spec;
  int cluster_gpus = 0;
};

const std::vector<Field<PlacementTarget>>& placement_fields() {
  using P = PlacementTarget;
  static const std::vector<Field<P>> f = {
      {"cluster_gpus", Kind::kInt, required(), int_range(1, 1 << 20),
       "GPUs in the whole cluster the job is placed in (cluster.gpus is the job's own)",
       [](P& p, const Value& v) { p.cluster_gpus = static_cast<int>(v.integer); }, shows(&P::cluster_gpus)},
      {"policy", Kind::kEnum, by_default("packed"), {}, "packed, spread or balanced",
       [](P& p, const Value& v) {
         p.spec.policy = v.text == "spread"     ? job::PlacementPolicy::kSpread
                         : v.text == "balanced" ? job::PlacementPolicy::kBalanced
                                                : job::PlacementPolicy::kPacked;
       },
       [](const P& p) { return std::string(job::to_string(p.spec.policy)); },
       {"packed", "spread", "balanced"}},
      {"hosts_per_rack", Kind::kInt, by_default("4"), int_range(1, 1024), "hosts in a rack",
       [](P& p, const Value& v) { p.spec.hosts_per_rack = static_cast<int>(v.integer); },
       [](const P& p) { return show_value(p.spec.hosts_per_rack); }},
      {"racks_per_feed", Kind::kInt, by_default("8"), int_range(1, 1 << 20), "racks on one power feed",
       [](P& p, const Value& v) { p.spec.racks_per_feed = static_cast<int>(v.integer); },
       [](const P& p) { return show_value(p.spec.racks_per_feed); }},
      {"rack_power_kw", Kind::kDouble, by_default("0"), number_at_least(0), "power budget per rack (0: none)",
       [](P& p, const Value& v) { p.spec.rack_power_kw = v.number; },
       [](const P& p) { return show_value(p.spec.rack_power_kw); }},
      {"host_overhead_w", Kind::kDouble, by_default("2000"), number_at_least(0), "host power beyond its GPUs' TDP",
       [](P& p, const Value& v) { p.spec.host_overhead_w = v.number; },
       [](const P& p) { return show_value(p.spec.host_overhead_w); }},
      {"busy_fraction", Kind::kDouble, by_default("0"), {}, "hosts already busy with other jobs (a seeded draw)",
       [](P& p, const Value& v) { p.spec.busy_fraction = v.number; },
       [](const P& p) { return show_value(p.spec.busy_fraction); }},
      {"max_ranks_per_rack", Kind::kInt, by_default("0"), int_range(0, 1 << 20), "fault-domain rule (0: none)",
       [](P& p, const Value& v) { p.spec.max_ranks_per_rack = static_cast<int>(v.integer); },
       [](const P& p) { return show_value(p.spec.max_ranks_per_rack); }},
      {"balanced_hosts_per_rack", Kind::kInt, by_default("2"), int_range(1, 1024), "the balanced policy's fill",
       [](P& p, const Value& v) { p.spec.balanced_hosts_per_rack = static_cast<int>(v.integer); },
       [](const P& p) { return show_value(p.spec.balanced_hosts_per_rack); }},
  };
  return f;
}

template <typename T>
void read_list(const YAML::Node& node, const std::string& path, const char* what, const std::vector<Field<T>>& fields,
               std::vector<T>& out, Context& ctx) {
  if (!node.IsDefined() || node.IsNull()) return;
  if (!node.IsSequence()) ctx.fail(ctx.line_for(path), path, fmt::format("expected a list of {}", what));
  for (size_t i = 0; i < node.size(); ++i) {
    T item;
    read_section(node[i], fmt::format("{}[{}]", path, i), line_of(node[i]), fields, item, ctx);
    out.push_back(std::move(item));
  }
}

template <typename T>
Section list_section(std::string path, std::string key, const std::vector<Field<T>>& (*fields)(),
                     std::vector<T> job::JobSpec::*member) {
  Section sec;
  sec.path = path + "[]";
  sec.docs = [path, fields](std::vector<FieldDoc>& d) { add_docs(d, path + "[]", fields()); };
  sec.rows = [key, fields, member](const Scenario& s, std::vector<InputValue>& rows) {
    if (!s.job) return;
    const auto& list = (*s.job).*member;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string value;
      for (const auto& f : fields())
        if (f.show) value += fmt::format("{}{}: {}", value.empty() ? "" : ", ", f.key, f.show(list[i]));
      rows.push_back({"job", fmt::format("{}[{}]", key, i), value, false});
    }
  };
  return sec;
}

}  // namespace

JobSpec read_job(const YAML::Node& node, int line, Context& ctx) {
  JobSpec j;
  const Present top = read_section(node, "job", line, job_fields(), j, ctx);
  read_section(sub(top, "startup"), "job.startup", ctx.line_for("job.startup"), startup_fields(), j.startup, ctx);
  read_section(sub(top, "checkpoint"), "job.checkpoint", ctx.line_for("job.checkpoint"), checkpoint_fields(),
               j.checkpoint, ctx);
  read_section(sub(top, "cost"), "job.cost", ctx.line_for("job.cost"), cost_fields(), j.cost, ctx);
  if (top.count("congestion")) {
    j.trace_congestion = true;
    read_section(sub(top, "congestion"), "job.congestion", ctx.line_for("job.congestion"), congestion_fields(),
                 j.congestion, ctx);
  }
  read_section(sub(top, "mechanisms"), "job.mechanisms", ctx.line_for("job.mechanisms"), mechanism_fields(),
               j.mechanisms, ctx);
  read_list(sub(top, "conditions"), "job.conditions", "conditions", condition_fields(), j.conditions, ctx);
  read_list(sub(top, "controllers"), "job.controllers", "controllers", controller_fields(), j.controllers, ctx);
  const Present failures =
      read_section(sub(top, "failures"), "job.failures", ctx.line_for("job.failures"), failure_fields(), j.failures, ctx);
  const YAML::Node classes = sub(failures, "classes");
  if (classes.IsDefined() && !classes.IsNull()) {
    if (!classes.IsSequence())
      ctx.fail(ctx.line_for("job.failures.classes"), "job.failures.classes", "expected a list of failure classes");
    for (size_t i = 0; i < classes.size(); ++i) {
      FailureClass c;
      const std::string path = fmt::format("job.failures.classes[{}]", i);
      read_section(classes[i], path, line_of(classes[i]), class_fields(), c, ctx);
      j.failures.classes.push_back(std::move(c));
    }
  }
  if (j.checkpoint.enabled && j.checkpoint.interval_iterations <= 0 && j.checkpoint.interval <= core::SimTime::zero())
    ctx.fail(ctx.line_for("job.checkpoint"), "job.checkpoint.interval",
             "set an interval (a time) or interval_iterations, or enabled: false");
  return j;
}

job::PlacementSpec read_placement(const YAML::Node& node, int line, Context& ctx, int* cluster_gpus) {
  PlacementTarget p;
  read_section(node, "placement", line, placement_fields(), p, ctx);
  if (p.spec.busy_fraction < 0 || p.spec.busy_fraction >= 1)
    ctx.fail(ctx.line_for("placement.busy_fraction"), "placement.busy_fraction", "must be in [0, 1)");
  *cluster_gpus = p.cluster_gpus;
  return p.spec;
}

void add_job_sections(std::vector<Section>& out) {
  using job::CongestionSpec;
  using job::CostSpec;
  auto in_job = [](auto member) {
    return [member](const Scenario& s) { return s.job ? &(*s.job.*member) : nullptr; };
  };
  out.push_back(section<JobSpec>("job", job_fields(), [](const Scenario& s) { return s.job ? &*s.job : nullptr; }));
  out.push_back(section<StartupSpec>("job.startup", startup_fields(), in_job(&JobSpec::startup)));
  out.push_back(section<CheckpointSpec>("job.checkpoint", checkpoint_fields(), in_job(&JobSpec::checkpoint)));
  out.push_back(section<FailureSpec>("job.failures", failure_fields(), in_job(&JobSpec::failures)));
  // A list: one row per class, its keys in one value.
  Section classes;
  classes.path = "job.failures.classes[]";
  classes.docs = [](std::vector<FieldDoc>& d) { add_docs(d, "job.failures.classes[]", class_fields()); };
  classes.rows = [](const Scenario& s, std::vector<InputValue>& rows) {
    if (!s.job) return;
    const auto& list = s.job->failures.classes;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string value;
      for (const auto& f : class_fields())
        if (f.show) value += fmt::format("{}{}: {}", value.empty() ? "" : ", ", f.key, f.show(list[i]));
      rows.push_back({"job", fmt::format("failures.classes[{}]", i), value, false});
    }
  };
  out.push_back(std::move(classes));
  out.push_back(section<CostSpec>("job.cost", cost_fields(), in_job(&JobSpec::cost)));
  out.push_back(section<CongestionSpec>("job.congestion", congestion_fields(), [](const Scenario& s) {
    return s.job && s.job->trace_congestion ? &s.job->congestion : nullptr;
  }));
  // Shown only when the job adapts, so that every other job's inputs read as before.
  out.push_back(section<job::MechanismSpec>("job.mechanisms", mechanism_fields(), [](const Scenario& s) {
    return s.job && s.job->adaptive() ? &s.job->mechanisms : nullptr;
  }));
  out.push_back(list_section("job.conditions", "conditions", &condition_fields, &JobSpec::conditions));
  out.push_back(list_section("job.controllers", "controllers", &controller_fields, &JobSpec::controllers));
  // The placement table fills a PlacementTarget; a Scenario keeps its two
  // parts apart, so the rows come from one put back together.
  Section placement = section<PlacementTarget>("placement", placement_fields(), [](const Scenario&) { return nullptr; });
  placement.rows = [](const Scenario& s, std::vector<InputValue>& rows) {
    if (s.placement) add_rows(rows, "placement", placement_fields(), PlacementTarget{*s.placement, s.placement_cluster_gpus});
  };
  out.push_back(std::move(placement));
}

}  // namespace anatomy::scenario::detail
