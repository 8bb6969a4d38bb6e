#include "scenario/fleet_fields.h"

#include <cstdio>

#include <fmt/format.h>

#include "workload/model.h"

namespace anatomy::scenario::detail {
namespace {

using namespace fleet;  // NOLINT: the section's own types, in a .cc
using core::JobTime;

Check long_positive() {
  return [](const Value& v) { return v.long_time > JobTime::zero() ? std::string() : std::string("must be positive"); };
}
Check time_positive() {
  return [](const Value& v) { return v.time > core::SimTime::zero() ? std::string() : std::string("must be positive"); };
}

const std::vector<Field<FleetSpec>>& fleet_fields() {
  using F = FleetSpec;
  static const std::vector<Field<F>> f = {
      {"duration", Kind::kLongTime, by_default("30d"), long_positive(), "the span simulated (jobs still running then are cut off)",
       [](F& x, const Value& v) { x.duration = v.long_time; }, shows(&F::duration)},
      {"dollars_per_gpu_hour", Kind::kDouble, by_default("0"), number_at_least(0), "price of a GPU-hour (0: no dollars)",
       [](F& x, const Value& v) { x.dollars_per_gpu_hour = v.number; }, shows(&F::dollars_per_gpu_hour)},
      {"heat_bins", Kind::kInt, by_default("48"), int_range(1, 10000), "time bins of the utilization series and link heat map",
       [](F& x, const Value& v) { x.heat_bins = v.as_int(); }, shows(&F::heat_bins)},
      {"scheduler", Kind::kSection, derived("every key at its default"), {}, "queue policy, placement, preemption", {}},
      {"classes", Kind::kSection, derived("one light class: 1s steps, 1GiB all-reduce"), {},
       "a list of job classes (training model and plan, or a light step and traffic)", {}},
      {"jobs", Kind::kSection, derived("none"), {}, "a list of jobs: class, GPUs, arrival, duration", {}},
      {"generator", Kind::kSection, derived("no generated jobs"), {}, "seeded arrivals, sizes, durations, class mix", {}},
      {"trace", Kind::kSection, derived("none"), {}, "a public cluster trace to replay (Philly, Helios, Alibaba PAI)", {}},
      {"failures", Kind::kSection, derived("no failures"), {}, "job interruptions per GPU-day and their recovery", {}},
  };
  return f;
}

const std::vector<Field<SchedulerSpec>>& scheduler_fields() {
  using S = SchedulerSpec;
  static const std::vector<Field<S>> f = {
      {"policy", Kind::kEnum, by_default("fifo"), {},
       "fifo: in arrival order, the first that does not fit blocks the rest; backfill: EASY, later jobs run if they "
       "do not delay the first; gang: every job that fits starts, all its GPUs at once; priority: highest first, "
       "preempting lower ones",
       [](S& s, const Value& v) {
         s.policy = v.text == "backfill" ? Policy::kBackfill
                    : v.text == "gang"   ? Policy::kGang
                    : v.text == "priority" ? Policy::kPriority
                                           : Policy::kFifo;
       },
       [](const S& s) { return std::string(to_string(s.policy)); }, {"fifo", "backfill", "gang", "priority"}},
      {"placement", Kind::kEnum, by_default("packed"), {}, "where a multi-host job's hosts go (job/placement.h)",
       [](S& s, const Value& v) {
         s.placement.policy = v.text == "spread"     ? job::PlacementPolicy::kSpread
                              : v.text == "balanced" ? job::PlacementPolicy::kBalanced
                                                     : job::PlacementPolicy::kPacked;
       },
       [](const S& s) { return std::string(job::to_string(s.placement.policy)); }, {"packed", "spread", "balanced"}},
      {"hosts_per_rack", Kind::kInt, by_default("4"), int_range(1, 1024), "hosts in a rack",
       [](S& s, const Value& v) { s.placement.hosts_per_rack = v.as_int(); },
       [](const S& s) { return show_value(s.placement.hosts_per_rack); }},
      {"racks_per_feed", Kind::kInt, by_default("8"), int_range(1, 1 << 20), "racks on one power feed",
       [](S& s, const Value& v) { s.placement.racks_per_feed = v.as_int(); },
       [](const S& s) { return show_value(s.placement.racks_per_feed); }},
      {"rack_power_kw", Kind::kDouble, by_default("0"), number_at_least(0), "power budget per rack (0: none)",
       [](S& s, const Value& v) { s.placement.rack_power_kw = v.number; },
       [](const S& s) { return show_value(s.placement.rack_power_kw); }},
      {"host_overhead_w", Kind::kDouble, by_default("2000"), number_at_least(0), "host power beyond its GPUs' TDP",
       [](S& s, const Value& v) { s.placement.host_overhead_w = v.number; },
       [](const S& s) { return show_value(s.placement.host_overhead_w); }},
      {"max_ranks_per_rack", Kind::kInt, by_default("0"), int_range(0, 1 << 20), "fault-domain rule per job (0: none)",
       [](S& s, const Value& v) { s.placement.max_ranks_per_rack = v.as_int(); },
       [](const S& s) { return show_value(s.placement.max_ranks_per_rack); }},
      {"balanced_hosts_per_rack", Kind::kInt, by_default("2"), int_range(1, 1024), "the balanced policy's fill",
       [](S& s, const Value& v) { s.placement.balanced_hosts_per_rack = v.as_int(); },
       [](const S& s) { return show_value(s.placement.balanced_hosts_per_rack); }},
      {"preemption", Kind::kBool, by_default("true"), {}, "priority policy: a waiting job may preempt lower-priority ones",
       [](S& s, const Value& v) { s.preemption = v.flag; }, shows(&S::preemption)},
      {"restart", Kind::kLongTime, by_default("5min"), {}, "a preempted job's restart: launch, init, checkpoint load",
       [](S& s, const Value& v) { s.restart = v.long_time; }, shows(&S::restart)},
      {"startup", Kind::kLongTime, by_default("2min"), {}, "every first start: image, launch, NCCL init",
       [](S& s, const Value& v) { s.startup = v.long_time; }, shows(&S::startup)},
      {"contention", Kind::kBool, by_default("true"), {}, "jobs share links (false: every job runs as if alone)",
       [](S& s, const Value& v) { s.contention = v.flag; }, shows(&S::contention)},
      {"resimulate", Kind::kBool, by_default("true"), {},
       "a training job's iteration is run again on the cluster with what the jobs on its links leave it, when that "
       "changes (false: its footprint's slowest link, fully exposed, as a light job's)",
       [](S& s, const Value& v) { s.resimulate = v.flag; }, shows(&S::resimulate)},
      {"resimulate_above", Kind::kDouble, by_default("0.01"), number_at_least(0),
       "re-simulate only cuts that would cost at least this share of a step fully exposed (the footprint's figure, "
       "which stands below it)",
       [](S& s, const Value& v) { s.resimulate_above = v.number; }, shows(&S::resimulate_above)},
  };
  return f;
}

const std::vector<Field<JobClass>>& job_class_fields() {
  using C = JobClass;
  static const std::vector<Field<C>> f = {
      {"name", Kind::kString, required(), not_empty(), "what jobs name it by",
       [](C& c, const Value& v) { c.name = v.text; }, shows(&C::name)},
      {"model", Kind::kString, by_default(""), {}, "a model preset: a training job anatomy simulates (\"\": a light job)",
       [](C& c, const Value& v) {
         if (!v.text.empty()) (void)workload::find_model(v.text);
         c.model = v.text;
       },
       shows(&C::model)},
      {"tp", Kind::kInt, by_default("1"), int_range(1, 1024), "training jobs: tensor-parallel size",
       [](C& c, const Value& v) { c.tp = v.as_int(); }, shows(&C::tp)},
      {"pp", Kind::kInt, by_default("1"), int_range(1, 1024), "training jobs: pipeline-parallel size",
       [](C& c, const Value& v) { c.pp = v.as_int(); }, shows(&C::pp)},
      {"ep", Kind::kInt, by_default("1"), int_range(1, 1024),
       "training jobs: expert-parallel size (a MoE model; divides the data-parallel size)",
       [](C& c, const Value& v) { c.ep = v.as_int(); }, shows(&C::ep)},
      {"step", Kind::kTime, by_default("1s"), time_positive(), "light jobs: compute per step",
       [](C& c, const Value& v) { c.step = JobTime::from_seconds(v.time.seconds()); },
       [](const C& c) { return show_value(core::SimTime::from_seconds(c.step.seconds())); }},
      {"all_reduce", Kind::kBytes, by_default("1GiB"), {}, "light jobs: bytes each GPU all-reduces per step",
       [](C& c, const Value& v) { c.all_reduce = v.bytes; }, shows(&C::all_reduce)},
      {"checkpoint_interval", Kind::kLongTime, by_default("0s"), {}, "training time between blocking checkpoints (0: none)",
       [](C& c, const Value& v) { c.checkpoint_interval = v.long_time; }, shows(&C::checkpoint_interval)},
      {"checkpoint_bytes", Kind::kBytes, derived("training jobs: the shard of weights and optimizer state"), {},
       "bytes each GPU writes per checkpoint",
       [](C& c, const Value& v) { c.checkpoint_bytes = v.bytes; }, shows_unless_zero(&C::checkpoint_bytes)},
      {"priority", Kind::kInt, by_default("0"), int_range(-1000, 1000), "higher runs first under the priority policy",
       [](C& c, const Value& v) { c.priority = v.as_int(); }, shows(&C::priority)},
      {"weight", Kind::kDouble, by_default("1"), number_at_least(0), "generator: relative share of jobs of this class (among the classes whose GPU range holds the job)",
       [](C& c, const Value& v) { c.weight = v.number; }, shows(&C::weight)},
      {"min_gpus", Kind::kInt, by_default("0"), int_range(0, 1 << 20), "trace mapping and generator: the smallest job it takes (0: any)",
       [](C& c, const Value& v) { c.min_gpus = v.as_int(); }, shows(&C::min_gpus)},
      {"max_gpus", Kind::kInt, by_default("0"), int_range(0, 1 << 20), "trace mapping and generator: the largest job it takes (0: any)",
       [](C& c, const Value& v) { c.max_gpus = v.as_int(); }, shows(&C::max_gpus)},
  };
  return f;
}

struct JobRow {
  JobRequest r;
  std::string cls;
  bool priority_given = false;
};

const std::vector<Field<JobRow>>& job_row_fields() {
  using J = JobRow;
  static const std::vector<Field<J>> f = {
      {"id", Kind::kString, derived("j<index>"), {}, "the job's name in outputs",
       [](J& j, const Value& v) { j.r.id = v.text; }, [](const J& j) { return j.r.id; }},
      {"class", Kind::kString, derived("the first class"), {}, "its job class (fleet.classes[].name)",
       [](J& j, const Value& v) { j.cls = v.text; }, [](const J& j) { return j.cls; }},
      {"gpus", Kind::kInt, required(), int_range(1, 1 << 20), "GPUs it needs (all at once)",
       [](J& j, const Value& v) { j.r.gpus = v.as_int(); }, [](const J& j) { return show_value(j.r.gpus); }},
      {"arrival", Kind::kLongTime, by_default("0s"), {}, "when it is submitted",
       [](J& j, const Value& v) { j.r.arrival = v.long_time; }, [](const J& j) { return show_value(j.r.arrival); }},
      {"duration", Kind::kLongTime, derived("iterations x step"), {}, "its training time alone",
       [](J& j, const Value& v) { j.r.duration = v.long_time; },
       [](const J& j) { return j.r.duration == JobTime::zero() ? std::string() : show_value(j.r.duration); }},
      {"iterations", Kind::kInt, by_default("0"), int_range(0, int64_t{1} << 40), "steps to train (with no duration)",
       [](J& j, const Value& v) { j.r.iterations = v.integer; }, [](const J& j) { return show_value(j.r.iterations); }},
      {"priority", Kind::kInt, derived("its class's"), int_range(-1000, 1000), "higher runs first under the priority policy",
       [](J& j, const Value& v) { j.r.priority = v.as_int(), j.priority_given = true; },
       [](const J& j) { return show_value(j.r.priority); }},
  };
  return f;
}

struct GeneratorRow {
  GeneratorSpec g;
  std::string sizes = "8:1";
};

const std::vector<Field<GeneratorRow>>& generator_fields() {
  using G = GeneratorRow;
  static const std::vector<Field<G>> f = {
      {"jobs", Kind::kInt, by_default("0"), int_range(0, 10'000'000), "jobs to generate",
       [](G& g, const Value& v) { g.g.jobs = v.as_int(); }, [](const G& g) { return show_value(g.g.jobs); }},
      {"interarrival", Kind::kLongTime, by_default("5min"), long_positive(), "mean time between arrivals (Poisson)",
       [](G& g, const Value& v) { g.g.interarrival = v.long_time; }, [](const G& g) { return show_value(g.g.interarrival); }},
      {"sizes", Kind::kString, by_default("8:1"), not_empty(), "GPUs:weight pairs, e.g. \"8:4,64:2,512:1\"",
       [](G& g, const Value& v) { g.sizes = v.text; }, [](const G& g) { return g.sizes; }},
      {"duration_median", Kind::kLongTime, by_default("1h"), long_positive(), "median training time alone (lognormal)",
       [](G& g, const Value& v) { g.g.duration_median = v.long_time; },
       [](const G& g) { return show_value(g.g.duration_median); }},
      {"duration_sigma", Kind::kDouble, by_default("1"), number_at_least(0), "sigma of the log of the duration",
       [](G& g, const Value& v) { g.g.duration_sigma = v.number; }, [](const G& g) { return show_value(g.g.duration_sigma); }},
      {"duration_max", Kind::kLongTime, by_default("7d"), long_positive(), "durations are clamped to this",
       [](G& g, const Value& v) { g.g.duration_max = v.long_time; }, [](const G& g) { return show_value(g.g.duration_max); }},
  };
  return f;
}

const std::vector<Field<TraceSpec>>& trace_fields() {
  using T = TraceSpec;
  static const std::vector<Field<T>> f = {
      {"format", Kind::kEnum, required(), {}, "the trace's schema (fleet/job_stream.h)",
       [](T& t, const Value& v) {
         t.format = v.text == "helios" ? TraceFormat::kHelios
                    : v.text == "alibaba-pai" ? TraceFormat::kAlibabaPai
                                              : TraceFormat::kPhilly;
       },
       [](const T& t) { return std::string(to_string(t.format)); }, {"philly", "helios", "alibaba-pai"}},
      {"file", Kind::kPath, required(), {}, "Philly cluster_job_log, Helios cluster_log.csv, or PAI pai_task_table.csv",
       [](T& t, const Value& v) { t.file = v.text; }, shows(&T::file)},
      {"jobs_file", Kind::kPath, derived("none: arrivals are the tasks' first starts"), {}, "alibaba-pai: pai_job_table.csv, for submission times",
       [](T& t, const Value& v) { t.jobs_file = v.text; }, shows(&T::jobs_file)},
      {"max_jobs", Kind::kInt, by_default("0"), int_range(0, 100'000'000), "the first this many jobs (0: all)",
       [](T& t, const Value& v) { t.max_jobs = v.as_int(); }, shows(&T::max_jobs)},
      {"time_scale", Kind::kDouble, by_default("1"), number_positive(), "arrivals and durations are multiplied by this",
       [](T& t, const Value& v) { t.time_scale = v.number; }, shows(&T::time_scale)},
      {"max_gpus", Kind::kInt, by_default("0"), int_range(0, 1 << 20), "larger jobs are clamped to this (0: cluster.gpus)",
       [](T& t, const Value& v) { t.max_gpus = v.as_int(); }, shows(&T::max_gpus)},
  };
  return f;
}

const std::vector<Field<FailureRate>>& fleet_failure_fields() {
  using R = FailureRate;
  static const std::vector<Field<R>> f = {
      {"per_gpu_day", Kind::kDouble, by_default("0"), number_at_least(0), "job interruptions per GPU per day",
       [](R& r, const Value& v) { r.per_gpu_day = v.number; }, shows(&R::per_gpu_day)},
      {"recovery", Kind::kLongTime, by_default("10min"), {}, "detection, teardown, restart, checkpoint load",
       [](R& r, const Value& v) { r.recovery = v.long_time; }, shows(&R::recovery)},
  };
  return f;
}

std::vector<std::pair<int, double>> parse_sizes(const std::string& text, const std::string& path, int line,
                                                const Context& ctx) {
  std::vector<std::pair<int, double>> out;
  size_t i = 0;
  while (i <= text.size()) {
    const size_t comma = text.find(',', i);
    const std::string part = text.substr(i, comma == std::string::npos ? std::string::npos : comma - i);
    int gpus = 0;
    double w = 0;
    char tail = 0;
    if (std::sscanf(part.c_str(), " %d:%lf %c", &gpus, &w, &tail) != 2 || gpus < 1 || w < 0)
      ctx.fail(line, path, fmt::format("'{}' is not GPUs:weight (e.g. \"8:4,64:2\")", part));
    out.push_back({gpus, w});
    if (comma == std::string::npos) break;
    i = comma + 1;
  }
  double total = 0;
  for (const auto& [g, w] : out) total += w;
  if (total <= 0) ctx.fail(line, path, "the weights add up to 0");
  return out;
}

}  // namespace

FleetSpec read_fleet(const YAML::Node& node, int line, Context& ctx, int gpus) {
  FleetSpec f;
  const Present top = read_section(node, "fleet", line, fleet_fields(), f, ctx);
  read_section(sub(top, "scheduler"), "fleet.scheduler", ctx.line_for("fleet.scheduler"), scheduler_fields(),
               f.scheduler, ctx);
  f.classes = read_list(sub(top, "classes"), "fleet.classes", job_class_fields(), ctx);
  if (f.classes.empty()) {
    JobClass c;
    c.name = "default";
    c.all_reduce = core::Bytes(int64_t{1} << 30);
    f.classes.push_back(c);
  }
  for (size_t i = 0; i < f.classes.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if (f.classes[i].name == f.classes[k].name) {
        const std::string path = fmt::format("fleet.classes[{}].name", i);
        ctx.fail(ctx.line_for(path), path, fmt::format("'{}' is the name of fleet.classes[{}] too", f.classes[i].name, k));
      }
  const std::vector<JobRow> rows = read_list(sub(top, "jobs"), "fleet.jobs", job_row_fields(), ctx);
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string path = fmt::format("fleet.jobs[{}]", i);
    JobRequest r = rows[i].r;
    if (r.id.empty()) r.id = fmt::format("j{}", i);
    r.job_class = 0;
    if (!rows[i].cls.empty()) {
      r.job_class = -1;
      for (size_t c = 0; c < f.classes.size(); ++c)
        if (f.classes[c].name == rows[i].cls) r.job_class = static_cast<int>(c);
      if (r.job_class < 0)
        ctx.fail(ctx.line_for(path + ".class"), path + ".class",
                 fmt::format("no job class is named '{}' (fleet.classes)", rows[i].cls));
    }
    if (!rows[i].priority_given) r.priority = f.classes[static_cast<size_t>(r.job_class)].priority;
    // A list entry has no key of its own: its line is its (required) gpus key's.
    const int line = ctx.line_for(path + ".gpus");
    if (r.duration == JobTime::zero() && r.iterations == 0) ctx.fail(line, path + ".duration", "set a duration or iterations");
    if (r.gpus > gpus)
      ctx.fail(ctx.line_for(path + ".gpus"), path + ".gpus",
               fmt::format("{} GPUs, but the cluster has {} (cluster.gpus)", r.gpus, gpus));
    r.source_line = line;
    f.jobs.push_back(std::move(r));
  }
  if (top.count("generator")) {
    GeneratorRow g;
    read_section(sub(top, "generator"), "fleet.generator", ctx.line_for("fleet.generator"), generator_fields(), g, ctx);
    g.g.sizes = parse_sizes(g.sizes, "fleet.generator.sizes", ctx.line_for("fleet.generator.sizes"), ctx);
    for (const auto& [n, w] : g.g.sizes)
      if (n > gpus)
        ctx.fail(ctx.line_for("fleet.generator.sizes"), "fleet.generator.sizes",
                 fmt::format("{} GPUs, but the cluster has {} (cluster.gpus)", n, gpus));
    f.generator = g.g;
  }
  if (top.count("trace")) {
    f.trace.enabled = true;
    read_section(sub(top, "trace"), "fleet.trace", ctx.line_for("fleet.trace"), trace_fields(), f.trace, ctx);
    if (f.trace.max_gpus == 0 || f.trace.max_gpus > gpus) f.trace.max_gpus = gpus;
  }
  read_section(sub(top, "failures"), "fleet.failures", ctx.line_for("fleet.failures"), fleet_failure_fields(),
               f.failures, ctx);
  return f;
}

void add_fleet_sections(std::vector<Section>& out) {
  out.push_back(section<FleetSpec>("fleet", fleet_fields(), [](const Scenario& s) { return s.fleet ? &*s.fleet : nullptr; }));
  out.push_back(section<SchedulerSpec>("fleet.scheduler", scheduler_fields(),
                                       [](const Scenario& s) { return s.fleet ? &s.fleet->scheduler : nullptr; }));
  Section classes;
  classes.path = "fleet.classes[]";
  classes.docs = [](std::vector<FieldDoc>& d) { add_docs(d, "fleet.classes[]", job_class_fields()); };
  classes.rows = [](const Scenario& s, std::vector<InputValue>& rows) {
    if (!s.fleet) return;
    for (size_t i = 0; i < s.fleet->classes.size(); ++i) {
      std::string value;
      for (const auto& f : job_class_fields())
        if (f.show) {
          const std::string v = f.show(s.fleet->classes[i]);
          if (!v.empty()) value += fmt::format("{}{}: {}", value.empty() ? "" : ", ", f.key, v);
        }
      rows.push_back({"fleet", fmt::format("classes[{}]", i), value, false});
    }
  };
  out.push_back(std::move(classes));
  Section jobs;
  jobs.path = "fleet.jobs[]";
  jobs.docs = [](std::vector<FieldDoc>& d) { add_docs(d, "fleet.jobs[]", job_row_fields()); };
  jobs.rows = [](const Scenario& s, std::vector<InputValue>& rows) {
    if (s.fleet && !s.fleet->jobs.empty())
      rows.push_back({"fleet", "jobs", fmt::format("{} listed", s.fleet->jobs.size()), false});
  };
  out.push_back(std::move(jobs));
  Section gen;
  gen.path = "fleet.generator";
  gen.docs = [](std::vector<FieldDoc>& d) { add_docs(d, "fleet.generator", generator_fields()); };
  gen.rows = [](const Scenario& s, std::vector<InputValue>& rows) {
    if (!s.fleet || s.fleet->generator.jobs == 0) return;
    GeneratorRow g;
    g.g = s.fleet->generator;
    g.sizes.clear();
    for (const auto& [n, w] : g.g.sizes) g.sizes += fmt::format("{}{}:{}", g.sizes.empty() ? "" : ",", n, show_value(w));
    add_rows(rows, "fleet.generator", generator_fields(), g);
  };
  out.push_back(std::move(gen));
  out.push_back(section<TraceSpec>("fleet.trace", trace_fields(),
                                   [](const Scenario& s) { return s.fleet && s.fleet->trace.enabled ? &s.fleet->trace : nullptr; }));
  out.push_back(section<FailureRate>("fleet.failures", fleet_failure_fields(),
                                     [](const Scenario& s) { return s.fleet ? &s.fleet->failures : nullptr; }));
}

}  // namespace anatomy::scenario::detail
