#include "cli/outputs.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "report/progress.h"
#include "report/run_files.h"
#include "report/schema.h"
#include "report/stages.h"
#include "report/trace.h"

namespace anatomy::cli {

void OutputOptions::add_to(CLI::App& app, int flags) {
  if (flags & kReport) app.add_option("--report", report, "write an HTML report (one self-contained file) here");
  if (flags & kTrace) {
    app.add_option("--trace", trace, "write a Chrome/Perfetto trace (JSON; ui.perfetto.dev opens it) here");
    app.add_option("--trace-ranks", trace_ranks,
                   "pipeline stages whose representative GPU to trace, e.g. 0,3 or 0-7 (default: all)");
    trace_links_flag_ = app.add_option("--trace-links", trace_links, "busiest links to trace as counter tracks (0: none)");
    trace_links_flag_->capture_default_str();
  }
  if (flags & kCsv) app.add_option("--csv", csv, "write CSV files (breakdown, per rank, timeline) into this folder");
  if (flags & kQuiet) app.add_flag("-q,--quiet", quiet, "no progress bar on stderr");
}

bool OutputOptions::progress() const { return report::progress_wanted(quiet); }

void check_format(const std::string& format) {
  if (format != "table" && format != "json")
    throw core::InputError({"", 0, "--format"}, fmt::format("unknown format '{}' (known: table, json)", format));
}

void print_json(const nlohmann::ordered_json& j) { std::puts(report::json_text(j, 2).c_str()); }

app::OnStep on_step(report::Progress& progress) {
  return [&progress](core::JobTime simulated, int64_t total) {
    progress.set_total(total);
    progress.advance(simulated);
  };
}

std::vector<report::InputRow> flag_rows(const CLI::App& command, const std::string& section) {
  std::vector<report::InputRow> rows;
  for (const CLI::Option* o : command.get_options()) {
    const std::string name = o->get_name();
    if (name.rfind("--", 0) != 0) continue;  // help, positionals
    if (name == "--help" || name == "--format" || name == "--report" || name == "--csv" || name == "--quiet") continue;
    std::string value;
    if (o->get_type_size() == 0) {
      value = o->count() > 0 ? "yes" : "no";
    } else if (o->count() > 0) {
      for (const std::string& r : o->results()) value += (value.empty() ? "" : ",") + r;
    } else {
      value = o->get_default_str().empty() ? "not given" : o->get_default_str();
    }
    rows.push_back({section, name, value});
  }
  return rows;
}

void write_output_file(const std::string& path, const std::string& text, const std::string& flag) {
  const std::filesystem::path p(path);
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  if (out) out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out) throw core::InputError({"", 0, flag}, fmt::format("cannot write '{}'", path));
}

void check_writable(const std::string& path, const std::string& flag) {
  if (path.empty()) return;
  const std::filesystem::path p(path);
  const std::filesystem::path dir = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
  // A folder that is not there is a typo more often than a wish: say so
  // rather than make it.
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw core::InputError({"", 0, flag}, fmt::format("cannot write '{}': no folder '{}'", path, dir.string()));
  if (access(dir.c_str(), W_OK) != 0 || std::filesystem::is_directory(p, ec))
    throw core::InputError({"", 0, flag}, fmt::format("cannot write '{}'", path));
}

void check_csv_folder(const std::string& folder) {
  if (folder.empty()) return;
  const std::filesystem::path p(folder);
  std::error_code ec;
  if (std::filesystem::exists(p, ec) && !std::filesystem::is_directory(p, ec))
    throw core::InputError({"", 0, "--csv"}, fmt::format("'{}' is a file, not a folder", folder));
  // The folder itself is made when missing, in a parent that is there.
  const std::filesystem::path parent = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(parent, ec))
    throw core::InputError({"", 0, "--csv"}, fmt::format("cannot write into '{}': no folder '{}'", folder, parent.string()));
}

void make_csv_folder(const std::string& folder) {
  if (folder.empty()) return;
  std::error_code ec;
  std::filesystem::create_directory(folder, ec);
}

void check_iteration_outputs(const OutputOptions& o, const scenario::Scenario& s) {
  check_writable(o.report, "--report");
  check_writable(o.trace, "--trace");
  if (!o.trace_ranks.empty()) report::parse_stage_list(o.trace_ranks, s.parallelism.pp, "--trace-ranks");
  if (o.trace_links < 0) throw core::InputError({"", 0, "--trace-links"}, "must not be negative");
  if (o.trace.empty() && !o.trace_ranks.empty())
    throw core::InputError({"", 0, "--trace-ranks"}, "shapes a trace: give --trace FILE too");
  if (o.trace.empty() && o.trace_links_given())
    throw core::InputError({"", 0, "--trace-links"}, "shapes a trace: give --trace FILE too");
  check_csv_folder(o.csv);
}

void write_iteration_outputs(const OutputOptions& o, const scenario::Scenario& s, const std::string& topology,
                             const workload::IterationResult& r, const std::vector<report::Section>& extra,
                             const std::vector<job::JobPhase>* lifecycle, const job::AdaptationResult* adaptation) {
  make_csv_folder(o.csv);
  for (const report::RenderedFile& f :
       report::run_files({o.report, o.trace, o.trace_ranks, o.trace_links, o.csv}, s, topology, r, extra, lifecycle,
                        adaptation))
    write_output_file(f.path, f.text, f.flag);
}

}  // namespace anatomy::cli
