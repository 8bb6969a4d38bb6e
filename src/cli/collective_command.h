#pragma once
// `anatomy collective`: an nccl-tests-style sweep of one collective on a
// modelled cluster.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "coll/collective.h"

namespace anatomy::cli {

// One collective's result as `--format json` prints each size: bytes,
// time_us, algbw_GBps, busbw_GBps and algo ("ring/Simple").
nlohmann::ordered_json collective_row_json(const coll::CollectiveResult& r);

// Adds the subcommand; the returned callback runs it and returns an exit code.
void add_collective_command(CLI::App& app, int& exit_code);

}  // namespace anatomy::cli
