#pragma once
// Schedule: a collective as data.
//
// An algorithm (ring, tree, ...) turns a request into a Schedule: a list of
// phases, each a set of sends that start together. A phase may repeat: the
// steps of a ring all look the same to the network (every rank sends one
// chunk to its neighbour), so a 1,024-rank ring is a handful of phases with
// large repeat counts, not two million messages. The executor runs phase
// after phase (bulk-synchronous: a repetition ends when every send in it
// has drained, plus the phase's per-step latency), so a schedule can be
// built, inspected and tested with no network at all.
//
// Latency is charged by the schedule's own model, not by the network's
// per-transfer delivery: in a pipelined ring a chunk's critical path crosses
// every edge in turn and the pipeline hides the latency of all but that
// path, so an all-reduce pays 2(n-1) hop latencies (averaged around the
// ring), not one per chunk, and not the slowest hop each step. Builders put
// these terms in `latency_after` from the topology's link latencies and the
// library's protocol model (library_model.h); the network only decides how
// long the bytes take to drain.
//
// Sends carry wire bytes: payload divided by the protocol's efficiency.

#include <cstdint>
#include <string>
#include <vector>

#include "core/units.h"
#include "topo/topology.h"

namespace anatomy::coll {

using core::Bandwidth;
using core::Bytes;
using core::SimTime;
using topo::NodeId;

struct Send {
  NodeId src = topo::kNoNode;
  NodeId dst = topo::kNoNode;
  Bytes bytes;          // wire bytes
  uint64_t flow_hash = 0;  // 0 = the network's choice
};

struct Phase {
  std::string label;
  std::vector<Send> sends;
  int64_t repeat = 1;
  // A repetition lasts at least this long, however fast its sends drain:
  // a protocol's own throughput limit (NCCL's LL cap, see library_model.h).
  SimTime min_duration;
  // Waited once after the last repetition has drained: the latency terms
  // of the steps this phase stands for (see above).
  SimTime latency_after;
};

struct Schedule {
  std::string algorithm;
  std::string protocol;
  std::vector<Phase> phases;
  SimTime base_latency;  // once per collective (launch and setup)
  int channels = 1;
  int64_t steps = 0;     // algorithm steps modelled (for reports)

  // Total wire bytes over all phases and repetitions.
  Bytes total_bytes() const;
  // Merges sends with the same (src, dst, hash) within each phase.
  void merge_sends();
  // Raises every phase's min_duration so that no rank moves payload faster
  // than `cap` (bus bandwidth): a rank's share of a repetition's wire bytes,
  // times `efficiency` (payload per wire byte), over the cap. Caps compose:
  // the lowest holds.
  void cap_bus_bandwidth(int ranks, double efficiency, Bandwidth cap);
};

}  // namespace anatomy::coll
