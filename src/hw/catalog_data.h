#pragma once
// Internal to hw/: the catalog's entries, built once by catalog.cc.

#include <vector>

#include "hw/system.h"

namespace anatomy::hw::detail {

// Datasheets give memory and link rates in GB/s.
inline core::Bandwidth GBps(double v) { return core::Bandwidth::gigabytes_per_s(v); }

std::vector<Accelerator> make_accelerators();  // catalog_accelerators.cc
std::vector<System> make_systems();            // catalog_systems.cc

}  // namespace anatomy::hw::detail
