#include "workload/trace/replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <queue>
#include <set>
#include <unordered_map>

#include "coll/group.h"
#include "core/error.h"
#include "engine/simulator.h"

namespace anatomy::workload::trace {
namespace {

// One rank's nodes with their dependency counts and users, by index.
struct RankGraph {
  const RankTrace* trace = nullptr;
  std::vector<std::vector<size_t>> users;
  std::vector<int> waiting_on;
};

RankGraph index_rank(const RankTrace& r) {
  RankGraph g;
  g.trace = &r;
  std::unordered_map<uint64_t, size_t> at;
  for (size_t i = 0; i < r.nodes.size(); ++i) at.emplace(r.nodes[i].id, i);
  g.users.resize(r.nodes.size());
  g.waiting_on.assign(r.nodes.size(), 0);
  for (size_t i = 0; i < r.nodes.size(); ++i)
    for (uint64_t d : r.nodes[i].deps) {
      g.users[at.at(d)].push_back(i);
      ++g.waiting_on[i];
    }
  return g;
}

// Compute-model time of the work recorded inside a node.
SimTime model_time(const hw::ComputeModel& cm, const std::vector<WorkShape>& shapes) {
  SimTime t;
  for (const WorkShape& s : shapes) {
    if (s.kind == WorkShape::Kind::kGemm)
      t += cm.gemm(s.m, s.n, s.k, s.dtype) * s.batch;
    else
      t += cm.memory_bound(s.bytes);
  }
  return t;
}

struct CommKey {
  coll::Op op;
  int64_t bytes;
  std::vector<uint32_t> gpus;
  bool operator<(const CommKey& o) const {
    return std::tie(op, bytes, gpus) < std::tie(o.op, o.bytes, o.gpus);
  }
};

class ReplaySim {
 public:
  explicit ReplaySim(const ReplayInputs& in)
      : in_(in), trace_(*in.trace), n_(in.ranks > 0 ? in.ranks : in.trace->size()),
        runner_(*in.topology, *in.algorithms, in.library, in.make_network, in.choose_network) {
    if (n_ % trace_.size() != 0)
      throw core::InputError({"", 0, "ranks"}, fmt::format("{} ranks is not a multiple of the trace's {}", n_, trace_.size()));
    if (static_cast<int64_t>(in.topology->num_gpus()) < n_)
      throw core::InputError({"", 0, "cluster.gpus"},
                             fmt::format("the cluster has {} GPUs; the trace replays on {} ranks", in.topology->num_gpus(), n_));
    scaled_ = in.target && in.source && &in.target->accelerator() != &in.source->accelerator() &&
              in.target->accelerator().name != in.source->accelerator().name;
    for (const RankTrace& r : trace_.ranks) graphs_.push_back(index_rank(r));
    ranks_.resize(n_);
    for (int r = 0; r < n_; ++r) {
      ranks_[r].graph = graphs_[r % trace_.size()];
      ranks_[r].finish.assign(ranks_[r].graph.trace->nodes.size(), SimTime());
    }
  }

  ReplayResult run() {
    for (int r = 0; r < n_; ++r)
      for (size_t i = 0; i < ranks_[r].graph.waiting_on.size(); ++i)
        if (ranks_[r].graph.waiting_on[i] == 0) make_ready(r, i);
    for (int r = 0; r < n_; ++r) pump(r);
    sim_.run();
    for (int r = 0; r < n_; ++r)
      for (size_t i = 0; i < ranks_[r].graph.waiting_on.size(); ++i)
        if (ranks_[r].graph.waiting_on[i] >= 0)
          throw core::InputError({ranks_[r].graph.trace->file, 0, fmt::format("record {}", i)},
                                 fmt::format("node {} ({}) never ran: a collective or send it waits for never started "
                                             "(ranks disagree on the order of their communication)",
                                             ranks_[r].graph.trace->nodes[i].id, ranks_[r].graph.trace->nodes[i].name));
    return result();
  }

