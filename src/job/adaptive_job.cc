// The job with its conditions and controllers: the checkpoint controller's
// online Young/Daly interval changes the timeline itself (it is run again
// with the new intervals, on the same failure draw); every other condition
// and controller runs over that timeline (adaptation.h) and what they cost
// moves from productive training to the bucket of its cause.

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "job/lifecycle.h"
#include "job/young_daly.h"

namespace anatomy::job {

namespace {

using core::scaled;


// Online Young/Daly: after each failure (from the min_failures-th on), once
// reaction_time has passed, the controller sets the interval to Daly's for
// the failure rate it has seen so far (failures / elapsed wall time) and
// the checkpoint cost it measures.
std::vector<ControllerDecision> online_intervals(const ControllerSpec& c, const JobResult& r,
                                                 const std::vector<JobTime>& failures, const JobSpec& spec,
                                                 std::vector<std::pair<JobTime, int64_t>>& changes) {
  std::vector<ControllerDecision> out;
  const SimTime T = r.steady.iteration;
  if (!spec.checkpoint.enabled || r.checkpoint_every <= 0 || T <= SimTime::zero()) return out;
  const JobTime C = r.checkpoint_cost();
  int64_t K = r.checkpoint_every;
  int seen = 0;
  for (const JobTime failed_at : failures) {
    ++seen;
    if (seen < c.min_failures) continue;
    const JobTime at = failed_at + JobTime(c.reaction_time);
    if (at >= r.wall) break;
    const JobTime mtbi = JobTime::from_seconds(at.seconds() / seen);
    const JobTime tau = daly_interval(C, mtbi);
    const int64_t k = std::max<int64_t>(1, std::llround(tau.seconds() / T.seconds()));
    if (k == K) continue;
    changes.push_back({at, k});
    out.push_back({at, to_string(c.kind),
                   fmt::format("{} failure(s) in {:.2f} h: MTBI {:.2f} h, checkpoint cost {}", seen, at.seconds() / 3600,
                               mtbi.seconds() / 3600, core::format_time(C)),
                   fmt::format("checkpoint every {} -> {} iterations", K, k),
                   fmt::format("Daly interval {} (Young {})", core::format_time(tau),
                               core::format_time(young_interval(C, mtbi)))});
    K = k;
  }
  return out;
}

// A timeline run with its signals kept: the controllers read every
// interruption from them (JobResult::events keeps only the first 200), and
// outside subscribers hear its failures and restarts replayed from the
// timeline the job ends up with (the first, or the one the online interval
// re-ran), never both, in time order and before the adaptation's signals.
// Its checkpoints are the adaptation's to tell (it meets each one, delayed
// or slowed by the conditions).
class TimelineLog {
 public:
  TimelineLog(const JobInputs& in, const Telemetry* outside) : outside_(outside) {
    tel_.checkpoint.subscribe([this](JobTime t, core::Bytes, SimTime) { checkpoints.push_back(t); });
    tel_.failure.subscribe([this](JobTime t, const std::string& cause) {
      failures.push_back(t);
      if (outside_) entries_.push_back({t, Kind::kFailure, cause});
    });
    if (outside_) tel_.restart.subscribe([this](JobTime t) { entries_.push_back({t, Kind::kRestart, {}}); });
    JobInputs logged = in;
    logged.telemetry = &tel_;
    result = run_job_timeline(logged);
    // The write at the job's end is a phase the timeline tells nobody.
    if (!result.phases.empty()) {
      const JobPhase& last = result.phases.back();
      if (std::string_view(last.kind) == "checkpoint" && (checkpoints.empty() || checkpoints.back() < last.start)) {
        checkpoints.push_back(last.start);
        ends_writing = true;
      }
    }
  }
  TimelineLog(const TimelineLog&) = delete;
  TimelineLog& operator=(const TimelineLog&) = delete;

  void replay() const {
    if (!outside_) return;
    for (const Entry& e : entries_) {
      if (e.kind == Kind::kFailure) outside_->failure.emit(e.at, e.cause);
      else outside_->restart.emit(e.at);
    }
  }

  JobResult result;
  std::vector<JobTime> failures;  // every interruption, in the order the timeline met them
  // When every checkpoint's write began, those the timeline's phases fold
  // into training past kFoldCheckpointsAfter too.
  std::vector<JobTime> checkpoints;
  bool ends_writing = false;  // the last of them is the write at the job's end

