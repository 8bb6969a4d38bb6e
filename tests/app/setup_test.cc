#include "app/setup.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "scenario/scenario.h"

namespace anatomy::app {
namespace {

scenario::Scenario eight_b200(const std::string& extra) {
  return scenario::parse_scenario(R"(
model: llama3-8b
cluster: {system: dgx-b200, gpus: 8}
parallelism: {tp: 1, pp: 1}
training: {seq_len: 8192, global_batch: 8, micro_batch: 1}
)" + extra,
                                  "b200.yaml");
}

// A job of 8 B200 computes at its slowest GPU's pace (sync_pace.h:
// 0.995 x (1 - 0.0245 + 0.049 / 9) = 0.976040), and says so; the scenario
// can ask for one GPU's rate instead.
TEST(Setup, ATrainingJobRunsItsKernelsAtTheSlowestGpusPace) {
  const auto paced = make_setup(eight_b200(""));
  EXPECT_NEAR(paced->compute->tensor_pace(), 0.976040, 1e-6);
  EXPECT_NE(paced->compute->describe().find("the slowest of 8 B200 sustains 0.976"), std::string::npos);
  // The mean GPU of the busy node: 1 - 0.005.
  ASSERT_NE(paced->inputs.compute_mean, nullptr);
  EXPECT_DOUBLE_EQ(paced->inputs.compute_mean->tensor_pace(), 0.995);
  const auto alone = make_setup(eight_b200("compute: {gpu_rate_spread: false}\n"));
  EXPECT_DOUBLE_EQ(alone->compute->tensor_pace(), 1.0);
  EXPECT_EQ(alone->inputs.compute_mean, nullptr);
  EXPECT_EQ(alone->compute->describe().find("slowest"), std::string::npos);
}

// A B200 has a shipped table (b200.json). Found, the compute line names
// it; missing (a data folder without it, as a binary copied away from its
// share/anatomy would have none), the same line says the table was not
// found, so the generic roofline's numbers do not pass for measured ones.
TEST(Setup, AMissingShippedTableIsSaidInTheComputeLine) {
  const std::string found = make_setup(eight_b200(""))->compute->describe();
  EXPECT_NE(found.find("b200.json"), std::string::npos) << found;
  EXPECT_EQ(found.find("was not found"), std::string::npos) << found;
  const std::filesystem::path empty = std::filesystem::temp_directory_path() / "anatomy-setup-test-empty-data";
  std::filesystem::create_directories(empty);
  const char* before = std::getenv("ANATOMY_DATA_DIR");
  const std::string saved = before ? before : "";
  setenv("ANATOMY_DATA_DIR", empty.c_str(), 1);
  const std::string missing = compute_model_of(eight_b200("")).describe();
  if (before) setenv("ANATOMY_DATA_DIR", saved.c_str(), 1);
  else unsetenv("ANATOMY_DATA_DIR");
  std::filesystem::remove_all(empty);
  EXPECT_NE(missing.find("the shipped table b200.json was not found in "), std::string::npos) << missing;
}

// Placed in a larger cluster, the job is still its own GPUs: 8 B200 of a
// 32-GPU cluster pace as 8 (0.976040), not as 32 (0.995 x (1 - 0.0245 +
// 0.049 / 33) = 0.972100).
TEST(Setup, APlacedJobPacesAsItsOwnGpus) {
  const auto placed = make_setup(eight_b200("placement: {cluster_gpus: 32}\n"));
  ASSERT_TRUE(placed->placement.has_value());
  EXPECT_NEAR(placed->compute->tensor_pace(), 0.976040, 1e-6);
}

}  // namespace
}  // namespace anatomy::app
