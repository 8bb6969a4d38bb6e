#pragma once
// Use case: replay a recorded job (`anatomy replay TRACE_DIR`): its traces
// read into one graph per rank (workload/trace/), run again on a model of
// the machine it ran on, or of another (`--on scenario.yaml`: that
// scenario's cluster, network and compute model; its model and plan are
// not used), with compute rescaled by the two compute models where the
// accelerator differs, and collectives re-timed by coll on the target's
// fabric.
//
// The machine the trace was recorded on is `from` when given, else
// TRACE_DIR/machine.yaml when the folder has one (tools/trace_capture.py
// writes it).
//
//   ReplayRequest q;
//   q.trace_dir = "tests/data/traces/gpt-gloo-2";
//   const ReplayRun r = app::run_replay(q);
//   r.replay.result.iteration;  // the step time

#include <optional>
#include <string>
#include <vector>

#include "scenario/scenario.h"
#include "workload/trace/replay.h"
#include "workload/trace/trace_graph.h"

namespace anatomy::app {

struct ReplayRequest {
  std::string trace_dir;
  std::string on;    // target scenario ("" = the recorded machine)
  std::string from;  // the recorded machine's scenario ("" = TRACE_DIR/machine.yaml, if there)
  int ranks = 0;     // 0: the target cluster's GPUs when a multiple of the trace's ranks, else the trace's
  bool recorded_comm = false;
  std::vector<scenario::Override> overrides;  // --set, --seed: apply to the target
};

struct ReplayRun {
  workload::trace::TraceGraph trace;
  workload::trace::ReplayResult replay;
  scenario::Scenario target;        // the machine it replayed on
  std::string target_label;         // "the recorded machine (machine.yaml)" / the --on file
  std::string source_machine;       // the recorded machine's file, "" when none
  std::string topology;             // the built cluster in one line
  int ranks = 0;
  std::vector<std::string> assumptions;  // every note, in order
};

// Throws InputError naming the file and record at fault, or the flag.
ReplayRun run_replay(const ReplayRequest& q);

}  // namespace anatomy::app
