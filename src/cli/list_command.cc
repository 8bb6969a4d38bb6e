#include "cli/list_command.h"

#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "core/error.h"
#include "report/catalog_text.h"
#include "scenario/hardware_yaml.h"

namespace anatomy::cli {

CLI::App& add_list_command(CLI::App& app, int& exit_code) {
  CLI::App* sub = app.add_subcommand("list", "list systems, accelerators, model presets and collective algorithms");
  auto format = std::make_shared<std::string>("table");
  sub->add_option("--format", *format,
                  "table, or yaml: the hardware presets as a scenario's cluster.system takes them, to copy and edit")
      ->capture_default_str();
  sub->callback([sub, format, &exit_code] {
    if (!sub->get_subcommands().empty()) return;  // `list fields` printed the schema instead
    if (*format != "table" && *format != "yaml")
      throw core::InputError({"", 0, "--format"}, fmt::format("unknown format '{}' (known: table, yaml)", *format));
    std::fputs(*format == "yaml" ? scenario::presets_yaml().c_str() : report::catalog_text().c_str(), stdout);
    exit_code = 0;
  });
  return *sub;
}

}  // namespace anatomy::cli
