#pragma once
// `anatomy run [scenario.yaml]`: one training iteration of a scenario (the
// built-in default when no file is given), a whole job when it has a `job:`
// section, or one collective when it has `collective:`.
// `anatomy validate [dir]`: every published case under validation/, side
// by side with what anatomy simulates.

#include <CLI/CLI.hpp>

namespace anatomy::cli {

void add_run_command(CLI::App& app, int& exit_code);
void add_validate_command(CLI::App& app, int& exit_code);

}  // namespace anatomy::cli
