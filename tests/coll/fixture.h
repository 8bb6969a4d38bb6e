#pragma once
// Shared by the collective tests: a topology with its algorithms and
// library model, running one collective on the flow network.

#include <memory>
#include <string>

#include "coll/collective.h"
#include "hw/catalog.h"
#include "net/flow/flow_network.h"
#include "topo/builders.h"
#include "topo/topology.h"

namespace anatomy::coll::testing {

// `gpus` GPUs of a catalogued system on its default fabric.
inline topo::ClusterSpec cluster_spec(const char* system, int gpus) {
  topo::ClusterSpec s;
  s.system = hw::find_system(system);
  s.gpus = gpus;
  return s;
}

inline std::unique_ptr<net::Network> flow(engine::Simulator& sim, const topo::Topology& t) {
  return std::make_unique<net::FlowNetwork>(sim, t);
}

struct Fixture {
  topo::Topology topo;
  AlgorithmRegistry reg;
  LibraryModel lib;
  explicit Fixture(topo::Topology t, LibraryModel l) : topo(std::move(t)), lib(std::move(l)) {
    register_builtin_algorithms(reg);
  }
  CollectiveResult run(Op op, Bytes s, const std::string& algo, Fidelity f = Fidelity::kStep,
                       Protocol p = Protocol::kSimple, int chunks = 0) {
    CollectiveRunner runner(topo, reg, lib, flow);
    Request r;
    r.op = op;
    r.bytes = s;
    r.fidelity = f;
    r.protocol = p;
    r.chunks = chunks;
    return runner.run(whole_topology(topo), r, algo);
  }
};

}  // namespace anatomy::coll::testing
