#pragma once
// What a command leaves behind besides stdout, and the flags that ask for
// it: --report (HTML), --trace and --trace-ranks / --trace-links
// (Perfetto), --csv (a folder of CSV files), and --quiet (no progress bar
// on stderr). The report layer renders; this file parses the flags,
// checks them before anything runs, and writes the files.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/progress.h"
#include "job/lifecycle.h"
#include "report/html_page.h"
#include "report/page_info.h"
#include "report/progress.h"
#include "scenario/scenario.h"
#include "workload/iteration.h"

namespace anatomy::cli {

struct OutputOptions {
  std::string report;       // HTML file
  std::string trace;        // Chrome / Perfetto JSON file
  std::string trace_ranks;  // pipeline stages to trace ("0,3", "0-7"); "" = all
  int trace_links = 16;     // busiest links as counter tracks
  std::string csv;          // folder
  bool quiet = false;

  enum Flags { kReport = 1, kTrace = 2, kCsv = 4, kQuiet = 8 };
  void add_to(CLI::App& app, int flags);
  // Whether to draw progress on stderr (a terminal, and not --quiet).
  bool progress() const;
  // Intervals to sample the busiest links in (for a report or a trace), or 0.
  int link_samples() const { return report.empty() && trace.empty() ? 0 : 100; }
  bool trace_links_given() const { return trace_links_flag_ && trace_links_flag_->count() > 0; }

 private:
  CLI::Option* trace_links_flag_ = nullptr;
};

// --format: "table" or "json"; throws InputError naming --format otherwise.
void check_format(const std::string& format);
// A JSON document on stdout, indented by two.
void print_json(const nlohmann::ordered_json& j);
// A use case's steps drawn on `progress`.
app::OnStep on_step(report::Progress& progress);

// Every option of `command` as a report's input row in `section`: the value
// given, else the default (what the report names, from the flags' own
// declarations); output and format flags are left out.
std::vector<report::InputRow> flag_rows(const CLI::App& command, const std::string& section);

// Writes `text` to `path`; throws InputError naming `flag` when it cannot.
void write_output_file(const std::string& path, const std::string& text, const std::string& flag);

// Checks, before anything runs, that `path` can be written (its folder
// exists and is writable: none is made); throws InputError naming `flag`.
void check_writable(const std::string& path, const std::string& flag);

// --csv FOLDER: not a file, and in a folder that exists (checked before
// anything runs); made when missing, just before the files are written.
void check_csv_folder(const std::string& folder);
void make_csv_folder(const std::string& folder);

// Checks the iteration outputs' flags against the scenario (files can be
// written, trace stages exist, trace links >= 0) before it runs; throws
// InputError naming the flag.
void check_iteration_outputs(const OutputOptions& o, const scenario::Scenario& s);

// Writes the report, trace and CSVs that `o` asks for.
// `extra` report sections (the whole job's) come before the iteration's.
void write_iteration_outputs(const OutputOptions& o, const scenario::Scenario& s, const std::string& topology,
                             const workload::IterationResult& r, const std::vector<report::Section>& extra = {},
                             const std::vector<job::JobPhase>* lifecycle = nullptr,
                             const job::AdaptationResult* adaptation = nullptr);

}  // namespace anatomy::cli
