#include "cli/sweep_command.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli/outputs.h"
#include "core/error.h"
#include "core/workers.h"
#include "report/progress.h"
#include "report/schema.h"
#include "sweep/mpi.h"
#include "sweep/report.h"
#include "sweep/run.h"
#include "sweep/table.h"

namespace anatomy::cli {
namespace {

struct SweepFlags {
  std::string space, store, shard = "0/1", format = "table";
  int threads = 0;  // 0: every core (1 per rank but rank 0's under mpirun)
  int64_t limit = 0;
  bool quiet = false;
  CLI::Option* threads_flag = nullptr;
};

std::string summary_text(const sweep::Space& space, const sweep::Summary& s, const sweep::RunOptions& o,
                         const std::string& engine) {
  std::string out =
      fmt::format("# anatomy sweep: {} ({}), base scenario {}\n", space.name, space.file, sweep::base_label(space));
  int64_t dropped = 0;
  for (const auto& [reason, n] : s.dropped) dropped += n;
  out += fmt::format("points          {} of {} considered", s.points, s.considered);
  if (dropped > 0) {
    out += fmt::format(" ({} dropped:", dropped);
    bool first = true;
    for (const auto& [reason, n] : s.dropped) {
      out += fmt::format("{} {} {}", first ? "" : ";", n, reason);
      first = false;
    }
    out += ")";
  }
  out += "\n";
  if (o.shards > 1) out += fmt::format("this shard      {} (--shard {}/{})\n", s.in_shard, o.shard, o.shards);
  out += fmt::format("already stored  {}\n", s.already);
  out += fmt::format("ran             {} ({} failed) in {:.1f} s on {}\n", s.ran, s.failed, s.wall_s, engine);
  out += fmt::format("store           {}\n", o.store);
  return out;
}

nlohmann::ordered_json summary_json(const sweep::Space& space, const sweep::Summary& s, const sweep::RunOptions& o) {
  nlohmann::ordered_json j = report::schema_header("sweep.summary");
  j["sweep"] = space.name;
  j["file"] = space.file;
  j["base"] = sweep::base_label(space);
  j["considered"] = s.considered;
  j["points"] = s.points;
  j["dropped"] = s.dropped;
  j["shard"] = fmt::format("{}/{}", o.shard, o.shards);
  j["in_shard"] = s.in_shard;
  j["already_stored"] = s.already;
  j["ran"] = s.ran;
  j["failed"] = s.failed;
  j["wall_s"] = s.wall_s;
  j["store"] = o.store;
  return j;
}

void run(const SweepFlags& f) {
  if (f.format != "table" && f.format != "json")
    throw core::InputError({"", 0, "--format"}, fmt::format("unknown format '{}' (known: table, json)", f.format));
  if (f.limit < 0) throw core::InputError({"", 0, "--limit"}, "must be >= 0");
  sweep::RunOptions o;
  sweep::parse_shard(f.shard, o.shard, o.shards);
  o.limit = f.limit;
  o.store = f.store.empty() ? std::filesystem::path(f.space).stem().string() + ".sqlite" : f.store;
  const bool given = f.threads_flag && f.threads_flag->count() > 0;
  std::optional<sweep::MpiSession> mpi;
  if (sweep::mpi_launched()) {
    if (!sweep::mpi_compiled())
      throw core::InputError({"", 0, "mpirun"},
                             "this anatomy was built without MPI: every rank would run every point (install "
                             "libopenmpi-dev and rebuild, or use --threads / --shard)");
    mpi.emplace();
  }
  o.threads = given ? f.threads : (mpi ? 1 : core::hardware_workers());
  const sweep::Space space = sweep::load_space(f.space);
  const bool draws = !mpi || mpi->rank() == 0;
  std::unique_ptr<report::Progress> progress;
  sweep::Callbacks cb;
  cb.on_start = [&](int64_t total) {
    progress = std::make_unique<report::Progress>(stderr, draws && report::progress_wanted(f.quiet), total, "points");
  };
  cb.on_point = [&](const sweep::PointRow& row) { progress->advance_point(!row.ok); };
  const sweep::Summary s = mpi ? sweep::run_sweep_mpi(*mpi, space, o, cb) : sweep::run_sweep(space, o, cb);
  progress.reset();
  if (!draws) return;
  const std::string engine = mpi ? fmt::format("{} MPI ranks ({} thread{} on rank 0)", mpi->size(), o.threads,
                                               o.threads == 1 ? "" : "s")
                                 : fmt::format("{} thread{}", o.threads, o.threads == 1 ? "" : "s");
  if (f.format == "json") print_json(summary_json(space, s, o));
  else std::fputs(summary_text(space, s, o, engine).c_str(), stdout);
}

}  // namespace

void add_sweep_command(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<SweepFlags>();
  CLI::App* sub = app.add_subcommand(
      "sweep",
      "run a design-space sweep (a sweep file: a base scenario, axes, constraints) into a SQLite store; "
      "under mpirun the ranks share the points");
  sub->add_option("space", f->space, "sweep file (YAML: base, axes, sample, derived, constraints, metrics, pareto)");
  sub->add_option("--store", f->store, "SQLite file of the points (default: the sweep file's name .sqlite)");
  f->threads_flag = sub->add_option("--threads", f->threads,
                                    "points simulated at once (default: every core; under mpirun 1 on rank 0, "
                                    "0 = rank 0 only dispatches)");
  sub->add_option("--shard", f->shard, "run only the points whose index % n == i (Slurm job arrays)")
      ->capture_default_str();
  sub->add_option("--limit", f->limit, "stop after N new points (0: all)");
  sub->add_option("--format", f->format, "table or json (the summary)")->capture_default_str();
  sub->add_flag("-q,--quiet", f->quiet, "no progress bar on stderr");
  sub->require_subcommand(0, 1);

  auto stores = std::make_shared<std::vector<std::string>>();
  auto export_format = std::make_shared<std::string>("csv");
  auto out = std::make_shared<std::string>();
  CLI::App* exp = sub->add_subcommand("export", "every point of one or more stores as CSV or JSON lines");
  exp->add_option("store", *stores, "store files (Slurm shards are merged)")->required();
  exp->add_option("--format", *export_format, "csv or jsonl")->capture_default_str();
  exp->add_option("--out", *out, "file to write (default: stdout)");
  exp->callback([stores, export_format, out, &exit_code] {
    if (*export_format != "csv" && *export_format != "jsonl")
      throw core::InputError({"", 0, "--format"}, fmt::format("unknown format '{}' (known: csv, jsonl)", *export_format));
    check_writable(*out, "--out");
    const sweep::Table t = sweep::load_table(*stores);
    const std::string text = *export_format == "csv" ? sweep::table_csv(t) : sweep::table_jsonl(t);
    if (out->empty()) std::fputs(text.c_str(), stdout);
    else write_output_file(*out, text, "--out");
    exit_code = 0;
  });

  auto report_stores = std::make_shared<std::vector<std::string>>();
  auto report_out = std::make_shared<std::string>();
  CLI::App* rep = sub->add_subcommand("report", "one self-contained HTML page of a sweep's design space");
  rep->add_option("store", *report_stores, "store files (Slurm shards are merged)")->required();
  rep->add_option("--out", *report_out, "HTML file to write")->required();
  rep->callback([report_stores, report_out, &exit_code] {
    check_writable(*report_out, "--out");
    write_output_file(*report_out, sweep::sweep_html(sweep::load_table(*report_stores)), "--out");
    exit_code = 0;
  });

  sub->callback([sub, f, &exit_code] {
    if (!sub->get_subcommands().empty()) return;
    if (f->space.empty()) throw core::InputError({"", 0, "space"}, "give a sweep file (anatomy sweep SPACE.yaml --store S.sqlite)");
    run(*f);
    exit_code = 0;
  });
}

}  // namespace anatomy::cli
