#pragma once
// The iteration as CSV (`anatomy run --csv DIR`), for spreadsheets and
// scripts. Times are exact seconds (12 decimals, the picosecond clock),
// so a stage's rows add up to its iteration exactly.
//
//   breakdown.csv  stage,gpu,bucket,seconds,percent
//                  stage "mean" (gpu "") is the mean over all GPUs, then
//                  one block per pipeline stage's representative GPU;
//                  percent of the iteration, 3 decimals.
//   per_rank.csv   stage,gpu,iteration_s,<bucket>_s...,recompute_s
//                  one row per representative GPU.
//   timeline.csv   stage,gpu,kind,start_s,end_s,duration_s,micro_batch,chunk
//                  every interval (micro_batch and chunk -1 where none).
//   collective.csv (anatomy collective) bytes,time_us,algbw_GBps,busbw_GBps,algorithm,protocol

#include <cstdint>
#include <string>
#include <vector>

#include "coll/collective.h"
#include "workload/iteration.h"

namespace anatomy::report {

std::string breakdown_csv(const workload::IterationResult& r, const std::vector<uint32_t>& stage_gpus);
std::string per_rank_csv(const workload::IterationResult& r, const std::vector<uint32_t>& stage_gpus);
std::string timeline_csv(const workload::IterationResult& r, const std::vector<uint32_t>& stage_gpus);
std::string collective_csv(const std::vector<coll::CollectiveResult>& rows);

// A CSV field: quoted (with "" for ") when it holds a comma, quote or newline.
std::string csv_field(const std::string& s);

}  // namespace anatomy::report
