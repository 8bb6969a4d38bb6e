#include "app/replay.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "app/compare.h"
#include "app/iteration.h"
#include "app/setup.h"
#include "workload/trace/chakra.h"
#include "workload/trace/trace_dir.h"

namespace anatomy::app {
namespace {

const std::string kSource = ANATOMY_SOURCE_DIR;
const std::string kShipped = kSource + "/tests/data/traces/gpt-gloo-2";

double measured_step_s(const std::string& dir) {
  std::ifstream f(dir + "/measured.json");
  const std::string text((std::istreambuf_iterator<char>(f)), {});
  const auto at = text.find("\"step_s\":");
  return at == std::string::npos ? 0 : std::stod(text.substr(at + 9));
}

TEST(ReplayApp, TheShippedJobReplaysOnItsOwnMachineWithinFifteenPercentOfItsMeasuredStep) {
  // tools/trace_capture.py timed the job's steps with no tracing (their
  // median is measured.json's step_s) and recorded one more; its replay on
  // machine.yaml (the capture's own model of the host) must come within 15%.
  ReplayRequest q;
  q.trace_dir = kShipped;
  const ReplayRun r = run_replay(q);
  const double measured = measured_step_s(kShipped);
  ASSERT_GT(measured, 0);
  EXPECT_EQ(r.ranks, 2);
  EXPECT_NEAR(r.replay.result.iteration.seconds() / measured, 1.0, 0.15)
      << "replay " << r.replay.result.iteration.seconds() << " s, measured " << measured << " s";
  for (const auto& b : r.replay.result.stages) EXPECT_EQ(b.total(), r.replay.result.iteration);
}

TEST(ReplayApp, OnEightH100TheComputeShrinksByTheModelsAndTheRanksScaleOut) {
  // The same job on one DGX H100 over 400G: 8 ranks (the trace's 2, four
  // times), compute rescaled by the H100 and CPU models (H100 faster: scale
  // < 1), host time between operators as measured.
  ReplayRequest q;
  q.trace_dir = kShipped;
  q.on = kSource + "/scenarios/replay/h100-8-400g.yaml";
  const ReplayRun r = run_replay(q);
  EXPECT_EQ(r.ranks, 8);
  EXPECT_LT(r.replay.compute_scale, 1.0);
  ReplayRequest own;
  own.trace_dir = kShipped;
  const ReplayRun base = run_replay(own);
  EXPECT_LT(r.replay.result.iteration, base.replay.result.iteration);
  EXPECT_EQ(r.replay.host_time, base.replay.host_time);
}

TEST(ReplayApp, CompareReplaysPutsTheRecordedMachineFirst) {
  const auto runs = compare_replays(kShipped, {kSource + "/scenarios/replay/h100-8-400g.yaml"});
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].label, "A");
  EXPECT_GT(runs[0].result.iteration, runs[1].result.iteration);
}

TEST(ReplayApp, AnatomysOwnIterationExportedAsChakraReplaysToTheSameTime) {
  // A pipelined iteration (TP 4, CP 2, PP 2, DP 2 on 32 H100) written as
  // Chakra ET, read back and replayed with its recorded communication on the
  // same cluster: each stage's nodes cover its timeline end to end, so the
  // step is the iteration time to the picosecond, and so is each bucket (its
  // bubble and waiting come back as bubble; CP's time comes back as CP's).
  const scenario::Scenario s = scenario::parse_scenario(R"(model: llama3-8b
cluster: {system: dgx-h100, gpus: 32}
parallelism: {tp: 4, cp: 2, cp_all_gather: true, pp: 2}
training: {seq_len: 4096, global_batch: 16, micro_batch: 1}
)", "roundtrip.yaml");
  const IterationRun it = run_iteration(s);
  const workload::trace::TraceGraph g = workload::trace::graph_of_iteration(it.result, "roundtrip");
  const std::string dir = ::testing::TempDir() + "anatomy_roundtrip";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  workload::trace::write_chakra(g, dir, "anatomy");
  const workload::trace::TraceGraph back = workload::trace::read_trace_dir(dir);
  ASSERT_EQ(back.size(), 2);
  const std::unique_ptr<app::Setup> setup = make_setup(s);
  workload::trace::ReplayInputs in;
  in.trace = &back;
  in.topology = &setup->topology;
  in.library = setup->inputs.library;
  in.make_network = setup->inputs.make_network;
  in.algorithms = &setup->registry;
  in.recorded_comm = true;
  const workload::trace::ReplayResult r = workload::trace::replay_trace(in);
  EXPECT_EQ(r.result.iteration, it.result.iteration);
  for (size_t st = 0; st < 2; ++st) {
    EXPECT_EQ(r.result.stages[st].forward_compute, it.result.stages[st].forward_compute);
    EXPECT_EQ(r.result.stages[st].backward_compute, it.result.stages[st].backward_compute);
    EXPECT_EQ(r.result.stages[st].optimizer, it.result.stages[st].optimizer);
    EXPECT_EQ(r.result.stages[st].bubble, it.result.stages[st].bubble + it.result.stages[st].waiting);
    EXPECT_GT(it.result.stages[st].cp_comm, core::SimTime::zero());
    EXPECT_EQ(r.result.stages[st].cp_comm, it.result.stages[st].cp_comm);
    EXPECT_EQ(r.result.stages[st].pp_comm + r.result.stages[st].dp_comm + r.result.stages[st].tp_comm +
                  r.result.stages[st].cp_comm,
              it.result.stages[st].pp_comm + it.result.stages[st].dp_comm + it.result.stages[st].tp_comm +
                  it.result.stages[st].cp_comm);
  }
}

TEST(ReplayApp, NoMachineToReplayOnIsAnErrorNamingTheFlag) {
  const std::string dir = ::testing::TempDir() + "anatomy_nomachine";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const char* f : {"et_rank0.json", "kineto_rank0.json", "et_rank1.json", "kineto_rank1.json"})
    std::filesystem::copy_file(kShipped + "/" + f, dir + "/" + f);
  ReplayRequest q;
  q.trace_dir = dir;
  try {
    run_replay(q);
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().field, "--on");
  }
  q.on = kSource + "/scenarios/replay/h100-8-400g.yaml";
  try {
    run_replay(q);
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().field, "--from");  // another accelerator needs the recorded one to rescale
  }
}

}  // namespace
}  // namespace anatomy::app
