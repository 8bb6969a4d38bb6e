#pragma once
// The bottleneck cascade, as mechanisms that interact rather than a script.
//
// The article behind anatomy tells a story: 50 ms of congestion -> an NCCL
// timeout and retry -> memory pressure -> load imbalance -> a checkpoint
// that overwhelms storage, 10 s and more. anatomy follows a congestion
// event through the mechanisms it models and reports where the chain
// stops, with the number at every link:
//  1. congestion: the busiest fabric link of the iteration runs at a
//     fraction of its bandwidth for a while; the iteration is re-simulated
//     on the degraded link, and the event costs its duration times the
//     slowdown.
//  2. transport timeout: a RoCE/IB queue pair gives up after
//     retry_count retries of retry_timeout each (NCCL_IB_TIMEOUT,
//     NCCL_IB_RETRY_CNT); only a stall longer than that — the link
//     effectively down for longer — fails the job. Otherwise the chain stops.
//  3. restart: detection (the transport error is a crash), teardown,
//     restart and the work since the last checkpoint are lost.
//  4. checkpoint load storm: every GPU reads its shard at once; measured
//     on the network against the storage servers' links.

#include <string>
#include <vector>

#include "job/lifecycle.h"

namespace anatomy::job {

struct CascadeStep {
  std::string mechanism;
  std::string what;  // cause and effect, with numbers
  SimTime cost;      // job wall time this step costs
};

struct CascadeResult {
  std::vector<CascadeStep> chain;
  SimTime total;
  bool failed_job = false;
};

CascadeResult trace_cascade(const CongestionSpec& spec, const JobInputs& in, const JobResult& job);

}  // namespace anatomy::job
