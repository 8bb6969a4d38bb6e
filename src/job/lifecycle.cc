#include "job/lifecycle.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <string_view>

#include <fmt/format.h>

#include "core/error.h"
#include "job/young_daly.h"

namespace anatomy::job {

std::vector<std::pair<const char*, SimTime>> JobBuckets::named() const {
  return {{"productive compute", compute}, {"exposed communication", communication},
          {"pipeline bubble", bubble},     {"checkpoint stalls", checkpoint},
          {"startup", startup},            {"lost work", lost_work},
          {"failure recovery", recovery}};
}

namespace {

constexpr size_t kMaxEvents = 200;

std::string hours(SimTime t) { return fmt::format("{:.2f} h", t.seconds() / 3600); }

class JobSim {
 public:
  explicit JobSim(const JobInputs& in) : in_(in), spec_(in.spec), D_(in.spec.duration) {}
  JobResult run();

 private:
  // Adds [a, b), clipped to the job's wall time, to a bucket.
  void add(SimTime& bucket, SimTime a, SimTime b) {
    b = std::min(b, D_);
    if (b > a) bucket += b - a;
  }
  // Appends [a, b), clipped to the job's wall time, to the timeline,
  // joining it to the last phase when that is of the same kind and ends at a.
  void mark(const char* kind, SimTime a, SimTime b) {
    b = std::min(b, D_);
    if (b <= a) return;
    auto& ph = r_.phases;
    if (ph.size() >= kFoldCheckpointsAfter && std::string_view(kind) == "checkpoint") {
      kind = "training";
      r_.checkpoints_folded = true;
    }
    if (!ph.empty() && std::string_view(ph.back().kind) == kind && ph.back().end == a) {
      ph.back().end = b;
    } else {
      ph.push_back({kind, a, b});
    }
  }
  // Recovery from a failure at `at`; returns when training resumes and
  // appends how to `how`.
  SimTime recover(SimTime at, const FailureClass& fc, bool planned, std::string& how);

