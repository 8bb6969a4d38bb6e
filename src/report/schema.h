#pragma once
// Every JSON document anatomy writes opens with the name and version of its
// schema, so a script can tell what it reads:
//   {"schema": "anatomy.run.iteration", "schema_version": 1, ...}
// The version rises when a key changes meaning or goes away; adding a key
// keeps it. 2: waiting on others split from compute (the slowest GPU's
// pace) and from the pipeline bubble in job and fleet GPU-hours. 3:
// validate's collective_* keys summarize collectives alone (they had taken
// kernels and whole jobs in too), beside new kernel_* and job_* keys; an
// iteration's exposed DP comm includes the compute a step loses to the SMs
// of a DP collective running beside it. 4: an iteration's exposed CP comm
// is a bucket of its own (cp_comm); exposed TP comm no longer includes it.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace anatomy::report {

inline constexpr int kSchemaVersion = 4;

// {"schema": "anatomy.<kind>", "schema_version": kSchemaVersion}
nlohmann::ordered_json schema_header(std::string_view kind);

// `j` as text (indent < 0: one line). Bytes that are not UTF-8 (a file name
// in Latin-1, say) come out as U+FFFD instead of stopping the writer.
std::string json_text(const nlohmann::ordered_json& j, int indent = -1);

}  // namespace anatomy::report
