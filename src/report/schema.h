#pragma once
// Every JSON document anatomy writes opens with the name and version of its
// schema, so a script can tell what it reads:
//   {"schema": "anatomy.run.iteration", "schema_version": 1, ...}
// The version rises when a key changes meaning or goes away; adding a key
// keeps it.

#include <nlohmann/json.hpp>
#include <string_view>

namespace anatomy::report {

inline constexpr int kSchemaVersion = 1;

// {"schema": "anatomy.<kind>", "schema_version": kSchemaVersion}
nlohmann::ordered_json schema_header(std::string_view kind);

}  // namespace anatomy::report