 private:
  enum class Kind { kFailure, kRestart };
  struct Entry {
    JobTime at;
    Kind kind;
    std::string cause;  // a failure's
  };
  const Telemetry* outside_;
  Telemetry tel_;
  std::vector<Entry> entries_;
};

}  // namespace

JobResult run_adaptive_job(const JobInputs& in) {
  std::optional<TimelineLog> first(std::in_place, in, in.telemetry);
  TimelineLog* final_log = &*first;
  std::optional<TimelineLog> again;
  std::vector<ControllerDecision> interval_decisions;
  for (const ControllerSpec& c : in.spec.controllers) {
    if (c.kind != ControllerKind::kCheckpoint) continue;
    std::vector<std::pair<JobTime, int64_t>> changes;
    interval_decisions = online_intervals(c, first->result, first->failures, in.spec, changes);
    if (!changes.empty()) {
      JobInputs rerun = in;
      rerun.interval_changes = std::move(changes);
      again.emplace(rerun, in.telemetry);
      final_log = &*again;
    }
    break;
  }
  final_log->replay();
  JobResult r = std::move(final_log->result);

  AdaptationInputs a;
  a.spec = &in.spec;
  a.iteration = &in.iteration;
  a.steady = &r.steady;
  a.checkpoint = in.spec.checkpoint.enabled ? &r.checkpoint : nullptr;
  a.checkpoint_every = r.checkpoint_every;
  a.bulk_network = in.bulk_network;
  a.restart = r.restart.total();
  SimTime load;
  for (const auto& p : r.restart.phases)
    if (p.name == "checkpoint load") load = p.duration;
  a.restart_new_host = startup_cost(in.spec.startup, in.iteration, true, 1, load).total();
  a.checkpoint_times = std::move(final_log->checkpoints);
  for (const JobPhase& p : r.phases) {
    const std::string_view kind = p.kind;
    if (kind != "startup" && kind != "recovery" && kind != "lost training") continue;
    if (!a.downtime.empty() && a.downtime.back().second == p.start) a.downtime.back().second = p.end;
    else a.downtime.push_back({p.start, p.end});
  }
  a.telemetry = in.telemetry;
  AdaptationResult res = run_adaptation(a);
  res.decisions.insert(res.decisions.begin(), interval_decisions.begin(), interval_decisions.end());
  std::stable_sort(res.decisions.begin(), res.decisions.end(),
                   [](const ControllerDecision& x, const ControllerDecision& y) { return x.at < y.at; });

  // The timeline runs at the steady pace: the checkpoints the conditions
  // push past the end are not written (the job's own final write is), and
  // their stalls are training the conditions were charged on.
  const int64_t unreached = std::max<int64_t>(0, res.checkpoints_unreached - (final_log->ends_writing ? 1 : 0));
  const JobTime returned = JobTime(r.checkpoint_cost()) * unreached;
  r.time.checkpoint -= returned;
  r.checkpoints -= unreached;

  // Move what the conditions cost out of productive training.
  const workload::TimeBreakdown& b = r.steady.mean;
  const long double whole = static_cast<long double>(std::max<int64_t>(1, r.steady.iteration.count_ps()));
  const JobTime absorbed = r.cascade && !r.cascade->failed_job ? r.cascade->total : JobTime::zero();
  const JobTime productive = r.time.compute + r.time.bubble + r.time.waiting + r.time.communication - absorbed + returned;
  JobTime cost = res.total();
  if (cost > productive) {
    // Conditions cannot take more than the job trained: the rest is beyond its end.
    const long double keep = static_cast<long double>(productive.count_ps()) / std::max<core::int128_ps>(1, cost.count_ps());
    res.communication = scaled(res.communication, keep);
    res.waiting = scaled(res.waiting, keep);
    res.checkpoint = scaled(res.checkpoint, keep);
    res.recovery = scaled(res.recovery, keep);
    res.lost_work = productive - res.communication - res.waiting - res.checkpoint - res.recovery;
    cost = productive;
  }
  const JobTime left = productive - cost;
  auto share = [&](SimTime part) { return scaled(left, part.count_ps() / whole); };
  const JobTime compute = share(b.compute());
  const JobTime comm = share(b.communication());
  r.time.compute = compute;
  r.time.communication = comm + absorbed + res.communication;
  r.time.bubble = share(b.bubble);
  r.time.waiting = left - compute - comm - r.time.bubble + res.waiting;
  r.time.checkpoint += res.checkpoint;
  r.time.recovery += res.recovery;
  r.time.lost_work += res.lost_work;
  const int64_t T = std::max<int64_t>(1, r.steady.iteration.count_ps());
  r.iterations_kept =
      std::max<int64_t>(0, r.iterations_kept + static_cast<int64_t>((returned.count_ps() - cost.count_ps()) / T));
  r.ettr = left.seconds() / r.wall.seconds();
  r.interruptions += res.crashes + res.swaps;
  if (res.crashes > 0) r.by_category["Network"] += res.crashes;
  r.adaptation = std::move(res);
  return r;
}

}  // namespace anatomy::job
