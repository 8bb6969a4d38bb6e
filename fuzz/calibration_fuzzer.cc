// libFuzzer target: the calibration table reader (hw::parse_calibration)
// on arbitrary bytes. Every input must come back as a table or as one
// core::InputError naming the file; anything else is a finding.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "hw/compute_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    anatomy::hw::parse_calibration(text, "fuzz.json");
  } catch (const anatomy::core::InputError& e) {
    if (e.where().file != "fuzz.json") {
      std::fprintf(stderr, "error without the file: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
