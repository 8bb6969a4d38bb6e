#pragma once
// FlowNetwork: the fluid (flow-level) backend.
//
// Each transfer is a flow on its routed path. Flows share every link
// max-min fairly (max_min.h); a flow drains its bytes at its current rate
// and its last byte arrives one path latency (the sum of the links'
// propagation and forwarding delays) after it has drained. Rates are
// recomputed when a flow starts or finishes, but only for the flows
// coupled to it through shared links (the connected component of the
// flow-link graph), and only once per simulated instant however many flows
// start or end at that instant. It ignores packets, queues and congestion
// control: it is the "how long, at best" model that scales to whole jobs on
// 100k GPUs. net/packet/ answers "why" at packet level.

#include <vector>

#include "net/flow/max_min.h"
#include "net/network.h"

namespace anatomy::net {

class FlowNetwork final : public Network {
 public:
  struct Options {
    // Rates are recomputed at once when flows start; when flows finish, the
    // recomputation may wait up to this long so that flows finishing close
    // together are solved once (their freed bandwidth goes unused for at
    // most this long). 0: exact. Worth it for many unequal flows drained
    // over one shared fabric (a checkpoint of 16,384 shards), whose
    // completions would otherwise each re-solve the whole fabric.
    SimTime completion_batch;
    // true: a transfer given no flow hash takes its connection's path
    // (connection_hash(src, dst), network.h), as NCCL's queue pairs keep
    // theirs; false: every transfer is hashed anew over the equal-cost
    // paths (ECMP per transfer). The fleet re-simulates a job's iteration
    // this way so that its bytes cross the links its footprint names.
    bool route_by_connection = false;
  };
  FlowNetwork(engine::Simulator& sim, const topo::Topology& topo) : FlowNetwork(sim, topo, Options{}) {}
  FlowNetwork(engine::Simulator& sim, const topo::Topology& topo, Options options);

  TransferId transfer(NodeId src, NodeId dst, Bytes bytes, Callback on_done,
                      const TransferOptions& options = {}) override;
  size_t active_transfers() const override { return in_flight_; }
  const NetworkCounters& counters() const override { return counters_; }
  Bytes link_bytes(LinkId l) const override;
  const topo::Topology& topology() const override { return topo_; }
  engine::Simulator& simulator() override { return sim_; }
  const char* model_name() const override { return "flow"; }

  // Current rate of a draining transfer in bits/s (0 if it is not draining).
  double rate_bps(TransferId id) const;

 private:
  struct Flow {
    TransferId id = 0;
    std::vector<LinkId> path;      // kept across slot reuse, so steady state does not allocate
    std::vector<uint32_t> pos;     // index of this flow in link_flows_[path[h]]
    double remaining_bits = 0;
    double rate = 0;
    SimTime last_update;
    SimTime latency;
    engine::EventHandle drain_event;
    Callback on_done;
    Bytes bytes;
    bool draining = false;
    bool complete_on_send = false;
  };

  uint32_t new_flow();
  void request_solve(SimTime delay = SimTime::zero());
  void solve();
  void settle(Flow& f, SimTime now);
  void unlink(uint32_t fi);
  void finish_drain(uint32_t fi);
  void deliver(uint32_t fi);
  // Emits link_rate for each of `links` whose carried rate changed (only called with a subscriber).
  void emit_link_rates(const std::vector<LinkId>& links);

  engine::Simulator& sim_;
  const topo::Topology& topo_;
  Options options_;
  std::vector<Flow> flows_;
  std::vector<uint32_t> free_flows_;
  std::vector<std::vector<uint32_t>> link_flows_;  // draining flows per link
  std::vector<double> link_bits_;
  std::vector<uint8_t> link_dirty_;
  std::vector<LinkId> dirty_;
  bool solve_pending_ = false;
  SimTime next_solve_;
  size_t in_flight_ = 0;
  TransferId next_id_ = 1;
  NetworkCounters counters_;
  std::vector<double> emitted_rate_;  // per link, what link_rate last said (sized on first use)

  // Solve workspace.
  std::vector<uint32_t> comp_links_, comp_flows_, link_local_;
  std::vector<uint8_t> flow_seen_;
  MaxMinProblem problem_;
  MaxMinSolver solver_;
};

}  // namespace anatomy::net
