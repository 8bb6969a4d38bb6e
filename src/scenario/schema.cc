// The schema as data: its docs and a scenario's inputs, by walking the one
// list of sections (scenario_fields.h).
#include <string>
#include <vector>

#include "scenario/scenario.h"
#include "scenario/scenario_fields.h"

namespace anatomy::scenario {

namespace detail {

const char* unit_of(Kind k) {
  switch (k) {
    case Kind::kBytes: return "B";
    case Kind::kBandwidth: return "bit/s";
    case Kind::kTime:
    case Kind::kLongTime: return "s";
    default: return "";
  }
}

}  // namespace detail

std::vector<FieldDoc> scenario_fields() {
  std::vector<FieldDoc> out;
  for (const detail::Section& s : detail::sections()) s.docs(out);
  return out;
}

std::vector<InputValue> input_rows(const Scenario& s) {
  std::vector<InputValue> out;
  for (const detail::Section& section : detail::sections()) section.rows(s, out);
  return out;
}

}  // namespace anatomy::scenario
