#pragma once
// The HTML report of one training iteration (`anatomy run --report`):
// headline figures, where the time goes, the timeline, the busiest links,
// memory per GPU and the inputs — one self-contained page.
//
//   std::string html = run_report_html(result, info, representative_gpus(plan), gpu.hbm_capacity);

#include <cstdint>
#include <string>
#include <vector>

#include "core/units.h"
#include "report/html_page.h"
#include "report/page_info.h"
#include "workload/iteration.h"

namespace anatomy::report {

// `extra` sections (e.g. the whole job's, report/job_section.h) come first.
std::string run_report_html(const workload::IterationResult& r, const PageInfo& info,
                            const std::vector<uint32_t>& stage_gpus, core::Bytes hbm_capacity,
                            const std::vector<Section>& extra = {});

}  // namespace anatomy::report
