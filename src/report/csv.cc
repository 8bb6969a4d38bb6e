#include "report/csv.h"

#include <fmt/format.h>

#include "report/format.h"

namespace anatomy::report {
namespace {

std::string key(std::string name) {
  for (auto& c : name)
    if (c == ' ') c = '_';
  return name;
}

uint32_t gpu_of(const std::vector<uint32_t>& stage_gpus, size_t s) { return s < stage_gpus.size() ? stage_gpus[s] : 0; }

void breakdown_rows(std::string& out, const std::string& stage, const std::string& gpu,
                    const workload::TimeBreakdown& b, core::SimTime iteration) {
  for (auto [name, t] : b.buckets())
    out += fmt::format("{},{},{},{},{:.3f}\n", stage, gpu, csv_field(name), exact_seconds(t),
                       iteration.count_ps() > 0
                           ? 100.0 * static_cast<double>(t.count_ps()) / static_cast<double>(iteration.count_ps())
                           : 0.0);
}

}  // namespace

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string breakdown_csv(const workload::IterationResult& r, const std::vector<uint32_t>& stage_gpus) {
  std::string out = "stage,gpu,bucket,seconds,percent\n";
  breakdown_rows(out, "mean", "", r.mean, r.iteration);
  for (size_t s = 0; s < r.stages.size(); ++s)
    breakdown_rows(out, fmt::format("{}", s), fmt::format("{}", gpu_of(stage_gpus, s)), r.stages[s], r.iteration);
  return out;
}

std::string per_rank_csv(const workload::IterationResult& r, const std::vector<uint32_t>& stage_gpus) {
  std::string out = "stage,gpu,iteration_s";
  for (auto [name, t] : workload::TimeBreakdown{}.buckets()) out += fmt::format(",{}_s", key(name));
  out += ",recompute_s\n";
  for (size_t s = 0; s < r.stages.size(); ++s) {
    out += fmt::format("{},{},{}", s, gpu_of(stage_gpus, s), exact_seconds(r.stages[s].total()));
    for (auto [name, t] : r.stages[s].buckets()) out += fmt::format(",{}", exact_seconds(t));
    out += fmt::format(",{}\n", exact_seconds(r.stages[s].recompute));
  }
  return out;
}

std::string timeline_csv(const workload::IterationResult& r, const std::vector<uint32_t>& stage_gpus) {
  std::string out = "stage,gpu,kind,start_s,end_s,duration_s,micro_batch,chunk\n";
  for (size_t s = 0; s < r.timeline.size(); ++s)
    for (const auto& iv : r.timeline[s])
      out += fmt::format("{},{},{},{},{},{},{},{}\n", s, gpu_of(stage_gpus, s), workload::to_string(iv.kind),
                         exact_seconds(iv.start), exact_seconds(iv.end), exact_seconds(iv.end - iv.start),
                         iv.micro_batch, iv.chunk);
  return out;
}

std::string collective_csv(const std::vector<coll::CollectiveResult>& rows) {
  std::string out = "bytes,time_us,algbw_GBps,busbw_GBps,algorithm,protocol\n";
  for (const auto& r : rows)
    out += fmt::format("{},{},{:.6f},{:.6f},{},{}\n", r.bytes.count(), exact_micros(r.time), r.algbw_GBps, r.busbw_GBps,
                       csv_field(r.algorithm), csv_field(r.protocol));
  return out;
}

}  // namespace anatomy::report
