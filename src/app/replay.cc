#include "app/replay.h"

#include <fmt/format.h>

#include <filesystem>

#include "app/setup.h"
#include "core/error.h"
#include "workload/trace/trace_dir.h"

namespace anatomy::app {

ReplayRun run_replay(const ReplayRequest& q) {
  ReplayRun run;
  run.trace = workload::trace::read_trace_dir(q.trace_dir);
  std::string from = q.from;
  if (from.empty()) {
    const std::filesystem::path beside = std::filesystem::path(q.trace_dir) / "machine.yaml";
    std::error_code ec;
    if (std::filesystem::exists(beside, ec)) from = beside.string();
  }
  if (q.on.empty() && from.empty())
    throw core::InputError({"", 0, "--on"}, fmt::format("no machine to replay on: give --on scenario.yaml (or put the "
                                                        "recorded machine's machine.yaml in {})", q.trace_dir));
  std::optional<scenario::Scenario> source;
  if (!from.empty()) source = scenario::load_scenario(from, q.on.empty() ? q.overrides : std::vector<scenario::Override>{});
  run.target = q.on.empty() ? *source : scenario::load_scenario(q.on, q.overrides);
  run.target_label = q.on.empty() ? fmt::format("the recorded machine ({})", from) : q.on;
  run.source_machine = from;
  const std::unique_ptr<Setup> target = make_setup(run.target);
  std::unique_ptr<Setup> recorded;
  if (source && !q.on.empty()) recorded = make_setup(*source);
  run.topology = target->description();

  const int trace_ranks = run.trace.size();
  const int gpus = static_cast<int>(target->topology.num_gpus());
  run.ranks = q.ranks > 0 ? q.ranks : (gpus >= trace_ranks && gpus % trace_ranks == 0 ? gpus : trace_ranks);
  if (run.ranks % trace_ranks != 0)
    throw core::InputError({"", 0, "--ranks"}, fmt::format("{} is not a multiple of the trace's {} ranks", run.ranks, trace_ranks));
  if (run.ranks > gpus)
    throw core::InputError({run.target.file, 0, "cluster.gpus"},
                           fmt::format("{} GPUs; the replay needs {} (one per rank)", gpus, run.ranks));
  // Each machine at the pace of the slowest of the ranks it runs: the
  // recorded job's, the replay's.
  pace_for_gpus(run.target, *target, run.ranks);
  if (recorded) pace_for_gpus(*source, *recorded, trace_ranks);

  workload::trace::ReplayInputs in;
  in.trace = &run.trace;
  in.topology = &target->topology;
  in.ranks = run.ranks;
  in.library = target->inputs.library;
  in.make_network = target->inputs.make_network;
  in.choose_network = target->inputs.choose_network;
  in.algorithms = &target->registry;
  in.recorded_comm = q.recorded_comm;
  const hw::Accelerator& to = run.target.cluster.system.gpu;
  if (recorded) {
    in.source = &*recorded->compute;
    in.target = &*target->compute;
  } else if (!q.on.empty()) {
    throw core::InputError({"", 0, "--from"},
                           fmt::format("replaying on {} needs the machine the trace was recorded on, to rescale its "
                                       "compute: give --from machine.yaml (or put it in {})", to.name, q.trace_dir));
  }
  run.replay = workload::trace::replay_trace(in);
  run.assumptions = run.trace.notes;
  if (in.source && in.source->accelerator().name != to.name)
    run.assumptions.push_back(fmt::format(
        "compute rescaled from {} to {}: each operator's measured time x the ratio of the two compute models' times "
        "for the GEMM and memory-bound shapes recorded inside it (overall x{:.4g})",
        in.source->accelerator().name, to.name, run.replay.compute_scale));
  else
    run.assumptions.push_back(
        "compute as measured (the same accelerator; the recorded ranks' own spread of GPU rates, not re-paced for "
        "another rank count)");
  if (run.ranks > trace_ranks)
    run.assumptions.push_back(fmt::format("{} ranks: each of the trace's {} ranks replayed {} times (data parallelism scaled out; "
                                          "collectives over every rank span all {})",
                                          run.ranks, trace_ranks, run.ranks / trace_ranks, run.ranks));
  run.assumptions.push_back(q.recorded_comm ? "communication takes its recorded durations"
                                            : "collectives re-timed by coll on the target's fabric, each alone on the network");
  return run;
}

}  // namespace anatomy::app
