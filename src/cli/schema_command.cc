#include "cli/schema_command.h"

#include <cstdio>
#include <memory>
#include <string>

#include "report/schema_doc.h"

namespace anatomy::cli {
namespace {

void add_one(CLI::App& parent, const std::string& name, const std::string& help, int& exit_code) {
  CLI::App* sub = parent.add_subcommand(name, help);
  auto format = std::make_shared<std::string>("text");
  sub->add_option("--format", *format, "text, markdown (docs/scenario.md) or json");
  sub->callback([format, &exit_code] {
    std::fputs(report::schema_document(*format).c_str(), stdout);
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
