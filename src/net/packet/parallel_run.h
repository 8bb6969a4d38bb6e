#pragma once
// run_partitioned: transfers known in advance (an htsim connection matrix,
// a permutation) on the packet network, with the network split into parts
// (partition.h) that run on several threads.
//
// Each part is a PacketNetwork with its own event queue, packet pool,
// transport and counters; all read one topology and one path cache. Time
// advances in windows one lookahead long: every part runs its events
// before the window's end, then the packets and pause frames that crossed
// to another part are handed over (in part order, then in the order they
// were sent), and the next window starts at the earliest pending event of
// any part. A part never sees another's events out of order, so the run is
// exact, and since nothing depends on which thread ran which part, every
// thread count gives byte-identical results for the same partition count.
// (A different partition count is another valid run: events at the same
// picosecond may run in another order.)
//
// What it does not do: transfers started by completions (a collective's
// next step) need the single event queue of PacketNetwork; so does a
// switch-scheduled fabric, whose requests and grants cross parts without
// a link, and a send completion (complete_on_send), which the receiver's
// part would have to time with the sender's resends in view: those are
// refused. One thing differs from one queue beyond the order of
// same-picosecond events: a receiver's part cannot know when the sender is
// done, so it answers late copies of data that one queue would drop as
// stale (a few acknowledgements more, on the way back).
//
// A part keeps a flow's sender when it has the node the flow's first
// modelled link leaves (its NIC), its receiver when it has the node the
// last one reaches; a GPU and its NIC may be in different parts. The
// other parts keep only its paths, for the packets they forward.
//
//   std::vector<TimedTransfer> xs = {{SimTime::zero(), t.gpu_node(0), t.gpu_node(9), Bytes(2'000'000)}};
//   PartitionedResult r = run_partitioned(t, config, xs, {.partitions = 8, .threads = 2});
//   r.finished_ps[0];   // when transfer 0 completed

#include <cstdint>
#include <vector>

#include "net/network.h"
#include "net/packet/config.h"
#include "net/packet/packet_network.h"

namespace anatomy::net::packet {

struct TimedTransfer {
  SimTime start;
  NodeId src = topo::kNoNode, dst = topo::kNoNode;
  Bytes bytes;
};

struct PartitionedOptions {
  int partitions = 8;         // parts of the network (at most the hosts); fixes the results
  int threads = 0;            // 0: one per core; at most `partitions`; never changes the results
  TransferOptions transfer;   // for every transfer (e.g. complete_on_ack)
  bool prefetch_hints = true; // engine::Simulator::set_prefetch_hints, where parts average 64 hosts or more
};

struct PartitionedResult {
  std::vector<int64_t> finished_ps;  // per transfer, when it completed; -1 if it never did
  uint64_t events = 0;        // over all parts
  uint64_t windows = 0;       // synchronizations
  uint64_t crossings = 0;     // packets and pause frames handed from one part to another
  PacketStats stats;          // summed over the parts; peak_packets sums each part's peak
  int partitions = 1, threads = 1;
  SimTime lookahead;          // the window length
  size_t cut_links = 0;       // links between parts
  uint64_t flow_records = 0;  // over all parts: a flow's record in its sender's and its receiver's part
  double wall_s = 0;          // the run alone (the parts built before)
};

// Throws InputError for a partition count out of range, parts joined by a
// link without latency, a switch-scheduled fabric or complete_on_send on
// more than one part.
PartitionedResult run_partitioned(const topo::Topology& t, const PacketConfig& config,
                                  const std::vector<TimedTransfer>& transfers, const PartitionedOptions& options);

}  // namespace anatomy::net::packet
