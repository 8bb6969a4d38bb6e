#pragma once
// The report section of a whole training run (`anatomy run` on a scenario
// with a job section): where the job's GPU-hours went, cause by cause, with
// dollars when a price is given, the interruptions by cause, and the
// checkpoint interval against Young's and Daly's optimum.

#include "job/lifecycle.h"
#include "report/html_page.h"

namespace anatomy::report {

Section job_section(const job::JobResult& r);

}  // namespace anatomy::report
