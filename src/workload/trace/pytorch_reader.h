#pragma once
// PyTorch traces in: the profiler's Chrome-trace JSON (operator spans with
// measured durations, per rank) joined with the execution trace JSON
// (operators with their input shapes and types, collectives with their
// tensors) into one graph per rank.
//
// Both schemas of the execution trace are read: torch 1.13's
// ExecutionGraphObserver ("schema": "1.0.1"; inputs as lists, collectives
// as "gloo:all_reduce" / "nccl:all_reduce" operators) and the newer
// ExecutionTraceObserver (inputs as {"values", "shapes", "types"}, attributes
// in "attrs", collectives as "record_param_comms"). The two files may come
// from different steps of the same loop: they are joined by operator name,
// in the order the main thread ran them, and the profiled step gives the
// durations.
//
// The graph, per rank: the profiled step ("ProfilerStep#N" span; of several,
// the one whose slowest rank took the median time) on its main
// thread, cut into its outermost operators (descending through
// record_function annotations such as "DistributedDataParallel.forward"),
// each a compute node with its measured duration and the GEMM and
// memory-bound shapes of the operators inside it; the host time between
// operators as compute nodes of their own (kept as measured on any
// accelerator); every collective as a node (operation, bytes from its
// tensor, its recorded duration from the communication thread's span)
// issued by the c10d operator that launched it. Each operator depends on
// the one before it on the main thread; the optimizer's first operator
// waits for every collective issued before it (DistributedDataParallel
// finishes its gradient all-reduces before the step). A launcher's or a
// gap's time overlapping its rank's collectives in flight is the main
// thread waiting for them, not host work: it is left out (replay re-times
// the collectives). Phases: optimizer inside "Optimizer.*" spans; backward
// from the first autograd function on; forward before.

#include <string>

#include "workload/trace/trace_graph.h"

namespace anatomy::workload::trace {

struct PytorchRankFiles {
  int rank = 0;
  std::string profiler;         // Chrome-trace JSON (required)
  std::string execution_trace;  // execution trace JSON ("" = none: no shapes, no collective sizes)
};

// Throws InputError "file: record N: field: message" for a file that is not
// JSON, a profiler file without a ProfilerStep# span or operators, or a
// collective whose size cannot be read.
TraceGraph read_pytorch_traces(const std::vector<PytorchRankFiles>& files, const std::string& source);

}  // namespace anatomy::workload::trace
