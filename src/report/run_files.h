#pragma once
// The files a run leaves besides stdout, rendered (the CLI writes them):
// the HTML report, the Chrome/Perfetto trace and the CSV tables of one
// iteration (a whole job's steady iteration, with the job's own sections
// and timeline).

#include <string>
#include <vector>

#include "job/lifecycle.h"
#include "report/html_page.h"
#include "scenario/scenario.h"
#include "workload/iteration.h"

namespace anatomy::report {

// What was asked for: "" leaves a file out.
struct RunFilesRequest {
  std::string report;       // HTML file
  std::string trace;        // trace file
  std::string trace_ranks;  // pipeline stages to trace ("0,3", "0-7"); "" = all
  int trace_links = 16;     // busiest links as counter tracks
  std::string csv;          // folder: breakdown.csv, per_rank.csv, timeline.csv
};

struct RenderedFile {
  std::string path;
  std::string text;
  std::string flag;  // the flag that asked for it, for errors
};

// `extra` report sections (the whole job's) come before the iteration's.
std::vector<RenderedFile> run_files(const RunFilesRequest& want, const scenario::Scenario& s,
                                    const std::string& topology, const workload::IterationResult& r,
                                    const std::vector<Section>& extra = {},
                                    const std::vector<job::JobPhase>* lifecycle = nullptr,
                                    const job::AdaptationResult* adaptation = nullptr);

}  // namespace anatomy::report
