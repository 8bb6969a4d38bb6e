#pragma once
// The order in which a pipeline stage runs its forward and backward steps.
//
// 1F1B (PipeDream-Flush, Megatron's default): stage s of P runs
// min(P - s - 1, M) warm-up forwards, then alternates one forward and one
// backward, then drains the remaining backwards; at most P micro-batches
// are in flight. Interleaved 1F1B (Narayanan et al. SC'21 §2.2): each stage
// holds v model chunks; forward step k of a stage works on chunk
// (k / P) mod v of micro-batch (k / (P v)) P + k mod P (backward chunks run
// in reverse), with (P - s - 1) 2 + (v - 1) P warm-up forwards; the bubble
// shrinks by v. Megatron-Core generalizes the P micro-batches a chunk takes
// at a time to a group of N >= P (--microbatch-group-size-per-virtual-
// pipeline-stage, schedules.py get_schedule_table): forward step k works on
// the k-th entry of the table that lists, group after group of N micro-
// batches (the last group the M mod N left over), every chunk's pass over
// the group; the warm-up is (P - s - 1) 2 + (v - 1) N. N = P is the above,
// and needs M a multiple of P.

#include <cstdint>
#include <vector>

namespace anatomy::workload {

struct PipelineStep {
  int64_t micro_batch = 0;
  int chunk = 0;  // model chunk on this stage (0..v-1)
  bool forward = true;
};

// Warm-up forwards of stage `stage` before its first backward: 1F1B
// min(P - s - 1, M); interleaved (P - s - 1) 2 + (v - 1) N, plus `extra`
// (combined 1F1B's one more), at most all M v of them. `group`: N, the
// micro-batches a chunk takes at a time; 0: P.
int64_t warmup_steps(int stage, int stages, int64_t micro_batches, int chunks, int extra = 0, int64_t group = 0);

// The step order of stage `stage` (0-based) of `stages`, for `micro_batches`
// micro-batches and `chunks` model chunks per stage; interleaved, with
// `extra_warmup` more warm-up forwards (Megatron-LM's combined 1F1B: 1) and
// `group` micro-batches a chunk at a time (0: P).
std::vector<PipelineStep> pipeline_order(int stage, int stages, int64_t micro_batches, int chunks,
                                         int extra_warmup = 0, int64_t group = 0);

// Combined 1F1B (Megatron-LM's --overlap-moe-expert-parallel-comm): the
// indices in pipeline_order (with extra_warmup 1 when interleaved) of the
// first steps of the pairs that run together, the second being the next
// step. Without pipelining: (B0, F1), (B1, F2), ..., F0 and the last
// backward alone; interleaved: each steady-state forward with its
// backward, independent thanks to the one more warm-up forward; none
// when the warm-up takes every micro-batch.
std::vector<size_t> combined_pairs(int stage, int stages, int64_t micro_batches, int chunks, int64_t group = 0);

}  // namespace anatomy::workload
