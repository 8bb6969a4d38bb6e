#pragma once
// `anatomy compare A.yaml B.yaml [...]`: runs one iteration of each
// scenario and prints them side by side — iteration time, every bucket of
// the breakdown, tokens/s, TFLOP/s per GPU, MFU, memory per GPU — with
// each run's difference from the first (absolute and %), and the inputs
// that differ. --format json for scripts, --report for the same as HTML.
//
//   anatomy compare fabric-400g.yaml fabric-100g.yaml --report compare.html

#include <CLI/CLI.hpp>

namespace anatomy::cli {

void add_compare_command(CLI::App& app, int& exit_code);

}  // namespace anatomy::cli
