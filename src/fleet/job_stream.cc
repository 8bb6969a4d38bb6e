#include "fleet/job_stream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/input_file.h"
#include "core/rng.h"

namespace anatomy::fleet {
namespace {

inline constexpr int64_t kMaxTraceBytes = int64_t{1} << 32;  // 4 GiB: the PAI task table is 113 MB

void reject(StreamResult& r, const std::string& file, int line, const std::string& column, const std::string& why) {
  ++r.rejected;
  if (r.errors.size() < kMaxErrors) r.errors.push_back(fmt::format("{}:{}: {}: {}", file, line, column, why));
}

bool holds(const JobClass& c, int gpus) {
  return (c.min_gpus == 0 || gpus >= c.min_gpus) && (c.max_gpus == 0 || gpus <= c.max_gpus);
}

// The class a trace job of `gpus` GPUs takes: the first whose range holds it.
int class_for(const FleetSpec& spec, int gpus) {
  for (size_t i = 0; i < spec.classes.size(); ++i)
    if (holds(spec.classes[i], gpus)) return static_cast<int>(i);
  return -1;
}

// A trace's times in seconds stay within 1e11 (3,000 years: epoch seconds
// are 1.7e9 now), its jobs within 2^20 GPUs: beyond, a row is not real and
// its numbers would overflow the integer clock or GPU count.
constexpr double kMaxTraceSeconds = 1e11;
constexpr double kMaxTraceGpus = 1 << 20;

// Seconds (a trace's clock, up to ~1e9 since 1970) without losing the
// sub-microsecond part to a double's 53 bits: whole seconds exactly.
JobTime exact_seconds(double s) {
  const double whole = std::floor(s);
  return JobTime::sec(static_cast<int64_t>(whole)) + JobTime::from_seconds(s - whole);
}

// A trace job into a request (or a rejection naming `gpu_column`).
void add_job(StreamResult& r, const FleetSpec& spec, const std::string& file, int line, const std::string& id,
             const std::string& gpu_column, int gpus, double arrival_s, double duration_s) {
  if (spec.trace.max_gpus > 0) gpus = std::min(gpus, spec.trace.max_gpus);
  if (!(std::abs(arrival_s) <= kMaxTraceSeconds) || !(duration_s * spec.trace.time_scale <= 2 * kMaxTraceSeconds))
    return reject(r, file, line, "(times)", fmt::format("arrival {} s, running {} s: not times a trace records", arrival_s, duration_s));
  const int cls = class_for(spec, gpus);
  if (cls < 0)
    return reject(r, file, line, gpu_column, fmt::format("no job class in fleet.classes takes {} GPUs", gpus));
  JobRequest j;
  j.id = id;
  j.job_class = cls;
  j.gpus = gpus;
  j.arrival = exact_seconds(arrival_s);
  j.duration = exact_seconds(std::max(1.0, duration_s * spec.trace.time_scale));
  j.priority = spec.classes[cls].priority;
  j.source_line = line;
  r.jobs.push_back(std::move(j));
}

// Arrivals relative to the first, scaled, in order; the first max_jobs kept.
void finish(StreamResult& r, const FleetSpec& spec) {
  std::stable_sort(r.jobs.begin(), r.jobs.end(),
                   [](const JobRequest& a, const JobRequest& b) { return a.arrival < b.arrival; });
  if (spec.trace.max_jobs > 0 && r.jobs.size() > static_cast<size_t>(spec.trace.max_jobs))
    r.jobs.resize(static_cast<size_t>(spec.trace.max_jobs));
  if (r.jobs.empty()) return;
  const JobTime first = r.jobs.front().arrival;
  for (JobRequest& j : r.jobs) {
    j.arrival = j.arrival - first;
    if (spec.trace.time_scale != 1) j.arrival = JobTime::from_seconds(j.arrival.seconds() * spec.trace.time_scale);
  }
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) out.push_back(cur), cur.clear();
    else if (c != '\r') cur += c;
  }
  out.push_back(cur);
  return out;
}

bool parse_number(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end && *end == '\0' && std::isfinite(v);
}
bool parse_seconds(const std::string& s, double& v) { return parse_number(s, v) && std::abs(v) <= kMaxTraceSeconds; }

// Calls f(line_number, fields) for each non-empty line.
template <typename F>
void for_each_row(const std::string& text, F&& f) {
  size_t pos = 0;
  int line = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    ++line;
    const std::string row = text.substr(pos, nl - pos);
    if (!row.empty() && row != "\r") f(line, split_csv(row));
    pos = nl + 1;
  }
}

