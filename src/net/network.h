#pragma once
// Network: the one seam between what moves data (collectives, workloads,
// the job) and how the fabric is modelled. Callers see transfer(), and
// nothing above net/ knows whether a fluid (flow) or a packet model runs
// underneath: a scenario switches `network.model: flow | packet` and
// nothing else changes.
//
// A transfer moves `bytes` from one node to another (GPU, host, storage
// server or a scale-up switch, for in-switch reductions); `on_done` runs at
// the simulated time the last byte has arrived. Transfers between the same
// pair may run concurrently; each is routed on its own flow hash (ECMP).
//
//   net.transfer(topo.gpu_node(0), topo.gpu_node(8), Bytes::MiB(64),
//                [&] { ... }, {.flow_hash = 7});

#include <cstdint>

#include "core/signal.h"
#include "engine/simulator.h"
#include "topo/topology.h"

namespace anatomy::net {

using core::Bandwidth;
using core::Bytes;
using core::SimTime;
using engine::Callback;
using topo::LinkId;
using topo::NodeId;

using TransferId = uint64_t;

// The flow hash of a connection: one per (source, destination) pair, as a
// NIC's queue pair keeps its path for the connection's life. A network
// built to route by connection (FlowNetwork::Options) and the fleet's
// footprints of a job's traffic (fleet/footprint.h) put a pair's bytes on
// the same links.
uint64_t connection_hash(NodeId src, NodeId dst);

// What a transfer is for, as its caller labels it. Backends ignore it; the
// hybrid network (hybrid_network.h) routes by it.
enum class TrafficClass : uint8_t { kUnlabelled, kDataParallel };

struct TransferOptions {
  // Flow hash for ECMP path choice; 0 = derived from (src, dst, transfer id).
  uint64_t flow_hash = 0;
  // Run on_done when the last byte has left the source (a send completion)
  // instead of when it arrives; the caller accounts for the path latency.
  // Collectives use it to charge per-step latency by their own model.
  bool complete_on_send = false;
  // Run on_done when the sender learns that every byte arrived (its last
  // acknowledgement), which is when htsim reports a flow finished; the
  // flow model, which has no acknowledgements, adds the way back's latency.
  // complete_on_send wins over it.
  bool complete_on_ack = false;
  TrafficClass traffic = TrafficClass::kUnlabelled;
};

// What the network has done so far (all backends fill these).
struct NetworkCounters {
  uint64_t transfers_started = 0;
  uint64_t transfers_finished = 0;
  uint64_t rate_solves = 0;     // flow backend: max-min recomputations
  uint64_t solved_flows = 0;    // flow backend: flows touched by those
  Bytes bytes_delivered;
};

// The telemetry a backend emits (core/signal.h), stamped in simulated
// time. A backend tests a signal before building its arguments, so a
// network nobody listens to runs the code it ran before (bench/README.md,
// "signals"). Per-link utilization and queue depth sampled on a timer come
// from net/link_sampler.h over any backend; net/link_recorder.h turns
// link_rate and link_tx into each link's load over any interval.
struct NetworkSignals {
  // Flow model: (t, link, bits/s it carries from t on), when a rate solve
  // (or, with completion batching, a finishing flow) changes that sum.
  core::Signal<SimTime, LinkId, double> link_rate;
  // Packet model: (t, link, payload bytes) when a packet starts on the link's wire.
  core::Signal<SimTime, LinkId, int64_t> link_tx;
  // Packet model: (t, link, data bytes queued at its egress) for each ECN-marked packet.
  core::Signal<SimTime, LinkId, int64_t> ecn_mark;
  // Packet model: (t, link, paused) when a PFC pause (true) or resume
  // (false) reaches the link's sending port.
  core::Signal<SimTime, LinkId, bool> pfc;
  // Packet model: (t, link) for each packet the link's egress dropped (full
  // buffer, PFC headroom overflow, full header queue).
  core::Signal<SimTime, LinkId> drop;
  // Packet model: (t, transfer) for each data packet sent again.
  core::Signal<SimTime, TransferId> retransmit;
};

class Network {
 public:
  Network() = default;
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;
  virtual ~Network() = default;

  virtual TransferId transfer(NodeId src, NodeId dst, Bytes bytes, Callback on_done,
                              const TransferOptions& options = {}) = 0;

  // Transfers in flight (started, not yet delivered).
  virtual size_t active_transfers() const = 0;
  virtual const NetworkCounters& counters() const = 0;
  // Bytes each link has carried up to the current simulated time (index = LinkId).
  virtual Bytes link_bytes(LinkId l) const = 0;
  // Bytes waiting at the link's egress now (0 for a model without queues).
  virtual int64_t queued_bytes(LinkId) const { return 0; }
  // Subscribe before the run; the signals live as long as the network.
  NetworkSignals& signals() { return *signals_; }
  // A backend inside another network (HybridNetwork) emits into that
  // network's signals, so their subscribers hear every backend.
  void emit_into(NetworkSignals& s) { signals_ = &s; }

  virtual const topo::Topology& topology() const = 0;
  virtual engine::Simulator& simulator() = 0;
  virtual const char* model_name() const = 0;

  // One-way latency of the route a transfer with this hash would take.
  SimTime path_latency(NodeId src, NodeId dst, uint64_t flow_hash = 0) const;

 private:
  NetworkSignals own_signals_;

 protected:
  NetworkSignals* signals_ = &own_signals_;
};

}  // namespace anatomy::net
