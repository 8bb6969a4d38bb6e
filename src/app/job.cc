#include "app/job.h"

#include <memory>

#include <fmt/format.h>

#include "app/network_factory.h"
#include "app/setup.h"
#include "core/error.h"

namespace anatomy::app {

JobRun run_job(const scenario::Scenario& s, int link_samples) {
  const std::unique_ptr<Setup> setup = make_setup(s);
  const topo::Topology& topology = setup->topology;
  JobRun run;
  run.topology = setup->description();
  job::JobInputs in;
  in.spec = *s.job;
  in.iteration = setup->inputs;
  in.steady_link_samples = link_samples;
  in.bulk_network = bulk_network_factory(s.network);
  const int gpus = s.parallelism.gpus();
  const int per_host = s.cluster.system.gpus_per_host;
  in.gpus_per_host = per_host;
  in.units.gpus = gpus;
  in.units.hosts = (gpus + per_host - 1) / per_host;
  in.units.nics = in.units.hosts * s.cluster.system.nics_per_host;
  int64_t switches = 0;
  for (topo::NodeId n = 0; n < topology.num_nodes(); ++n)
    if (topology.kind(n) == topo::NodeKind::kSwitch) ++switches;
  in.units.switches = switches;
  try {
    run.result = job::run_job(in);
    return run;
  } catch (const core::InputError& e) {
    throw scenario::locate_in_scenario(s, e);
  }
}

std::vector<JobRun> run_job_seeds(const scenario::Scenario& s, int seeds, int link_samples, const OnStep& on_step) {
  if (!s.job) throw core::InputError({"", 0, "--seeds"}, "needs a scenario with a job: section (one iteration draws nothing)");
  if (seeds < 1 || seeds > kMaxSeeds)
    throw core::InputError({"", 0, "--seeds"}, fmt::format("must be 1 to {}, not {}", kMaxSeeds, seeds));
  std::vector<JobRun> runs;
  for (int i = 0; i < seeds; ++i) {
    scenario::Scenario one = s;
    one.seed = s.seed + static_cast<uint64_t>(i);
    one.job->seed = one.seed;
    if (one.placement) one.placement->seed = one.seed;
    runs.push_back(run_job(one, link_samples));
    if (on_step) on_step(runs.back().result.wall, seeds);
  }
  return runs;
}

}  // namespace anatomy::app
