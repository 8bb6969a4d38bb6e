#pragma once
// `anatomy sweep SPACE.yaml --store S.sqlite`: a design-space sweep on
// threads, shards or MPI ranks (sweep/run.h, sweep/mpi.h), and its two
// readers: `anatomy sweep export STORE... --format csv|jsonl` and
// `anatomy sweep report STORE... --out r.html`.

#include <CLI/CLI.hpp>

namespace anatomy::cli {

void add_sweep_command(CLI::App& app, int& exit_code);

}  // namespace anatomy::cli
