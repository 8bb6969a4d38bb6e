#pragma once
// The scenario schema written out: every field with its type, unit,
// default and meaning, as an aligned text table (`anatomy schema`), as
// Markdown (docs/scenario.md is this output, checked to be current by a
// test) or as JSON.
//
// The report layer sits below scenario/, so the CLI turns the schema's
// declarations (scenario::scenario_fields()) into these rows; the writers
// only lay them out.

#include <string>
#include <vector>

namespace anatomy::report {

struct SchemaRow {
  std::string path;           // "cluster.fabric.nic_speed"
  std::string kind;           // "rate", "one of flow|packet", "section", ...
  std::string unit;           // "B", "bit/s", "s", or ""
  std::string default_value;  // as written, "required", or how it is derived
  std::string help;
};

std::string schema_text(const std::vector<SchemaRow>& rows);
// One table per top-level section, under a header that says how values
// and units are written and how the file is regenerated.
std::string schema_markdown(const std::vector<SchemaRow>& rows);
std::string schema_json(const std::vector<SchemaRow>& rows);

}  // namespace anatomy::report
