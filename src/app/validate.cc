#include "app/validate.h"

#include <algorithm>
#include <filesystem>
#include <mutex>

#include <fmt/format.h>

#include "app/collective.h"
#include "app/edge.h"
#include "app/data_dir.h"
#include "app/iteration.h"
#include "app/job.h"
#include "app/kernel.h"
#include "core/error.h"
#include "core/workers.h"
#include "hw/precision.h"
#include "report/edge_report.h"
#include "report/job_ensemble.h"
#include "scenario/scenario.h"

namespace anatomy::app {
namespace {

// A training iteration's figure as sources publish it; the per-GPU and
// per-sample forms (tokens/s/GPU, MLPerf's samples/s) are the same
// iteration divided by the plan's GPUs or the global batch.
double metric_of(const std::string& metric, const workload::IterationResult& r, const scenario::Scenario& s) {
  if (metric == "tflops_per_gpu") return r.tflops_per_gpu;
  if (metric == "megatron_tflops_per_gpu") return r.megatron_tflops_per_gpu;
  if (metric == "mfu") return r.mfu;
  if (metric == "tokens_per_s") return r.tokens_per_s;
  if (metric == "tokens_per_s_per_gpu") return r.tokens_per_s / s.parallelism.gpus();
  if (metric == "samples_per_s") return static_cast<double>(s.training.global_batch) / r.iteration.seconds();
  if (metric == "iteration_s") return r.iteration.seconds();
  throw core::InputError({"", 0, "expected.metric"},
                         fmt::format("a training iteration measures tflops_per_gpu, megatron_tflops_per_gpu, mfu, "
                                     "tokens_per_s, tokens_per_s_per_gpu, samples_per_s or iteration_s, not {}",
                                     metric));
}

}  // namespace

report::ValidationCase validate_case(const std::string& path, const std::vector<scenario::Override>& overrides) {
  scenario::Scenario s = scenario::load_scenario(path, overrides);
  if (!s.expected) throw core::InputError({path, 0, "expected"}, "a validation case needs an expected: section");
  // A published case is a run that happened, so its plan fit: where the
  // memory model says it does not, that is a finding about the memory model,
  // reported in the note beside the timing, not a reason to drop the timing.
  s.memory_check_is_error = false;
  report::ValidationCase c;
  c.file = path;
  c.case_id = s.expected->case_id;
  c.metric = s.expected->metric;
  c.published = s.expected->value;
  c.source = s.expected->source;
  c.bound = s.expected->bound;
  c.accelerator = s.cluster.system.gpu.name;
  if (!s.expected->series.empty() && (s.job || s.edge || s.kernel || s.collective))
    throw scenario::locate_in_scenario(
        s, core::InputError({"", 0, "expected.series"},
                            "a series groups training iterations of one plan by their micro-batches; a whole job, "
                            "an edge site, a kernel or a collective has none"));
  if (s.job) {
    c.kind = report::CaseKind::kJob;
    if (c.metric != "interruptions" && c.metric != "ettr")
      throw core::InputError({path, 0, "expected.metric"}, "a job case measures interruptions or ettr");
    // A stochastic figure is compared as the mean over the case's seeds.
    std::vector<double> interruptions, ettr;
    core::JobTime interval;
    for (const JobRun& run : run_job_seeds(s, s.expected->seeds)) {
      interruptions.push_back(run.result.interruptions);
      ettr.push_back(run.result.ettr);
      interval = run.result.configured_interval;
    }
    const report::Spread i = report::spread_of(interruptions), e = report::spread_of(ettr);
    c.simulated = c.metric == "interruptions" ? i.mean : e.mean;
    c.note = s.expected->seeds == 1
                 ? fmt::format("{:.0f} interruptions, ETTR {:.1f}%, checkpoint every {}", i.mean, 100 * e.mean,
                               core::format_time(interval))
                 : fmt::format("mean of {} seeds: {:.1f} interruptions (sd {:.1f}, {:.0f} to {:.0f}), ETTR {:.2f}% "
                               "(sd {:.2f}), checkpoint every {}",
                               s.expected->seeds, i.mean, i.stdev, i.min, i.max, 100 * e.mean, 100 * e.stdev,
                               core::format_time(interval));
    c.ran = true;
    return c;
  }
  if (s.edge) {  // fine-tuning throughput of the site's training GPUs
    c.kind = report::CaseKind::kTraining;
    if (c.metric != "samples_per_s")
      throw core::InputError({path, 0, "expected.metric"}, "an edge case measures samples_per_s");
    const EdgeRun run = run_edge(s);
    const job::edge::EdgeResult& r = run.result;
    c.simulated_time = r.step_time;
    c.simulated = static_cast<double>(r.samples_per_step) / r.step_time.seconds();
    c.note = fmt::format("step {:.3f} s on {} GPUs: {} fine-tuning of {}, {}, all-reduce {}{}", r.step_time.seconds(),
                         r.training_gpus, workload::to_string(s.edge->retrain.mode), run.model.name,
                         report::retrain_precision(s), core::format_time(r.allreduce_time),
                         r.cp_all_to_all_time > core::SimTime::zero()
                             ? ", CP all-to-alls " + core::format_time(r.cp_all_to_all_time)
                             : "");
    c.ran = true;
    return c;
  }
  if (s.kernel) {
    c.kind = report::CaseKind::kKernel;
    const KernelCaseRun run = run_kernel_case(s);
    if (c.metric == "tflops" && run.bytes == 0)
      c.simulated = report::kernel_tflops(run);
    else if (c.metric == "GBps" && run.bytes > 0)
      c.simulated = report::kernel_GBps(run);
    else if (c.metric == "time_us")
      c.simulated = run.time.micros();
    else
      throw core::InputError({path, 0, "expected.metric"},
                             "a kernel case measures tflops (a GEMM, attention), GBps (a stream) or time_us");
    c.note = fmt::format("{}: {}", run.what, core::format_time(run.time));
    c.simulated_time = run.time;
    c.ran = true;
    return c;
  }
  if (s.collective) {
    c.kind = report::CaseKind::kCollective;
    const coll::CollectiveResult res = run_collective_case(s).result;
    // nccl-tests prints both bandwidths: algbw is the message over the
    // time, busbw that scaled to what each link carries.
    if (c.metric == "busbw_GBps")
      c.simulated = res.busbw_GBps;
    else if (c.metric == "algbw_GBps")
      c.simulated = res.algbw_GBps;
    else if (c.metric == "time_us")
      c.simulated = res.time.micros();
    else
      throw core::InputError({path, 0, "expected.metric"},
                             "a collective case measures busbw_GBps, algbw_GBps or time_us");
    c.note = res.algorithm + "/" + res.protocol;
    c.simulated_time = res.time;
    c.ran = true;
    return c;
  }
  workload::IterationResult r;
  try {
    r = run_iteration(s).result;
  } catch (const core::InputError& e) {
    // The case is reported as a miss with the model's reason, not dropped.
    c.note = e.what();
    return c;
  }
  c.ran = true;
  c.simulated_time = r.iteration;
  try {
    c.simulated = metric_of(c.metric, r, s);
  } catch (const core::InputError& e) {
    throw scenario::locate_in_scenario(s, e);
  }
  c.series = s.expected->series;
  c.micro_batches = r.micro_batches;
  for (const auto& [bucket, t] : r.mean.buckets()) c.simulated_parts_s.emplace_back(bucket, t.seconds());
  // Every training metric but the step itself is a rate: the published step
  // is the simulated one scaled by how much faster the simulation ran.
  c.published_step_s =
      report::is_time_metric(c.metric) ? c.published : r.iteration.seconds() * c.simulated / c.published;
  c.note = fmt::format("iteration {:.2f} s, MFU {:.1f}% ({:.1f}% causal)", r.iteration.seconds(), 100 * r.mfu,
                       100 * r.mfu_causal);
  if (!r.memory_warning.empty()) c.note += "; memory model: " + r.memory_warning;
  if (!r.placement_note.empty()) c.note += "; placement: " + r.placement_note;
  return c;
}

report::Validation validate_folder(const std::string& dir_arg, const std::vector<scenario::Override>& overrides,
                                   const OnStep& on_case, int threads) {
  report::Validation v;
  v.dir = dir_arg.empty() ? validation_dir("dir") : dir_arg;
  if (!std::filesystem::is_directory(v.dir))
    throw core::InputError({"", 0, "dir"}, fmt::format("'{}' is not a folder", v.dir));
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(v.dir))
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw core::InputError({"", 0, "dir"}, fmt::format("no .yaml cases in '{}'", v.dir));
  // Cases are independent: they run on `threads` workers, each into its own
  // slot, so the table is the same at any thread count, and a bad file is
  // reported as one thread would report it (core::for_each_index).
  v.cases.resize(files.size());
  std::mutex mu;  // on_case, one case at a time
  core::for_each_index(files.size(), threads > 0 ? threads : core::hardware_workers(), [&](size_t i) {
    v.cases[i] = validate_case(files[i], overrides);
    std::lock_guard lock(mu);
    if (on_case) on_case(v.cases[i].simulated_time, static_cast<int64_t>(files.size()));
  });
  return v;
}

report::Validation validate_path(const std::string& path, const std::vector<scenario::Override>& overrides,
                                 const OnStep& on_case, int threads) {
  if (!path.empty() && !std::filesystem::exists(path))
    throw core::InputError({"", 0, "path"}, fmt::format("'{}' is neither a validation case nor a folder of them", path));
  if (path.empty() || !std::filesystem::is_regular_file(path)) return validate_folder(path, overrides, on_case, threads);
  report::Validation v;
  v.dir = std::filesystem::path(path).parent_path().string();
  v.cases.push_back(validate_case(path, overrides));
  if (on_case) on_case(v.cases.back().simulated_time, 1);
  return v;
}

}  // namespace anatomy::app
