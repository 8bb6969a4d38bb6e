// libFuzzer target: the public cluster-trace readers (Microsoft Philly's
// cluster_job_log, SenseTime Helios' cluster_log.csv, Alibaba PAI's task
// and job tables) and the fleet simulation that replays them, on a small
// cluster with light job classes. The first byte picks the schema ('p':
// Philly, 'h': Helios, else PAI: task table, then job table); the rest is
// the files (fuzz/fuzz_files.h). Every input must replay, with each
// rejected row reported as "file:line: column: message", or give one
// core::InputError naming a file; anything else is a finding.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "app/fleet.h"
#include "core/error.h"
#include "fuzz_files.h"
#include "scenario/scenario.h"

namespace {

// 64 GPUs under backfilling, every job class light (no iteration to
// simulate), so each input costs milliseconds.
std::string scenario_for(const std::string& format, const std::string& file, const std::string& jobs_file) {
  std::string s =
      "name: cluster-trace fuzz\n"
      "cluster: {system: dgx-h100, gpus: 64, fabric: {radix: 16, oversubscription: 2}}\n"
      "fleet:\n"
      "  duration: 2d\n"
      "  scheduler: {policy: backfill, placement: packed}\n"
      "  classes:\n"
      "    - {name: small, max_gpus: 8, step: 500ms, all_reduce: 1GB}\n"
      "    - {name: large, min_gpus: 9, step: 1s, all_reduce: 4GB, checkpoint_interval: 30min, checkpoint_bytes: 2GB}\n"
      "  trace: {format: " + format + ", file: \"" + file + "\"";
  if (!jobs_file.empty()) s += ", jobs_file: \"" + jobs_file + "\"";
  return s + "}\n";
}

bool is_row_error(const std::string& e, const std::string& dir) {
  // dir/<file>:<line>: <column>: ...
  if (e.rfind(dir + "/", 0) != 0) return false;
  const size_t colon = e.find(':', dir.size());
  if (colon == std::string::npos || colon + 1 >= e.size() || !std::isdigit(static_cast<unsigned char>(e[colon + 1])))
    return false;
  size_t i = colon + 1;
  while (i < e.size() && std::isdigit(static_cast<unsigned char>(e[i]))) ++i;
  return e.compare(i, 2, ": ") == 0 && e.find(": ", i + 2) != std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  using namespace anatomy;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const char kind = input[0];
  const std::vector<std::string> files = fuzz::split_files(input.substr(1), kind == 'p' || kind == 'h' ? 1 : 2);
  const std::string dir = fuzz::fresh_dir("anatomy-cluster-trace-fuzz");
  const std::string format = kind == 'p' ? "philly" : kind == 'h' ? "helios" : "alibaba-pai";
  const std::string file = dir + (kind == 'p' ? "/cluster_job_log" : kind == 'h' ? "/cluster_log.csv" : "/pai_task_table.csv");
  fuzz::write_file(file, files[0]);
  std::string jobs_file;
  if (files.size() > 1) fuzz::write_file(jobs_file = dir + "/pai_job_table.csv", files[1]);
  try {
    const scenario::Scenario s = scenario::parse_scenario(scenario_for(format, file, jobs_file), "fuzz.yaml");
    const app::FleetRun r = app::run_fleet(s);
    for (const std::string& e : r.result.stream.errors)
      if (!is_row_error(e, dir)) {
        std::fprintf(stderr, "rejected row without file, line and column: %s\n", e.c_str());
        std::abort();
      }
  } catch (const core::InputError& e) {
    if (!fuzz::names_a_file_in(e.where().file, dir) && e.where().file != "fuzz.yaml") {
      std::fprintf(stderr, "error without a file: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
