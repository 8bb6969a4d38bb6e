#pragma once
// Running one collective on a fresh simulation, and choosing the algorithm
// the way NCCL does for "auto": every (algorithm, protocol) pair that NCCL
// itself would consider is run on the model and the fastest wins (NCCL
// picks the minimum of its own time estimate; anatomy's estimate is the
// simulation). With a choice network (the flow model under a packet-level
// run) the candidates run there, as NCCL's tuner consults a cost model, and
// only the winner runs on the real network: the choice costs seconds, not
// one packet-level run per candidate.
//
//   CollectiveRunner run(topology, registry, nccl_library(system), make_flow);
//   CollectiveResult r = run.run(group, request, "auto");
//   r.busbw_GBps;

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "coll/algorithm.h"
#include "coll/executor.h"
#include "net/network.h"

namespace anatomy::coll {

using NetworkFactory = std::function<std::unique_ptr<net::Network>(engine::Simulator&, const topo::Topology&)>;

struct CollectiveResult {
  Op op = Op::kAllReduce;
  Bytes bytes;
  int ranks = 0;
  std::string algorithm;
  std::string protocol;
  SimTime time;
  double algbw_GBps = 0;
  double busbw_GBps = 0;
  int channels = 0;
  int64_t steps = 0;
  bool chosen_elsewhere = false;  // "auto" picked it on the choice network, not on this one
  ExecutionStats stats;
  net::NetworkCounters network;
};

class CollectiveRunner {
 public:
  CollectiveRunner(const topo::Topology& topo, const AlgorithmRegistry& reg, LibraryModel lib,
                   NetworkFactory make_network, NetworkFactory choose_on = {})
      : topo_(topo),
        reg_(reg),
        lib_(std::move(lib)),
        make_network_(std::move(make_network)),
        choose_on_(std::move(choose_on)) {}

  // `algo` is a registry name or "auto". For an explicit algorithm the
  // request's protocol is used; "auto" tries every protocol too.
  CollectiveResult run(const Group& g, const Request& r, const std::string& algo) const;
  // One (algorithm, protocol) as given.
  CollectiveResult run_one(const Group& g, const Request& r, const Algorithm& a) const;
  const LibraryModel& library() const { return lib_; }

 private:
  CollectiveResult run_on(const NetworkFactory& make, const Group& g, const Request& r, const Algorithm& a) const;
  // `s` (built from `r`) simulated on a network of its own.
  CollectiveResult simulate(const NetworkFactory& make, const Group& g, const Request& r, const Schedule& s) const;
  // The fastest (algorithm, protocol) of auto's candidates on `make`: the
  // first in registry order among the fastest, as if each were simulated.
  // Candidates are simulated last algorithm and protocol first (the
  // bandwidth-bound ones NCCL registers last), and one whose schedule's
  // fixed latencies and protocol floors alone exceed the best time found is
  // not simulated: it cannot win.
  CollectiveResult fastest(const NetworkFactory& make, const Group& g, const Request& r) const;


  const topo::Topology& topo_;
  const AlgorithmRegistry& reg_;
  LibraryModel lib_;
  NetworkFactory make_network_;
  NetworkFactory choose_on_;  // empty: choose on make_network_
};

}  // namespace anatomy::coll