int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {  // proleptic Gregorian, days since 1970-01-01
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

}  // namespace

bool parse_datetime(const std::string& text, double& seconds) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d %2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &s, &tail) != 6) return false;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60 || h < 0 || mi < 0 || s < 0) return false;
  seconds = static_cast<double>(days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 +
                                h * 3600 + mi * 60 + s);
  return true;
}

StreamResult read_philly(const std::string& text, const std::string& file, const FleetSpec& spec) {
  StreamResult r;
  // Each job object of the top-level list, found by brace depth (strings
  // respected) so a malformed one is named by its line and skipped.
  size_t i = text.find('[');
  if (i == std::string::npos)
    throw core::InputError({file, 1, "(top level)"}, "a Philly job log is a JSON list of jobs ('[' not found)");
  int line = 1;
  for (size_t k = 0; k < i; ++k) line += text[k] == '\n';
  int depth = 0, start_line = 0;
  size_t start = 0;
  bool in_string = false, escape = false;
  for (++i; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (in_string) {
      if (escape) escape = false;
      else if (c == '\\') escape = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{') {
      if (depth++ == 0) start = i, start_line = line;
    } else if (c == '}' && depth > 0 && --depth == 0) {
      ++r.rows;
      nlohmann::json job;
      try {
        job = nlohmann::json::parse(text.begin() + static_cast<std::ptrdiff_t>(start),
                                    text.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      } catch (const nlohmann::json::exception&) {
        reject(r, file, start_line, "(job)", "not a JSON object");
        continue;
      }
      const std::string id = job.contains("jobid") && job["jobid"].is_string() ? job["jobid"].get<std::string>()
                                                                                 : fmt::format("line{}", start_line);
      double submitted = 0;
      if (!job.contains("submitted_time") || !job["submitted_time"].is_string() ||
          !parse_datetime(job["submitted_time"].get<std::string>(), submitted)) {
        reject(r, file, start_line, "submitted_time", "missing or not \"YYYY-MM-DD HH:MM:SS\"");
        continue;
      }
      if (!job.contains("attempts") || !job["attempts"].is_array() || job["attempts"].empty()) {
        reject(r, file, start_line, "attempts", "no attempt ran (the job never started)");
        continue;
      }
      double first = 0, last = 0;
      int gpus = 0;
      std::string bad;
      for (size_t a = 0; a < job["attempts"].size() && bad.empty(); ++a) {
        const auto& at = job["attempts"][a];
        double s = 0, e = 0;
        if (!at.is_object() || !at.contains("start_time") || !at["start_time"].is_string() ||
            !parse_datetime(at["start_time"].get<std::string>(), s))
          bad = fmt::format("attempts[{}].start_time", a);
        else if (!at.contains("end_time") || !at["end_time"].is_string() ||
                 !parse_datetime(at["end_time"].get<std::string>(), e) || e < s)
          bad = fmt::format("attempts[{}].end_time", a);
        if (!bad.empty()) break;
        if (a == 0) first = s;
        last = std::max(last, e);
        int held = 0;
        if (at.contains("detail") && at["detail"].is_array())
          for (const auto& d : at["detail"])
            if (d.is_object() && d.contains("gpus") && d["gpus"].is_array()) held += static_cast<int>(d["gpus"].size());
        gpus = std::max(gpus, held);
      }
      if (!bad.empty()) {
        reject(r, file, start_line, bad, "missing, not \"YYYY-MM-DD HH:MM:SS\", or before the start");
        continue;
      }
      if (gpus == 0) {
        ++r.skipped;
        continue;
      }
      add_job(r, spec, file, start_line, id, "attempts.detail.gpus", gpus, submitted, last - first);
    }
  }
  finish(r, spec);
  return r;
}

StreamResult read_helios(const std::string& text, const std::string& file, const FleetSpec& spec) {
  StreamResult r;
  std::map<std::string, size_t> col;
  for_each_row(text, [&](int line, const std::vector<std::string>& f) {
    if (col.empty()) {
      for (size_t i = 0; i < f.size(); ++i) col[f[i]] = i;
      for (const char* need : {"job_id", "gpu_num", "submit_time", "start_time", "end_time"})
        if (!col.count(need))
          throw core::InputError({file, line, need},
                                 "the header names no such column (a Helios cluster_log.csv has job_id, gpu_num, "
                                 "submit_time, start_time, end_time)");
      return;
    }
    ++r.rows;
    auto field = [&](const char* name) -> std::string {
      const size_t i = col.at(name);
      return i < f.size() ? f[i] : std::string();
    };
    double gpus = 0, submit = 0, start = 0, end = 0;
    if (!parse_number(field("gpu_num"), gpus) || gpus < 0 || gpus > kMaxTraceGpus || gpus != std::floor(gpus))
      return reject(r, file, line, "gpu_num", fmt::format("'{}' is not a whole number of GPUs", field("gpu_num")));
    for (const char* t : {"submit_time", "start_time", "end_time"}) {
      double& v = t[1] == 'u' ? submit : t[1] == 't' ? start : end;
      if (!parse_datetime(field(t), v))
        return reject(r, file, line, t, fmt::format("'{}' is not \"YYYY-MM-DD HH:MM:SS\"", field(t)));
    }
    if (end < start) return reject(r, file, line, "end_time", "before start_time");
    if (gpus == 0) {
      ++r.skipped;
      return;
    }
    add_job(r, spec, file, line, field("job_id"), "gpu_num", static_cast<int>(gpus), submit, end - start);
  });
  finish(r, spec);
  return r;
}

StreamResult read_alibaba_pai(const std::string& task_text, const std::string& task_file, const std::string& job_text,
                              const std::string& job_file, const FleetSpec& spec) {
  StreamResult r;
  std::map<std::string, double> submitted;  // job table: job_name -> start_time (submission)
  if (!job_text.empty())
    for_each_row(job_text, [&](int line, const std::vector<std::string>& f) {
      if (!f.empty() && f[0] == "job_name") return;  // a header some copies add
      double t = 0;
      if (f.size() < 6) return reject(r, job_file, line, "(row)", fmt::format("{} columns; a job row has 6", f.size()));
      if (!parse_seconds(f[4], t)) return reject(r, job_file, line, "start_time", fmt::format("'{}' is not a number of seconds", f[4]));
      submitted[f[0]] = t;
    });
  struct Job {
    double gpus = 0, start = 0, end = 0;
    int line = 0;
    bool bad = false;
  };
  std::map<std::string, Job> jobs;
  std::vector<std::string> order;
  for_each_row(task_text, [&](int line, const std::vector<std::string>& f) {
    if (!f.empty() && f[0] == "job_name") return;
    if (f.size() < 10) return reject(r, task_file, line, "(row)", fmt::format("{} columns; a task row has 10", f.size()));
    double inst = 0, start = 0, end = 0, plan_gpu = 0;
    if (!parse_number(f[2], inst) || inst < 0 || inst > kMaxTraceGpus)
      return reject(r, task_file, line, "inst_num", fmt::format("'{}' is not a count", f[2]));
    if (!parse_seconds(f[4], start)) return reject(r, task_file, line, "start_time", fmt::format("'{}' is not a number of seconds", f[4]));
    if (!parse_seconds(f[5], end) || end < start)
      return reject(r, task_file, line, "end_time", fmt::format("'{}' is not a number of seconds at or after start_time", f[5]));
    if (!f[8].empty() && (!parse_number(f[8], plan_gpu) || plan_gpu < 0 || plan_gpu > 100 * kMaxTraceGpus))
      return reject(r, task_file, line, "plan_gpu", fmt::format("'{}' is not a percentage of a GPU", f[8]));
    auto [it, fresh] = jobs.try_emplace(f[0]);
    Job& j = it->second;
    if (fresh) {
      order.push_back(f[0]);
      j.line = line, j.start = start, j.end = end;
    }
    j.gpus += inst * plan_gpu / 100;
    j.start = std::min(j.start, start);
    j.end = std::max(j.end, end);
  });
  for (const std::string& name : order) {
    const Job& j = jobs[name];
    ++r.rows;
    if (j.gpus > kMaxTraceGpus) {
      reject(r, task_file, j.line, "plan_gpu", fmt::format("its tasks add up to {} GPUs, more than 2^20", j.gpus));
      continue;
    }
    const int gpus = static_cast<int>(std::ceil(j.gpus - 1e-9));
    if (gpus <= 0) {
      ++r.skipped;
      continue;
    }
    const auto sub = submitted.find(name);
    const double arrival = sub != submitted.end() ? std::min(sub->second, j.start) : j.start;
    add_job(r, spec, task_file, j.line, name, "plan_gpu", gpus, arrival, j.end - j.start);
  }
  finish(r, spec);
  return r;
}

StreamResult job_stream(const FleetSpec& spec) {
  StreamResult r;
  for (const JobRequest& j : spec.jobs) r.jobs.push_back(j);
  // The generator: Poisson arrivals, sizes and classes by weight, lognormal
  // running times (clamped), each from its own named stream.
  const GeneratorSpec& g = spec.generator;
  if (g.jobs > 0) {
    const core::RngStreams streams(spec.seed);
    core::Rng arrivals = streams.stream("fleet.arrivals"), sizes = streams.stream("fleet.sizes"),
              lengths = streams.stream("fleet.durations"), kinds = streams.stream("fleet.classes");
    std::vector<std::pair<int, double>> sizes_mix = g.sizes;
    if (sizes_mix.empty()) sizes_mix.emplace_back(8, 1.0);
    double size_total = 0, class_total = 0;
    for (const auto& [gpus, w] : sizes_mix) size_total += w;
    for (const JobClass& c : spec.classes) class_total += c.weight;
    double t = 0;
    for (int i = 0; i < g.jobs; ++i) {
      JobRequest j;
      j.id = fmt::format("g{}", i);
      double pick = sizes.uniform01() * size_total;
      j.gpus = sizes_mix.back().first;
      for (const auto& [gpus, w] : sizes_mix)
        if ((pick -= w) < 0) {
          j.gpus = gpus;
          break;
        }
      // The class: by weight among those whose GPU range holds the size
      // (all of them when none does).
      double in_range = 0;
      for (const JobClass& c : spec.classes) in_range += holds(c, j.gpus) ? c.weight : 0;
      const bool any = in_range <= 0;
      pick = kinds.uniform01() * (any ? class_total : in_range);
      j.job_class = -1;
      for (size_t c = 0; c < spec.classes.size(); ++c) {
        if (!any && !holds(spec.classes[c], j.gpus)) continue;
        j.job_class = static_cast<int>(c);
        if ((pick -= spec.classes[c].weight) < 0) break;
      }
      j.arrival = JobTime::from_seconds(t);
      t += arrivals.exponential(1.0 / g.interarrival.seconds());
      const double d = g.duration_median.seconds() * std::exp(lengths.normal(0, g.duration_sigma));
      j.duration = JobTime::from_seconds(std::clamp(d, 1.0, g.duration_max.seconds()));
      j.priority = spec.classes[j.job_class].priority;
      r.jobs.push_back(std::move(j));
    }
  }
  if (spec.trace.enabled) {
    StreamResult t;
    // Naming the field that named the file when the file cannot be read.
    const auto read = [](const std::string& path, const char* field) {
      try {
        return core::read_input_file(path, kMaxTraceBytes, "trace file");
      } catch (const core::InputError& e) {
        throw core::as_error_of_field(e, field);
      }
    };
    const std::string text = read(spec.trace.file, "fleet.trace.file");
    switch (spec.trace.format) {
      case TraceFormat::kPhilly: t = read_philly(text, spec.trace.file, spec); break;
      case TraceFormat::kHelios: t = read_helios(text, spec.trace.file, spec); break;
      case TraceFormat::kAlibabaPai: {
        const std::string jobs =
            spec.trace.jobs_file.empty() ? "" : read(spec.trace.jobs_file, "fleet.trace.jobs_file");
        t = read_alibaba_pai(text, spec.trace.file, jobs, spec.trace.jobs_file, spec);
        break;
      }
    }
    r.rows = t.rows, r.skipped = t.skipped, r.rejected = t.rejected, r.errors = std::move(t.errors);
    for (JobRequest& j : t.jobs) r.jobs.push_back(std::move(j));
  }
  std::stable_sort(r.jobs.begin(), r.jobs.end(),
                   [](const JobRequest& a, const JobRequest& b) { return a.arrival < b.arrival; });
  return r;
}

const char* to_string(Policy p) {
  switch (p) {
    case Policy::kFifo: return "fifo";
    case Policy::kBackfill: return "backfill";
    case Policy::kGang: return "gang";
    case Policy::kPriority: return "priority";
  }
  return "?";
}

const char* to_string(TraceFormat f) {
  switch (f) {
    case TraceFormat::kAlibabaPai: return "alibaba-pai";
    case TraceFormat::kPhilly: return "philly";
    case TraceFormat::kHelios: return "helios";
  }
  return "?";
}

}  // namespace anatomy::fleet
