#pragma once
// Where anatomy finds the data it ships (calibration tables, validation
// cases, scenarios, the Python tools): never through the source tree it was built from, so an
// installed binary works wherever the checkout goes. In order:
//   1. $ANATOMY_DATA_DIR, when set (an error when it is not a folder);
//   2. <the binary's folder>/../share/anatomy (cmake --install's layout:
//      bin/anatomy beside share/anatomy/{calibration,validation,scenarios});
//   3. <the binary's folder>/share/anatomy (the build tree, whose share/
//      links to the checkout's folders).
// Paths come back canonical (links resolved), so outputs name the real file.

#include <string>
#include <string_view>

#include "hw/accelerator.h"

namespace anatomy::app {

// The data folder, or "" when none of the places above has one.
std::string data_dir();

// A shipped calibration table (data_dir()/calibration/<file>), or "" when
// there is no such file.
std::string shipped_calibration(std::string_view file);

// The table shipped for the GPU itself, else the one shipped for its
// architecture family (Hopper: the measured H200 table, scaled to the GPU's
// own peaks), else "" (the roofline). Every path that builds a compute
// model from a scenario takes its table from here, so one GPU never gets
// two different tables (the edge path once read only the family's).
std::string shipped_calibration_for(const hw::Accelerator& gpu);

// The shipped table measured end to end on a real GPU: h200.json, from
// `anatomy calibrate` on an H200 (a GEMM grid, flash attention, a training
// step's memory-bound kernels one by one). A table without kernel rows
// borrows each kernel's fraction of the streaming rate from it
// (hw::borrow_kernel_rates); a table of peaks, its GEMMs' and attention's
// shortfall shape by shape against the roofline of its own best rows
// (hw::borrow_roofline_shortfall). "" when it is not there.
std::string shipped_measured_table();

// A shipped tool (data_dir()/tools/<file>: the calibration probe, the
// trace capture script), or "" when there is no such file.
std::string shipped_tool(std::string_view file);

// The shipped validation cases; throws InputError (field `field`) when the
// data folder cannot be found.
std::string validation_dir(std::string_view field);

}  // namespace anatomy::app
