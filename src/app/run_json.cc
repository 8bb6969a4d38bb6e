#include "app/run_json.h"

#include "app/collective.h"
#include "app/edge.h"
#include "app/iteration.h"
#include "app/job.h"
#include "app/kernel.h"
#include "report/collective_text.h"
#include "report/edge_report.h"
#include "report/iteration_text.h"
#include "report/job_ensemble.h"
#include "report/kernel_text.h"

namespace anatomy::app {

nlohmann::ordered_json run_json(const scenario::Scenario& s) {
  if (s.collective) return report::collective_case_json(s, run_collective_case(s).result);
  if (s.kernel) return report::kernel_case_json(s, run_kernel_case(s));
  if (s.edge) {
    const EdgeRun run = run_edge(s);
    const report::EdgeContext context{&run.model, run.topology, run.compute, run.library};
    return report::edge_json(s, run.result, context);
  }
  if (s.job) return report::jobs_json(s, {run_job(s).result}, false);
  return report::iteration_json(s, run_iteration(s).result);
}

}  // namespace anatomy::app