  const JobInputs& in_;
  const JobSpec& spec_;
  const SimTime D_;
  JobResult r_;
  StartupCost restart_new_host_;
  int spares_ = 0;
  std::priority_queue<SimTime, std::vector<SimTime>, std::greater<>> repairs_;  // when repaired hosts return
};

SimTime JobSim::recover(SimTime at, const FailureClass& fc, bool planned, std::string& how) {
  const FailureSpec& f = spec_.failures;
  const SimTime detect = planned ? SimTime::zero() : fc.hangs ? f.watchdog_timeout : f.crash_detection;
  SimTime t = at + detect + f.teardown;
  how = fmt::format("detection {} ({}), teardown {}", core::format_time(detect),
                    planned ? "planned" : fc.hangs ? "collective watchdog" : "crash seen", core::format_time(f.teardown));
  bool new_host = false;
  if (!planned && fc.needs_replacement) {
    while (!repairs_.empty() && repairs_.top() <= t) {
      repairs_.pop();
      ++spares_;
    }
    new_host = true;
    if (spares_ > 0) {
      --spares_;
      repairs_.push(t + f.repair);  // the broken host rejoins the spares when repaired
      t += f.reschedule;
      how += fmt::format(", spare host attached in {}", core::format_time(f.reschedule));
    } else {
      // No spare: wait for the earliest repair (or this host's own).
      SimTime back = t + f.repair;
      if (!repairs_.empty()) {
        back = std::min(back, std::max(t, repairs_.top()));
        repairs_.pop();
        repairs_.push(t + f.repair);
      }
      how += fmt::format(", no spare: waited {} for a repaired host", core::format_time(back - t));
      t = back;
    }
  }
  const SimTime restart = new_host ? restart_new_host_.total() : r_.restart.total();
  t += restart;
  how += fmt::format(", restart {}", core::format_time(restart));
  return t;
}

JobResult JobSim::run() {
  const workload::IterationInputs& it = in_.iteration;
  r_.gpus = it.plan->gpus();
  {
    workload::IterationInputs sampled = it;
    sampled.link_samples = in_.steady_link_samples;
    r_.steady = workload::simulate_iteration(sampled);
  }
  const SimTime T = r_.steady.iteration;
  const CheckpointSpec& cs = spec_.checkpoint;
  SimTime C;  // what one checkpoint costs the job
  int64_t K = std::numeric_limits<int64_t>::max() / 4;
  SimTime load;
  if (cs.enabled) {
    if (cs.interval_iterations <= 0 && cs.interval <= SimTime::zero())
      throw core::InputError({"", 0, "job.checkpoint.interval"}, "set an interval (a time) or interval_iterations");
    const coll::NetworkFactory& bulk = in_.bulk_network ? in_.bulk_network : it.make_network;
    r_.checkpoint = measure_checkpoint(cs, it, r_.steady, bulk);
    K = cs.interval_iterations > 0
            ? cs.interval_iterations
            : std::max<int64_t>(1, static_cast<int64_t>(std::ceil(cs.interval.seconds() / T.seconds())));
    C = r_.checkpoint.cost(T, K);
    r_.configured_interval = T * K + C;
    load = measure_checkpoint_load(it, cs.compression_ratio, bulk);
  }
  r_.checkpoint_every = cs.enabled ? K : 0;
  r_.first_start = startup_cost(spec_.startup, it, false, 0, SimTime::zero());
  r_.restart = startup_cost(spec_.startup, it, true, 0, load);
  restart_new_host_ = startup_cost(spec_.startup, it, true, 1, load);
  spares_ = spec_.failures.spare_hosts;

  std::vector<FailureEvent> failures = draw_failures(spec_.failures, in_.units, D_, spec_.seed);
  // Planned maintenance restarts ride along as a class of their own.
  const int planned_cls = -1;
  if (spec_.failures.planned_interval > SimTime::zero())
    for (SimTime at = spec_.failures.planned_interval; at < D_; at += spec_.failures.planned_interval)
      failures.push_back(FailureEvent{at, planned_cls, 0});
  std::stable_sort(failures.begin(), failures.end(),
                   [](const FailureEvent& a, const FailureEvent& b) { return a.at < b.at; });
  static const FailureClass kPlanned{"Planned maintenance", "Planned", FailureClass::Per::kJob, 0, false, false};

  SimTime t = std::min(D_, r_.first_start.total());
  add(r_.time.startup, SimTime::zero(), t);
  mark("startup", SimTime::zero(), t);
  // Counts an interruption by cause and recovers from it.
  struct Interruption {
    const FailureClass* cls;
    SimTime resume;   // when training can go on
    std::string how;  // detection, teardown, rescheduling, restart
  };
  auto interrupt = [&](const FailureEvent& f) {
    const bool planned = f.cls == planned_cls;
    const FailureClass& fc = planned ? kPlanned : spec_.failures.classes[f.cls];
    ++r_.interruptions;
    if (!planned) {
      ++r_.by_component[fc.name];
      ++r_.by_category[fc.category];
    }
    Interruption i{&fc, SimTime::zero(), {}};
    i.resume = recover(f.at, fc, planned, i.how);
    return i;
  };

  SimTime productive, tentative;  // tentative: trained since the last checkpoint
  size_t fi = 0;
  while (t < D_) {
    // A failure while the job is (re)starting: the start begins again.
    while (fi < failures.size() && failures[fi].at < t) {
      const SimTime resume = interrupt(failures[fi++]).resume;
      if (resume > t) {
        add(r_.time.recovery, t, resume);
        mark("recovery", t, resume);
        t = std::min(D_, resume);
      }
    }
    if (t >= D_) break;
    const SimTime next_failure = fi < failures.size() ? failures[fi].at : SimTime::max();
    const SimTime train_left = T * K;
    const SimTime period_end = cs.enabled ? t + train_left + C : SimTime::max();
    if (period_end <= std::min(next_failure, D_)) {
      // The checkpoint period completes: its work is safe.
      tentative += train_left;
      productive += tentative;
      tentative = SimTime::zero();
      r_.iterations_kept += K;
      add(r_.time.checkpoint, t + train_left, period_end);
      mark("training", t, t + train_left);
      mark("checkpoint", t + train_left, period_end);
      ++r_.checkpoints;
      t = period_end;
      continue;
    }
    if (next_failure >= D_) {
      // The job ends first; what was trained since the last checkpoint is
      // counted as kept (a final checkpoint is written at the end).
      const SimTime run = std::min(D_ - t, train_left);
      const int64_t n = static_cast<int64_t>(run.count_ps() / std::max<int64_t>(1, T.count_ps()));
      productive += tentative + run;
      r_.iterations_kept += n;
      add(r_.time.checkpoint, t + run, D_);
      mark("training", t, t + run);
      mark("checkpoint", t + run, D_);
      t = D_;
      break;
    }
    // A failure strikes in this period: everything since the last
    // checkpoint is lost, including a checkpoint still being written.
    const FailureEvent& f = failures[fi++];
    const SimTime run = f.at - t;
    const SimTime trained = std::min(run, train_left);
    tentative += trained;
    if (run > train_left) add(r_.time.checkpoint, t + train_left, f.at);
    mark("lost training", t, f.at);
    const int64_t done = trained.count_ps() / std::max<int64_t>(1, T.count_ps());
    r_.time.lost_work += tentative;
    r_.iterations_lost += done;
    Interruption first = interrupt(f);
    SimTime resume = first.resume;
    // Failures during the recovery restart it from their own detection.
    while (fi < failures.size() && failures[fi].at < resume) {
      const Interruption next = interrupt(failures[fi++]);
      resume = std::max(resume, next.resume);
      first.how += "; then " + next.cls->name + ": " + next.how;
    }
    add(r_.time.recovery, f.at, resume);
    mark("recovery", f.at, resume);
    if (r_.events.size() < kMaxEvents)
      r_.events.push_back({f.at, fmt::format("{} at {}: lost {} iterations ({}) since the last checkpoint; {}",
                                             first.cls->name, hours(f.at), done, core::format_time(tentative),
                                             first.how)});
    tentative = SimTime::zero();
    t = std::min(D_, resume);
  }
  r_.wall = D_;

  // Split the productive time as the steady iteration splits.
  const workload::TimeBreakdown& b = r_.steady.mean;
  const long double whole = static_cast<long double>(std::max<int64_t>(1, T.count_ps()));
  auto share = [&](SimTime part) {
    return SimTime::ps(static_cast<int64_t>(std::llround(productive.count_ps() * (part.count_ps() / whole))));
  };
  r_.time.compute = share(b.forward_compute + b.backward_compute + b.optimizer);
  r_.time.communication = share(b.tp_comm + b.ep_comm + b.dp_comm + b.pp_comm);
  r_.time.bubble = productive - r_.time.compute - r_.time.communication;  // bubble and waiting on others
  r_.ettr = productive.seconds() / D_.seconds();

  const double per_day = failures_per_day(spec_.failures, in_.units);
  r_.mtbi_hours = per_day > 0 ? 24.0 / per_day : 0;
  r_.spare_gpu_hours = static_cast<double>(spec_.failures.spare_hosts) * in_.gpus_per_host * D_.seconds() / 3600;
  if (cs.enabled && per_day > 0) {
    const SimTime mtbi = SimTime::from_seconds(86400.0 / per_day);
    r_.young = young_interval(C, mtbi);
    r_.daly = daly_interval(C, mtbi);
  }
  r_.dollars_per_gpu_hour = spec_.cost.dollars_per_gpu_hour;
  return r_;
}

}  // namespace

std::vector<CauseCost> JobResult::costs_by_cause() const {
  std::vector<CauseCost> out;
  for (const auto& [name, t] : time.named()) {
    const double gh = hours_of(t);
    out.push_back({name, t, gh, gh * dollars_per_gpu_hour});
  }
  return out;
}

JobResult run_job(const JobInputs& in) {
  if (in.spec.duration <= SimTime::zero()) throw core::InputError({"", 0, "job.duration"}, "must be positive");
  JobSim sim(in);
  return sim.run();
}

}  // namespace anatomy::job
