// libFuzzer target: the scenario parser on arbitrary bytes. Every input
// must come back as a Scenario or as one core::InputError that names the
// file, a line and a field; anything else (a crash, another exception, a
// sanitizer report, an error naming nothing) is a finding.
//   make fuzz   (fuzz/README.md)

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "scenario/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    anatomy::scenario::parse_scenario(text, "fuzz.yaml");
  } catch (const anatomy::core::InputError& e) {
    const auto& at = e.where();
    if (at.file != "fuzz.yaml" || at.line <= 0 || at.field.empty()) {
      std::fprintf(stderr, "error without file, line and field: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
