#include "fleet/fleet_sim.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <set>

#include <fmt/format.h>

#include "core/error.h"
#include "core/rng.h"
#include "fleet/contention.h"
#include "fleet/footprint.h"
#include "job/placement.h"

namespace anatomy::fleet {
namespace {

// The fleet's clock: integer nanoseconds (a month is 2.6e15 ns; int64 holds 292 years).
using Ns = int64_t;
Ns to_ns(double s) { return static_cast<Ns>(std::llround(s * 1e9)); }
double to_s(Ns t) { return static_cast<double>(t) * 1e-9; }

enum Bucket {
  kIdle, kQueuedIdle, kStartup, kProductive, kComm, kBubble, kWaiting, kContention, kCheckpoint, kFailure, kPreempt,
  kBuckets
};
constexpr const char* kBucketNames[kBuckets] = {
    "idle", "queued", "startup", "productive", "exposed communication", "pipeline bubble", "waiting on others",
    "contention", "checkpoint", "failure recovery", "preemption"};

enum class Phase { kNone, kStartup, kTrain, kCheckpoint, kRecovery };

struct Run {
  JobRequest req;
  const JobClass* cls = nullptr;
  StepProfile prof;
  JobState state = JobState::kNotArrived;
  int alloc = 0;                 // GPUs held
  std::vector<uint32_t> hosts;   // rank order
  int used_per_host = 0;
  bool resim = false;            // a training job whose iteration is re-simulated under contention
  bool placed_once = false;
  Footprint comm, ckpt;
  double comm_alone = 0, ckpt_alone = 0;  // seconds
  double work_left = 0, redo = 0, until_ckpt = 0, since_ckpt = 0, interval = 0;
  Bucket redo_cause = kFailure;
  Phase phase = Phase::kNone;
  Bucket startup_bucket = kStartup;
  Ns span_start = 0;       // when the phase began (JobOutcome::phases)
  double span_left = 0;    // its work then
  double span_pace = 1;    // and its slowdown
  double left = 0;   // alone seconds of the phase left
  double s = 1;      // current slowdown of the phase
  Ns last = 0;       // progress counted up to here
  uint64_t version = 0, failure_version = 0;
  std::vector<double> link_t;  // its time on each link of its footprint, shared (seconds)
  double worst = 0;            // the slowest of them
  bool rescan = false;         // the slowest fell: find it again
  double buckets[kBuckets] = {};  // wall seconds (x alloc = GPU-seconds)
  std::set<int> shared;
  JobOutcome out;
};

struct Occupant {
  int job;
  int pos;  // its entry in the job's footprint
  int flows;
  double bytes;
  bool greedy;
  double rate;   // bit/s it offers: a collective its mean, a checkpoint write its rate alone
  double floor;  // the job's time alone for this phase (seconds): link times under it do not slow it
};

struct LinkState {
  std::vector<Occupant> occ;
  int greedy_flows = 0, capped_flows = 0;
  double capped_rate = 0;  // bit/s the capped occupants offer
  double load = 0;  // offered load / capacity
  Ns since = 0;
  int most = 0;
  int heat = -1;  // its row of load over time (heat_), once two jobs shared it
};

struct Event {
  Ns t;
  uint64_t seq;
  int kind;  // 0 arrival, 1 phase end, 2 failure
  int job;
  uint64_t version;
  bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

class Fleet {
 public:
  Fleet(const FleetSpec& spec, const topo::Topology& t, double tdp, const ProfileFn& profile,
        const IterationFn& iteration)
      : spec_(spec), t_(t), tdp_(tdp), profile_(profile), iteration_(iteration), links_(t.num_links()) {
    hosts_ = t.num_hosts();
    gph_ = static_cast<int>(gpus_on_a_host(t));
    free_on_host_.assign(hosts_, gph_);
    by_free_.assign(static_cast<size_t>(gph_) + 1, 0);
    by_free_[gph_] = static_cast<int>(hosts_);
    free_gpus_ = static_cast<int>(hosts_) * gph_;
    span_ = to_ns(spec.duration.seconds());
    bins_ = std::max(1, spec.heat_bins);
    bin_ns_ = std::max<Ns>(1, span_ / bins_);
    util_.assign(bins_, 0);
    prod_.assign(bins_, 0);
  }

