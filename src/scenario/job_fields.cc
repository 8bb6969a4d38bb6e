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

Check time_positive() {
  return [](const Value& v) { return v.time > core::SimTime::zero() ? std::string() : std::string("must be positive"); };
}
Check ratio() {
  return [](const Value& v) {
    return v.number > 0 && v.number <= 1 ? std::string() : fmt::format("must be in (0, 1] (got {})", v.number);
  };
}

const std::vector<Field<JobSpec>>& job_fields() {
  static const std::vector<Field<JobSpec>> f = {
      {"duration", Kind::kTime, required(), time_positive(), "wall time the job runs, e.g. 54d",
       [](JobSpec& j, const Value& v) { j.duration = v.time; }},
      {"startup", Kind::kSection, derived("every key at its default"), {}, "image pull, launch, NCCL init", {}},
      {"checkpoint", Kind::kSection, derived("every key at its default"), {}, "checkpoint policy and interval", {}},
      {"failures", Kind::kSection, derived("no failures"), {}, "failure classes, detection and recovery", {}},
      {"cost", Kind::kSection, derived("no dollar figures"), {}, "price per GPU-hour", {}},
      {"congestion", Kind::kSection, derived("none"), {}, "a congestion event to follow through the cascade", {}},
  };
  return f;
}

const std::vector<Field<StartupSpec>>& startup_fields() {
  using S = StartupSpec;
  static const std::vector<Field<S>> f = {
      {"image_size", Kind::kBytes, by_default("20GiB"), {}, "container image",
       [](S& s, const Value& v) { s.image_size = v.bytes; }},
      {"registry_bandwidth", Kind::kBandwidth, by_default("100Gbps"), {}, "registry egress shared by all hosts",
       [](S& s, const Value& v) { s.registry_bandwidth = v.rate; }},
      {"image_cached", Kind::kBool, by_default("true"), {}, "the image is already on the hosts at the first start",
       [](S& s, const Value& v) { s.image_cached = v.flag; }},
      {"peer_to_peer", Kind::kBool, by_default("false"), {}, "hosts relay the image to each other",
       [](S& s, const Value& v) { s.peer_to_peer = v.flag; }},
      {"bootstrap_per_rank", Kind::kTime, by_default("20us"), {}, "NCCL bootstrap: per rank at the root",
       [](S& s, const Value& v) { s.bootstrap_per_rank = v.time; }},
      {"topology_discovery", Kind::kTime, by_default("2s"), {}, "NCCL topology probing per host (in parallel)",
       [](S& s, const Value& v) { s.topology_discovery = v.time; }},
      {"connect_per_peer", Kind::kTime, by_default("2ms"), {}, "connection setup per peer per channel",
       [](S& s, const Value& v) { s.connect_per_peer = v.time; }},
      {"framework_init", Kind::kTime, by_default("60s"), {}, "process launch, imports, model build",
       [](S& s, const Value& v) { s.framework_init = v.time; }},
  };
  return f;
}

const std::vector<Field<CheckpointSpec>>& checkpoint_fields() {
  using C = CheckpointSpec;
  static const std::vector<Field<C>> f = {
      {"enabled", Kind::kBool, by_default("true"), {}, "write checkpoints at all",
       [](C& c, const Value& v) { c.enabled = v.flag; }},
      {"policy", Kind::kEnum, by_default("asynchronous"), {}, "how training waits for a checkpoint",
       [](C& c, const Value& v) {
         c.policy = v.text == "synchronous"    ? CheckpointPolicy::kSynchronous
                    : v.text == "hierarchical" ? CheckpointPolicy::kHierarchical
                                               : CheckpointPolicy::kAsynchronous;
       },
       {"synchronous", "asynchronous", "hierarchical"}},
      {"interval", Kind::kTime, derived("none (interval_iterations)"), {}, "wall time between checkpoints",
       [](C& c, const Value& v) { c.interval = v.time; }},
      {"interval_iterations", Kind::kInt, by_default("0"), int_range(0, int64_t{1} << 40),
       "iterations between checkpoints (0: use interval)",
       [](C& c, const Value& v) { c.interval_iterations = v.integer; }},
      {"compression_ratio", Kind::kDouble, by_default("1"), ratio(), "stored / raw bytes",
       [](C& c, const Value& v) { c.compression_ratio = v.number; }},
      {"compression_rate", Kind::kBandwidth, derived("none"), {}, "bytes compressed per second per GPU",
       [](C& c, const Value& v) { c.compression_rate = v.rate; }},
      {"host_copy_rate", Kind::kBandwidth, derived("the GPU-host link"), {}, "GPU to host snapshot rate",
       [](C& c, const Value& v) { c.host_copy_rate = v.rate; }},
      {"local_nvme_rate", Kind::kBandwidth, by_default("6GB/s"), {}, "per host, for hierarchical checkpoints",
       [](C& c, const Value& v) { c.local_nvme_rate = v.rate; }},
  };
  return f;
}

