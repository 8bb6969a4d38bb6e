#include "report/schema.h"

#include <string>

namespace anatomy::report {

nlohmann::ordered_json schema_header(std::string_view kind) {
  nlohmann::ordered_json j;
  j["schema"] = "anatomy." + std::string(kind);
  j["schema_version"] = kSchemaVersion;
  return j;
}

std::string json_text(const nlohmann::ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace anatomy::report
