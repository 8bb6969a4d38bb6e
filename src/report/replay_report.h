#pragma once
// A replayed trace as `anatomy replay` prints it: where it came from (the
// trace's format, ranks and nodes; the machine it ran on and the one it
// replays on), every assumption the replay made, the step time, where each
// rank's step goes (the iteration's buckets) and the per-rank table; or
// the same figures as JSON ("iteration_s", "breakdown_s" as `run` has
// them, "ranks_breakdown_s" per rank); and the page facts for the HTML
// report and `compare`.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/page_info.h"
#include "scenario/scenario.h"
#include "workload/trace/replay.h"
#include "workload/trace/trace_graph.h"

namespace anatomy::report {

struct ReplayView {
  const workload::trace::TraceGraph* trace = nullptr;
  const workload::trace::ReplayResult* replay = nullptr;
  const scenario::Scenario* target = nullptr;
  std::string target_label;    // the --on file, or "the recorded machine (...)"
  std::string source_machine;  // the recorded machine's file ("" none)
  std::string topology;
  int ranks = 0;
  std::vector<std::string> assumptions;
};

std::string replay_text(const ReplayView& v);
nlohmann::ordered_json replay_json(const ReplayView& v);
PageInfo replay_page_info(const ReplayView& v);

}  // namespace anatomy::report
