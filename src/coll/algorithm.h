#pragma once
// Algorithms: each turns a request into a Schedule (schedule.h). They emit
// sends; they never touch the network, so a schedule can be tested alone.
//
// The registry describes itself (`anatomy list` prints it); cli/ registers
// the built-in algorithms with register_builtin_algorithms().
//
//   AlgorithmRegistry reg;
//   register_builtin_algorithms(reg);
//   Schedule s = reg.find("ring").build(group, request, nccl_library(sys));

#include <string>
#include <string_view>
#include <vector>

#include "coll/group.h"
#include "coll/library_model.h"
#include "coll/ops.h"
#include "coll/schedule.h"

namespace anatomy::coll {

struct Request {
  Op op = Op::kAllReduce;
  Bytes bytes;  // nccl-tests' size convention (ops.h)
  Protocol protocol = Protocol::kSimple;
  Fidelity fidelity = Fidelity::kStep;
  int channels = 0;  // 0 = as NCCL would: one per NIC of a host across hosts, else 1
  int chunks = 0;    // pipeline chunks per channel; 0 = from the protocol's chunk size
  uint32_t root = 0;  // broadcast / reduce
  // The collective has a flow network to itself (anatomy collective,
  // validate): an all-to-all is then answered from its busiest link at any
  // size (link_load.h), which is the flow model's own time there, instead
  // of running its n(n - 1) flows. Elsewhere (an iteration, whose
  // collectives share the network; the packet model) they run.
  bool alone_on_flow_network = false;
};

struct Algorithm {
  std::string name;
  std::string description;
  std::vector<Op> ops;  // operations it implements
  std::vector<Protocol> protocols;
  // Whether it can run on this group (e.g. NVLS needs in-switch reduction).
  bool (*applicable)(const Group&, Op) = nullptr;
  Schedule (*build)(const Group&, const Request&, const LibraryModel&) = nullptr;
  bool in_auto = true;  // a candidate when the user asks for "auto" (NCCL's own algorithms)

  bool supports(Op op) const;
};

// An Algorithm::applicable for algorithms that run on any group (ring, tree).
bool any_group(const Group&, Op);

class AlgorithmRegistry {
 public:
  void add(Algorithm a);
  // Throws InputError listing the known names.
  const Algorithm& find(std::string_view name) const;
  const std::vector<Algorithm>& all() const { return algorithms_; }

 private:
  std::vector<Algorithm> algorithms_;
};

void register_builtin_algorithms(AlgorithmRegistry& reg);

// Per-algorithm builders (one file each).
Algorithm ring_algorithm();
Algorithm tree_algorithm();
Algorithm nvls_algorithm();
Algorithm hierarchical_algorithm();
Algorithm direct_algorithm();

}  // namespace anatomy::coll
