#pragma once
// TraceGraph: a training step as it was recorded, one dependency graph per
// rank, whatever format it came from (Chakra ET, PyTorch profiler plus
// execution trace).
//
// A node is compute (measured duration, and where known the shape of the
// work inside it, so another accelerator's compute model can rescale it), a
// collective (operation, bytes in nccl-tests' size convention, the process
// group it runs on), a point-to-point send or receive (peer, bytes, tag),
// or a memory load/store (bytes, timed on the host link). Edges are data
// and control dependencies; a node runs once every node it depends on has
// finished. Times are integer picoseconds (core::SimTime).
//
//   TraceGraph g = read_trace_dir("tests/data/traces/gpt-gloo-2");
//   check_trace(g);  // ranks agree on every collective
//   g.ranks[0].nodes.size();

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "coll/ops.h"
#include "core/time.h"
#include "core/units.h"
#include "hw/precision.h"

namespace anatomy::workload::trace {

using core::Bytes;
using core::SimTime;

enum class NodeKind { kCompute, kCollective, kSend, kRecv, kMemLoad, kMemStore };
// Which bucket of the breakdown a compute node's time lands in.
enum class Phase { kForward, kBackward, kOptimizer };
// What the communication is for: the breakdown's exposed-communication
// buckets (DP gradients, TP activations, CP's K/V and exchanges, EP tokens,
// PP activations).
enum class CommKind { kDp, kTp, kCp, kEp, kPp };

const char* to_string(NodeKind k);
const char* to_string(Phase p);
const char* to_string(CommKind k);

// One kernel-shaped piece of a compute node: what the compute model can
// time on any accelerator. A node's shapes are the operators recorded inside
// it (the GEMMs of a linear layer's backward, its element-wise ops).
struct WorkShape {
  enum class Kind { kGemm, kMemoryBound } kind = Kind::kMemoryBound;
  int64_t m = 0, n = 0, k = 0, batch = 1;  // GEMM C[m,n] = A[m,k] B[k,n], `batch` times
  hw::Precision dtype = hw::Precision::kFp32;
  Bytes bytes;  // memory-bound: bytes read plus written
};

struct Node {
  uint64_t id = 0;
  std::string name;
  NodeKind kind = NodeKind::kCompute;
  Phase phase = Phase::kForward;
  SimTime duration;               // measured (compute; communication as recorded, for --comm recorded)
  std::vector<WorkShape> shapes;  // compute: the work inside, where known
  bool host = false;              // compute on the host between operators (kept as measured on any accelerator)
  // Time the rank stood idle in the run it came from (anatomy's own
  // iteration exported: its pipeline bubble and waiting); replays as bubble.
  bool idle = false;
  // Communication.
  coll::Op op = coll::Op::kAllReduce;
  Bytes bytes;
  std::string group;  // process group name ("" = every rank)
  CommKind comm = CommKind::kDp;
  int peer = -1;  // send: destination rank; recv: source rank
  int64_t tag = 0;
  std::vector<uint64_t> deps;  // data and control dependencies together (ids on this rank)
  int64_t record = -1;         // where it was read: record (event or message) of its rank's file; -1: none
};

struct RankTrace {
  int rank = 0;
  std::string file;  // what it was read from, for errors
  std::vector<Node> nodes;  // in recorded order (the order a stream issued them)
};

struct TraceGraph {
  std::string source;  // the folder or file
  std::string format;  // "chakra", "pytorch (torch 1.13 execution graph + profiler)", ...
  std::vector<RankTrace> ranks;  // by rank, 0..n-1
  // Process groups by name: their ranks, in group order. A collective whose
  // group is not listed runs over every rank.
  std::map<std::string, std::vector<int>> groups;
  std::vector<std::string> notes;  // assumptions made while reading (printed with the result)

  int size() const { return static_cast<int>(ranks.size()); }
  // The ranks of a group ("" or unknown: all).
  std::vector<int> group_ranks(const std::string& group) const;
};

// Throws InputError ("file: record N: field: message") when ranks disagree
// on a collective: the k-th collective of a group must have the same
// operation and size on every member, and every member must have it; a send
// needs its receive. Also checks that dependencies name nodes that exist
// and form no cycle.
void check_trace(const TraceGraph& g);

// Throws InputError naming the file and the record: "FILE: record N: field:
// message" (record < 0: no record, the field alone).
[[noreturn]] void record_error(const std::string& file, int64_t record, const std::string& field,
                               const std::string& msg);

}  // namespace anatomy::workload::trace