const std::vector<Field<FailureSpec>>& failure_fields() {
  using F = FailureSpec;
  static const std::vector<Field<F>> f = {
      {"watchdog_timeout", Kind::kTime, by_default("10min"), time_positive(),
       "a hung collective is noticed after this (PyTorch's NCCL watchdog default)",
       [](F& x, const Value& v) { x.watchdog_timeout = v.time; }},
      {"crash_detection", Kind::kTime, by_default("30s"), {}, "a crashed process is noticed after this",
       [](F& x, const Value& v) { x.crash_detection = v.time; }},
      {"teardown", Kind::kTime, by_default("60s"), {}, "stopping the job and releasing its nodes",
       [](F& x, const Value& v) { x.teardown = v.time; }},
      {"reschedule", Kind::kTime, by_default("2min"), {}, "attaching a spare host",
       [](F& x, const Value& v) { x.reschedule = v.time; }},
      {"repair", Kind::kTime, by_default("4h"), {}, "repairing a failed host (when no spare is left)",
       [](F& x, const Value& v) { x.repair = v.time; }},
      {"spare_hosts", Kind::kInt, by_default("16"), int_range(0, 1 << 20), "hosts held in reserve",
       [](F& x, const Value& v) { x.spare_hosts = static_cast<int>(v.integer); }},
      {"planned_interval", Kind::kTime, by_default("0s"), {}, "planned maintenance restarts (0: none)",
       [](F& x, const Value& v) { x.planned_interval = v.time; }},
      {"classes", Kind::kSection, derived("none"), {}, "a list of failure classes", {}},
  };
  return f;
}

const std::vector<Field<FailureClass>>& class_fields() {
  using C = FailureClass;
  static const std::vector<Field<C>> f = {
      {"name", Kind::kString, required(), not_empty(), "the component, e.g. Faulty GPU",
       [](C& c, const Value& v) { c.name = v.text; }},
      {"category", Kind::kString, by_default("Other"), {}, "for the root-cause mix: GPU, Network, Host, ...",
       [](C& c, const Value& v) { c.category = v.text; }},
      {"per", Kind::kEnum, required(), {}, "what the rate counts",
       [](C& c, const Value& v) {
         c.per = v.text == "gpu"    ? C::Per::kGpu
                 : v.text == "host" ? C::Per::kHost
                 : v.text == "nic"  ? C::Per::kNic
                 : v.text == "switch" ? C::Per::kSwitch
                                      : C::Per::kJob;
       },
       {"gpu", "host", "nic", "switch", "job"}},
      {"rate_per_day", Kind::kDouble, required(), number_at_least(0), "failures per unit per day",
       [](C& c, const Value& v) { c.rate_per_unit_day = v.number; }},
      {"hangs", Kind::kBool, by_default("false"), {}, "it hangs a collective (found by the watchdog) rather than crashing",
       [](C& c, const Value& v) { c.hangs = v.flag; }},
      {"needs_replacement", Kind::kBool, by_default("true"), {}, "the unit must be swapped for a spare",
       [](C& c, const Value& v) { c.needs_replacement = v.flag; }},
  };
  return f;
}

