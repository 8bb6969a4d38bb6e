#include "cli/collective_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/collective.h"
#include "cli/cluster_options.h"
#include "cli/outputs.h"
#include "coll/collective.h"
#include "core/error.h"
#include "report/collective_report.h"
#include "report/collective_text.h"
#include "report/csv.h"
#include "report/progress.h"

namespace anatomy::cli {
namespace {

struct CollectiveArgs {
  ClusterOptions cluster;
  std::string op = "all_reduce";
  std::string min_bytes = "8";
  std::string max_bytes = "8G";
  int step_factor = 2;
  std::string bytes;
  std::string protocol = "Simple";
  std::string network = "flow";
  app::CollectiveSweep sweep;  // the flags that need no parsing are bound to it
  std::string format = "table";
  OutputOptions outputs;
  const CLI::App* command = nullptr;  // its flags are the report's inputs
};

std::vector<core::Bytes> sizes(const CollectiveArgs& a) {
  if (!a.bytes.empty()) {
    const core::Bytes b = core::parse_bytes(a.bytes, "--bytes");
    if (b.count() <= 0) throw core::InputError({"", 0, "--bytes"}, "must be greater than zero");
    return {b};
  }
  return app::sweep_sizes(core::parse_bytes(a.min_bytes, "--min-bytes"), core::parse_bytes(a.max_bytes, "--max-bytes"),
                          a.step_factor, "--min-bytes", "--max-bytes", "--step-factor");
}

void write_collective_outputs(const CollectiveArgs& a, const std::vector<coll::CollectiveResult>& rows,
                              const report::CollectiveSweepInfo& info) {
  if (!a.outputs.report.empty()) {
    report::PageInfo page;
    page.title = fmt::format("{} on {} GPUs", a.op, info.gpus);
    page.source = "anatomy collective";
    page.facts = {{"topology", info.topology},
                  {"network", fmt::format("{} model; library: {}; fidelity: {}; algorithm: {}", info.network,
                                          info.library, info.fidelity, info.algorithm)}};
    page.inputs = flag_rows(*a.command, "collective");
    page.inputs.push_back({"collective", "topology (built)", info.topology, false, true});
    write_output_file(a.outputs.report, report::collective_report_html(rows, page), "--report");
  }
  if (!a.outputs.csv.empty()) {
    make_csv_folder(a.outputs.csv);
    write_output_file((std::filesystem::path(a.outputs.csv) / "collective.csv").string(), report::collective_csv(rows),
                      "--csv");
  }
}

void run_collective(const CollectiveArgs& a) {
  check_format(a.format);
  app::CollectiveSweep sweep = a.sweep;
  sweep.op = coll::parse_op(a.op, "--op");
  sweep.protocol = coll::parse_protocol(a.protocol, "--protocol");
  sweep.sizes = sizes(a);
  sweep.network = net::parse_network_spec(a.network, "--network");
  const app::ClusterRequest cluster = a.cluster.given();
  const topo::Topology topo = app::build_topology(cluster);
  check_writable(a.outputs.report, "--report");
  check_csv_folder(a.outputs.csv);
  const std::string system = cluster.topology == "cluster" ? cluster.system : cluster.topology;
  const auto info_of = [&](const app::CollectiveSweepRun& run) {
    const bool elsewhere = !run.rows.empty() && run.rows.back().chosen_elsewhere;
    return report::CollectiveSweepInfo{sweep.op,          run.gpus,     system,
                                       run.topology,      a.network,    run.library,
                                       coll::to_string(run.fidelity),
                                       a.sweep.algorithm + (elsewhere ? " (chosen on the flow model)" : "")};
  };
  app::CollectiveSweepRun run;
  if (a.format == "json") {  // one document at the end; the progress line meanwhile
    report::Progress progress(stderr, a.outputs.progress(), static_cast<int64_t>(sweep.sizes.size()), "sizes");
    run = app::run_collective_sweep(topo, app::library_model(cluster), sweep,
                                    [&](const app::CollectiveSweepRun& r) { progress.advance(r.rows.back().time); });
  } else {  // each row as its size finishes, so a run stopped early keeps what it did
    run = app::run_collective_sweep(topo, app::library_model(cluster), sweep, [&](const app::CollectiveSweepRun& r) {
      const report::CollectiveSweepInfo info = info_of(r);
      if (r.rows.size() == 1) std::fputs(report::collective_sweep_header(info).c_str(), stdout);
      std::fputs(report::collective_sweep_row(info, r.rows.back()).c_str(), stdout);
      std::fflush(stdout);
    });
  }
  const report::CollectiveSweepInfo info = info_of(run);
  write_collective_outputs(a, run.rows, info);
  if (a.format == "json")
    print_json(report::collective_sweep_json(info, run.rows));
  else
    std::fputs(report::collective_sweep_footer(run.rows).c_str(), stdout);
}

}  // namespace

void add_collective_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CollectiveArgs>();
  CLI::App* sub = app.add_subcommand("collective", "time a collective across message sizes, as nccl-tests prints it");
  args->command = sub;
  args->cluster.add_to(*sub);
  sub->add_option("--op", args->op, "all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all, send_recv")
      ->capture_default_str();
  sub->add_option("-b,--min-bytes", args->min_bytes, "smallest size (nccl-tests -b)")->capture_default_str();
  sub->add_option("-e,--max-bytes", args->max_bytes, "largest size (nccl-tests -e)")->capture_default_str();
  sub->add_option("-f,--step-factor", args->step_factor, "size multiplier between rows (nccl-tests -f)")
      ->capture_default_str();
  sub->add_option("--bytes", args->bytes, "one size instead of a sweep");
  sub->add_option("--algo", args->sweep.algorithm, "ring, tree, hierarchical, nvls, direct or auto (fastest, as NCCL chooses)")
      ->capture_default_str();
  sub->add_option("--protocol", args->protocol, "LL, LL128 or Simple (with an explicit --algo)")->capture_default_str();
  sub->add_option("--fidelity", args->sweep.fidelity, "step, bulk or auto (step up to 4,096 GPUs)")->capture_default_str();
  sub->add_option("--channels", args->sweep.channels, "channels (0 = as NCCL would)")->capture_default_str();
  sub->add_option("--min-ctas", args->sweep.min_ctas, "least CTAs (channels) NCCL runs (NCCL_MIN_CTAS; 0 = its own)")
      ->capture_default_str();
  sub->add_option("--max-ctas", args->sweep.max_ctas,
                  "most CTAs (channels) NCCL runs (NCCL_MAX_CTAS; 0 = its own): one CTA's rate each over NVLink")
      ->capture_default_str();
  sub->add_option("--chunks", args->sweep.chunks, "pipeline chunks per channel (0 = from the protocol's chunk size)")
      ->capture_default_str();
  sub->add_option("--network", args->network,
                  "network model: flow, or packet[:key=value,...] (e.g. packet:transport=roce,fabric=switch-scheduled; "
                  "anatomy schema lists the keys as network.*)")
      ->capture_default_str();
  sub->add_option("--format", args->format, "table or json")->capture_default_str();
  args->outputs.add_to(*sub, OutputOptions::kReport | OutputOptions::kCsv | OutputOptions::kQuiet);
  sub->callback([args, &exit_code] {
    run_collective(*args);
    exit_code = 0;
  });
}

}  // namespace anatomy::cli