 private:
  struct Rank {
    RankGraph graph;
    std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;  // compute, by recorded order
    bool busy = false;
    std::vector<SimTime> finish;
    std::vector<Interval> compute;  // busy intervals, by phase
    std::vector<std::pair<Interval, SimTime>> comm;  // in-flight intervals (kind), and when issued
    SimTime host;
    int64_t collectives = 0;
  };
  // A collective (or a send-receive pair) being gathered: who has issued it.
  struct Pending {
    std::vector<std::pair<int, size_t>> issued;  // (rank, node index)
    size_t expected = 0;
    const Node* node = nullptr;
    std::vector<int> members;
    std::string stream;  // the communicator it runs in order on
  };

  const Node& node(int r, size_t i) const { return ranks_[r].graph.trace->nodes[i]; }

  // Replay rank -> trace rank's groups and peers, shifted to its replica.
  int replica_base(int r) const { return r - r % trace_.size(); }
  std::vector<int> members_of(int r, const Node& n) const {
    std::vector<int> m = trace_.group_ranks(n.group);
    if (static_cast<int>(m.size()) == trace_.size()) {
      m.resize(n_);
      for (int i = 0; i < n_; ++i) m[i] = i;
      return m;
    }
    for (int& x : m) x += replica_base(r);
    return m;
  }

  void make_ready(int r, size_t i) {
    const Node& n = node(r, i);
    switch (n.kind) {
      case NodeKind::kCompute:
      case NodeKind::kMemLoad:
      case NodeKind::kMemStore:
        ranks_[r].ready.push(i);
        break;
      case NodeKind::kCollective: issue_collective(r, i); break;
      case NodeKind::kSend:
      case NodeKind::kRecv: issue_p2p(r, i); break;
    }
  }

  void pump(int r) {
    Rank& k = ranks_[r];
    if (k.busy || k.ready.empty()) return;
    const size_t i = k.ready.top();
    k.ready.pop();
    const Node& n = node(r, i);
    const SimTime d = compute_time(n);
    k.busy = true;
    const IntervalKind kind = n.idle                        ? IntervalKind::kBubble
                              : n.phase == Phase::kForward  ? IntervalKind::kForward
                              : n.phase == Phase::kBackward ? IntervalKind::kBackward
                                                            : IntervalKind::kOptimizer;
    if (d > SimTime()) k.compute.push_back({kind, sim_.now(), sim_.now() + d});
    if (n.host) k.host += d;
    sim_.schedule_in(d, [this, r, i] {
      ranks_[r].busy = false;
      done(r, i);
      pump(r);
    });
  }

  SimTime compute_time(const Node& n) {
    if (!scaled_ || n.host || n.idle) return n.duration;
    const SimTime before = n.shapes.empty() ? in_.source->memory_bound(Bytes::GiB(1)) : model_time(*in_.source, n.shapes);
    const SimTime after = n.shapes.empty() ? in_.target->memory_bound(Bytes::GiB(1)) : model_time(*in_.target, n.shapes);
    if (before <= SimTime()) return n.duration;
    const double ratio = after.seconds() / before.seconds();
    measured_ += n.duration.seconds();
    replayed_ += n.duration.seconds() * ratio;
    return SimTime::from_seconds(n.duration.seconds() * ratio);
  }

  void done(int r, size_t i) {
    Rank& k = ranks_[r];
    k.finish[i] = sim_.now();
    k.graph.waiting_on[i] = -1;
    end_ = std::max(end_, sim_.now());
    for (size_t u : k.graph.users[i])
      if (--k.graph.waiting_on[u] == 0) make_ready(r, u);
  }

  void issue_collective(int r, size_t i) {
    const Node& n = node(r, i);
    std::vector<int> members = members_of(r, n);
    const std::string stream = fmt::format("{}@{}", n.group, members.front());
    const int64_t seq = issued_[{stream, r}]++;
    Pending& p = pending_[{stream, seq}];
    p.expected = members.size();
    p.node = &n;
    p.members = std::move(members);
    p.stream = stream;
    p.issued.push_back({r, i});
    ++ranks_[r].collectives;
    issue_time_[{r, i}] = sim_.now();
    if (p.issued.size() == p.expected) queue_on_stream(stream, seq);
  }

