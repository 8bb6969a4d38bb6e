#pragma once
// Replay: a recorded training step (TraceGraph) run again on the engine,
// its collectives through coll on any network backend.
//
// Each rank has one compute stream: a compute node starts when every node
// it depends on has finished and the stream is free (ready nodes in
// recorded order). A collective is issued when its dependencies are done;
// it starts when every rank of its group has issued it and the group's
// previous collective has finished (a communicator runs its collectives in
// order), and it takes what `coll` gives for that operation, size and
// group on the topology (the fastest algorithm and protocol, as NCCL's
// "auto" picks; each collective timed on the network alone and memoized, so
// two collectives at once do not contend). A send and its receive start
// when both are issued. Compute takes its measured duration, or on another
// accelerator that duration times target / source compute-model time of
// the work recorded inside it (its GEMM and memory-bound shapes); work with
// no recorded shape is scaled as memory-bound; host time between
// operators is kept as measured.
//
// Per rank the step is split into the iteration's buckets, adding up to
// the step time exactly: compute by phase (forward, backward, optimizer);
// idle time while one of the rank's own collectives or sends is in flight
// is exposed communication of that kind (DP, TP, EP, PP); other idle time
// (peers not there yet, or done before the slowest rank) is waiting; a
// node recorded as idle (anatomy's own exported bubble) is bubble.
//
// With more ranks than the trace (ranks = k x the trace's), rank r replays
// trace rank r mod n: collectives of every rank span all of them, other
// groups and peers are repeated in each replica (data parallelism scaled out).
//
//   ReplayInputs in{&graph, &topology};
//   in.library = coll::nccl_library(system); ...
//   ReplayResult r = replay_trace(in);
//   r.result.iteration;  // the step time

#include <string>
#include <vector>

#include "coll/algorithm.h"
#include "coll/collective.h"
#include "hw/compute_model.h"
#include "topo/topology.h"
#include "workload/iteration.h"
#include "workload/trace/trace_graph.h"

namespace anatomy::workload::trace {

struct ReplayInputs {
  const TraceGraph* trace = nullptr;
  const topo::Topology* topology = nullptr;  // at least `ranks` GPUs; rank r on GPU r
  int ranks = 0;                             // 0: the trace's own
  // The hardware the trace was recorded on and the one it replays on; both
  // null (or the same accelerator): measured durations as they are.
  const hw::ComputeModel* source = nullptr;
  const hw::ComputeModel* target = nullptr;
  coll::LibraryModel library;
  coll::NetworkFactory make_network;
  coll::NetworkFactory choose_network;  // where "auto" picks algorithms; empty: on make_network
  const coll::AlgorithmRegistry* algorithms = nullptr;
  bool recorded_comm = false;  // collectives take their recorded durations instead of coll's
};

struct ReplayResult {
  IterationResult result;  // stages: one per rank, stage_gpus the ranks' GPUs
  SimTime host_time;       // mean per rank of the host time between operators (in compute)
  double compute_scale = 1;  // target / source compute time over the whole trace (1: as measured)
  int64_t collectives = 0;   // per rank, rank 0
  std::vector<std::string> notes;  // the assumptions the replay made
};

// Throws InputError for a topology with too few GPUs or a rank count that
// is not a multiple of the trace's.
ReplayResult replay_trace(const ReplayInputs& in);

}  // namespace anatomy::workload::trace
