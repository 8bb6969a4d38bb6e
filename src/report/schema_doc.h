#pragma once
// The scenario schema written out: every field with its type, unit,
// default and meaning, as an aligned text table (`anatomy schema`), as
// Markdown (docs/scenario.md is this output, checked to be current by a
// test) or as JSON.
// The rows are the schema's own declarations (scenario::scenario_fields()).

#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace anatomy::report {

using SchemaRow = scenario::FieldDoc;

std::string schema_text(const std::vector<SchemaRow>& rows);
// One table per top-level section, under a header that says how values
// and units are written and how the file is regenerated.
std::string schema_markdown(const std::vector<SchemaRow>& rows);
std::string schema_json(const std::vector<SchemaRow>& rows);
// Every scenario field as `format` (text, markdown or json) says; throws
// InputError (--format) for another.
std::string schema_document(const std::string& format);

}  // namespace anatomy::report