  void issue_p2p(int r, size_t i) {
    const Node& n = node(r, i);
    const int peer = replica_base(r) + n.peer;
    const int src = n.kind == NodeKind::kSend ? r : peer, dst = n.kind == NodeKind::kSend ? peer : r;
    const std::string stream = fmt::format("p2p {}->{} tag {}", src, dst, n.tag);
    const int64_t seq = issued_[{stream, r}]++;
    Pending& p = pending_[{stream, seq}];
    p.expected = 2;
    if (n.kind == NodeKind::kSend || !p.node) p.node = &n;  // the send carries the size
    p.members = {src, dst};
    p.stream = stream;
    p.issued.push_back({r, i});
    issue_time_[{r, i}] = sim_.now();
    if (p.issued.size() == p.expected) queue_on_stream(stream, seq);
  }

  // A communicator runs its collectives one after another.
  void queue_on_stream(const std::string& stream, int64_t seq) {
    complete_[{stream, seq}] = true;
    if (busy_streams_.count(stream) || seq != next_seq_[stream]) return;
    start(stream, seq);
  }

  void start(const std::string& stream, int64_t seq) {
    busy_streams_.insert(stream);
    Pending p = std::move(pending_.at({stream, seq}));
    pending_.erase({stream, seq});
    const SimTime d = comm_time(p);
    const SimTime at = sim_.now();
    for (auto [r, i] : p.issued) {
      const Node& n = node(r, i);
      const IntervalKind kind = n.comm == CommKind::kDp   ? IntervalKind::kDpComm
                                : n.comm == CommKind::kTp ? IntervalKind::kTpComm
                                : n.comm == CommKind::kCp ? IntervalKind::kCpComm
                                : n.comm == CommKind::kEp ? IntervalKind::kEpComm
                                                          : IntervalKind::kPpComm;
      ranks_[r].comm.push_back({{kind, at, at + d}, issue_time_.at({r, i})});
    }
    sim_.schedule_in(d, [this, p = std::move(p), stream, seq] {
      for (auto [r, i] : p.issued) {
        done(r, i);
        pump(r);
      }
      busy_streams_.erase(stream);
      const int64_t next = ++next_seq_[stream];
      if (complete_.count({stream, next})) start(stream, next);
    });
  }

  SimTime comm_time(const Pending& p) {
    const Node& n = *p.node;
    if (in_.recorded_comm) return n.duration;
    if (n.bytes.count() == 0 && p.members.size() < 2) return SimTime();
    CommKey key{n.kind == NodeKind::kCollective ? n.op : coll::Op::kSendRecv, n.bytes.count(), {}};
    for (int m : p.members) key.gpus.push_back(static_cast<uint32_t>(m));
    auto it = memo_.find(key);
    if (it == memo_.end()) {
      if (key.gpus.size() < 2) {
        it = memo_.emplace(key, SimTime()).first;
      } else {
        const coll::Group g = coll::make_group(*in_.topology, key.gpus);
        coll::Request req;
        req.op = key.op;
        req.bytes = n.bytes;
        const coll::CollectiveResult c = runner_.run(g, req, "auto");
        it = memo_.emplace(key, c.time).first;
        if (n.bytes > largest_bytes_) {
          largest_bytes_ = n.bytes;
          largest_algo_ = fmt::format("{}/{} for {} of {} bytes", c.algorithm, c.protocol, coll::to_string(key.op), n.bytes.count());
        }
      }
    }
    return it->second;
  }

