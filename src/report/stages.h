#pragma once
// Which GPU represents each pipeline stage, and how a stage is named in
// every output (report, trace, CSV).
//
// The iteration simulates one GPU per pipeline stage: the rank with TP, CP
// and DP coordinate 0 (workload/layout.h: rank = tp + TP (cp + CP (dp + DP pp))),
// so stage s is GPU s x TP x CP x DP.
//
//   representative_gpus(plan)  // TP4 PP4 DP64: {0, 256, 512, 768}
//   stage_label(1, 256)        // "stage 1 · GPU 256"

#include <cstdint>
#include <string>
#include <vector>

#include "workload/training.h"

namespace anatomy::report {

std::vector<uint32_t> representative_gpus(const workload::ParallelPlan& plan);

std::string stage_label(size_t stage, uint32_t gpu);

}  // namespace anatomy::report
