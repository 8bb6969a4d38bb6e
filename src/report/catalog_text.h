#pragma once
// What anatomy knows, as `anatomy list` prints it: system presets,
// accelerators (dense BF16 / FP8 peaks, HBM, scale-up, TDP), model presets
// and the collective algorithms with the operations each implements.

#include <string>

namespace anatomy::report {

std::string catalog_text();

}  // namespace anatomy::report
