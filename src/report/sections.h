#pragma once
// The sections of a run report, one function (and one file) each. Every
// function takes the model's result and returns a Section: a short
// paragraph saying what the figure shows and how to read it, then the
// figure (inline SVG) and the numbers behind it (a table).

#include <cstdint>
#include <vector>

#include "core/units.h"
#include "report/html_page.h"
#include "report/page_info.h"
#include "workload/iteration.h"

namespace anatomy::report {

// Stacked bars: the mean GPU and each stage's representative, by bucket.
Section breakdown_section(const workload::IterationResult& r, const std::vector<uint32_t>& stage_gpus);

// Gantt of every stage's representative GPU over the iteration.
Section timeline_section(const workload::IterationResult& r, const std::vector<uint32_t>& stage_gpus);

// The busiest links' utilization over the iteration.
Section links_section(const workload::IterationResult& r);

// Memory per GPU by kind, against the GPU's HBM.
Section memory_section(const workload::IterationResult& r, core::Bytes hbm_capacity);

// The inputs, grouped by section.
Section inputs_section(const std::vector<InputRow>& inputs);

}  // namespace anatomy::report
