#include "app/kernel.h"

#include <fmt/format.h>

#include "app/setup.h"
#include "core/error.h"
#include "core/units.h"
#include "hw/compute_model.h"
#include "hw/precision.h"

namespace anatomy::app {

KernelCaseRun run_kernel_case(const scenario::Scenario& s) {
  const scenario::KernelCase& k = *s.kernel;
  const hw::Accelerator& gpu = s.cluster.system.gpu;
  try {
    const hw::ComputeModel cm = compute_model_of(s);
    KernelCaseRun run;
    run.compute = cm.describe();
    if (k.op == "gemm") {
      // The compute model runs a precision the part has no units for at
      // BF16's rate, as a framework's fallback does; a kernel case asks
      // for the precision itself.
      if (hw::peak_tflops(gpu, k.precision) <= 0)
        throw core::InputError({"", 0, "kernel.precision"},
                               fmt::format("{} has no {} tensor units", gpu.name, hw::to_string(k.precision)));
      run.time = k.block_scaled ? cm.gemm_fp8_blockwise(k.m, k.n, k.k) : cm.gemm(k.m, k.n, k.k, k.precision);
      run.flops = 2.0 * static_cast<double>(k.m) * static_cast<double>(k.n) * static_cast<double>(k.k);
      run.what = fmt::format("gemm {} x {} x {} {}{}", k.m, k.n, k.k, hw::to_string(k.precision),
                             k.block_scaled ? ", a scale per 128 of k" : "");
    } else if (k.op == "stream") {
      // A stream of bytes through HBM (STREAM's and BabelStream's kernels),
      // timed alone: the part's streaming rate, its table's measured one
      // where it has one, below the board's power limit.
      run.time = cm.stream_alone(k.bytes);
      run.bytes = k.bytes.as_double();
      run.what = fmt::format("stream of {} read plus written", core::format_bytes(k.bytes));
    } else {
      const bool backward = k.op == "attention_backward";
      run.time = backward ? cm.attention_bwd(k.batch, k.seq, k.heads, k.head_dim, k.causal)
                          : cm.attention_fwd(k.batch, k.seq, k.heads, k.head_dim, k.causal);
      run.flops = hw::attention_flops(k.batch, k.seq, k.heads, k.head_dim, k.causal, backward);
      run.what = fmt::format("flash attention {}, batch {} x seq {} x {} heads of {}{}", backward ? "backward" : "forward",
                             k.batch, k.seq, k.heads, k.head_dim, k.causal ? ", causal" : "");
    }
    return run;
  } catch (const core::InputError& e) {
    throw scenario::locate_in_scenario(s, e);
  }
}

}  // namespace anatomy::app
