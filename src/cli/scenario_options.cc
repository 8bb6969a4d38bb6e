#include "cli/scenario_options.h"

namespace anatomy::cli {

void ScenarioOptions::add_to(CLI::App& app) {
  app.add_option("--set", sets,
                 "change a scenario field before it is read, e.g. --set parallelism.tp=4 (repeatable; anatomy schema "
                 "lists the fields)");
  app.add_option("--seed", seed, "seed of every random stream (the same as --set seed=N)");
}

std::vector<scenario::Override> ScenarioOptions::overrides() const {
  std::vector<scenario::Override> out;
  for (const std::string& s : sets) out.push_back(scenario::parse_override(s));
  if (!seed.empty()) out.push_back({"seed", seed});
  return out;
}

}  // namespace anatomy::cli
