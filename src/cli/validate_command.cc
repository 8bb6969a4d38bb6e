#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/job_output.h"
#include "cli/network_factory.h"
#include "cli/run_command.h"
#include "coll/collective.h"
#include "core/error.h"
#include "report/progress.h"
#include "topo/builders.h"

namespace anatomy::cli {
namespace {

struct CaseResult {
  std::string file, case_id, metric, source, note, bound = "equal";
  double published = 0, simulated = 0;
  bool ran = false;  // false: the model refused the case (e.g. it does not fit in memory); `note` says why
  core::SimTime simulated_time;  // what the case simulated (for the progress line)
  double error() const {
    if (bound == "at_least" && simulated >= published) return 0;
    if (bound == "at_most" && simulated <= published) return 0;
    return (simulated - published) / published;
  }
};

double metric_of(const std::string& metric, const workload::IterationResult& r) {
  if (metric == "tflops_per_gpu") return r.tflops_per_gpu;
  if (metric == "megatron_tflops_per_gpu") return r.megatron_tflops_per_gpu;
  if (metric == "mfu") return r.mfu;
  if (metric == "tokens_per_s") return r.tokens_per_s;
  if (metric == "iteration_s") return r.iteration.seconds();
  throw core::InputError({"", 0, "expected.metric"}, fmt::format("unknown metric '{}'", metric));
}

CaseResult run_case(const std::string& path) {
  const scenario::Scenario s = scenario::load_scenario(path);
  if (!s.expected) throw core::InputError({path, 0, "expected"}, "a validation case needs an expected: section");
  CaseResult c;
  c.file = path;
  c.case_id = s.expected->case_id;
  c.metric = s.expected->metric;
  c.published = s.expected->value;
  c.source = s.expected->source;
  c.bound = s.expected->bound;
  if (s.job) {
    const job::JobResult jr = simulate_job(s).result;
    if (c.metric == "interruptions") c.simulated = jr.interruptions;
    else if (c.metric == "ettr") c.simulated = jr.ettr;
    else throw core::InputError({path, 0, "expected.metric"}, "a job case measures interruptions or ettr");
    c.note = fmt::format("{} interruptions, ETTR {:.1f}%, checkpoint every {}", jr.interruptions, 100 * jr.ettr,
                         core::format_time(jr.configured_interval));
    c.ran = true;
    return c;
  }
  if (s.collective) {
    const coll::CollectiveResult res = simulate_collective_case(s, nullptr);
    if (c.metric == "busbw_GBps") c.simulated = res.busbw_GBps;
    else if (c.metric == "time_us") c.simulated = res.time.micros();
    else throw core::InputError({path, 0, "expected.metric"}, "a collective case measures busbw_GBps or time_us");
    c.note = res.algorithm + "/" + res.protocol;
    c.simulated_time = res.time;
    c.ran = true;
    return c;
  }
  workload::IterationResult r;
  try {
    r = simulate_scenario(s, nullptr);
  } catch (const core::InputError& e) {
    // The case is reported as a miss with the model's reason, not dropped.
    c.note = e.what();
    return c;
  }
  c.ran = true;
  c.simulated_time = r.iteration;
  c.simulated = metric_of(c.metric, r);
  c.note = fmt::format("iteration {:.2f} s, MFU {:.1f}%", r.iteration.seconds(), 100 * r.mfu);
  if (!r.memory_warning.empty()) c.note += "; memory model: " + r.memory_warning;
  return c;
}

int validate(const std::string& dir_arg, const std::string& format, bool quiet) {
  if (format != "table" && format != "json")
    throw core::InputError({"", 0, "--format"}, fmt::format("unknown format '{}' (known: table, json)", format));
  const std::string dir = dir_arg.empty() ? std::string(ANATOMY_DATA_DIR) + "/validation" : dir_arg;
  if (!std::filesystem::is_directory(dir)) throw core::InputError({"", 0, "dir"}, fmt::format("'{}' is not a folder", dir));
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw core::InputError({"", 0, "dir"}, fmt::format("no .yaml cases in '{}'", dir));
  std::vector<CaseResult> cases;
  {
    report::Progress progress(stderr, report::progress_wanted(quiet), static_cast<int64_t>(files.size()), "cases");
    for (const auto& f : files) {
      cases.push_back(run_case(f));
      progress.advance(cases.back().simulated_time);
    }
  }

  // The targets are over the training throughput/MFU cases; the
  // collective cases are summarized on their own.
  struct Summary {
    size_t n = 0, refused = 0;
    double median = 0, worst = 0;
  };
  auto summarize = [&](bool training) {
    std::vector<double> sorted;
    Summary out;
    for (const auto& c : cases) {
      const bool is_training = c.metric != "busbw_GBps" && c.metric != "time_us" && c.metric != "interruptions" &&
                               c.metric != "ettr";
      if (is_training != training) continue;
      if (c.ran) sorted.push_back(std::fabs(c.error()));
      else ++out.refused;
    }
    std::sort(sorted.begin(), sorted.end());
    out.n = sorted.size();
    if (out.n > 0) {
      out.median = out.n % 2 ? sorted[out.n / 2] : (sorted[out.n / 2 - 1] + sorted[out.n / 2]) / 2;
      out.worst = sorted.back();
    }
    return out;
  };
  const Summary train = summarize(true), colls = summarize(false);

  if (format == "json") {
    nlohmann::ordered_json j;
    j["cases"] = nlohmann::json::array();
    for (const auto& c : cases) {
      nlohmann::ordered_json row;
      row["case"] = c.case_id;
      row["metric"] = c.metric;
      row["published"] = c.published;
      if (c.ran) {
        row["simulated"] = c.simulated;
        row["error_pct"] = 100 * c.error();
      } else {
        row["simulated"] = nullptr;
        row["error_pct"] = nullptr;
      }
      row["source"] = c.source;
      row["file"] = std::filesystem::path(c.file).filename().string();
      row["note"] = c.note;
      j["cases"].push_back(row);
    }
    j["training_median_abs_error_pct"] = 100 * train.median;
    j["training_worst_abs_error_pct"] = 100 * train.worst;
    j["training_cases_simulated"] = train.n;
    j["training_cases_not_simulated"] = train.refused;
    j["collective_median_abs_error_pct"] = 100 * colls.median;
    j["collective_worst_abs_error_pct"] = 100 * colls.worst;
    j["collective_cases_simulated"] = colls.n;
    std::puts(j.dump(2).c_str());
    return 0;
  }
  fmt::print("# anatomy validate: {} published cases from {}\n", cases.size(), dir);
  fmt::print("{:<22} {:<24} {:>11} {:>11} {:>8}  {}\n", "case", "metric", "published", "simulated", "error", "notes");
  for (const auto& c : cases) {
    if (c.ran)
      fmt::print("{:<22} {:<24} {:>11.4g} {:>11.4g} {:>+7.1f}%  {}{}\n", c.case_id, c.metric,
                 c.published, c.simulated, 100 * c.error(),
                 c.bound == "at_least" ? "(published: at least) " : c.bound == "at_most" ? "(published: at most) " : "",
                 c.note);
    else
      fmt::print("{:<22} {:<24} {:>11.4g} {:>11} {:>8}  not simulated: {}\n", c.case_id, c.metric, c.published, "-",
                 "-", c.note);
  }
  fmt::print("\ntraining throughput/MFU: median |error| {:.1f}%, worst {:.1f}% over {} simulated cases", 100 * train.median,
             100 * train.worst, train.n);
  if (train.refused > 0) fmt::print("; {} not simulated (see notes)", train.refused);
  fmt::print("\nother cases (collectives, whole jobs): median |error| {:.1f}%, worst {:.1f}% over {} cases\n",
             100 * colls.median, 100 * colls.worst, colls.n);
  return 0;
}

}  // namespace

void add_validate_command(CLI::App& app, int& exit_code) {
  auto dir = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("table");
  auto quiet = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("validate", "run every published case under validation/ and compare");
  sub->add_option("dir", *dir, "folder of validation scenarios (default: the project's validation/)");
  sub->add_option("--format", *format, "table or json")->capture_default_str();
  sub->add_flag("-q,--quiet", *quiet, "no progress bar on stderr");
  sub->callback([dir, format, quiet, &exit_code] { exit_code = validate(*dir, *format, *quiet); });
}

}  // namespace anatomy::cli
