#pragma once
// The hardware catalog: accelerators and system presets with datasheet
// figures. Lookups by name throw InputError listing the known names.
//
//   const System& s = find_system("dgx-h100");
//   double peak = s.gpu.bf16_tflops;  // 989

#include <string_view>
#include <vector>

#include "hw/system.h"

namespace anatomy::hw {

const std::vector<Accelerator>& accelerators();
const std::vector<System>& systems();

const Accelerator& find_accelerator(std::string_view name);
const System& find_system(std::string_view name);

}  // namespace anatomy::hw
