#include "app/collective.h"

#include <fmt/format.h>

#include "app/network_factory.h"
#include "core/error.h"
#include "topo/builders.h"

namespace anatomy::app {

CollectiveCaseRun run_collective_case(const scenario::Scenario& s) {
  try {
    const topo::Topology t = topo::build_cluster(s.cluster);
    coll::AlgorithmRegistry reg;
    coll::register_builtin_algorithms(reg);
    coll::LibraryModel lib = coll::nccl_library(s.cluster.system);
    lib.fabric_reduction = s.cluster.fabric.in_network_reduction;
    lib = coll::with_ctas(lib, s.collective->min_ctas, s.collective->max_ctas);
    coll::CollectiveRunner runner(t, reg, lib, network_factory(s.network), choice_network_factory(s.network));
    coll::Request r;
    r.op = s.collective->op;
    r.bytes = s.collective->bytes;
    r.alone_on_flow_network = s.network.model == net::NetworkModel::kFlow;
    return {runner.run(coll::whole_topology(t), r, s.collective->algorithm), t.description};
  } catch (const core::InputError& e) {
    throw scenario::locate_in_scenario(s, e);
  }
}

std::vector<core::Bytes> sweep_sizes(core::Bytes lo, core::Bytes hi, int factor, const std::string& lo_field,
                                     const std::string& hi_field, const std::string& factor_field) {
  if (lo.count() <= 0) throw core::InputError({"", 0, lo_field}, "must be greater than zero");
  if (hi < lo) throw core::InputError({"", 0, hi_field}, "must not be smaller than " + lo_field);
  if (factor < 2) throw core::InputError({"", 0, factor_field}, "must be at least 2");
  std::vector<core::Bytes> out;
  for (int64_t s = lo.count(); s <= hi.count(); s *= factor) {
    out.push_back(core::Bytes(s));
    if (s > hi.count() / factor) break;
  }
  return out;
}

CollectiveSweepRun run_collective_sweep(const topo::Topology& t, const coll::LibraryModel& library,
                                        const CollectiveSweep& sweep, const OnRow& on_row) {
  if (sweep.channels < 0 || sweep.channels > coll::kMaxChannels)
    throw core::InputError({"", 0, "--channels"}, fmt::format("must be 0 (auto) to {}", coll::kMaxChannels));
  if (sweep.chunks < 0) throw core::InputError({"", 0, "--chunks"}, "must not be negative");
  // NCCL takes 1 to MAXCHANNELS (64) CTAs, the least no more than the most.
  if (sweep.min_ctas < 0 || sweep.min_ctas > coll::kMaxChannels)
    throw core::InputError({"", 0, "--min-ctas"}, fmt::format("must be 0 (NCCL's own) to {}", coll::kMaxChannels));
  if (sweep.max_ctas < 0 || sweep.max_ctas > coll::kMaxChannels)
    throw core::InputError({"", 0, "--max-ctas"}, fmt::format("must be 0 (NCCL's own) to {}", coll::kMaxChannels));
  if (const std::string crossed = coll::crossed_ctas(sweep.min_ctas, sweep.max_ctas, "--max-ctas"); !crossed.empty())
    throw core::InputError({"", 0, "--min-ctas"}, crossed);
  const NetworkFactory factory = network_factory(sweep.network);
  coll::AlgorithmRegistry registry;
  coll::register_builtin_algorithms(registry);
  if (sweep.algorithm != "auto") registry.find(sweep.algorithm);  // fail before running anything
  const coll::Group group = coll::whole_topology(t);
  CollectiveSweepRun run;
  run.gpus = group.size();
  run.topology = t.description;
  run.library = library.name;
  // The limits are the run's inputs too: say them where the library is named.
  if (const std::string ctas = coll::ctas_text(sweep.min_ctas, sweep.max_ctas); !ctas.empty())
    run.library += fmt::format(" ({} CTAs)", ctas);
  // Step by step while the schedule stays small; bulk for large groups.
  run.fidelity = sweep.fidelity == "auto" ? (group.size() <= 4096 ? coll::Fidelity::kStep : coll::Fidelity::kBulk)
                                          : coll::parse_fidelity(sweep.fidelity, "--fidelity");
  const coll::CollectiveRunner runner(t, registry, coll::with_ctas(library, sweep.min_ctas, sweep.max_ctas), factory,
                                      choice_network_factory(sweep.network));
  for (core::Bytes s : sweep.sizes) {
    coll::Request r;
    r.op = sweep.op;
    r.bytes = s;
    r.protocol = sweep.protocol;
    r.fidelity = run.fidelity;
    r.channels = sweep.channels;
    r.chunks = sweep.chunks;
    r.alone_on_flow_network = sweep.network.model == net::NetworkModel::kFlow;
    run.rows.push_back(runner.run(group, r, sweep.algorithm));
    if (on_row) on_row(run);
  }
  return run;
}

}  // namespace anatomy::app
