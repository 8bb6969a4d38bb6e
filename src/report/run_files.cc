#include "report/run_files.h"

#include <filesystem>

#include "report/csv.h"
#include "report/run_report.h"
#include "report/scenario_page.h"
#include "report/stages.h"
#include "report/trace.h"

namespace anatomy::report {

std::vector<RenderedFile> run_files(const RunFilesRequest& want, const scenario::Scenario& s,
                                    const std::string& topology, const workload::IterationResult& r,
                                    const std::vector<Section>& extra, const std::vector<job::JobPhase>* lifecycle,
                                    const job::AdaptationResult* adaptation) {
  std::vector<RenderedFile> out;
  const std::vector<uint32_t> gpus = r.stage_gpus.empty() ? representative_gpus(s.parallelism) : r.stage_gpus;
  if (!want.report.empty()) {
    const PageInfo info = scenario_page_info(s, topology, &r);
    out.push_back({want.report, run_report_html(r, info, gpus, s.cluster.system.gpu.hbm_capacity, extra), "--report"});
  }
  if (!want.trace.empty()) {
    TraceOptions t;
    t.name = s.name.empty() ? s.model.name : s.name;
    if (!want.trace_ranks.empty()) t.stages = parse_stage_list(want.trace_ranks, s.parallelism.pp, "--trace-ranks");
    t.links = want.trace_links;
    t.lifecycle = lifecycle;
    t.adaptation = adaptation;
    out.push_back({want.trace, chrome_trace(r, gpus, t), "--trace"});
  }
  if (!want.csv.empty()) {
    const std::filesystem::path dir(want.csv);
    out.push_back({(dir / "breakdown.csv").string(), breakdown_csv(r, gpus), "--csv"});
    out.push_back({(dir / "per_rank.csv").string(), per_rank_csv(r, gpus), "--csv"});
    out.push_back({(dir / "timeline.csv").string(), timeline_csv(r, gpus), "--csv"});
  }
  return out;
}

}  // namespace anatomy::report
