// `anatomy list --format yaml` prints the hardware presets in the form a
// scenario takes them: a preset copied out of it runs exactly as the preset.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <string>

#include "shell.h"

namespace {

using Result = anatomy::testing::ShellResult;

using anatomy::testing::run;

using anatomy::testing::write_temp;

TEST(CliListYaml, ACopiedPresetRunsAsThePresetDoes) {
  // dgx-h100 copied from the listing into cluster.system: the same 16-GPU
  // all-reduce, to the byte, as the preset named.
  Result list = run("list --format yaml");
  ASSERT_EQ(list.code, 0) << list.err;
  const YAML::Node doc = YAML::Load(list.out);
  YAML::Node copied;
  for (size_t i = 0; i < doc["systems"].size(); ++i)
    if (doc["systems"][i]["name"].as<std::string>() == "dgx-h100") copied = doc["systems"][i];
  ASSERT_TRUE(copied.IsMap()) << "dgx-h100 missing from the listing";
  YAML::Node scenario;
  scenario["collective"]["bytes"] = "1GiB";
  scenario["cluster"]["gpus"] = 16;
  scenario["cluster"]["system"] = copied;
  YAML::Emitter out;
  out << scenario;
  const std::string from_copy = write_temp("copied_preset.yaml", out.c_str());
  const std::string from_name =
      write_temp("copied_preset.yaml.name", "collective: {bytes: 1GiB}\ncluster: {gpus: 16, system: dgx-h100}\n");
  Result a = run("run " + from_copy + " --format json");
  Result b = run("run " + from_name + " --format json");
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_EQ(b.code, 0) << b.err;
  auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  ja.erase("scenario");
  jb.erase("scenario");
  EXPECT_EQ(ja.dump(), jb.dump());
}

TEST(CliListYaml, AnUnknownFormatIsOneLineAndExitCodeTwo) {
  Result r = run("list --format xml");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("--format: unknown format 'xml' (known: table, yaml)"), std::string::npos) << r.err;
}

}  // namespace
