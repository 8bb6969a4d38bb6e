// Plans of the kind published training runs use, one or two per model
// preset, each on a system family its runs name: the combinations users
// bring that no validation file or golden holds. Validation checks the
// numbers of the cases it has; this checks that every other family of plan
// gets an answer at all, and a physical one.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/iteration.h"
#include "scenario/scenario.h"

namespace anatomy::app {
namespace {

struct Plan {
  const char* model;
  const char* system;
  int gpus;
  const char* parallelism;  // a YAML flow mapping's inside
  const char* training;
};

// With TP, sequence parallelism is anatomy's default, as Megatron-LM's
// recipes set it.
const std::vector<Plan>& plans() {
  static const std::vector<Plan> p = {
      {"llama3-8b", "dgx-h100", 8, "cp: 2", "seq_len: 8192, global_batch: 128, precision: bf16"},
      {"llama3-8b", "dgx-b200", 8, "tp: 1", "seq_len: 8192, global_batch: 128, micro_batch: 2, precision: fp8"},
      {"llama3-8b", "mi325x-8", 8, "tp: 1", "seq_len: 8192, global_batch: 64, micro_batch: 2, precision: bf16"},
      {"llama3-8b", "mi355x-8", 8, "tp: 1", "seq_len: 8192, global_batch: 128, micro_batch: 4, precision: fp8"},
      {"llama3-70b", "dgx-h100", 64, "tp: 4, pp: 4, cp: 2, virtual_stages: 5, tp_comm_overlap: true",
       "seq_len: 8192, global_batch: 128, precision: fp8"},
      {"llama3-70b", "gb200-nvl72", 64, "tp: 2, pp: 4, virtual_stages: 5",
       "seq_len: 8192, global_batch: 128, precision: bf16"},
      {"llama3-70b", "gb300-nvl72", 64, "pp: 4, virtual_stages: 5",
       "seq_len: 8192, global_batch: 128, precision: fp8, fp8_recipe: mxfp8"},
      {"llama3-70b", "mi300x-8", 64, "zero_stage: 3",
       "seq_len: 8192, global_batch: 128, micro_batch: 2, precision: fp8, recompute: full"},
      {"llama3-405b", "gb200-nvl72", 256, "tp: 4, pp: 8, cp: 2, virtual_stages: 8",
       "seq_len: 8192, global_batch: 256, precision: fp8"},
      {"nemotron4-15b", "dgx-h100", 64, "tp: 2", "seq_len: 4096, global_batch: 256, precision: fp8"},
      {"nemotronh-56b", "dgx-h100", 64, "tp: 8", "seq_len: 8192, global_batch: 192, precision: fp8"},
      {"mixtral-8x7b", "dgx-h100", 64, "pp: 4, ep: 8, virtual_stages: 8",
       "seq_len: 4096, global_batch: 256, precision: bf16"},
      {"qwen3-30b-a3b", "dgx-h100", 16, "ep: 8",
       "seq_len: 4096, global_batch: 512, precision: bf16, recompute: selective"},
      {"gpt-oss-120b", "gb200-nvl72", 64, "ep: 64", "seq_len: 4096, global_batch: 512, micro_batch: 4, precision: bf16"},
      {"gpt3-175b", "dgx-a100", 1024, "tp: 8, pp: 8, virtual_stages: 6",
       "seq_len: 2048, global_batch: 1536, precision: bf16"},
  };
  return p;
}

scenario::Scenario scenario_of(const Plan& p) {
  return scenario::parse_scenario(std::string("model: ") + p.model + "\ncluster: {system: " + p.system +
                                      ", gpus: " + std::to_string(p.gpus) + "}\nparallelism: {" + p.parallelism +
                                      "}\ntraining: {" + p.training + "}\n",
                                  std::string(p.model) + "-" + p.system + ".yaml");
}

// Every plan fits its parts' memory (the run's default check refuses one
// that does not), each stage's buckets add up to the iteration, and its MFU
// is one a GPU can reach: above 1% (every plan here is a published kind of
// plan, none idles its GPUs 99% of the time) and below 83%, the fastest
// GEMM any part runs in anatomy (the H200's measured 815.9 TFLOP/s at
// 16384 x 2048 x 32768, 82.5% of 989; the generic roofline's plateau is
// 81%), since a step also runs attention, norms and communication beside
// its GEMMs. And the same scenario gives the same iteration twice.
TEST(PlanMatrix, EveryPublishedKindOfPlanRunsFitsAndStaysPhysical) {
  for (const Plan& p : plans()) {
    SCOPED_TRACE(std::string(p.model) + " on " + std::to_string(p.gpus) + " " + p.system + " {" + p.parallelism + "}");
    const scenario::Scenario s = scenario_of(p);
    IterationRun run;
    ASSERT_NO_THROW(run = run_iteration(s));
    const workload::IterationResult& r = run.result;
    EXPECT_TRUE(r.memory_warning.empty()) << r.memory_warning;
    ASSERT_GT(r.iteration, core::SimTime::zero());
    for (const auto& stage : r.stages) EXPECT_EQ(stage.total(), r.iteration);
    EXPECT_GT(r.mfu, 0.01);
    EXPECT_LT(r.mfu, 0.83);
    EXPECT_EQ(run_iteration(s).result.iteration, r.iteration);
  }
}

}  // namespace
}  // namespace anatomy::app
