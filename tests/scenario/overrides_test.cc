#include "scenario/overrides.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "scenario/scenario.h"

namespace anatomy::scenario {
namespace {

const char* const kOverridesBase = R"(model: {layers: 2, hidden: 64, heads: 8, vocab: 100}
cluster: {system: dgx-h100, gpus: 16}
parallelism: {tp: 8}
)";

std::string error_of(const std::string& yaml, const std::vector<Override>& overrides) {
  try {
    parse_scenario(yaml, "s.yaml", overrides);
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Overrides, SetAKeyTheFileHasAndOneItLeavesOut) {
  // tp 8 -> 4 (so dp is derived as 16 / 4 = 4), and a fabric section the
  // file never wrote is created for nic_speed.
  const Scenario s = parse_scenario(kOverridesBase, "s.yaml",
                                    {parse_override("parallelism.tp=4"), parse_override("cluster.fabric.nic_speed=800Gbps")});
  EXPECT_EQ(s.parallelism.tp, 4);
  EXPECT_EQ(s.parallelism.dp, 4);
  EXPECT_DOUBLE_EQ(s.cluster.fabric.nic_speed.bps(), 800e9);
}

TEST(Overrides, AValueIsYamlSoASectionCanBeSetWhole) {
  const Scenario s = parse_scenario(kOverridesBase, "s.yaml", {parse_override("model={preset: llama3-8b, layers: 8}")});
  EXPECT_EQ(s.model.layers, 8);
  EXPECT_EQ(s.model.hidden, 4096);
}

TEST(Overrides, AKeyUnderAPresetNameChangesThatPreset) {
  // `model: gpt-oss-120b` with model.sliding_window=0 is the preset with
  // that one key changed, not a model of that key alone.
  const Scenario s = parse_scenario("model: gpt-oss-120b\ncluster: {system: dgx-h100, gpus: 8}\n", "s.yaml",
                                    {parse_override("model.sliding_window=0"),
                                     parse_override("model.full_attention_step=0")});
  EXPECT_EQ(s.model.layers, 36);
  EXPECT_EQ(s.model.sliding_window, 0);
}

TEST(Overrides, TheSeedIsAnOverrideToo) {
  EXPECT_EQ(parse_scenario(kOverridesBase, "s.yaml", {{"seed", "7"}}).seed, 7u);
}

TEST(Overrides, AnErrorInAnOverrideNamesItInsteadOfALine) {
  EXPECT_EQ(error_of(kOverridesBase, {parse_override("parallelism.tpp=2")}).rfind("--set parallelism.tpp=2: parallelism.tpp: unknown key 'tpp'", 0), 0u)
      << error_of(kOverridesBase, {parse_override("parallelism.tpp=2")});
  EXPECT_EQ(error_of(kOverridesBase, {parse_override("training.precision=bf17")}),
            "--set training.precision=bf17: training.precision: 'bf17' is not one of: bf16, fp8, fp4, fp16, fp32");
  // An error in a key the file wrote still names the file's line.
  EXPECT_EQ(error_of(std::string(kOverridesBase) + "training: {precision: bf17}\n", {parse_override("parallelism.tp=4")}),
            "s.yaml:4: training.precision: 'bf17' is not one of: bf16, fp8, fp4, fp16, fp32");
}

TEST(Overrides, MalformedTextIsOneErrorNamingTheFlag) {
  for (const char* bad : {"tp", "=4", "parallelism.tp=", "parallelism..tp=4", ".tp=4"}) {
    try {
      parse_override(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const core::InputError& e) {
      EXPECT_EQ(e.where().field, "--set") << bad;
    }
  }
}

TEST(Overrides, AnEmptyFileTakesItsWholeScenarioFromOverrides) {
  const Scenario s = parse_scenario("", "s.yaml",
                                    {parse_override("model=llama3-8b"), parse_override("cluster={system: dgx-h100, gpus: 8}"),
                                     parse_override("parallelism.tp=8")});
  EXPECT_EQ(s.cluster.gpus, 8);
  EXPECT_EQ(s.model.name, "llama3-8b");
}

TEST(Limits, ABucketWithoutItsUnitIsRefused) {
  // Found by a mutation fuzzer: `param_gather_size: 100` (bytes) launched a
  // collective per 100 bytes until the clock overflowed (exit 134).
  const std::string e = error_of("model: {layers: 2, hidden: 64, heads: 8, vocab: 100}\ncluster: {system: dgx-h100, gpus: 16}\n"
                                 "parallelism:\n  tp: 8\n  param_gather_size: 100\n",
                                 {});
  EXPECT_EQ(e.rfind("s.yaml:5: parallelism.param_gather_size: '100' is under 1MB", 0), 0u) << e;
  // A gradient bucket holds whole tensors, so a bucket_size of bytes makes
  // one bucket a tensor, not one a byte: accepted.
  EXPECT_EQ(error_of(kOverridesBase, {parse_override("parallelism.bucket_size=512KB")}), "no error");
}

// A value longer than kMaxValueBytes (4096) or a key longer than
// kMaxKeyBytes (128) is no scenario's: refused with its size, not echoed.
TEST(Limits, OverlongValuesAndKeysAreRefusedWithoutBeingEchoed) {
  const std::string name(5000, 'x');
  std::string e = error_of("name: " + name + "\n" + kOverridesBase, {});
  EXPECT_EQ(e.rfind("s.yaml:1: name: is 5000 bytes long; a value may be at most 4096 bytes", 0), 0u) << e.substr(0, 200);
  e = error_of(std::string(kOverridesBase) + "model_of_the_year" + std::string(200, 'y') + ": 1\n", {});
  EXPECT_NE(e.find("(top level): a key of 217 bytes is not a valid key"), std::string::npos) << e.substr(0, 200);
  EXPECT_EQ(e.find("yyyy"), std::string::npos);
  e = error_of("model: " + name + "\ncluster: {system: dgx-h100, gpus: 8}\n", {});
  EXPECT_EQ(e.rfind("s.yaml:1: model: is 5000 bytes long", 0), 0u) << e.substr(0, 200);
  // 4096 bytes is still a value (then an unknown system, said as such).
  e = error_of("cluster: {system: " + std::string(4096, 's') + ", gpus: 8}\nmodel: llama3-8b\n", {});
  EXPECT_EQ(e.find("bytes long"), std::string::npos) << e.substr(0, 200);
}

}  // namespace
}  // namespace anatomy::scenario
