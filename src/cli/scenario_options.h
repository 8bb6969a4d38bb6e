#pragma once
// The flags that change a scenario before it is read, on every command
// that reads one: --set field.path=value (repeatable) and --seed N.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "scenario/overrides.h"

namespace anatomy::cli {

struct ScenarioOptions {
  std::vector<std::string> sets;
  std::string seed;  // "" = the scenario's own

  void add_to(CLI::App& app);
  // In the order given, --seed last; throws InputError (--set) on a malformed one.
  std::vector<scenario::Override> overrides() const;
};

}  // namespace anatomy::cli
