#include "app/edge.h"

#include <numeric>
#include <optional>

#include "app/data_dir.h"
#include "app/network_factory.h"
#include "app/setup.h"
#include "coll/algorithm.h"
#include "coll/collective.h"
#include "coll/group.h"
#include "core/error.h"
#include "hw/compute_model.h"
#include "hw/sync_pace.h"
#include "topo/builders.h"

namespace anatomy::app {

EdgeRun run_edge(const scenario::Scenario& s) {
  EdgeRun run;
  try {
    const job::edge::EdgeSpec& spec = *s.edge;
    const topo::Topology topology = topo::build_cluster(s.cluster);
    run.topology = topology.description;
    const hw::ComputeModel compute = compute_model_of(s);
    run.compute = compute.describe();
    try {
      run.model = workload::find_edge_model(spec.model, spec.retrain.seq_len);
    } catch (const core::InputError& e) {
      throw e.with_field("edge.model");
    }
    coll::AlgorithmRegistry registry;
    coll::register_builtin_algorithms(registry);
    const coll::LibraryModel library = coll::nccl_library(s.cluster.system);
    run.library = library.name;
    const coll::CollectiveRunner runner(topology, registry, library, network_factory(s.network),
                                        choice_network_factory(s.network));

    job::edge::EdgeInputs in;
    in.spec = spec;
    in.model = run.model;
    in.compute = &compute;
    in.pace_training = s.gpu_rate_spread;
    in.precision = s.training.precision;
    in.fp8_attention = s.training.fp8_attention;
    in.gpus = s.cluster.gpus;
    in.gpus_per_host = s.cluster.system.gpus_per_host;
    in.hbm_per_gpu = s.cluster.system.gpu.hbm_capacity;
    // The training ranks are the accelerators after the serving ones (all
    // of them when serving shares them).
    const int first = spec.serving.shared ? 0 : spec.serving.nodes;
    // A collective over the first `ranks` of them.
    const auto on_training = [&](coll::Op op) {
      return [&, op](core::Bytes bytes, int ranks) {
        std::vector<uint32_t> gpus(ranks);
        std::iota(gpus.begin(), gpus.end(), static_cast<uint32_t>(first));
        coll::Request r;
        r.op = op;
        r.bytes = bytes;
        return runner.run(coll::make_group(topology, gpus), r, "auto").time;
      };
    };
    in.allreduce = on_training(coll::Op::kAllReduce);
    in.all_to_all = on_training(coll::Op::kAllToAll);
    run.result = job::edge::run_edge_site(in);
    if (s.gpu_rate_spread) {
      const std::string pace = hw::synchronous_pace_text(s.cluster.system.gpu, run.result.training_gpus);
      if (!pace.empty()) run.compute += "; retraining: " + pace;
    }
  } catch (const core::InputError& e) {
    throw scenario::locate_in_scenario(s, e);
  }
  return run;
}

}  // namespace anatomy::app
