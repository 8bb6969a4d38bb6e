#include "workload/trace/trace_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <tuple>
#include <unordered_map>

#include "core/error.h"

namespace anatomy::workload::trace {

const char* to_string(NodeKind k) {
  switch (k) {
    case NodeKind::kCompute: return "compute";
    case NodeKind::kCollective: return "collective";
    case NodeKind::kSend: return "send";
    case NodeKind::kRecv: return "recv";
    case NodeKind::kMemLoad: return "memory load";
    case NodeKind::kMemStore: return "memory store";
  }
  return "?";
}

const char* to_string(Phase p) {
  switch (p) {
    case Phase::kForward: return "forward";
    case Phase::kBackward: return "backward";
    case Phase::kOptimizer: return "optimizer";
  }
  return "?";
}

const char* to_string(CommKind k) {
  switch (k) {
    case CommKind::kDp: return "DP";
    case CommKind::kTp: return "TP";
    case CommKind::kCp: return "CP";
    case CommKind::kEp: return "EP";
    case CommKind::kPp: return "PP";
  }
  return "?";
}

std::vector<int> TraceGraph::group_ranks(const std::string& group) const {
  auto it = groups.find(group);
  if (!group.empty() && it != groups.end()) return it->second;
  std::vector<int> all(ranks.size());
  std::iota(all.begin(), all.end(), 0);
  return all;
}

namespace {

// `index` is the node's place in the rank's list; the error names the
// record of the file it was read from, where known.
[[noreturn]] void fail(const RankTrace& r, size_t index, const std::string& field, const std::string& message) {
  const int64_t record = index < r.nodes.size() && r.nodes[index].record >= 0 ? r.nodes[index].record
                                                                              : static_cast<int64_t>(index);
  throw core::InputError({r.file, 0, fmt::format("record {}: {}", record, field)}, message);
}

// Dependencies name nodes of this rank and form no cycle (Kahn's algorithm
// over the recorded order).
void check_edges(const RankTrace& r) {
  std::unordered_map<uint64_t, size_t> index;
  for (size_t i = 0; i < r.nodes.size(); ++i)
    if (!index.emplace(r.nodes[i].id, i).second) fail(r, i, "id", fmt::format("node id {} appears twice", r.nodes[i].id));
  std::vector<int> indegree(r.nodes.size(), 0);
  std::vector<std::vector<size_t>> users(r.nodes.size());
  for (size_t i = 0; i < r.nodes.size(); ++i)
    for (uint64_t d : r.nodes[i].deps) {
      auto it = index.find(d);
      if (it == index.end()) fail(r, i, "deps", fmt::format("node {} depends on node {}, which is not in the trace", r.nodes[i].id, d));
      ++indegree[i];
      users[it->second].push_back(i);
    }
  std::vector<size_t> ready;
  for (size_t i = 0; i < r.nodes.size(); ++i)
    if (indegree[i] == 0) ready.push_back(i);
  size_t seen = 0;
  while (!ready.empty()) {
    const size_t i = ready.back();
    ready.pop_back();
    ++seen;
    for (size_t u : users[i])
      if (--indegree[u] == 0) ready.push_back(u);
  }
  if (seen != r.nodes.size()) {
    for (size_t i = 0; i < r.nodes.size(); ++i)
      if (indegree[i] > 0) fail(r, i, "deps", fmt::format("node {} is part of a dependency cycle", r.nodes[i].id));
  }
}

struct Issued {
  size_t record;
  const Node* node;
};

}  // namespace

void check_trace(const TraceGraph& g) {
  if (g.ranks.empty()) throw core::InputError({g.source, 0, ""}, "no ranks in the trace");
  for (const RankTrace& r : g.ranks) check_edges(r);
  // The k-th collective of each group, rank by rank, in recorded order.
  std::map<std::string, std::vector<std::vector<Issued>>> by_group;  // group -> rank -> issued
  std::map<std::tuple<int, int, int64_t>, std::vector<Issued>> sends, recvs;  // (src, dst, tag)
  // A rank's recorded time, summed, stays under 10 days: the replay's
  // clock is int64 picoseconds (106 days), and no step is that long.
  constexpr int64_t kMaxRankTime_ps = int64_t{10} * 86400 * 1000'000'000'000;
  for (const RankTrace& r : g.ranks) {
    int64_t total_ps = 0;
    for (size_t i = 0; i < r.nodes.size(); ++i) {
      const Node& n = r.nodes[i];
      if (n.duration < SimTime()) fail(r, i, "duration", "must not be negative");
      total_ps += std::min(n.duration.count_ps(), kMaxRankTime_ps + 1);
      if (total_ps > kMaxRankTime_ps)
        fail(r, i, "duration", "the rank's recorded durations add up to more than 10 days by this node: not one training step");
      if (n.kind == NodeKind::kCollective) {
        if (n.bytes.count() < 0) fail(r, i, "comm_size", "must not be negative");
        const std::vector<int> members = g.group_ranks(n.group);
        if (std::find(members.begin(), members.end(), r.rank) == members.end())
          fail(r, i, "pg_name", fmt::format("rank {} runs a collective of group '{}', which does not hold it", r.rank, n.group));
        auto& per_rank = by_group[n.group];
        per_rank.resize(g.ranks.size());
        per_rank[r.rank].push_back({i, &n});
      } else if (n.kind == NodeKind::kSend || n.kind == NodeKind::kRecv) {
        if (n.peer < 0 || n.peer >= g.size() || n.peer == r.rank)
          fail(r, i, n.kind == NodeKind::kSend ? "comm_dst" : "comm_src",
               fmt::format("peer rank {} is not another rank of this {}-rank trace", n.peer, g.size()));
        if (n.kind == NodeKind::kSend) sends[{r.rank, n.peer, n.tag}].push_back({i, &n});
        else recvs[{n.peer, r.rank, n.tag}].push_back({i, &n});
      }
    }
  }
  for (const auto& [group, per_rank] : by_group) {
    const std::vector<int> members = g.group_ranks(group);
    const int first = members.front();
    const auto& ref = per_rank[first];
    for (int m : members) {
      const auto& mine = per_rank[m];
      const RankTrace& r = g.ranks[m];
      const std::string name = group.empty() ? "every rank" : "group '" + group + "'";
      for (size_t k = 0; k < std::max(mine.size(), ref.size()); ++k) {
        if (k >= mine.size())
          fail(g.ranks[first], ref[k].record, "comm_type",
               fmt::format("collective {} of {} ({} {}) has no match on rank {}, which records only {}", k, name,
                           coll::to_string(ref[k].node->op), ref[k].node->bytes.count(), m, mine.size()));
        if (k >= ref.size())
          fail(r, mine[k].record, "comm_type",
               fmt::format("collective {} of {} has no match on rank {}, which records only {}", k, name, first, ref.size()));
        const Node& a = *ref[k].node;
        const Node& b = *mine[k].node;
        if (a.op != b.op)
          fail(r, mine[k].record, "comm_type",
               fmt::format("collective {} of {} is {} here but {} on rank {}", k, name, coll::to_string(b.op),
                           coll::to_string(a.op), first));
        if (a.bytes != b.bytes)
          fail(r, mine[k].record, "comm_size",
               fmt::format("collective {} of {} ({}) moves {} bytes here but {} on rank {}", k, name,
                           coll::to_string(b.op), b.bytes.count(), a.bytes.count(), first));
      }
    }
  }
  for (const auto& [key, s] : sends) {
    auto it = recvs.find(key);
    const size_t matched = it == recvs.end() ? 0 : it->second.size();
    if (matched < s.size())
      fail(g.ranks[std::get<0>(key)], s[matched].record, "comm_dst",
           fmt::format("send to rank {} (tag {}) has no matching receive there", std::get<1>(key), std::get<2>(key)));
  }
  for (const auto& [key, r] : recvs) {
    auto it = sends.find(key);
    const size_t matched = it == sends.end() ? 0 : it->second.size();
    if (matched < r.size())
      fail(g.ranks[std::get<1>(key)], r[matched].record, "comm_src",
           fmt::format("receive from rank {} (tag {}) has no matching send there", std::get<0>(key), std::get<2>(key)));
  }
}

void record_error(const std::string& file, int64_t record, const std::string& field, const std::string& msg) {
  throw core::InputError({file, 0, record >= 0 ? fmt::format("record {}: {}", record, field) : field}, msg);
}

}  // namespace anatomy::workload::trace
