#include "report/fleet_trace.h"

#include <cmath>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace anatomy::report {
namespace {

// A JSON string literal of `text` (escaped).
std::string json_string(const std::string& text) { return nlohmann::json(text).dump(); }

// Seconds as microseconds, to the nanosecond (the fleet's clock).
std::string micros(double s) { return fmt::format("{:.3f}", std::round(s * 1e9) / 1e3); }

}  // namespace

std::string fleet_trace(const fleet::FleetResult& r, const std::string& name) {
  std::string out = "{\"traceEvents\": [\n";
  const auto meta = [&](int pid, int tid, const char* what, const std::string& value) {
    out += fmt::format("{{\"ph\": \"M\", \"pid\": {}, \"tid\": {}, \"name\": \"{}\", \"args\": {{\"name\": {}}}}},\n", pid, tid,
                       what, json_string(value));
  };
  meta(1, 0, "process_name", name + " cluster");
  meta(2, 0, "process_name", "jobs");
  meta(3, 0, "process_name", "links");
  const auto counter = [&](int pid, const std::string& what, double t, const std::string& args) {
    out += fmt::format("{{\"ph\": \"C\", \"pid\": {}, \"name\": {}, \"ts\": {}, \"args\": {{{}}}}},\n", pid, json_string(what),
                       micros(t), args);
  };
  for (size_t b = 0; b < r.utilization_series.size(); ++b) {
    const double t = r.bin_s * static_cast<double>(b);
    counter(1, "GPUs held", t, fmt::format("\"share\": {:.6f}", r.utilization_series[b]));
    counter(1, "GPUs productive", t, fmt::format("\"share\": {:.6f}", r.productive_series[b]));
  }
  for (size_t j = 0; j < r.jobs.size(); ++j) {
    const fleet::JobOutcome& job = r.jobs[j];
    const int tid = static_cast<int>(j) + 1;
    meta(2, tid, "thread_name", fmt::format("{} ({}, {} GPUs)", job.id, job.job_class, job.gpus));
    for (const fleet::PhaseSpan& p : job.phases)
      out += fmt::format(
          "{{\"ph\": \"X\", \"pid\": 2, \"tid\": {}, \"name\": \"{}\", \"ts\": {}, \"dur\": {}, \"args\": {{\"slowdown\": "
          "{:.6f}}}}},\n",
          tid, p.phase, micros(p.start_s), micros(p.end_s - p.start_s), p.slowdown);
  }
  for (const fleet::HeatRow& h : r.heat)
    for (size_t b = 0; b < h.load.size(); ++b)
      counter(3, h.link, r.bin_s * static_cast<double>(b), fmt::format("\"load\": {:.6f}", h.load[b]));
  out += "{\"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"name\": \"process_sort_index\", \"args\": {\"sort_index\": 1}}\n";
  out += "]}\n";
  return out;
}

}  // namespace anatomy::report
