#pragma once
// Changes a command line makes to a scenario before it is read:
// `--set parallelism.tp=4`, `--set cluster.fabric.nic_speed=800Gbps`,
// `--set model={preset: llama3-8b, layers: 8}`, and `--seed 7` (the same as
// `--set seed=7`). The value is YAML, set at the dotted path (sections
// that are missing are created), and then read with the rest, so it is
// checked as a value in the file would be; an error in it names the
// override instead of a line:
//   anatomy: --set parallelism.tp=3: parallelism.tp: 3 does not divide 64 attention heads

#include <map>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace anatomy::scenario {

struct Override {
  std::string path;   // "parallelism.tp"
  std::string value;  // YAML text: "4", "800Gbps", "{preset: llama3-8b}"
  std::string text() const { return "--set " + path + "=" + value; }
};

// "path=value"; throws InputError (field --set) when it is not that form.
Override parse_override(const std::string& text);

namespace detail {

// Sets each override in `root` (a mapping, created when the file is empty)
// and returns, by path, the text that set it, for errors.
std::map<std::string, std::string> apply_overrides(YAML::Node& root, const std::vector<Override>& overrides);

// The override that set `field` or a section above it, or "".
std::string override_for(const std::map<std::string, std::string>& overridden, const std::string& field);

}  // namespace detail
}  // namespace anatomy::scenario
