#include "report/iteration_text.h"

#include <iterator>

#include <fmt/format.h>

#include "core/units.h"
#include "report/format.h"
#include "report/scenario_page.h"
#include "report/schema.h"

namespace anatomy::report {
namespace {

}  // namespace

nlohmann::ordered_json breakdown_json(const workload::TimeBreakdown& b) {
  nlohmann::ordered_json j;
  for (auto [name, t] : b.buckets()) {
    std::string key = name;
    for (auto& c : key)
      if (c == ' ') c = '_';
    j[key] = t.seconds();
  }
  return j;
}


nlohmann::ordered_json iteration_json(const scenario::Scenario& s, const workload::IterationResult& r) {
  nlohmann::ordered_json j = schema_header("run.iteration");
  j["scenario"] = s.name;
  j["model"] = s.model.name;
  j["gpus"] = s.parallelism.gpus();
  j["system"] = s.cluster.system.name;
  j["plan"] = plan_text(s.parallelism);
  j["iteration_s"] = r.iteration.seconds();
  j["breakdown_s"] = breakdown_json(r.mean);
  j["tokens_per_s"] = r.tokens_per_s;
  j["tflops_per_gpu"] = r.tflops_per_gpu;
  j["megatron_tflops_per_gpu"] = r.megatron_tflops_per_gpu;
  j["mfu"] = r.mfu;
  j["hfu"] = r.hfu;
  j["mfu_causal_attention"] = r.mfu_causal;
  j["micro_batches"] = r.micro_batches;
  j["memory_per_gpu_GB"] = r.memory.total().as_double() / 1e9;
  if (!r.memory_warning.empty()) j["memory_warning"] = r.memory_warning;
  if (!r.placement_note.empty()) j["placement_note"] = r.placement_note;
  nlohmann::ordered_json stages = nlohmann::json::array();
  for (const auto& b : r.stages) stages.push_back(breakdown_json(b));
  j["stages_breakdown_s"] = stages;
  j["compute_model"] = r.compute_source;
  j["library"] = r.library;
  j["dp_algorithm"] = r.dp_algorithm;
  j["dp_buckets"] = r.dp_buckets;
  j["dp_buckets_simulated"] = r.dp_buckets_simulated;
  j["dp_bucket_bytes"] = r.dp_bucket_bytes;
  if (r.algorithms_chosen_elsewhere) j["algorithms_chosen_on"] = "flow";
  return j;
}

std::string gradient_buckets_text(const workload::IterationResult& r) {
  if (r.dp_buckets <= r.dp_buckets_simulated) return "";
  return fmt::format("{} a chunk at bucket_size {}, simulated as {} (their bytes kept; the latency of the other {} "
                     "collectives not paid)",
                     r.dp_buckets, core::format_bytes(core::Bytes(r.dp_bucket_bytes)), r.dp_buckets_simulated,
                     r.dp_buckets - r.dp_buckets_simulated);
}

std::string iteration_text(const scenario::Scenario& s, const workload::IterationResult& r,
                           const std::string& topology) {
  const auto& t = s.training;
  std::string out;
  const auto to = std::back_inserter(out);
  fmt::format_to(to, "# anatomy run: {}{}\n", s.name.empty() ? s.model.name : s.name,
                 s.file.empty() ? "" : " (" + s.file + ")");
  fmt::format_to(to, "# model: {} ({} parameters), {}{}\n", s.model.name, core::format_count(s.model.params()),
                 s.model.description,
                 s.model.parallel_block ? "; parallel blocks (attention and MLP on one norm's output)" : "");
  fmt::format_to(to, "# cluster: {}\n", topology);
  fmt::format_to(
      to, "# plan: {}; seq {}, global batch {} x micro-batch {} ({} micro-batches per pipeline), {}, recompute {}\n",
      plan_text(s.parallelism), t.seq_len, t.global_batch, t.micro_batch, r.micro_batches,
      std::string(hw::to_string(t.precision)) + (t.master_weights ? "" : " without master weights") +
          (t.bf16_moments ? " with bf16 Adam moments" : "") + workload::kernels_text(t),
      workload::recompute_text(t));
  fmt::format_to(to, "# compute: {}\n", r.compute_source);
  fmt::format_to(to, "# network: {} model; library: {}; gradient collectives: {}{}\n", net::to_string(s.network),
                 r.library, r.dp_algorithm, r.algorithms_chosen_elsewhere ? " (chosen on the flow model)" : "");
  if (const std::string buckets = gradient_buckets_text(r); !buckets.empty())
    fmt::format_to(to, "# gradient buckets: {}\n", buckets);
  fmt::format_to(to,
                 "# memory per GPU: {} of {} (weights {}, gradients {}, optimizer {}, activations {}, workspace {})\n",
                 human_gb(r.memory.total()), human_gb(s.cluster.system.gpu.hbm_capacity), human_gb(r.memory.weights),
                 human_gb(r.memory.gradients), human_gb(r.memory.optimizer), human_gb(r.memory.activations),
                 human_gb(r.memory.workspace));
  if (!r.memory_warning.empty()) fmt::format_to(to, "# WARNING (memory_check: warn): {}\n", r.memory_warning);
  if (!r.placement_note.empty()) fmt::format_to(to, "# placement: {}\n", r.placement_note);
  fmt::format_to(to, "\n");
  fmt::format_to(to, "iteration time    {}\n", human_time(r.iteration));
  fmt::format_to(to, "tokens/s          {:.0f}\n", r.tokens_per_s);
  // Megatron-LM has logged causal attention at half since 2025 (flops.h);
  // its papers' eq. 3 counts the full square and full recomputation, of a
  // model whose every weight trains: no count for LoRA.
  if (t.lora_rank > 0)
    fmt::format_to(to,
                   "TFLOP/s per GPU   {:.1f} (model FLOPs of LoRA: no weight gradients but the adapters'; {:.1f} with "
                   "causal attention at half)\n",
                   r.tflops_per_gpu, r.mfu_causal * r.peak_tflops);
  else
    fmt::format_to(to,
                   "TFLOP/s per GPU   {:.1f} (model FLOPs; {:.1f} with causal attention at half, as Megatron-LM logs "
                   "them; {:.1f} counting recomputation as the Megatron-LM papers do)\n",
                   r.tflops_per_gpu, r.mfu_causal * r.peak_tflops, r.megatron_tflops_per_gpu);
  fmt::format_to(to, "MFU               {:.1f}% of {:.0f} TFLOP/s {} peak ({:.1f}% counting causal attention at half)\n",
                 100 * r.mfu, r.peak_tflops, hw::to_string(t.precision), 100 * r.mfu_causal);
  fmt::format_to(to, "\nwhere each GPU's iteration goes (mean over GPUs):\n");
  for (auto [name, v] : r.mean.buckets())
    fmt::format_to(to, "  {:<20} {:>12}  {:5.1f}%\n", name, human_time(v), 100.0 * v.seconds() / r.iteration.seconds());
  const core::SimTime residue = r.iteration - r.mean.total();
  fmt::format_to(to, "  {:<20} {:>12}  (residue {} ps; per GPU the buckets add up exactly)\n", "total",
                 human_time(r.mean.total()), residue.count_ps());
  if (r.mean.recompute > core::SimTime::zero())
    fmt::format_to(to, "  (backward compute includes {} of recomputation)\n", human_time(r.mean.recompute));
  if (r.mean.on_slowest > core::SimTime::zero())
    fmt::format_to(to, "  (waiting on others includes {} for the slowest GPU's compute)\n",
                   human_time(r.mean.on_slowest));
  if (r.mean.on_collective_sms > core::SimTime::zero())
    fmt::format_to(to, "  ({} {} of compute held back by the collectives beside it: {})\n",
                   r.mean.ep_comm > core::SimTime::zero() ? "exposed DP and EP comm include" : "exposed DP comm includes",
                   human_time(r.mean.on_collective_sms),
                   s.parallelism.one_hardware_queue() ? "one hardware queue, it waits for them whole"
                                                             : "the SMs they held");
  if (r.stages.size() > 1 && r.stages.size() <= 16) {
    fmt::format_to(to, "\nper pipeline stage (ms):\n  {:<6}", "stage");
    for (const char* name :
         {"forward", "backward", "optim", "TP comm", "CP comm", "EP comm", "DP comm", "PP comm", "bubble", "waiting"})
      fmt::format_to(to, " {:>9}", name);
    fmt::format_to(to, "\n");
    for (size_t i = 0; i < r.stages.size(); ++i) {
      fmt::format_to(to, "  {:<6}", i);
      for (auto [name, v] : r.stages[i].buckets()) fmt::format_to(to, " {:>9.1f}", v.seconds() * 1e3);
      fmt::format_to(to, "\n");
    }
  }
  return out;
}

}  // namespace anatomy::report
