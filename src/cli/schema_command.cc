#include "cli/schema_command.h"

#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "core/error.h"
#include "report/schema_doc.h"
#include "scenario/scenario.h"

namespace anatomy::cli {
namespace {

void print_schema(const std::string& format) {
  const std::vector<scenario::FieldDoc> rows = scenario::scenario_fields();
  if (format == "text") {
    std::fputs(report::schema_text(rows).c_str(), stdout);
  } else if (format == "markdown") {
    std::fputs(report::schema_markdown(rows).c_str(), stdout);
  } else if (format == "json") {
    std::fputs(report::schema_json(rows).c_str(), stdout);
  } else {
    throw core::InputError({"", 0, "--format"}, fmt::format("unknown format '{}' (known: text, markdown, json)", format));
  }
}

void add_one(CLI::App& parent, const std::string& name, const std::string& help, int& exit_code) {
  CLI::App* sub = parent.add_subcommand(name, help);
  auto format = std::make_shared<std::string>("text");
  sub->add_option("--format", *format, "text, markdown (docs/scenario.md) or json");
  sub->callback([format, &exit_code] {
    print_schema(*format);
    exit_code = 0;
  });
}

}  // namespace

void add_schema_command(CLI::App& app, CLI::App& list, int& exit_code) {
  const std::string help = "every scenario field: dotted path, type, unit, default and meaning";
  add_one(app, "schema", help, exit_code);
  add_one(list, "fields", help + " (the same as anatomy schema)", exit_code);
}

}  // namespace anatomy::cli
