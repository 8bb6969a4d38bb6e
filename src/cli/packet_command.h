#pragma once
// `anatomy packet --cm X.cm --topo Y.topo [--network packet:transport=uec]`:
// one experiment in htsim's own file formats (a connection matrix and a
// fat-tree topology) on anatomy's network model; prints the flows'
// completion times (mean, p99, max), when the last finished, the events
// simulated and the wall time. --format json for scripts. Bad files: one
// `file:line: field: message` line and exit 2.
//
//   anatomy packet --cm perm_1024.cm --topo fat_tree_1024.topo --network packet:transport=eqds

#include <CLI/CLI.hpp>

namespace anatomy::cli {

void add_packet_command(CLI::App& app, int& exit_code);

}  // namespace anatomy::cli
