#pragma once
// A folder of traces, whatever made them: Chakra ET files ("<name>.<rank>.et")
// or PyTorch files (profiler Chrome traces and execution traces, one of
// each per rank, told apart by their content, ranked by the number after
// "rank" in their names: kineto_rank0.json, et_rank0.json, ...).
//
//   TraceGraph g = read_trace_dir("tests/data/traces/gpt-gloo-2");

#include <string>

#include "workload/iteration.h"
#include "workload/trace/trace_graph.h"

namespace anatomy::workload::trace {

// Reads and checks (check_trace) the traces in `dir`; throws InputError
// naming the folder when it holds none, or the file and record at fault.
TraceGraph read_trace_dir(const std::string& dir);

// The iteration anatomy simulated, as a trace: one rank per pipeline
// stage's representative GPU, each interval of its timeline a node in
// order (compute by phase with its duration; exposed communication as a
// collective of that kind with its duration, for replay with recorded
// communication; bubble and waiting as idle nodes, replayed as bubble),
// each depending on the one before.
TraceGraph graph_of_iteration(const IterationResult& r, const std::string& name);

}  // namespace anatomy::workload::trace
