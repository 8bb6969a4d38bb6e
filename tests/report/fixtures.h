#pragma once
// A small, hand-made iteration result for the report tests: two pipeline
// stages of an 80 us (+7 ps) iteration, intervals that tile each stage's
// timeline exactly, three busy links and a memory breakdown.

#include <initializer_list>
#include <tuple>

#include "workload/iteration.h"

namespace anatomy::report::testing {

using workload::IntervalKind;

// Appends intervals of the given kinds and lengths (ps) back to back and
// adds each to its bucket.
inline void tile(workload::IterationResult& r, size_t stage,
                 std::initializer_list<std::tuple<IntervalKind, int64_t, int64_t, int>> parts) {
  if (r.timeline.size() <= stage) r.timeline.resize(stage + 1);
  if (r.stages.size() <= stage) r.stages.resize(stage + 1);
  core::SimTime at = r.timeline[stage].empty() ? core::SimTime::zero() : r.timeline[stage].back().end;
  for (auto [kind, ps, mb, chunk] : parts) {
    const core::SimTime end = at + core::SimTime::ps(ps);
    r.timeline[stage].push_back({kind, at, end, mb, chunk});
    workload::TimeBreakdown& b = r.stages[stage];
    core::SimTime* bucket[] = {&b.forward_compute, &b.backward_compute, &b.optimizer, &b.tp_comm, &b.cp_comm,
                               &b.ep_comm,         &b.dp_comm,          &b.pp_comm,   &b.bubble,  &b.waiting};
    *bucket[static_cast<int>(kind)] += end - at;
    at = end;
  }
}

// The GPU of each of two_stage_result()'s stages (the representatives).
inline const std::vector<uint32_t> kTwoStageGpus = {0, 16};

inline workload::IterationResult two_stage_result() {
  workload::IterationResult r;
  r.iteration = core::SimTime::us(80) + core::SimTime::ps(7);
  tile(r, 0,
       {{IntervalKind::kForward, 10'000'001, 0, 0},
        {IntervalKind::kForward, 10'000'000, 1, 0},
        {IntervalKind::kBubble, 5'000'000, -1, -1},
        {IntervalKind::kBackward, 20'000'003, 0, 0},
        {IntervalKind::kTpComm, 1'000'000, 0, 0},
        {IntervalKind::kBackward, 19'000'000, 1, 0},
        {IntervalKind::kDpComm, 5'000'000, -1, -1},
        {IntervalKind::kOptimizer, 2'000'000, -1, -1},
        {IntervalKind::kWaiting, 8'000'003, -1, -1}});
  tile(r, 1,
       {{IntervalKind::kBubble, 10'000'001, -1, -1},
        {IntervalKind::kForward, 10'000'000, 0, 0},
        {IntervalKind::kBackward, 20'000'000, 0, 0},
        {IntervalKind::kPpComm, 1'000'000, -1, -1},
        {IntervalKind::kForward, 9'000'000, 1, 0},
        {IntervalKind::kBackward, 20'000'000, 1, 0},
        {IntervalKind::kDpComm, 8'000'006, -1, -1},
        {IntervalKind::kOptimizer, 2'000'000, -1, -1}});
  // The mean of two stages with as many GPUs each.
  const auto& a = r.stages[0];
  const auto& b = r.stages[1];
  for (auto f :
       {&workload::TimeBreakdown::forward_compute, &workload::TimeBreakdown::backward_compute,
        &workload::TimeBreakdown::optimizer, &workload::TimeBreakdown::tp_comm, &workload::TimeBreakdown::cp_comm,
        &workload::TimeBreakdown::ep_comm,
        &workload::TimeBreakdown::dp_comm,
        &workload::TimeBreakdown::pp_comm, &workload::TimeBreakdown::bubble, &workload::TimeBreakdown::waiting})
    r.mean.*f = (a.*f + b.*f) / 2;
  r.micro_batches = 2;
  r.tokens_per_s = 1.0e6;
  r.tflops_per_gpu = 400;
  r.megatron_tflops_per_gpu = 420;
  r.mfu = 0.4;
  r.peak_tflops = 989;
  r.memory.weights = core::Bytes(10'000'000'000);
  r.memory.gradients = core::Bytes(20'000'000'000);
  r.memory.optimizer = core::Bytes(5'000'000'000);
  r.memory.activations = core::Bytes(30'000'000'000);
  r.memory.workspace = core::Bytes(2'000'000'000);
  for (int i = 0; i < 3; ++i) {
    workload::LinkLoad l;
    l.link = static_cast<topo::LinkId>(i);
    l.name = "host 0 gpu " + std::to_string(i) + " -> leaf " + std::to_string(i) + " port 1";
    l.kind = i == 0 ? "scale-up" : "fabric";
    l.bytes = core::Bytes(1'000'000'000 / (i + 1));
    l.utilization = 0.6 / (i + 1);
    r.busiest_links.push_back(l);
  }
  return r;
}

}  // namespace anatomy::report::testing
