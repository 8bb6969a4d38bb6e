// The inputs a report and a comparison list come from the scenario's field
// tables (scenario::input_rows), not from a list kept by hand: a key no
// one wrote into the report code still shows up, here as a difference.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "shell.h"

namespace {

std::string write_scenario(const std::string& name, const std::string& storage) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << "model: {layers: 2, hidden: 64, heads: 8, vocab: 100}\n"
                         "cluster:\n  system: dgx-h100\n  gpus: 16\n  storage: {"
                      << storage << "}\n";
  return path;
}

TEST(Inputs, EveryDeclaredKeyTakesPartInAComparison) {
  // nics_per_server with no storage servers changes nothing in the run; only the inputs differ.
  const std::string a = write_scenario("inputs_a.yaml", "nics_per_server: 2");
  const std::string b = write_scenario("inputs_b.yaml", "nics_per_server: 4");
  const auto r = anatomy::testing::run_shell(std::string(ANATOMY_BINARY) + " compare " + a + " " + b);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("# differs: cluster.storage.nics_per_server: A 2, B 4\n"), std::string::npos) << r.out;
  // Derived values (the built topology) are shown in reports but are not differences.
  EXPECT_EQ(r.out.find("topology (built)"), std::string::npos) << r.out;
  std::filesystem::remove(a);
  std::filesystem::remove(b);
}

}  // namespace
