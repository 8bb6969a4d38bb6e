#pragma once
// `anatomy list`: what the catalog and registries hold.

#include <CLI/CLI.hpp>

namespace anatomy::cli {
// Returns the subcommand, to which `anatomy list fields` (schema_command.h) is added.
CLI::App& add_list_command(CLI::App& app, int& exit_code);
}
