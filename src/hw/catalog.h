#pragma once
// The hardware catalog: accelerators and system presets with datasheet
// figures. Lookups by name throw InputError listing the known names; this
// is the only place anatomy finds hardware by its name (the models read
// the records' fields, Accelerator::arch among them).
//
//   const System& s = find_system("dgx-h100");
//   double peak = s.gpu.bf16_tflops;  // 989

#include <string>
#include <string_view>
#include <vector>

#include "hw/system.h"

namespace anatomy::hw {

const std::vector<Accelerator>& accelerators();
const std::vector<System>& systems();

const Accelerator& find_accelerator(std::string_view name);
const System& find_system(std::string_view name);

// The catalog accelerator whose name is the longest one inside `text`
// ("NVIDIA H200" -> H200; "NVIDIA GB200" -> GB200, not B200); null if none.
const Accelerator* accelerator_named_in(std::string_view text);
// "A100, H100, ...", for error messages.
std::string accelerator_names();

}  // namespace anatomy::hw
