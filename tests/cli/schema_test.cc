// `anatomy schema` / `anatomy list fields`: the scenario schema from the
// parser's own declarations, and docs/scenario.md as its Markdown output.

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "shell.h"

namespace {

using Result = anatomy::testing::ShellResult;

using anatomy::testing::run;

TEST(Schema, ListsEverySectionsFieldsWithUnitAndDefault) {
  const Result r = run("schema");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* field : {"job.checkpoint.interval", "placement.policy", "cluster.fabric.mtu", "network.pfc_xoff",
                            "job.failures.classes[].rate_per_day", "parallelism.tp", "training.seq_len"})
    EXPECT_NE(r.out.find(std::string("\n") + field + " "), std::string::npos) << field;
  // A line states the type with its unit and the default.
  EXPECT_NE(r.out.find("size (B)"), std::string::npos);
  EXPECT_NE(r.out.find("256KiB"), std::string::npos) << "network.pfc_xoff's default";
}

TEST(Schema, ListFieldsIsTheSameCommand) {
  const Result a = run("schema --format markdown"), b = run("list fields --format markdown");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  const Result list = run("list");
  EXPECT_EQ(list.out.rfind("systems:", 0), 0u) << "plain `list` still lists the catalog";
}

TEST(Schema, DocsAreCurrent) {
  std::ifstream in(std::string(ANATOMY_SOURCE_DIR) + "/docs/scenario.md", std::ios::binary);
  ASSERT_TRUE(in) << "docs/scenario.md is missing: run make docs";
  const std::string doc((std::istreambuf_iterator<char>(in)), {});
  const Result r = run("schema --format markdown");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(doc == r.out) << "docs/scenario.md is not what `anatomy schema --format markdown` prints: run make docs";
}

TEST(Schema, JsonNamesItsSchema) {
  const Result r = run("schema --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"schema\": \"anatomy.scenario-fields\""), std::string::npos);
  EXPECT_NE(r.out.find("\"path\": \"placement.policy\""), std::string::npos);
}

TEST(Schema, UnknownFormatIsOneLineAndExitCodeTwo) {
  const Result r = run("schema --format yaml");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(r.err, "anatomy: --format: unknown format 'yaml' (known: text, markdown, json)\n");
}

}  // namespace