const std::vector<Field<job::CongestionSpec>>& congestion_fields() {
  using C = job::CongestionSpec;
  static const std::vector<Field<C>> f = {
      {"bandwidth_fraction", Kind::kDouble, by_default("0.1"), ratio(), "what the congested link keeps",
       [](C& c, const Value& v) { c.bandwidth_fraction = v.number; }},
      {"duration", Kind::kTime, by_default("50ms"), time_positive(), "how long the congestion lasts",
       [](C& c, const Value& v) { c.duration = v.time; }},
      {"retry_timeout", Kind::kTime, by_default("4.295s"), time_positive(),
       "one transport retry (NCCL_IB_TIMEOUT 20: 4.096 us x 2^20)",
       [](C& c, const Value& v) { c.retry_timeout = v.time; }},
      {"retry_count", Kind::kInt, by_default("7"), int_range(1, 64), "transport retries (NCCL_IB_RETRY_CNT)",
       [](C& c, const Value& v) { c.retry_count = static_cast<int>(v.integer); }},
  };
  return f;
}

const std::vector<Field<job::CostSpec>>& cost_fields() {
  static const std::vector<Field<job::CostSpec>> f = {
      {"dollars_per_gpu_hour", Kind::kDouble, by_default("0"), number_at_least(0), "price of a GPU-hour",
       [](job::CostSpec& c, const Value& v) { c.dollars_per_gpu_hour = v.number; }},
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
       [](P& p, const Value& v) { p.cluster_gpus = static_cast<int>(v.integer); }},
      {"policy", Kind::kEnum, by_default("packed"), {}, "packed, spread or balanced",
       [](P& p, const Value& v) {
         p.spec.policy = v.text == "spread"     ? job::PlacementPolicy::kSpread
                         : v.text == "balanced" ? job::PlacementPolicy::kBalanced
                                                : job::PlacementPolicy::kPacked;
       },
       {"packed", "spread", "balanced"}},
      {"hosts_per_rack", Kind::kInt, by_default("4"), int_range(1, 1024), "hosts in a rack",
       [](P& p, const Value& v) { p.spec.hosts_per_rack = static_cast<int>(v.integer); }},
      {"racks_per_feed", Kind::kInt, by_default("8"), int_range(1, 1 << 20), "racks on one power feed",
       [](P& p, const Value& v) { p.spec.racks_per_feed = static_cast<int>(v.integer); }},
      {"rack_power_kw", Kind::kDouble, by_default("0"), number_at_least(0), "power budget per rack (0: none)",
       [](P& p, const Value& v) { p.spec.rack_power_kw = v.number; }},
      {"host_overhead_w", Kind::kDouble, by_default("2000"), number_at_least(0), "host power beyond its GPUs' TDP",
       [](P& p, const Value& v) { p.spec.host_overhead_w = v.number; }},
      {"busy_fraction", Kind::kDouble, by_default("0"), {}, "hosts already busy with other jobs (a seeded draw)",
       [](P& p, const Value& v) { p.spec.busy_fraction = v.number; }},
      {"max_ranks_per_rack", Kind::kInt, by_default("0"), int_range(0, 1 << 20), "fault-domain rule (0: none)",
       [](P& p, const Value& v) { p.spec.max_ranks_per_rack = static_cast<int>(v.integer); }},
      {"balanced_hosts_per_rack", Kind::kInt, by_default("2"), int_range(1, 1024), "the balanced policy's fill",
       [](P& p, const Value& v) { p.spec.balanced_hosts_per_rack = static_cast<int>(v.integer); }},
  };
  return f;
}

YAML::Node sub(const Present& p, std::string_view key) {
  const auto it = p.find(key);
  return it == p.end() ? YAML::Node() : it->second;
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

void add_job_docs(std::vector<FieldDoc>& out) {
  auto add = [&out](const std::string& section, const auto& fields) {
    for (const auto& f : fields) {
      FieldDoc d;
      d.path = join(section, f.key);
      d.kind = to_string(f.kind);
      d.default_value = f.def.how == Default::kRequired ? "required" : std::string(f.def.text);
      d.help = std::string(f.help);
      out.push_back(std::move(d));
    }
  };
  add("job", job_fields());
  add("job.startup", startup_fields());
  add("job.checkpoint", checkpoint_fields());
  add("job.failures", failure_fields());
  add("job.failures.classes[]", class_fields());
  add("job.cost", cost_fields());
  add("job.congestion", congestion_fields());
  add("placement", placement_fields());
}

}  // namespace anatomy::scenario::detail
