#include "scenario/hardware_yaml.h"

#include <yaml-cpp/yaml.h>

#include "hw/catalog.h"
#include "scenario/hardware_fields.h"

namespace anatomy::scenario {
namespace {

using detail::Field;
using detail::Kind;

// The fields of one record with a value to show, in table order; a
// section's key is handed to `section` to write its own mapping.
template <typename T, typename Section>
void emit_fields(YAML::Emitter& out, const std::vector<Field<T>>& fields, const T& t, Section section) {
  for (const auto& f : fields) {
    if (f.kind == Kind::kSection) {
      section(f.key);
      continue;
    }
    if (!f.show) continue;
    const std::string text = f.show(t);
    if (text.empty()) continue;
    out << YAML::Key << std::string(f.key) << YAML::Value << text;
  }
}

void emit_accelerator(YAML::Emitter& out, const hw::Accelerator& a) {
  out << YAML::BeginMap;
  emit_fields(out, detail::accelerator_fields(), a, [](std::string_view) {});
  out << YAML::EndMap;
}

void emit_system(YAML::Emitter& out, const hw::System& s) {
  out << YAML::BeginMap;
  emit_fields(out, detail::system_fields(), s, [&](std::string_view key) {
    out << YAML::Key << std::string(key) << YAML::Value;
    if (key == "gpu") {
      emit_accelerator(out, s.gpu);
    } else {
      out << YAML::BeginMap;
      emit_fields(out, detail::scaleup_fields(), s.scaleup, [](std::string_view) {});
      out << YAML::EndMap;
    }
  });
  out << YAML::EndMap;
}

}  // namespace

std::string system_yaml(const hw::System& s) {
  YAML::Emitter out;
  emit_system(out, s);
  return std::string(out.c_str()) + "\n";
}

std::string accelerator_yaml(const hw::Accelerator& a) {
  YAML::Emitter out;
  emit_accelerator(out, a);
  return std::string(out.c_str()) + "\n";
}

std::string presets_yaml() {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "accelerators" << YAML::Value << YAML::BeginSeq;
  for (const auto& a : hw::accelerators()) emit_accelerator(out, a);
  out << YAML::EndSeq;
  out << YAML::Key << "systems" << YAML::Value << YAML::BeginSeq;
  for (const auto& s : hw::systems()) emit_system(out, s);
  out << YAML::EndSeq;
  out << YAML::EndMap;
  return "# anatomy's hardware presets in the form a scenario takes them: copy a system\n"
         "# under cluster.system (or an accelerator under cluster.system.gpu) and edit it.\n" +
         std::string(out.c_str()) + "\n";
}

}  // namespace anatomy::scenario