  // The rank's timeline: compute intervals, and every idle gap split into
  // exposed communication (one of its own collectives in flight) and waiting.
  TimeBreakdown account(Rank& k, std::vector<Interval>& timeline) const {
    TimeBreakdown b;
    auto add = [&](IntervalKind kind, SimTime s, SimTime e) {
      if (e <= s) return;
      timeline.push_back({kind, s, e});
      b.of(kind) += e - s;
    };
    std::sort(k.comm.begin(), k.comm.end(), [](const auto& a, const auto& c) {
      return std::tie(a.first.start, a.first.end) < std::tie(c.first.start, c.first.end);
    });
    auto idle = [&](SimTime s, SimTime e) {
      SimTime t = s;
      for (const auto& [c, issued] : k.comm) {
        if (c.end <= t || t >= e) continue;
        if (c.start >= e) break;
        add(IntervalKind::kWaiting, t, std::max(t, c.start));
        t = std::max(t, c.start);
        add(c.kind, t, std::min(c.end, e));
        t = std::min(c.end, e);
      }
      add(IntervalKind::kWaiting, t, e);
    };
    SimTime t;
    for (const Interval& c : k.compute) {
      idle(t, c.start);
      add(c.kind, c.start, c.end);
      t = c.end;
    }
    idle(t, end_);
    return b;
  }

  ReplayResult result() {
    ReplayResult out;
    IterationResult& r = out.result;
    r.iteration = end_;
    r.timeline.resize(n_);
    SimTime host;
    for (int i = 0; i < n_; ++i) {
      r.stages.push_back(account(ranks_[i], r.timeline[i]));
      r.stage_gpus.push_back(static_cast<uint32_t>(i));
      host += ranks_[i].host;
    }
    // The mean over ranks, bucket by bucket, its rounding residue in waiting
    // so that it still adds up to the step.
    TimeBreakdown& m = r.mean;
    auto mean = [&](SimTime TimeBreakdown::*f) {
      int64_t sum = 0;
      for (const TimeBreakdown& b : r.stages) sum += (b.*f).count_ps();
      m.*f = SimTime::ps(sum / n_);
    };
    for (auto f : {&TimeBreakdown::forward_compute, &TimeBreakdown::backward_compute, &TimeBreakdown::optimizer,
                   &TimeBreakdown::tp_comm, &TimeBreakdown::cp_comm, &TimeBreakdown::ep_comm, &TimeBreakdown::dp_comm,
                   &TimeBreakdown::pp_comm,
                   &TimeBreakdown::bubble, &TimeBreakdown::waiting})
      mean(f);
    m.waiting += r.iteration - m.total();
    r.library = in_.library.name;
    r.dp_algorithm = largest_algo_.empty() ? (in_.recorded_comm ? "as recorded" : "none") : largest_algo_;
    r.compute_source = !scaled_ ? "measured durations (the trace's own)"
                                : fmt::format("measured durations x ({} / {}) per operator's shape",
                                              in_.target->describe(), in_.source->describe());
    out.host_time = SimTime::ps(host.count_ps() / n_);
    out.compute_scale = scaled_ && measured_ > 0 ? replayed_ / measured_ : 1.0;
    out.collectives = ranks_[0].collectives;
    return out;
  }

  const ReplayInputs& in_;
  const TraceGraph& trace_;
  const int n_;
  coll::CollectiveRunner runner_;
  bool scaled_ = false;
  engine::Simulator sim_;
  std::vector<RankGraph> graphs_;
  std::vector<Rank> ranks_;
  std::map<std::pair<std::string, int>, int64_t> issued_;  // (stream, rank) -> collectives issued so far
  std::map<std::pair<std::string, int64_t>, Pending> pending_;
  std::map<std::pair<std::string, int64_t>, bool> complete_;
  std::map<std::string, int64_t> next_seq_;
  std::set<std::string> busy_streams_;
  std::map<std::pair<int, size_t>, SimTime> issue_time_;
  std::map<CommKey, SimTime> memo_;
  Bytes largest_bytes_;
  std::string largest_algo_;
  double measured_ = 0, replayed_ = 0;
  SimTime end_;
};

}  // namespace

ReplayResult replay_trace(const ReplayInputs& in) {
  ANATOMY_CHECK(in.trace && in.topology && in.algorithms, "replay needs a trace, a topology and algorithms");
  ReplaySim sim(in);
  return sim.run();
}

}  // namespace anatomy::workload::trace
