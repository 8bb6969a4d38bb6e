#include "hw/sync_pace.h"

#include <fmt/format.h>

namespace anatomy::hw {

double busy_node_pace(const Accelerator& gpu, int64_t gpus) {
  return gpus < 2 ? 1.0 : 1.0 - gpu.busy_node_rate_loss;
}

double synchronous_pace(const Accelerator& gpu, int64_t gpus) {
  if (gpus < 2) return 1.0;
  const double r = gpu.sustained_rate_range;
  return busy_node_pace(gpu, gpus) * (1.0 - r / 2 + r / static_cast<double>(gpus + 1));
}

std::string synchronous_pace_text(const Accelerator& gpu, int64_t gpus) {
  const double pace = synchronous_pace(gpu, gpus);
  if (pace == 1.0) return "";
  // A part that borrows a die's spread may have no loss of its own board measured: its source says so.
  const std::string loss =
      gpu.busy_node_rate_loss > 0 ? fmt::format("busy node -{:.1f}%, ", 100 * gpu.busy_node_rate_loss) : "";
  return fmt::format("the slowest of {} {} sustains {:.3f} of one alone ({}spread {:.1f}%: {})", gpus, gpu.name, pace,
                     loss, 100 * gpu.sustained_rate_range, gpu.rate_spread_source);
}

}  // namespace anatomy::hw
