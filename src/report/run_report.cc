#include "report/run_report.h"

#include <fmt/format.h>

#include "report/format.h"
#include "report/html_page.h"
#include "report/sections.h"

namespace anatomy::report {

std::string run_report_html(const workload::IterationResult& r, const PageInfo& info,
                            const std::vector<uint32_t>& stage_gpus, core::Bytes hbm_capacity,
                            const std::vector<Section>& extra) {
  HtmlPage page(info.title);
  if (!info.source.empty()) page.add_fact("scenario", info.source);
  for (const auto& [label, value] : info.facts) page.add_fact(label, value);
  page.add_figure("iteration time", human_time(r.iteration), fmt::format("{} micro-batches", r.micro_batches));
  page.add_figure("tokens/s", fmt::format("{:.0f}", r.tokens_per_s));
  page.add_figure("TFLOP/s per GPU", fmt::format("{:.1f}", r.tflops_per_gpu),
                  r.megatron_tflops_per_gpu > 0 ? fmt::format("{:.1f} counting recomputation", r.megatron_tflops_per_gpu)
                                                : std::string("LoRA: no weight gradients but the adapters'"));
  page.add_figure("MFU", percent(r.mfu), fmt::format("of {:.0f} TFLOP/s peak", r.peak_tflops));
  page.add_figure("memory per GPU", human_gb(r.memory.total()),
                  hbm_capacity.count() > 0 ? "of " + human_gb(hbm_capacity) : "");
  if (!r.memory_warning.empty()) page.add_warning("memory_check: warn — " + r.memory_warning);
  if (!r.placement_note.empty()) page.add_warning("placement — " + r.placement_note);
  for (const auto& section : extra) page.add_section(section);
  page.add_section(breakdown_section(r, stage_gpus));
  page.add_section(timeline_section(r, stage_gpus));
  page.add_section(links_section(r));
  page.add_section(memory_section(r, hbm_capacity));
  page.add_section(inputs_section(info.inputs));
  return page.str();
}

}  // namespace anatomy::report
