#pragma once
// `anatomy schema` and its alias `anatomy list fields`: every scenario
// field with its type, unit, default and meaning, from the declarations
// the parser reads (scenario::scenario_fields()); --format markdown is
// docs/scenario.md.

#include <CLI/CLI.hpp>

namespace anatomy::cli {
// `list` is the `anatomy list` subcommand, which gains `fields`.
void add_schema_command(CLI::App& app, CLI::App& list, int& exit_code);
}
