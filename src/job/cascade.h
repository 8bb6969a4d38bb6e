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
//     on the degraded link. While it lasts training progresses at
//     1/slowdown of its pace, so the event costs window x (1 - 1/slowdown).
//  2. transport timeout: a RoCE/IB queue pair gives up after
//     retry_count retries of retry_timeout each (NCCL_IB_TIMEOUT,
//     NCCL_IB_RETRY_CNT); only a stall longer than that — the link
//     effectively down for longer — fails the job. Otherwise the chain stops.
//  3. restart: detection (the transport error is a crash), teardown,
//     restart and the work since the last checkpoint are lost.
//  4. checkpoint load storm: every GPU reads its shard at once; measured
//     on the network against the storage servers' links.
//
// The event is part of the job (lifecycle.h): run_job measures it with
// measure_congestion, places it at `CongestionSpec::at` on the job's
// timeline and accounts what it costs in the job's buckets — an absorbed
// congestion as exposed communication, a failed job's timeout wait and
// restart as failure recovery and the work since the last checkpoint as
// lost work — and describe_cascade writes the chain with those numbers.

#include <string>
#include <vector>

#include "job/job_spec.h"
#include "workload/iteration.h"

namespace anatomy::job {

// What the congested link does to the iteration (steps 1 and 2).
struct CongestionEffect {
  bool crosses_fabric = false;  // the iteration sends anything over the scale-out fabric
  std::string link;             // the congested link, as the report names it
  SimTime steady, slowed;       // one iteration before and on the degraded link
  double slowdown = 1;          // slowed / steady
  SimTime give_up;              // retry_count x retry_timeout
  bool stalls = false;          // the link is effectively down (traffic does not progress)
  bool fails_job = false;       // it stalls for at least give_up: a queue pair gives up
  SimTime window;               // how long training runs slowed: the duration, or give_up when it fails
  SimTime cost;                 // window x (1 - 1/slowdown): the progress it costs
};

// Re-simulates the steady iteration with the busiest fabric link degraded.
CongestionEffect measure_congestion(const CongestionSpec& spec, const workload::IterationInputs& iteration,
                                    const workload::IterationResult& steady);

struct CascadeStep {
  std::string mechanism;
  std::string what;  // cause and effect, with numbers
  JobTime cost;      // job wall time this step costs
};

struct CascadeResult {
  std::vector<CascadeStep> chain;
  JobTime at;             // when on the job's timeline the event struck
  bool happened = false;  // false: the job ended (or never trained) before `at`
  JobTime total;          // the sum of the chain's costs, all of it in the job's buckets
  bool failed_job = false;
};

// Where the event landed on the job's timeline and what it cost there.
struct CascadeOutcome {
  bool happened = false;
  bool crashed = false;    // the queue pairs gave up and the job crashed (before its end or another failure)
  JobTime at;              // when the congestion began
  JobTime congestion;      // the part of the congestion's cost the job paid (clipped at its end)
  JobTime crash_recovery;  // detection, teardown and restart after the transport error
  JobTime lost;            // work since the last checkpoint, undone by the crash
  int64_t lost_iterations = 0;
  SimTime checkpoint_load;  // the restart's checkpoint load
  Bytes checkpoint_bytes;
  size_t storage_servers = 0;
  int gpus = 0;
};

// The chain with its numbers: every cost in it is one the job's buckets hold.
CascadeResult describe_cascade(const CongestionSpec& spec, const CongestionEffect& effect,
                               const CascadeOutcome& outcome);

}  // namespace anatomy::job
