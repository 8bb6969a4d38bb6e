#pragma once
// `anatomy collective`: an nccl-tests-style sweep of one collective on a
// modelled cluster.

#include <CLI/CLI.hpp>

namespace anatomy::cli {

// Adds the subcommand; the returned callback runs it and returns an exit code.
void add_collective_command(CLI::App& app, int& exit_code);

}  // namespace anatomy::cli
