#include "workload/trace/trace_dir.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "core/error.h"
#include "workload/trace/chakra.h"
#include "workload/trace/pytorch_reader.h"

namespace anatomy::workload::trace {
namespace {

namespace fs = std::filesystem;

// The rank a file's name gives: the number after "rank" (et_rank3.json),
// else the last number before the extension (trace.3.et).
std::optional<int> rank_of(const std::string& name) {
  std::smatch m;
  static const std::regex after_rank(R"(rank[_-]?(\d+))", std::regex::icase);
  static const std::regex last_number(R"((\d+)\.[A-Za-z]+$)");
  if (std::regex_search(name, m, after_rank)) return std::stoi(m[1]);
  if (std::regex_search(name, m, last_number)) return std::stoi(m[1]);
  return std::nullopt;
}

// An execution trace (its "nodes" come early) or a profiler trace.
bool looks_like_execution_trace(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::string head(4096, '\0');
  f.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(f.gcount()));
  return head.find("\"nodes\"") != std::string::npos && head.find("\"traceEvents\"") == std::string::npos;
}

}  // namespace

TraceGraph read_trace_dir(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw core::InputError({dir, 0, ""}, "not a folder of traces");
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file()) entries.push_back(e.path());
  std::sort(entries.begin(), entries.end());
  std::map<int, std::string> chakra;
  std::map<int, PytorchRankFiles> pytorch;
  for (const fs::path& p : entries) {
    const std::string name = p.filename().string();
    const std::string ext = p.extension().string();
    if (ext != ".et" && ext != ".json") continue;
    const std::optional<int> rank = rank_of(name);
    if (!rank) continue;
    if (ext == ".et") {
      if (!chakra.emplace(*rank, p.string()).second)
        throw core::InputError({p.string(), 0, ""}, fmt::format("a second Chakra file for rank {} (the first: {})", *rank, chakra[*rank]));
      continue;
    }
    PytorchRankFiles& f = pytorch[*rank];
    f.rank = *rank;
    (looks_like_execution_trace(p) ? f.execution_trace : f.profiler) = p.string();
  }
  if (!chakra.empty() && !pytorch.empty())
    throw core::InputError({dir, 0, ""}, "holds both Chakra (.et) and PyTorch (.json) traces: keep one kind per folder");
  if (chakra.empty() && pytorch.empty())
    throw core::InputError({dir, 0, ""}, "no traces: expected Chakra files <name>.<rank>.et, or PyTorch profiler and "
                                         "execution-trace JSON files with the rank in their names (kineto_rank0.json, et_rank0.json)");
  TraceGraph g;
  const auto check_ranks = [&](const auto& by_rank) {
    int expect = 0;
    for (const auto& [rank, unused] : by_rank) {
      if (rank != expect) throw core::InputError({dir, 0, ""}, fmt::format("no trace for rank {} (ranks must run 0..n-1)", expect));
      ++expect;
    }
  };
  if (!chakra.empty()) {
    check_ranks(chakra);
    std::vector<std::string> files;
    for (const auto& [rank, f] : chakra) files.push_back(f);
    g = read_chakra(files, dir);
  } else {
    check_ranks(pytorch);
    std::vector<PytorchRankFiles> files;
    for (const auto& [rank, f] : pytorch) {
      if (f.profiler.empty())
        throw core::InputError({f.execution_trace, 0, ""}, fmt::format("rank {} has an execution trace but no profiler trace (its durations)", rank));
      files.push_back(f);
    }
    g = read_pytorch_traces(files, dir);
  }
  check_trace(g);
  return g;
}

TraceGraph graph_of_iteration(const IterationResult& r, const std::string& name) {
  TraceGraph g;
  g.source = name;
  g.format = "anatomy iteration";
  for (size_t s = 0; s < r.timeline.size(); ++s) {
    RankTrace rank;
    rank.rank = static_cast<int>(s);
    rank.file = fmt::format("{} rank {}", name, s);
    uint64_t id = 0;
    for (const Interval& iv : r.timeline[s]) {
      Node n;
      n.id = ++id;
      if (id > 1) n.deps.push_back(id - 1);
      n.duration = iv.end - iv.start;
      n.name = to_string(iv.kind);
      switch (iv.kind) {
        case IntervalKind::kForward: n.phase = Phase::kForward; break;
        case IntervalKind::kBackward: n.phase = Phase::kBackward; break;
        case IntervalKind::kOptimizer: n.phase = Phase::kOptimizer; break;
        case IntervalKind::kTpComm:
        case IntervalKind::kCpComm:
        case IntervalKind::kEpComm:
        case IntervalKind::kDpComm:
        case IntervalKind::kPpComm:
          n.kind = NodeKind::kCollective;
          n.op = iv.kind == IntervalKind::kEpComm ? coll::Op::kAllToAll : coll::Op::kAllReduce;
          n.comm = iv.kind == IntervalKind::kTpComm   ? CommKind::kTp
                   : iv.kind == IntervalKind::kCpComm ? CommKind::kCp
                   : iv.kind == IntervalKind::kEpComm ? CommKind::kEp
                   : iv.kind == IntervalKind::kDpComm ? CommKind::kDp
                                                      : CommKind::kPp;
          n.group = fmt::format("stage{}", s);  // each representative on its own: the time as recorded
          g.groups[n.group] = {static_cast<int>(s)};
          break;
        case IntervalKind::kBubble:
        case IntervalKind::kWaiting:
          n.idle = true;
          n.name = iv.kind == IntervalKind::kBubble ? "idle: pipeline bubble" : "idle: waiting on others";
          break;
      }
      if (n.duration > SimTime()) rank.nodes.push_back(std::move(n));
    }
    // Renumber after dropping empty intervals so each depends on the one before.
    for (size_t i = 0; i < rank.nodes.size(); ++i) {
      rank.nodes[i].id = i + 1;
      rank.nodes[i].deps.clear();
      if (i > 0) rank.nodes[i].deps.push_back(i);
    }
    g.ranks.push_back(std::move(rank));
  }
  return g;
}

}  // namespace anatomy::workload::trace