  FleetResult run(StreamResult stream) {
    for (size_t c = 0; c < spec_.classes.size(); ++c)
      if (spec_.classes[c].checkpoint_interval > JobTime::zero() && t_.storage_nodes().empty())
        throw core::InputError({"", 0, fmt::format("fleet.classes[{}].checkpoint_interval", c)},
                               "the cluster has no storage servers to write checkpoints to (cluster.storage.servers)");
    for (JobRequest& r : stream.jobs) {
      if (r.arrival.seconds() * 1e9 > static_cast<double>(span_)) continue;
      const int alloc = r.gpus < gph_ ? r.gpus : (r.gpus + gph_ - 1) / gph_ * gph_;
      if (alloc > static_cast<int>(t_.num_gpus()))
        throw core::InputError({"", 0, "fleet.jobs"},
                               fmt::format("job {} needs {} GPUs; the cluster has {}", r.id, r.gpus, t_.num_gpus()));
      Run run;
      run.req = r;
      run.cls = &spec_.classes.at(static_cast<size_t>(r.job_class));
      run.alloc = alloc;
      run.out.id = r.id;
      runs_.push_back(std::move(run));
    }
    marks_.assign(runs_.size(), 0);
    bandwidth_.resize(t_.num_links());
    for (topo::LinkId l = 0; l < t_.num_links(); ++l) bandwidth_[l] = t_.link(l).bandwidth.bps();
    for (size_t j = 0; j < runs_.size(); ++j) push(to_ns(runs_[j].req.arrival.seconds()), 0, static_cast<int>(j), 0);
    while (!events_.empty()) {
      const Event e = events_.top();
      if (e.t > span_) break;
      events_.pop();
      Run& r = runs_[static_cast<size_t>(e.job)];
      if (e.kind == 1 && e.version != r.version) continue;
      if (e.kind == 2 && e.version != r.failure_version) continue;
      advance(e.t);
      ++events_handled_;
      if (e.kind == 0) {
        r.state = JobState::kQueued;
        r.out.arrival_s = to_s(now_);
        queue_.push_back(e.job);
        schedule();
      } else if (e.kind == 1) {
        phase_end(e.job);
      } else {
        fail(e.job);
      }
    }
    advance(span_);
    return finish(std::move(stream));
  }

 private:
  void push(Ns t, int kind, int job, uint64_t version) { events_.push({t, seq_++, kind, job, version}); }

  // Spreads `amount` over the time bins of [a, b).
  void spread(std::vector<double>& series, Ns a, Ns b, double amount) {
    if (b <= a) return;
    const double per_ns = amount / static_cast<double>(b - a);
    for (Ns x = a; x < b;) {
      const int bin = std::min<int>(bins_ - 1, static_cast<int>(x / bin_ns_));
      const Ns end = bin == bins_ - 1 ? b : std::min(b, (static_cast<Ns>(bin) + 1) * bin_ns_);
      series[bin] += per_ns * static_cast<double>(end - x);
      x = end;
    }
  }

  void advance(Ns t) {
    if (t <= now_) return;
    const double dt = to_s(t - now_);
    const int held = static_cast<int>(hosts_) * gph_ - free_gpus_;
    cluster_[queue_.empty() ? kIdle : kQueuedIdle] += dt * free_gpus_;
    spread(util_, now_, t, dt * held);
    now_ = t;
  }

  // Counts a running job's progress from r.last to now.
  void settle(Run& r) {
    if (r.state != JobState::kRunning || now_ <= r.last) return;
    const double dt = to_s(now_ - r.last);
    const Ns from = r.last;
    r.last = now_;
    switch (r.phase) {
      case Phase::kStartup: r.buckets[r.startup_bucket] += dt, r.left -= dt; break;
      case Phase::kRecovery: r.buckets[kFailure] += dt, r.left -= dt; break;
      case Phase::kCheckpoint: {
        const double work = dt / r.s;
        r.buckets[kCheckpoint] += work;
        r.buckets[kContention] += dt - work;
        r.left -= work;
        break;
      }
      case Phase::kTrain: {
        const double work = dt / r.s;
        r.buckets[kContention] += dt - work;
        const double again = std::min(work, r.redo);
        r.redo -= again;
        r.buckets[r.redo_cause] += again;
        const double fresh = work - again;
        r.buckets[kProductive] += fresh * r.prof.compute;
        r.buckets[kComm] += fresh * r.prof.communication;
        r.buckets[kBubble] += fresh * r.prof.bubble;
        r.buckets[kWaiting] += fresh * r.prof.waiting;
        spread(prod_, from, now_, fresh * r.prof.compute * r.alloc);
        r.left -= work;
        r.work_left -= work;
        r.until_ckpt -= work;
        r.since_ckpt += work;
        break;
      }
      case Phase::kNone: break;
    }
    r.left = std::max(0.0, r.left);
  }

  // --- links ---
  void touch_link(topo::LinkId l) {
    LinkState& s = links_[l];
    if (s.occ.size() >= 2 && now_ > s.since) {
      if (s.heat < 0) {
        s.heat = static_cast<int>(heat_.size());
        heat_.push_back({l, std::vector<double>(static_cast<size_t>(bins_), 0)});
      }
      spread(heat_[static_cast<size_t>(s.heat)].second, s.since, now_, s.load * to_s(now_ - s.since));
    }
    s.since = now_;
  }

  Run& run(int j) { return runs_[static_cast<size_t>(j)]; }
  bool moving(const Run& r) const { return r.phase == Phase::kTrain || r.phase == Phase::kCheckpoint; }
  const Footprint& footprint(const Run& r) const { return r.phase == Phase::kCheckpoint ? r.ckpt : r.comm; }

