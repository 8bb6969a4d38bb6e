#pragma once
// Accelerator: one GPU's datasheet figures, and the record of the family it
// belongs to (hw/architecture.h) for what the datasheet does not say.
//
// Peak rates are dense (no 2:4 sparsity) tensor-core throughput in
// TFLOP/s; a rate the part does not support natively is 0. Scale-up
// bandwidth is per GPU per direction (NVLink 4 on H100: 18 links x 25 GB/s
// = 450 GB/s each way). Every figure names its source in catalog.cc, or is
// a user's own (a scenario's cluster.system.gpu).

#include <string>

#include "core/units.h"
#include "hw/architecture.h"

namespace anatomy::hw {

using core::Bandwidth;
using core::Bytes;
using core::SimTime;

struct Accelerator {
  std::string name;    // catalog key, e.g. "H100"
  std::string vendor;  // "NVIDIA", "AMD" (for reports)
  std::string part;    // full part name, e.g. "H100 SXM5 80GB"
  Architecture arch;   // the family's constants: what the models read instead of the name
  double bf16_tflops = 0;
  double fp16_tflops = 0;
  double fp8_tflops = 0;
  double fp6_tflops = 0;  // FP6 (MXFP6) where the vendor publishes it
  double fp4_tflops = 0;  // FP4 (NVFP4 / MXFP4) where the vendor publishes it
  Bytes hbm_capacity;
  Bandwidth hbm_bandwidth;
  Bandwidth scaleup_bandwidth;  // per GPU, per direction, all scale-up links together
  int scaleup_links = 0;        // links per GPU (NVLink / Infinity Fabric)
  double tdp_watts = 0;
  int compute_units = 0;  // SMs (NVIDIA) or CUs (AMD) that run kernels; 0: not known (the family's typical count)
  std::string source;  // where the figures come from
  // How the sustained tensor-core rate varies between GPUs of this part,
  // which a synchronous job pays at its slowest GPU (sync_pace.h), against
  // one GPU alone (what a calibration table times): the mean's loss when
  // every GPU of the node computes at once, and the spread across GPUs
  // (slowest to fastest, over that mean), each a fraction; 0: not measured.
  double busy_node_rate_loss = 0;
  double sustained_rate_range = 0;
  std::string rate_spread_source;  // where those two come from
  // A calibration table measured on this very part (file name under
  // data/calibration/), which wins over its family's; "": the family's.
  std::string calibration_table;
};

}  // namespace anatomy::hw
