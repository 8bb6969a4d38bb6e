#pragma once
// The iteration as a Chrome / Perfetto trace (Trace Event Format, JSON),
// for ui.perfetto.dev and chrome://tracing.
//
//   process 1 "GPUs"  one track (tid = GPU rank) per pipeline stage's
//                     representative GPU, named "stage s · GPU r"; one
//                     complete event ("ph": "X") per interval, named by its
//                     kind, with micro_batch and chunk in args. A track's
//                     durations add up to the iteration.
//   process 2 "links" one counter ("ph": "C") per busy link: its
//                     utilization in each sampled interval of the iteration
//                     (IterationInputs::link_samples), or its mean over the
//                     iteration when it was not sampled, then 0 at the end.
//   process 0 "job"   the iteration as one span; for a whole job, a
//                     second track "lifecycle" with its phases (startup,
//                     training, checkpoint, lost training, recovery) over
//                     the job's wall time.
// Metadata events ("ph": "M") name the processes and tracks and order them.
//
// Times are microseconds, as the format requires, written as exact
// decimals of the picosecond clock (6 places), one event per line: the
// same run gives the same bytes.
//
//   TraceOptions o;
//   o.stages = parse_stage_list("0,3", 4, "--trace-ranks");
//   o.links = 8;
//   std::string json = chrome_trace(result, representative_gpus(plan), o);

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "job/lifecycle.h"
#include "workload/iteration.h"

namespace anatomy::report {

struct TraceOptions {
  std::string name = "anatomy";  // the run's name (process names carry it)
  std::vector<int> stages;       // which pipeline stages' GPUs to trace; empty = all
  int links = 16;                // the N busiest links as counter tracks (0 = none)
  const std::vector<job::JobPhase>* lifecycle = nullptr;  // a whole job's timeline, or none
  // A job's conditions and controllers: a "conditions" track (one span per
  // episode), a "cascade" track (one instant per link of the chain) and one
  // track per controller, "controller: <kind>" (one instant per decision,
  // with its signal, action and effect in args).
  const job::AdaptationResult* adaptation = nullptr;
};

std::string chrome_trace(const workload::IterationResult& r, const std::vector<uint32_t>& stage_gpus,
                         const TraceOptions& o);

// "0,3", "0-7", "1,4-6": sorted, without repeats. Throws InputError naming
// `flag` for malformed text or a stage outside [0, stages).
std::vector<int> parse_stage_list(std::string_view text, int stages, std::string_view flag);

}  // namespace anatomy::report