  // Job k's time to move its bytes over footprint entry u (its occupant
  // `self` on that link), with what is on the link now: its own flows
  // greedy, the others' as they offer (contention.h). Alone, bytes over
  // the bandwidth. A link the others leave enough room on cannot be k's
  // bottleneck: whatever the capped flows take, k keeps c - (their rates),
  // and when even that carries its bytes within k's time alone the
  // bound is returned without the water-filling (the slowdown only reads
  // times above the time alone, so it is the same).
  double link_time(topo::LinkId l, const Occupant& self) {
    const LinkState& s = links_[l];
    const double c = bandwidth_[l];
    const int greedy_others = s.greedy_flows - (self.greedy ? self.flows : 0);
    const double capped_others = s.capped_rate - (self.greedy ? 0 : self.rate);
    if (greedy_others == 0 && s.occ.size() == 1) return self.bytes * 8 / c;
    if (greedy_others == 0 && capped_others < c) {
      const double bound = self.bytes * 8 / (c - std::max(0.0, capped_others));
      if (bound <= self.floor) return bound;
    }
    ++evaluations_;
    capped_.clear();
    for (const Occupant& o : s.occ)
      if (o.job != self.job && !o.greedy) capped_.push_back({o.rate / o.flows, o.flows});
    const double x = fair_level(c, self.flows + greedy_others, capped_);
    return x > 0 ? self.bytes * 8 / (self.flows * x) : 1e30;
  }

  // The slowdown of r's phase: a checkpoint write's or a light job's from
  // its slowest link's time (r.worst), a re-simulated training job's from
  // its iteration with what its links leave it (fleet_sim.h).
  double slowdown(Run& r) {
    if (!moving(r) || !spec_.scheduler.contention) return 1;
    double s = 1;
    if (r.phase == Phase::kCheckpoint) s = r.ckpt_alone > 0 ? std::max(1.0, r.worst / r.ckpt_alone) : 1;
    else if (r.resim) s = resimulated_slowdown(r);
    else s = 1 + std::max(0.0, r.worst - r.comm_alone) / r.prof.step_s;
    return std::min(s, 1e6);
  }

  // The share of each cut link r keeps: its time there alone over its time
  // shared (n_A x / c, contention.h), rounded to 1e-6 (what the cache keys).
  // What r keeps of each link it is re-simulated with. The footprint hashes
  // connections where the iteration hashes NCCL's channels: the same bytes
  // spread alike over a switch's equal-cost links, not onto the same ones.
  // So a group of equal-cost links keeps one share, the mean of what the
  // footprint's links in it keep (1 where nobody shares them), on every
  // link of the group; other links keep their own.
  std::vector<std::pair<topo::LinkId, double>> kept_shares(const Run& r) const {
    std::map<topo::LinkId, double> cut;
    std::map<std::vector<topo::LinkId>, std::pair<double, int>> groups;  // group -> (sum of shares, links)
    for (size_t p = 0; p < r.comm.size(); ++p) {
      const LinkUse& u = r.comm[p];
      const double alone = u.bytes * 8 / bandwidth_[u.link];
      const double share = r.link_t[p] <= alone ? 1.0 : alone / r.link_t[p];
      std::vector<topo::LinkId> group = equal_cost_group(t_, u.link);
      if (group.size() == 1) {
        if (share < 1) cut[u.link] = share;
        continue;
      }
      auto& [sum, n] = groups[std::move(group)];
      sum += share;
      ++n;
    }
    for (const auto& [group, sum_n] : groups) {
      const double mean = sum_n.first / sum_n.second;
      if (mean < 1)
        for (const topo::LinkId l : group) cut[l] = mean;
    }
    std::vector<std::pair<topo::LinkId, double>> kept;
    for (const auto& [l, share] : cut) {
      const double rounded = std::round(share * 1e6) / 1e6;  // the cache's key: to 1e-6
      if (rounded < 1) kept.push_back({l, std::max(rounded, 1e-6)});
    }
    return kept;  // sorted by link
  }

  double resimulated_slowdown(Run& r) {
    // What the footprint says the cuts cost, fully exposed: under the
    // threshold, that figure stands and nothing is run.
    const double exposed = std::max(0.0, r.worst - r.comm_alone) / r.prof.step_s;
    if (exposed < spec_.scheduler.resimulate_above) return 1 + exposed;
    std::vector<std::pair<topo::LinkId, double>> kept = kept_shares(r);
    if (kept.empty()) return 1;
    const double idle = iteration_step(r, {});
    const double busy = iteration_step(r, std::move(kept));
    return 1 + std::max(0.0, busy - idle) / r.prof.step_s;
  }

  // The step of r's iteration on its hosts with those shares kept, run once per key.
  double iteration_step(const Run& r, std::vector<std::pair<topo::LinkId, double>> kept) {
    IterationKey key{r.req.job_class, r.used_per_host, r.hosts, std::move(kept)};
    if (auto it = iterations_.find(key); it != iterations_.end()) {
      ++iterations_cached_;
      return it->second;
    }
    std::vector<uint32_t> rank_to_gpu;
    rank_to_gpu.reserve(r.hosts.size() * static_cast<size_t>(r.used_per_host));
    for (uint32_t h : r.hosts)
      for (int g = 0; g < r.used_per_host; ++g) rank_to_gpu.push_back(h * static_cast<uint32_t>(gph_) + static_cast<uint32_t>(g));
    ++iterations_run_;
    const double step = iteration_(*r.cls, rank_to_gpu, key.kept);
    return iterations_.emplace(std::move(key), step).first->second;
  }

