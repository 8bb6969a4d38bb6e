#pragma once
// Use case: time one kernel. A kernel case (a scenario with a `kernel:`
// section) is one GEMM, flash-attention or streaming (STREAM-like) kernel
// on one GPU of the cluster's part, alone (no slowest-GPU pace), at the
// rates the compute model gives it from the part's calibration table or
// roofline.

#include <string>

#include "report/kernel_text.h"
#include "scenario/scenario.h"

namespace anatomy::app {

// The kernel's time, FLOPs, name and compute source (report/kernel_text.h).
using KernelCaseRun = report::KernelTiming;

// Throws InputError naming the field (kernel.precision for a part without
// those tensor units, compute.calibration for an unreadable table).
KernelCaseRun run_kernel_case(const scenario::Scenario& s);

}  // namespace anatomy::app
