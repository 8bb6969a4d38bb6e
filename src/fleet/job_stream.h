#pragma once
// Where a fleet's jobs come from: the scenario's own list, a seeded
// generator, and readers for the schemas of public GPU-cluster traces.
//
// Trace schemas (columns as their publishers document them):
//  * Alibaba cluster-trace-gpu-v2020 (PAI), pai_task_table.csv, no header:
//      job_name, task_name, inst_num, status, start_time, end_time,
//      plan_cpu, plan_mem, plan_gpu, gpu_type
//    times in seconds; plan_gpu in percent of one GPU per instance, so a
//    job's GPUs are ceil(sum over its tasks of inst_num x plan_gpu / 100);
//    its running time runs from its first task's start to its last task's
//    end. pai_job_table.csv (job_name, inst_id, user, status, start_time,
//    end_time), when given, supplies the submission time (its start_time).
//    The instance table adds per-machine rows the fleet does not need.
//  * Microsoft Philly, cluster_job_log: a JSON list of jobs, each
//      {jobid, user, vc, status, submitted_time, attempts: [{start_time,
//       end_time, detail: [{ip, gpus: [...]}]}]}
//    times "YYYY-MM-DD HH:MM:SS"; GPUs: the most any attempt held; running
//    time: first attempt's start to last attempt's end.
//  * SenseTime Helios, cluster_log.csv, with a header naming (at least)
//      job_id, gpu_num, submit_time, start_time, end_time
//    times "YYYY-MM-DD HH:MM:SS"; jobs with gpu_num 0 (CPU jobs) skipped.
// Arrivals are made relative to the first one. Jobs without GPUs are
// skipped (counted); a malformed row is rejected with
// "file:line: column: message" (counted, the first ones kept) and the rest
// of the file is still read. The model and plan a trace lacks come from
// the job class whose GPU range the job falls in (FleetSpec::classes).

#include <string>
#include <vector>

#include "fleet/fleet_spec.h"

namespace anatomy::fleet {

struct StreamResult {
  std::vector<JobRequest> jobs;  // sorted by arrival, then id
  int rows = 0;                  // trace rows (jobs) read
  int skipped = 0;               // trace jobs without GPUs
  int rejected = 0;              // malformed rows
  std::vector<std::string> errors;  // the first kMaxErrors, "file:line: column: message"
};
inline constexpr size_t kMaxErrors = 20;

// Every job of the spec: its list, the generator's, the trace's.
// Throws InputError when a trace file cannot be read at all.
StreamResult job_stream(const FleetSpec& spec);

// The readers, on text (for tests); `file` names it in errors.
StreamResult read_philly(const std::string& text, const std::string& file, const FleetSpec& spec);
StreamResult read_helios(const std::string& text, const std::string& file, const FleetSpec& spec);
StreamResult read_alibaba_pai(const std::string& task_text, const std::string& task_file,
                              const std::string& job_text, const std::string& job_file, const FleetSpec& spec);

// Seconds since 1970 of "YYYY-MM-DD HH:MM:SS" (UTC); false when malformed.
bool parse_datetime(const std::string& text, double& seconds);

}  // namespace anatomy::fleet