  // Puts j's current footprint on its links (on) or takes it off. Every
  // other job on those links has its time on that link worked out again
  // (and only on that link); it is settled first and listed in `dirty`.
  void occupy(int j, bool on, std::vector<int>& dirty) {
    Run& r = run(j);
    const bool greedy = r.phase == Phase::kCheckpoint;
    const Footprint& f = footprint(r);
    const bool contention = spec_.scheduler.contention;
    if (on) r.link_t.assign(f.size(), 0);
    for (size_t p = 0; p < f.size(); ++p) {
      const LinkUse& u = f[p];
      touch_link(u.link);
      LinkState& s = links_[u.link];
      const double rate = greedy ? (r.ckpt_alone > 0 ? u.bytes * 8 / r.ckpt_alone : 0) : u.bytes * 8 / r.prof.step_s;
      // A re-simulated job needs its exact share of every link: no floor.
      const double floor = greedy ? r.ckpt_alone : r.resim ? 0 : r.comm_alone;
      const Occupant mine{j, static_cast<int>(p), u.flows, u.bytes, greedy, rate, floor};
      if (on) {
        s.occ.push_back(mine);
      } else {
        s.occ.erase(std::find_if(s.occ.begin(), s.occ.end(), [j](const Occupant& x) { return x.job == j; }));
      }
      const double sign = on ? 1 : -1;
      s.load += sign * rate / bandwidth_[u.link];
      (greedy ? s.greedy_flows : s.capped_flows) += on ? u.flows : -u.flows;
      if (!greedy) s.capped_rate += sign * rate;
      if (s.occ.empty()) s.load = 0, s.capped_rate = 0;
      s.most = std::max(s.most, static_cast<int>(s.occ.size()));
      for (const Occupant& o : s.occ) {
        if (o.job == j) continue;
        uint64_t& seen = marks_[static_cast<size_t>(o.job)];
        if (seen != mark_) {  // the first of k's links this transition meets
          seen = mark_;
          Run& k = run(o.job);
          if (on) r.shared.insert(o.job), k.shared.insert(j);
          if (!contention) continue;
          settle(k);
          dirty.push_back(o.job);
        } else if (!contention) {
          continue;
        }
        Run& k = run(o.job);
        const size_t at = static_cast<size_t>(o.pos);
        const double old = k.link_t[at];
        const double t = link_time(u.link, o);
        k.link_t[at] = t;
        if (t > k.worst) k.worst = t;
        else if (t < old && old >= k.worst) k.rescan = true;
      }
      if (on) r.link_t[p] = link_time(u.link, mine);
    }
    if (on) r.worst = r.link_t.empty() ? 0 : *std::max_element(r.link_t.begin(), r.link_t.end());
  }

  void reschedule(int j) {
    Run& r = run(j);
    ++r.version;
    // Past the span the exact time does not matter: clamp (a stalled
    // job's near-infinite phase must not overflow the clock).
    const double wall = std::min(r.left * r.s, to_s(span_) + 1);
    push(now_ + std::max<Ns>(0, to_ns(wall)), 1, j, r.version);
  }

  // j moves from one phase to another (`change` does it). Its links'
  // other jobs see their sharers change: only their times on those links
  // are worked out again, and a job whose slowdown moved is rescheduled.
  // Nothing else is touched: between such events every job fast-forwards.
  // Ends r's phase span at now (r settled): its wall time over the work it did.
  void close_span(Run& r) {
    if (!spec_.record_phases || r.state != JobState::kRunning || r.phase == Phase::kNone || now_ <= r.span_start) return;
    const double wall = to_s(now_ - r.span_start), work = r.span_left - r.left;
    const char* name = r.phase == Phase::kTrain        ? "train"
                       : r.phase == Phase::kCheckpoint ? "checkpoint"
                       : r.phase == Phase::kRecovery   ? "failure recovery"
                       : r.startup_bucket == kPreempt  ? "restart"
                                                       : "startup";
    r.out.phases.push_back({name, to_s(r.span_start), to_s(now_), work > 0 ? wall / work : 1});
  }

  template <typename F>
  void transition(int j, F&& change) {
    Run& r = run(j);
    settle(r);
    close_span(r);
    ++mark_;
    marks_[static_cast<size_t>(j)] = mark_;
    std::vector<int> dirty;
    if (moving(r)) occupy(j, false, dirty);
    change(r);
    r.span_start = now_;
    r.span_left = r.left;
    if (moving(r)) occupy(j, true, dirty);
    for (int k : dirty) {
      Run& o = run(k);
      if (o.rescan) {
        o.worst = o.link_t.empty() ? 0 : *std::max_element(o.link_t.begin(), o.link_t.end());
        o.rescan = false;
      }
      const double s = slowdown(o);
      if (o.phase == Phase::kTrain) o.out.peak_slowdown = std::max(o.out.peak_slowdown, s);
      if (s != o.s) {
        // A new span when its pace has moved by 10% or more since the span
        // began (smaller changes stay in its mean: split at 1%, a month's
        // trace held 2.2 M spans, 300 MB; at 10%, 230 k, 32 MB).
        if (spec_.record_phases && std::abs(s - o.span_pace) >= 0.1 * o.span_pace) {
          close_span(o);
          o.span_start = now_;
          o.span_left = o.left;
          o.span_pace = s;
        }
        o.s = s;
        reschedule(k);
      }
    }
    if (r.state != JobState::kRunning) return;
    r.s = slowdown(r);
    r.span_pace = r.s;
    if (r.phase == Phase::kTrain) r.out.peak_slowdown = std::max(r.out.peak_slowdown, r.s);
    reschedule(j);
  }

