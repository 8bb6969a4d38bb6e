#pragma once
// `anatomy list`: what the catalog and registries hold.

#include <CLI/CLI.hpp>

namespace anatomy::cli {
void add_list_command(CLI::App& app, int& exit_code);
}
