#pragma once
// What Transformer Engine's ring attention (AttnFuncWithCPAndKVP2P,
// context_parallel.py) spends outside its flash kernels on one CP rank:
// merging the ring's steps in memory-bound passes over 16-bit tensors.
// Forward, the first step's output is rescaled by its log-sum-exp into
// `out` (a read and a write an element), then each later step's output is
// added in, rescaled (out_per_step read, out read and written: three
// accesses). Backward, dQ takes the first step's kernel output and then
// each later step's, and dK/dV likewise as they pass round the ring.
//
// Timed for the last CP rank, the busiest: each of its later steps sets all
// its queries against the first half of a peer's keys, so it merges a
// whole output and dQ a step and half of dK/dV. The log-sum-exp tensors
// (fp32, one a head and token) are left out, under 1/32 of the output at
// head widths of 64 and more.

#include <cstdint>

#include "core/time.h"
#include "hw/compute_model.h"

namespace anatomy::workload {

struct RingMerges {
  core::SimTime forward, backward;
};

// Elements on this rank (its tokens x width): the attention output, dQ
// (queries' width) and dK + dV (keys' and values' width); `cp` ring steps.
RingMerges ring_merges(const hw::ComputeModel& cm, int64_t out_elems, int64_t dq_elems, int64_t dkv_elems,
                       int64_t cp);

}  // namespace anatomy::workload