  // --- scheduling ---
  bool fits_by_count(const Run& r) const {
    if (r.alloc > free_gpus_) return false;
    if (r.alloc < gph_) {
      for (int k = r.alloc; k <= gph_; ++k)
        if (by_free_[k] > 0) return true;
      return false;
    }
    return by_free_[gph_] >= r.alloc / gph_;
  }

  void set_free(uint32_t h, int free) {
    --by_free_[free_on_host_[h]];
    free_gpus_ += free - free_on_host_[h];
    free_on_host_[h] = free;
    ++by_free_[free];
  }

  bool place(Run& r) {
    if (!fits_by_count(r)) return false;
    std::vector<uint32_t> hosts;
    std::string summary;
    if (r.alloc < gph_) {
      uint32_t best = hosts_;
      for (uint32_t h = 0; h < hosts_; ++h)
        if (free_on_host_[h] >= r.alloc && (best == hosts_ || free_on_host_[h] < free_on_host_[best])) best = h;
      hosts = {best};
      set_free(best, free_on_host_[best] - r.alloc);
      summary = fmt::format("{} GPUs of host {}", r.alloc, best);
      r.used_per_host = r.alloc;
    } else {
      std::vector<uint8_t> busy(hosts_);
      for (uint32_t h = 0; h < hosts_; ++h) busy[h] = free_on_host_[h] < gph_;
      workload::ParallelPlan plan;
      plan.dp = r.alloc;
      try {
        job::Placement p = job::place_on(spec_.scheduler.placement, t_, plan, tdp_, std::move(busy));
        hosts = std::move(p.hosts);
        summary = std::move(p.summary);
      } catch (const core::InputError&) {
        return false;  // power or fault-domain rules: it waits
      }
      for (uint32_t h : hosts) set_free(h, 0);
      r.used_per_host = gph_;
    }
    r.hosts = std::move(hosts);
    if (!r.placed_once) first_placement(r, summary);
    else {
      rebuild_footprints(r);
    }
    return true;
  }

  void rebuild_footprints(Run& r) {
    const uint64_t salt = static_cast<uint64_t>(&r - runs_.data()) + 1;
    r.comm = plan_footprint(t_, r.hosts, r.used_per_host, r.prof.traffic);
    r.ckpt = r.interval > 0 ? checkpoint_footprint(t_, r.hosts, r.used_per_host, r.prof.checkpoint_bytes_per_gpu, salt)
                            : Footprint{};
    r.comm_alone = alone_seconds(t_, r.comm);
    r.ckpt_alone = alone_seconds(t_, r.ckpt);
    // A job of whole hosts has their NICs' cables to itself: no other job
    // can share them, so they count to its time alone (above) and are
    // left off the shared links' books.
    if (r.alloc >= gph_) {
      auto own = [&](const LinkUse& u) {
        const topo::Link& l = t_.link(u.link);
        return t_.kind(l.from) == topo::NodeKind::kNic || t_.kind(l.to) == topo::NodeKind::kNic;
      };
      std::erase_if(r.comm, own);
      std::erase_if(r.ckpt, own);
    }
  }

  void first_placement(Run& r, const std::string& summary) {
    r.placed_once = true;
    r.out.placement = summary;
    const JobClass& c = *r.cls;
    const int n = r.alloc;
    if (!c.model.empty()) {
      // On the GPUs it holds: whole hosts, so a trace's 12-GPU job trains
      // on 16 with TP 8 rather than fail to divide.
      const auto key = std::make_pair(r.req.job_class, r.alloc);
      auto it = profiles_.find(key);
      if (it == profiles_.end()) {
        it = profiles_.emplace(key, profile_(c, r.alloc)).first;
        profile_lines_.push_back(fmt::format("{} on {} GPUs: {}", c.name, r.alloc, it->second.source));
      }
      r.prof = it->second;
    } else {
      r.prof.traffic.dp_bytes_per_nic =
          n > 1 ? 2.0 * (n - 1) / n * static_cast<double>(c.all_reduce.count()) / std::max(1, r.used_per_host) : 0;
      r.prof.checkpoint_bytes_per_gpu = static_cast<double>(c.checkpoint_bytes.count());
    }
    r.interval = c.checkpoint_interval.seconds();
    r.resim = !c.model.empty() && spec_.scheduler.resimulate && static_cast<bool>(iteration_);
    rebuild_footprints(r);
    if (c.model.empty()) {
      // A light job: its step, then its all-reduce alone on the fabric.
      const double compute = c.step.seconds();
      r.prof.step_s = compute + r.comm_alone;
      r.prof.compute = compute / r.prof.step_s;
      r.prof.communication = r.comm_alone / r.prof.step_s;
      r.prof.bubble = 0;
      r.prof.waiting = 0;
    }
    const double work = r.req.duration > JobTime::zero() ? r.req.duration.seconds()
                                                         : static_cast<double>(r.req.iterations) * r.prof.step_s;
    r.work_left = work;
    r.until_ckpt = r.interval > 0 ? r.interval : 1e300;
    const double ckpts = r.interval > 0 ? std::floor((work - 1e-9) / r.interval) : 0;
    r.out.alone_s = spec_.scheduler.startup.seconds() + work + ckpts * r.ckpt_alone;
  }

  void release(Run& r) {
    for (uint32_t h : r.hosts) set_free(h, free_on_host_[h] + r.used_per_host);
    r.hosts.clear();
  }

