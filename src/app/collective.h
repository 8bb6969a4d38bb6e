#pragma once
// Use cases: time collectives. A collective case (a scenario with a
// `collective:` section, as validation/ has) on its whole cluster, and an
// nccl-tests-style sweep of one collective over message sizes on a built
// topology (`anatomy collective`).

#include <functional>
#include <string>
#include <vector>

#include "coll/collective.h"
#include "coll/library_model.h"
#include "net/network_spec.h"
#include "scenario/scenario.h"
#include "topo/topology.h"

namespace anatomy::app {

struct CollectiveCaseRun {
  coll::CollectiveResult result;
  std::string topology;
};
CollectiveCaseRun run_collective_case(const scenario::Scenario& s);

struct CollectiveSweep {
  coll::Op op = coll::Op::kAllReduce;
  std::vector<core::Bytes> sizes;
  std::string algorithm = "auto";                     // a registered algorithm or "auto" (fastest, as NCCL picks)
  coll::Protocol protocol = coll::Protocol::kSimple;  // with an explicit algorithm
  std::string fidelity = "auto";                      // step, bulk or auto (step up to 4,096 GPUs)
  int channels = 0;                                   // 0: as NCCL would
  int chunks = 0;                                     // 0: from the protocol's chunk size
  int min_ctas = 0, max_ctas = 0;                     // NCCL_MIN_CTAS / NCCL_MAX_CTAS; 0: NCCL's own
  net::NetworkSpec network;                           // flow, or packet with its settings
};

struct CollectiveSweepRun {
  std::vector<coll::CollectiveResult> rows;  // one per size, in order
  int gpus = 0;
  std::string topology;
  std::string library;
  coll::Fidelity fidelity = coll::Fidelity::kStep;
};

// Sizes from `lo` to `hi`, each `factor` times the last (nccl-tests -b -e -f).
// Throws InputError naming `lo_field` / `hi_field` / `factor_field`.
std::vector<core::Bytes> sweep_sizes(core::Bytes lo, core::Bytes hi, int factor, const std::string& lo_field,
                                     const std::string& hi_field, const std::string& factor_field);

// Called after each size with the sweep so far (its last row is the new
// one), so a front end can write rows as they finish.
using OnRow = std::function<void(const CollectiveSweepRun& so_far)>;

// Checks every input before the first size runs.
CollectiveSweepRun run_collective_sweep(const topo::Topology& t, const coll::LibraryModel& library,
                                        const CollectiveSweep& sweep, const OnRow& on_row = {});

}  // namespace anatomy::app
