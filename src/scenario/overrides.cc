#include "scenario/overrides.h"

#include <fmt/format.h>

#include "core/error.h"

namespace anatomy::scenario {

Override parse_override(const std::string& text) {
  const size_t eq = text.find('=');
  Override o;
  if (eq != std::string::npos) {
    o.path = text.substr(0, eq);
    o.value = text.substr(eq + 1);
  }
  const bool bad_path = o.path.empty() || o.path.front() == '.' || o.path.back() == '.' ||
                        o.path.find("..") != std::string::npos || o.path.find_first_of(" \t:") != std::string::npos;
  if (eq == std::string::npos || bad_path || o.value.empty())
    throw core::InputError({"", 0, "--set"},
                           fmt::format("'{}' is not field.path=value (e.g. parallelism.tp=4)", text));
  return o;
}

namespace detail {

std::map<std::string, std::string> apply_overrides(YAML::Node& root, const std::vector<Override>& overrides) {
  std::map<std::string, std::string> overridden;
  if (overrides.empty()) return overridden;
  if (!root.IsDefined() || root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  for (const Override& o : overrides) {
    if (!root.IsMap()) break;  // the reader reports a top level that is not a mapping
    YAML::Node value;
    try {
      value = YAML::Load(o.value);
    } catch (const YAML::Exception& e) {
      throw core::InputError({o.text(), 0, o.path}, "YAML syntax error in the value: " + e.msg);
    }
    // Walk the path, making each missing section a mapping, and a scalar
    // one the preset it names (`model: llama3-8b` and model.layers=2 are
    // `model: {preset: llama3-8b, layers: 2}`).
    YAML::Node node = root;
    size_t pos = 0;
    for (;;) {
      const size_t dot = o.path.find('.', pos);
      const std::string key = o.path.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
      if (dot == std::string::npos) {
        node[key] = value;
        break;
      }
      if (!node[key].IsMap()) {
        YAML::Node section(YAML::NodeType::Map);
        if (node[key].IsScalar() && !node[key].Scalar().empty()) section["preset"] = node[key].Scalar();
        node[key] = section;
      }
      node.reset(node[key]);
      pos = dot + 1;
    }
    overridden[o.path] = o.text();
  }
  return overridden;
}

std::string override_for(const std::map<std::string, std::string>& overridden, const std::string& field) {
  for (std::string f = field;;) {
    if (const auto it = overridden.find(f); it != overridden.end()) return it->second;
    const size_t dot = f.rfind('.');
    if (dot == std::string::npos) return "";
    f.resize(dot);
  }
}

}  // namespace detail
}  // namespace anatomy::scenario