  void start(int j) {
    Run& r = runs_[static_cast<size_t>(j)];
    r.state = JobState::kRunning;
    r.last = now_;
    if (r.out.start_s < 0) {
      r.out.start_s = to_s(now_);
      r.out.queue_s = r.out.start_s - r.out.arrival_s;
    }
    const bool restart = r.out.preemptions > 0;
    transition(j, [&](Run& x) {
      x.phase = Phase::kStartup;
      x.startup_bucket = restart ? kPreempt : kStartup;
      x.left = (restart ? spec_.scheduler.restart : spec_.scheduler.startup).seconds();
      x.s = 1;
    });
    arm_failure(j);
  }

  void arm_failure(int j) {
    Run& r = runs_[static_cast<size_t>(j)];
    ++r.failure_version;
    if (spec_.failures.per_gpu_day <= 0) return;
    core::Rng& rng = failure_rng(j);
    const double wait = rng.exponential(r.alloc * spec_.failures.per_gpu_day / 86400.0);
    push(now_ + std::max<Ns>(1, to_ns(std::min(wait, to_s(span_) + 1))), 2, j, r.failure_version);
  }

  core::Rng& failure_rng(int j) {
    auto it = failure_rngs_.find(j);
    if (it == failure_rngs_.end())
      it = failure_rngs_.emplace(j, core::RngStreams(spec_.seed).stream("fleet.failures", static_cast<uint64_t>(j))).first;
    return it->second;
  }

  // The work since the last checkpoint is lost; training resumes from it.
  void lose_work(Run& r, Bucket cause) {
    r.work_left += r.since_ckpt;
    r.redo += r.since_ckpt;
    r.redo_cause = cause;
    r.since_ckpt = 0;
    r.until_ckpt = r.interval > 0 ? r.interval : 1e300;
  }

  void fail(int j) {
    Run& r = runs_[static_cast<size_t>(j)];
    if (r.state != JobState::kRunning) return;
    ++r.out.failures;
    transition(j, [&](Run& x) {
      lose_work(x, kFailure);
      x.phase = Phase::kRecovery;
      x.left = spec_.failures.recovery.seconds();
      x.s = 1;
    });
    arm_failure(j);
  }

  void preempt(int j) {
    Run& r = runs_[static_cast<size_t>(j)];
    ++r.out.preemptions;
    transition(j, [&](Run& x) {
      lose_work(x, kPreempt);
      x.phase = Phase::kNone;
    });
    ++r.version;
    ++r.failure_version;
    r.state = JobState::kQueued;
    release(r);
    queue_.push_back(j);
  }

  void next_training_phase(Run& x) {
    if (x.work_left <= 1e-6) {
      x.phase = Phase::kNone;  // nothing left to train: done
      return;
    }
    x.phase = Phase::kTrain;
    x.left = std::min(x.work_left, x.until_ckpt);
  }

  void phase_end(int j) {
    Run& r = runs_[static_cast<size_t>(j)];
    bool done = false;
    transition(j, [&](Run& x) {
      x.s = 1;
      switch (x.phase) {
        case Phase::kStartup:
        case Phase::kRecovery:
          next_training_phase(x);
          break;
        case Phase::kCheckpoint:
          ++x.out.checkpoints;
          x.since_ckpt = 0;
          x.until_ckpt = x.interval;
          next_training_phase(x);
          break;
        case Phase::kTrain:
          if (x.work_left <= 1e-6) {
            x.work_left = 0;
            x.phase = Phase::kNone;
            done = true;
          } else if (x.until_ckpt <= 1e-6 && x.interval > 0) {
            x.phase = Phase::kCheckpoint;
            x.left = x.ckpt_alone;
          } else {
            next_training_phase(x);
          }
          break;
        case Phase::kNone: break;
      }
      if (!done && x.phase == Phase::kNone) done = true;
    });
    if (done) {
      r.state = JobState::kFinished;
      ++r.version;
      ++r.failure_version;
      r.out.end_s = to_s(now_);
      release(r);
      schedule();
    }
  }

  // When a running job should end at its current pace (backfilling's
  // guess): the work left after what it has done since it was last
  // settled, at its current slowdown; a phase that is not training first
  // runs out its time.
  double estimated_end(const Run& r) const {
    const double since = to_s(now_ - r.last);
    const double s = std::max(1.0, r.s);
    if (r.phase == Phase::kTrain) return to_s(now_) + std::max(0.0, r.work_left - since / s) * s;
    return to_s(now_) + std::max(0.0, r.left * s - since) + r.work_left * s;
  }

  void try_queue_order() {
    if (spec_.scheduler.policy == Policy::kPriority)
      std::stable_sort(queue_.begin(), queue_.end(), [&](int a, int b) {
        const Run &x = runs_[static_cast<size_t>(a)], &y = runs_[static_cast<size_t>(b)];
        if (x.req.priority != y.req.priority) return x.req.priority > y.req.priority;
        return a < b;
      });
    else
      std::sort(queue_.begin(), queue_.end());
  }

  bool try_start(int j) {
    if (!place(runs_[static_cast<size_t>(j)])) return false;
    queue_.erase(std::find(queue_.begin(), queue_.end(), j));
    start(j);
    return true;
  }

