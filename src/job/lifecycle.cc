#include "job/lifecycle.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <string_view>

#include <fmt/format.h>

#include "core/error.h"
#include "job/young_daly.h"

namespace anatomy::job {

std::vector<std::pair<const char*, JobTime>> JobBuckets::named() const {
  return {{"productive compute", compute}, {"exposed communication", communication},
          {"pipeline bubble", bubble},     {"waiting on others", waiting},
          {"checkpoint stalls", checkpoint},
          {"startup", startup},            {"lost work", lost_work},
          {"failure recovery", recovery}};
}

namespace {

using core::scaled;

constexpr size_t kMaxEvents = 200;


// Whole iterations of `iteration` in `span`.
int64_t whole_iterations(JobTime span, SimTime iteration) {
  return static_cast<int64_t>(span.count_ps() / std::max<int64_t>(1, iteration.count_ps()));
}

std::string hours(JobTime t) { return fmt::format("{:.2f} h", t.seconds() / 3600); }

class JobSim {
 public:
  explicit JobSim(const JobInputs& in) : in_(in), spec_(in.spec), D_(in.spec.duration), tel_(in.telemetry) {}
  JobResult run();

 private:
  // Adds [a, b), clipped to the job's wall time, to a bucket.
  void add(JobTime& bucket, JobTime a, JobTime b) {
    b = std::min(b, D_);
    if (b > a) bucket += b - a;
  }
  // Appends [a, b), clipped to the job's wall time, to the timeline,
  // joining it to the last phase when that is of the same kind and ends at a.
  void mark(const char* kind, JobTime a, JobTime b) {
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
  JobTime recover(JobTime at, const FailureClass& fc, bool planned, std::string& how);
  // A checkpoint's write starting at `at`, as the checkpoint signal tells
  // it: the bytes that leave the GPUs (after compression) and how long the
  // write holds storage (the stall, then any background part).
  void emit_checkpoint(JobTime at) const {
    if (tel_ && tel_->checkpoint)
      tel_->checkpoint.emit(at, r_.checkpoint.bytes_written, r_.checkpoint.stall + r_.checkpoint.background);
  }

  const JobInputs& in_;
  const JobSpec& spec_;
  const JobTime D_;
  Telemetry* tel_;  // may be null
  JobResult r_;
  StartupCost restart_new_host_;
  int spares_ = 0;
  std::priority_queue<JobTime, std::vector<JobTime>, std::greater<>> repairs_;  // when repaired hosts return
};

JobTime JobSim::recover(JobTime at, const FailureClass& fc, bool planned, std::string& how) {
  const FailureSpec& f = spec_.failures;
  const SimTime detect = planned ? SimTime::zero() : fc.hangs ? f.watchdog_timeout : f.crash_detection;
  JobTime t = at + detect + f.teardown;
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
      JobTime back = t + f.repair;
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
  const coll::NetworkFactory& bulk = in_.bulk_network ? in_.bulk_network : it.make_network;
  if (cs.enabled) {
    if (cs.interval_iterations <= 0 && cs.interval <= JobTime::zero())
      throw core::InputError({"", 0, "job.checkpoint.interval"}, "set an interval (a time) or interval_iterations");
    r_.checkpoint = measure_checkpoint(cs, it, r_.steady, bulk);
    K = cs.interval_iterations > 0
            ? cs.interval_iterations
            : std::max<int64_t>(1, static_cast<int64_t>(std::ceil(cs.interval.seconds() / T.seconds())));
    C = r_.checkpoint.cost(T, K);
    r_.configured_interval = JobTime(T) * K + C;
    load = measure_checkpoint_load(it, cs.compression_ratio, bulk);
  }
  r_.checkpoint_every = cs.enabled ? K : 0;
  // A LoRA job starts from its base model: every GPU reads its frozen
  // weights from storage (checkpoint.h, frozen_weight_bytes), when the
  // cluster has storage; otherwise its first start broadcasts them.
  SimTime base_load;
  if (it.training->lora_rank > 0 && !it.topology->storage_nodes().empty())
    base_load = measure_checkpoint_load(it, 0.0, bulk);
  r_.first_start = startup_cost(spec_.startup, it, false, 0, base_load);
  r_.restart = startup_cost(spec_.startup, it, true, 0, load);
  restart_new_host_ = startup_cost(spec_.startup, it, true, 1, load);
  spares_ = spec_.failures.spare_hosts;

  std::vector<FailureEvent> failures = draw_failures(spec_.failures, in_.units, D_, spec_.seed);
  // Planned maintenance restarts ride along as a class of their own.
  const int planned_cls = -1;
  if (const JobTime every = spec_.failures.planned_interval; every > JobTime::zero()) {
    const int64_t planned = static_cast<int64_t>(D_.count_ps() / every.count_ps());
    if (planned > kMaxFailures)
      throw core::InputError({"", 0, "job.failures.planned_interval"},
                             fmt::format("{} gives {} planned restarts over the job's {}; at most {} are simulated",
                                         core::format_time(every), planned, core::format_time(D_), kMaxFailures));
    for (JobTime at = every; at < D_; at += every) failures.push_back(FailureEvent{at, planned_cls, 0});
  }
  std::stable_sort(failures.begin(), failures.end(),
                   [](const FailureEvent& a, const FailureEvent& b) { return a.at < b.at; });
  static const FailureClass kPlanned{"Planned maintenance", "Planned", FailureClass::Per::kJob, 0, false, false};

  JobTime t = std::min<JobTime>(D_, r_.first_start.total());
  add(r_.time.startup, JobTime::zero(), t);
  mark("startup", JobTime::zero(), t);
  // Counts an interruption by cause and recovers from it.
  struct Interruption {
    const FailureClass* cls;
    JobTime resume;   // when training can go on
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
    if (tel_) tel_->failure.emit(f.at, fc.name);
    Interruption i{&fc, JobTime::zero(), {}};
    i.resume = recover(f.at, fc, planned, i.how);
    return i;
  };

  // The traced congestion event, measured on the steady iteration and
  // placed on the timeline below (cascade.h).
  static const FailureClass kTransport{"NCCL transport timeout (congestion cascade)", "Network",
                                       FailureClass::Per::kJob, 0, false, false};
  const int transport_cls = -2;
  CongestionEffect congestion;
  CascadeOutcome outcome;
  JobTime event_at = JobTime::max();  // when the event strikes; max: none left to strike
  if (spec_.trace_congestion) {
    congestion = measure_congestion(spec_.congestion, it, r_.steady);
    const JobTime at = spec_.congestion.at > JobTime::zero() ? spec_.congestion.at : D_ / 2;
    if (at >= D_)
      throw core::InputError({"", 0, "job.congestion.at"},
                             fmt::format("must be before the job ends (job.duration {}, got {})",
                                         core::format_time(D_), core::format_time(at)));
    outcome.at = at;
    if (congestion.crosses_fabric) event_at = at;
  }
  JobTime congestion_comm;  // what an absorbed congestion cost: exposed communication

  JobTime productive, tentative;  // tentative: trained since the last checkpoint
  // A crash at f.at that loses `tentative` (`done` whole iterations): the
  // interruption and its recovery, with the failures that strike during
  // it; returns when its own recovery and when the last one ends.
  auto crash = [&](const FailureEvent& f, size_t& fi, int64_t done) {
    r_.time.lost_work += tentative;
    r_.iterations_lost += done;
    const bool planned = f.cls == planned_cls;
    const FailureClass& fc = f.cls == transport_cls ? kTransport : planned ? kPlanned : spec_.failures.classes[f.cls];
    ++r_.interruptions;
    if (!planned) {
      ++r_.by_component[fc.name];
      ++r_.by_category[fc.category];
    }
    if (tel_) tel_->failure.emit(f.at, fc.name);
    std::string how;
    const JobTime first_resume = recover(f.at, fc, planned, how);
    JobTime resume = first_resume;
    // Failures during the recovery restart it from their own detection.
    while (fi < failures.size() && failures[fi].at < resume) {
      const Interruption next = interrupt(failures[fi++]);
      resume = std::max(resume, next.resume);
      how += "; then " + next.cls->name + ": " + next.how;
    }
    add(r_.time.recovery, f.at, resume);
    mark("recovery", f.at, resume);
    if (tel_ && resume < D_) tel_->restart.emit(resume);
    if (r_.events.size() < kMaxEvents)
      r_.events.push_back({f.at, fmt::format("{} at {}: lost {} iterations ({}) since the last checkpoint; {}",
                                             fc.name, hours(f.at), done, core::format_time(tentative), how)});
    tentative = JobTime::zero();
    return std::pair{first_resume, resume};
  };
  size_t fi = 0;
  size_t next_change = 0;
  while (t < D_) {
    while (next_change < in_.interval_changes.size() && in_.interval_changes[next_change].first <= t) {
      K = std::max<int64_t>(1, in_.interval_changes[next_change++].second);
      C = r_.checkpoint.cost(T, K);
    }
    // A failure while the job is (re)starting: the start begins again.
    while (fi < failures.size() && failures[fi].at < t) {
      const JobTime resume = interrupt(failures[fi++]).resume;
      if (resume > t) {
        add(r_.time.recovery, t, resume);
        mark("recovery", t, resume);
        t = std::min(D_, resume);
        if (tel_ && t < D_) tel_->restart.emit(t);
      }
    }
    if (t >= D_) break;
    const JobTime next_failure = fi < failures.size() ? failures[fi].at : JobTime::max();
    const JobTime train_left = JobTime(T) * K;
    // The congestion event strikes in this period's training (or, when it
    // was due while the job was not training, as the period begins).
    const JobTime s = std::max(event_at, t);
    const JobTime train_end = cs.enabled ? t + train_left : JobTime::max();
    const bool event_here = event_at < train_end && s < next_failure;
    if (event_here) {
      event_at = JobTime::max();
      outcome.happened = true;
      outcome.at = s;
    }
    if (event_here && congestion.fails_job) {
      // The link stays down: training before it and what the stalled
      // iterations did is lost when the queue pairs give up and the job
      // crashes; the wait on the dead link is failure recovery.
      const JobTime give_up = s + congestion.give_up;
      const JobTime stall_end = std::min({give_up, D_, next_failure});
      const JobTime wait = scaled(congestion.cost, static_cast<long double>((stall_end - s).count_ps()) /
                                                       std::max<int64_t>(1, congestion.give_up.count_ps()));
      r_.time.recovery += wait;
      outcome.congestion = wait;
      mark("lost training", t, s);
      mark("congestion", s, stall_end);
      tentative = (s - t) + (stall_end - s - wait);
      const int64_t done = whole_iterations(s - t, T);
      if (stall_end == D_) {
        // The job ends first: as below, what it trained is kept.
        productive += tentative;
        r_.iterations_kept += done;
        tentative = JobTime::zero();
        t = D_;
        break;
      }
      const bool transport = stall_end == give_up;
      const FailureEvent f = transport ? FailureEvent{give_up, transport_cls, 0} : failures[fi++];
      if (transport) {
        outcome.crashed = true;
        outcome.lost = tentative;
        outcome.lost_iterations = done;
      }
      const auto [first_resume, resume] = crash(f, fi, done);
      if (transport) outcome.crash_recovery = std::min(first_resume, D_) - give_up;
      t = std::min(D_, resume);
      continue;
    }
    // An absorbed congestion stretches this period's training by its cost;
    // `slowed(u)` is the part of that cost paid by wall time u.
    const JobTime extra = event_here ? congestion.cost : JobTime::zero();
    const auto slowed = [&](JobTime u) {
      if (!event_here || u <= s) return JobTime::zero();
      if (u >= s + congestion.window) return extra;
      return scaled(extra, static_cast<long double>((u - s).count_ps()) / congestion.window.count_ps());
    };
    const JobTime train_wall = train_left + extra;
    // The training stretch [t, e), with the congestion marked where it is.
    const auto mark_training = [&](JobTime e) {
      if (!event_here) return mark("training", t, e);
      mark("training", t, std::min(s, e));
      mark("congestion", s, std::min(s + congestion.window, e));
      mark("training", s + congestion.window, e);
    };
    if (cs.enabled && !event_here && r_.phases.size() >= kFoldCheckpointsAfter && in_.interval_changes.empty()) {
      // Folded timeline: whole periods before the next failure, the event
      // and the end each add the same to the buckets and only stretch the
      // last training phase, so all but the last are counted at once (a
      // year of short periods stays a few steps; the last one goes through
      // the general case below).
      const JobTime period = train_left + C;
      const JobTime until = std::min({next_failure, D_, event_at});
      const int64_t n = static_cast<int64_t>((until - t).count_ps() / period.count_ps()) - 1;
      if (n > 0) {
        productive += train_left * n;
        r_.iterations_kept += K * n;
        // Folded checkpoints are written all the same: a subscriber hears each.
        if (tel_ && tel_->checkpoint)
          for (int64_t k = 0; k < n; ++k) emit_checkpoint(t + period * k + train_left);
        r_.time.checkpoint += JobTime(C) * n;
        r_.checkpoints += n;
        mark("training", t, t + period * n);
        t += period * n;
      }
    }
    const JobTime period_end = cs.enabled ? t + train_wall + C : JobTime::max();
    if (period_end <= std::min(next_failure, D_)) {
      // The checkpoint period completes: its work is safe.
      tentative += train_left;
      productive += tentative;
      tentative = JobTime::zero();
      congestion_comm += extra;
      outcome.congestion += extra;
      r_.iterations_kept += K;
      add(r_.time.checkpoint, t + train_wall, period_end);
      mark_training(t + train_wall);
      mark("checkpoint", t + train_wall, period_end);
      emit_checkpoint(t + train_wall);
      ++r_.checkpoints;
      t = period_end;
      continue;
    }
    if (next_failure >= D_) {
      // The job ends first; what was trained since the last checkpoint is
      // counted as kept (a final checkpoint is written at the end).
      const JobTime run = std::min(D_ - t, train_wall);
      const JobTime paid = slowed(t + run);
      const int64_t n = whole_iterations(run - paid, T);
      productive += tentative + run - paid;
      congestion_comm += paid;
      outcome.congestion += paid;
      r_.iterations_kept += n;
      add(r_.time.checkpoint, t + run, D_);
      mark_training(t + run);
      mark("checkpoint", t + run, D_);
      t = D_;
      break;
    }
    // A failure strikes in this period: everything since the last
    // checkpoint is lost, including a checkpoint still being written (what
    // a congestion before it cost stays exposed communication).
    const FailureEvent& f = failures[fi++];
    const JobTime run = f.at - t;
    const JobTime trained = std::min(run, train_wall);
    const JobTime paid = slowed(t + trained);
    congestion_comm += paid;
    outcome.congestion += paid;
    tentative += trained - paid;
    if (run > train_wall) add(r_.time.checkpoint, t + train_wall, f.at);
    mark("lost training", t, f.at);
    const int64_t done = whole_iterations(trained - paid, T);
    t = std::min(D_, crash(f, fi, done).second);
  }
  r_.wall = D_;

  // Split the productive time as the steady iteration splits.
  const workload::TimeBreakdown& b = r_.steady.mean;
  const long double whole = static_cast<long double>(std::max<int64_t>(1, T.count_ps()));
  auto share = [&](SimTime part) { return scaled(productive, part.count_ps() / whole); };
  r_.time.compute = share(b.compute());
  const JobTime comm = share(b.communication());
  r_.time.bubble = share(b.bubble);
  r_.time.waiting = productive - r_.time.compute - comm - r_.time.bubble;  // and the split's rounding
  r_.time.communication = comm + congestion_comm;  // an absorbed congestion: outside productive training
  r_.ettr = productive.seconds() / D_.seconds();

  const double per_day = failures_per_day(spec_.failures, in_.units);
  r_.mtbi_hours = per_day > 0 ? 24.0 / per_day : 0;
  r_.spare_gpu_hours = static_cast<double>(spec_.failures.spare_hosts) * in_.gpus_per_host * D_.seconds() / 3600;
  if (cs.enabled && per_day > 0) {
    const JobTime mtbi = JobTime::from_seconds(86400.0 / per_day);
    r_.young = young_interval(C, mtbi);
    r_.daly = daly_interval(C, mtbi);
  }
  r_.dollars_per_gpu_hour = spec_.cost.dollars_per_gpu_hour;
  if (spec_.trace_congestion) {
    SimTime load;
    for (const auto& p : r_.restart.phases)
      if (p.name == "checkpoint load") load = p.duration;
    outcome.checkpoint_load = load;
    outcome.checkpoint_bytes = r_.checkpoint.bytes_total;
    outcome.storage_servers = it.topology->storage_nodes().size();
    outcome.gpus = r_.gpus;
    r_.cascade = describe_cascade(spec_.congestion, congestion, outcome);
  }
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
  if (in.spec.duration <= JobTime::zero()) throw core::InputError({"", 0, "job.duration"}, "must be positive");
  return in.spec.adaptive() ? run_adaptive_job(in) : run_job_timeline(in);
}

JobResult run_job_timeline(const JobInputs& in) {
  JobSim sim(in);
  return sim.run();
}

}  // namespace anatomy::job
