#pragma once
// One kernel case (a scenario's `kernel:`) as anatomy run prints it: the
// kernel, the part, its time and TFLOP/s (GB/s for a stream), and where the
// rates came from; as text or JSON.

#include <nlohmann/json.hpp>
#include <string>

#include "core/time.h"
#include "scenario/scenario.h"

namespace anatomy::report {

// What the compute model gave the scenario's kernel (app/kernel.h).
struct KernelTiming {
  core::SimTime time;
  double flops = 0;
  double bytes = 0;     // a stream's bytes read plus written (0 for a GEMM or attention)
  std::string what;     // "gemm 8192 x 8192 x 8192 bf16"
  std::string compute;  // where the rates come from
};

// flops over time, in TFLOP/s (0 for a kernel of no time).
double kernel_tflops(const KernelTiming& k);
// bytes over time, in GB/s (0 for a kernel of no time or no bytes).
double kernel_GBps(const KernelTiming& k);
std::string kernel_case_text(const scenario::Scenario& s, const KernelTiming& k);
nlohmann::ordered_json kernel_case_json(const scenario::Scenario& s, const KernelTiming& k);

}  // namespace anatomy::report