  // Lower-priority jobs to preempt so that j fits, latest started first; empty when none suffice.
  std::vector<int> victims(int j) {
    const Run& r = runs_[static_cast<size_t>(j)];
    std::vector<int> cands;
    for (size_t k = 0; k < runs_.size(); ++k)
      if (runs_[k].state == JobState::kRunning && runs_[k].req.priority < r.req.priority)
        cands.push_back(static_cast<int>(k));
    std::sort(cands.begin(), cands.end(), [&](int a, int b) {
      const Run &x = runs_[static_cast<size_t>(a)], &y = runs_[static_cast<size_t>(b)];
      if (x.req.priority != y.req.priority) return x.req.priority < y.req.priority;
      if (x.out.start_s != y.out.start_s) return x.out.start_s > y.out.start_s;
      return a > b;
    });
    std::vector<int> out;
    int free_hosts = by_free_[gph_], free = free_gpus_;
    for (int k : cands) {
      if (r.alloc >= gph_ ? free_hosts * gph_ >= r.alloc : free >= r.alloc) break;
      const Run& v = runs_[static_cast<size_t>(k)];
      out.push_back(k);
      free += v.alloc;
      if (v.alloc >= gph_) free_hosts += static_cast<int>(v.hosts.size());
    }
    if (r.alloc >= gph_ ? free_hosts * gph_ >= r.alloc : free >= r.alloc) return out;
    return {};
  }

  void schedule() {
    if (in_schedule_) return;
    in_schedule_ = true;
    try_queue_order();
    const Policy p = spec_.scheduler.policy;
    std::vector<int> order = queue_;
    if (p == Policy::kFifo) {
      for (int j : order)
        if (!try_start(j)) break;
    } else if (p == Policy::kGang) {
      for (int j : order)
        if (free_gpus_ > 0) try_start(j);
    } else if (p == Policy::kPriority) {
      for (int j : order) {
        if (try_start(j)) continue;
        if (!spec_.scheduler.preemption) continue;
        const std::vector<int> v = victims(j);
        if (v.empty()) continue;
        for (int k : v) preempt(k);
        try_start(j);
      }
    } else {  // EASY backfilling: the first waiting job holds a reservation
      size_t i = 0;
      while (i < order.size() && try_start(order[i])) ++i;
      if (i < order.size()) {
        const Run& head = runs_[static_cast<size_t>(order[i])];
        std::vector<std::pair<double, int>> ends;
        for (size_t k = 0; k < runs_.size(); ++k)
          if (runs_[k].state == JobState::kRunning) ends.push_back({estimated_end(runs_[k]), runs_[k].alloc});
        std::sort(ends.begin(), ends.end());
        int avail = free_gpus_;
        double shadow = 1e300;
        for (const auto& [end, gpus] : ends) {
          avail += gpus;
          if (avail >= head.alloc) {
            shadow = end;
            break;
          }
        }
        int extra = avail - head.alloc;
        for (size_t k = i + 1; k < order.size(); ++k) {
          Run& c = runs_[static_cast<size_t>(order[k])];
          const double est = to_s(now_) + spec_.scheduler.startup.seconds() +
                             (c.placed_once ? c.work_left : c.req.duration.seconds());
          const bool before = est <= shadow;
          if (!before && c.alloc > extra) continue;
          if (try_start(order[k]) && !before) extra -= c.alloc;
        }
      }
    }
    in_schedule_ = false;
  }

