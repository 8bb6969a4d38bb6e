#pragma once
// `anatomy replay TRACE_DIR [--on scenario.yaml]`: a recorded job (Chakra ET
// or PyTorch profiler + execution traces) replayed on a model of the
// machine it ran on, or of another (app/replay.h).
// `anatomy calibrate --out table.json`: measures this machine's accelerator
// (or its CPU) into a calibration table (app/calibrate.h).

#include <CLI/CLI.hpp>

namespace anatomy::cli {

void add_replay_command(CLI::App& app, int& exit_code);
void add_calibrate_command(CLI::App& app, int& exit_code);

}  // namespace anatomy::cli
