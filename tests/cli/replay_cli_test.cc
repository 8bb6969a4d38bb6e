// anatomy replay and anatomy calibrate from the command line: what they
// print, and their errors (one line naming file and record, exit 2).

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "shell.h"

namespace {

using anatomy::testing::run_shell;

const std::string kSource = ANATOMY_SOURCE_DIR;
const std::string kShipped = kSource + "/tests/data/traces/gpt-gloo-2";

using anatomy::testing::run;

TEST(ReplayCli, TheShippedTraceSetPrintsAPerRankBreakdown) {
  const auto r = run("replay " + kShipped);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("step time"), std::string::npos);
  EXPECT_NE(r.out.find("per rank (ms):"), std::string::npos);
  EXPECT_NE(r.out.find("\n  1 "), std::string::npos);  // rank 1's row
  EXPECT_NE(r.out.find("# assumption: "), std::string::npos);
}

TEST(ReplayCli, JsonHasIterationAndBreakdownAsRunDoes) {
  const auto r = run("replay " + kShipped + " --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "anatomy.replay.step");
  EXPECT_GT(j["iteration_s"].get<double>(), 0);
  double sum = 0;
  for (const auto& [k, v] : j["breakdown_s"].items()) sum += v.get<double>();
  EXPECT_NEAR(sum, j["iteration_s"].get<double>(), 1e-9);  // the buckets add up to the step
  EXPECT_EQ(j["ranks_breakdown_s"].size(), 2u);
}

TEST(ReplayCli, HelpDocumentsBothTraceKinds) {
  const auto r = run("replay --help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("Chakra ET"), std::string::npos);
  EXPECT_NE(r.out.find("PyTorch"), std::string::npos);
  EXPECT_NE(r.out.find("--on"), std::string::npos);
}

TEST(ReplayCli, ATruncatedChakraFileIsOneLineNamingFileAndRecordExit2) {
  const std::string dir = ::testing::TempDir() + "anatomy_cli_chakra";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto ex = run("replay " + kShipped + " --export-chakra " + dir + " --format json");
  ASSERT_EQ(ex.code, 0) << ex.err;
  const std::string file = dir + "/trace.0.et";
  ASSERT_TRUE(std::filesystem::exists(file));
  // The exported Chakra set replays on the same machine to the same step.
  const auto back = run("replay " + dir + " --from " + kShipped + "/machine.yaml --format json");
  ASSERT_EQ(back.code, 0) << back.err;
  EXPECT_EQ(nlohmann::json::parse(back.out)["iteration_s"], nlohmann::json::parse(ex.out)["iteration_s"]);
  std::filesystem::resize_file(file, std::filesystem::file_size(file) / 2);
  const auto r = run("replay " + dir + " --from " + kShipped + "/machine.yaml");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("anatomy: " + file + ": record ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
}

TEST(ReplayCli, RunExportsItsIterationAsChakra) {
  const std::string dir = ::testing::TempDir() + "anatomy_cli_run_chakra";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto r = run("run " + kSource + "/scenarios/replay/h100-8-400g.yaml --export-chakra " + dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir + "/anatomy.0.et"));
}

}  // namespace

namespace {

TEST(ReplayCli, RanksThatDisagreeOnACollectiveAreOneErrorNamingFileAndRecordExit2) {
  // Rank 1's execution trace says its gradient all-reduce moves 4 bytes
  // less: the profiler file and the record of that collective are named.
  const std::string dir = ::testing::TempDir() + "anatomy_cli_disagree";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const char* f : {"et_rank0.json", "kineto_rank0.json", "kineto_rank1.json", "machine.yaml", "calibration.json"})
    std::filesystem::copy_file(kShipped + "/" + f, dir + "/" + f);
  auto et = nlohmann::json::parse(std::ifstream(kShipped + "/et_rank1.json"));
  for (auto& n : et["nodes"])
    if (n["name"] == "gloo:all_reduce") n["input_shapes"][0][0] = n["input_shapes"][0][0].get<int64_t>() - 1;
  std::ofstream(dir + "/et_rank1.json") << et.dump();
  const auto r = run("replay " + dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("anatomy: " + dir + "/kineto_rank1.json: record ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(": comm_size: collective 0 of every rank (all_reduce) moves"), std::string::npos) << r.err;
}

}  // namespace