  FleetResult finish(StreamResult stream) {
    FleetResult res;
    res.gpus = static_cast<int>(t_.num_gpus());
    res.hosts = static_cast<int>(hosts_);
    res.span_s = to_s(span_);
    res.bin_s = to_s(bin_ns_);
    res.policy = to_string(spec_.scheduler.policy);
    res.dollars_per_gpu_hour = spec_.dollars_per_gpu_hour;
    double gpu_s[kBuckets] = {};
    gpu_s[kIdle] = cluster_[kIdle];
    gpu_s[kQueuedIdle] = cluster_[kQueuedIdle];
    double queue_sum = 0, slow_sum = 0;
    int queued_count = 0;
    for (size_t j = 0; j < runs_.size(); ++j) {
      Run& r = runs_[j];
      settle(r);
      close_span(r);
      JobOutcome& o = r.out;
      o.job_class = r.cls->name;
      o.gpus = r.req.gpus;
      o.gpus_allocated = r.alloc;
      o.hosts = r.alloc >= gph_ ? r.alloc / gph_ : 1;
      o.priority = r.req.priority;
      o.state = r.state;
      if (r.state == JobState::kQueued && o.start_s < 0) o.queue_s = res.span_s - o.arrival_s;
      for (int b = kStartup; b < kBuckets; ++b) {
        o.run_s += r.buckets[b];
        gpu_s[b] += r.buckets[b] * r.alloc;
      }
      o.contention_s = r.buckets[kContention];
      if (r.state == JobState::kFinished) {
        o.jct_s = o.end_s - o.arrival_s;
        o.slowdown = o.alone_s > 0 ? o.run_s / o.alone_s : 1;
        ++res.finished;
        slow_sum += o.slowdown;
        res.worst_slowdown = std::max(res.worst_slowdown, o.slowdown);
        if (o.contention_s > 0.01 * o.alone_s) ++res.jobs_slowed;
      } else if (r.state == JobState::kRunning) {
        ++res.running;
      } else {
        ++res.queued;
      }
      if (o.start_s >= 0 || r.state == JobState::kQueued) queue_sum += o.queue_s, ++queued_count;
      for (int k : r.shared) o.shared_with.push_back(runs_[static_cast<size_t>(k)].out.id);
      res.jobs.push_back(o);
    }
    res.mean_queue_s = queued_count ? queue_sum / queued_count : 0;
    res.mean_slowdown = res.finished ? slow_sum / res.finished : 1;
    double total = 0;
    for (int b = 0; b < kBuckets; ++b) {
      res.causes.push_back({kBucketNames[b], gpu_s[b] / 3600, gpu_s[b] / 3600 * spec_.dollars_per_gpu_hour});
      total += gpu_s[b];
    }
    const double capacity = static_cast<double>(res.gpus) * res.span_s;
    res.gpu_utilization = capacity > 0 ? 1 - (gpu_s[kIdle] + gpu_s[kQueuedIdle]) / capacity : 0;
    res.productive_share = capacity > 0 ? gpu_s[kProductive] / capacity : 0;
    (void)total;
    for (int b = 0; b < bins_; ++b) {
      const double len = b == bins_ - 1 ? res.span_s - res.bin_s * (bins_ - 1) : res.bin_s;
      res.utilization_series.push_back(len > 0 ? util_[b] / (len * res.gpus) : 0);
      res.productive_series.push_back(len > 0 ? prod_[b] / (len * res.gpus) : 0);
    }
    // Flush the links still shared at the end, then keep the most contended.
    for (topo::LinkId l = 0; l < links_.size(); ++l)
      if (links_[l].occ.size() >= 2) touch_link(l);
    std::vector<std::pair<double, topo::LinkId>> peaks;
    for (const auto& [l, series] : heat_) {
      double peak = 0;
      for (int b = 0; b < bins_; ++b) {
        const double len = b == bins_ - 1 ? res.span_s - res.bin_s * (bins_ - 1) : res.bin_s;
        peak = std::max(peak, len > 0 ? series[b] / len : 0);
      }
      peaks.push_back({-peak, l});
    }
    std::sort(peaks.begin(), peaks.end());
    for (size_t i = 0; i < peaks.size() && i < 16; ++i) {
      HeatRow row;
      row.link = t_.link_label(peaks[i].second);
      row.jobs = links_[peaks[i].second].most;
      const auto& series = heat_[static_cast<size_t>(links_[peaks[i].second].heat)].second;
      for (int b = 0; b < bins_; ++b) {
        const double len = b == bins_ - 1 ? res.span_s - res.bin_s * (bins_ - 1) : res.bin_s;
        row.load.push_back(len > 0 ? series[b] / len : 0);
      }
      res.heat.push_back(std::move(row));
    }
    res.events = events_handled_;
    res.evaluations = evaluations_;
    res.iterations_run = iterations_run_;
    res.iterations_cached = iterations_cached_;
    res.stream = std::move(stream);
    res.stream.jobs.clear();
    res.profiles = profile_lines_;
    return res;
  }

  const FleetSpec& spec_;
  const topo::Topology& t_;
  double tdp_;
  const ProfileFn& profile_;
  const IterationFn& iteration_;
  uint32_t hosts_ = 0;
  int gph_ = 0;
  std::vector<int> free_on_host_, by_free_;
  int free_gpus_ = 0;
  Ns now_ = 0, span_ = 0, bin_ns_ = 1;
  int bins_ = 1;
  std::vector<double> util_, prod_;
  std::vector<Run> runs_;
  std::vector<LinkState> links_;
  std::vector<std::pair<topo::LinkId, std::vector<double>>> heat_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  uint64_t seq_ = 0;
  std::vector<int> queue_;
  bool in_schedule_ = false;
  double cluster_[kBuckets] = {};
  std::vector<CappedGroup> capped_;
  uint64_t mark_ = 0;
  std::vector<uint64_t> marks_;   // per job: the transition that last settled it
  std::vector<double> bandwidth_;  // per link, bit/s
  std::map<std::pair<int, int>, StepProfile> profiles_;
  std::vector<std::string> profile_lines_;
  std::map<int, core::Rng> failure_rngs_;
  int64_t events_handled_ = 0, evaluations_ = 0, iterations_run_ = 0, iterations_cached_ = 0;
  // What a re-simulated iteration depends on: the class, the job's hosts
  // (its GPUs in rank order) and the share each cut link keeps.
  struct IterationKey {
    int job_class = 0, gpus_per_host = 0;
    std::vector<uint32_t> hosts;
    std::vector<std::pair<topo::LinkId, double>> kept;
    auto operator<=>(const IterationKey&) const = default;
  };
  std::map<IterationKey, double> iterations_;
};

}  // namespace

const char* to_string(JobState s) {
  switch (s) {
    case JobState::kQueued: return "queued";
    case JobState::kRunning: return "running";
    case JobState::kFinished: return "finished";
    case JobState::kNotArrived: return "not arrived";
  }
  return "?";
}

FleetResult simulate_fleet(const FleetSpec& spec, const topo::Topology& t, double gpu_tdp_w, const ProfileFn& profile,
                           const IterationFn& iteration) {
  Fleet fleet(spec, t, gpu_tdp_w, profile, iteration);
  return fleet.run(job_stream(spec));
}

}  // namespace anatomy::fleet
