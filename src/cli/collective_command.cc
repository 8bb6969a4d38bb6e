#include "cli/collective_command.h"

#include <cstdio>
#include <filesystem>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cluster_options.h"
#include "cli/network_factory.h"
#include "cli/outputs.h"
#include "coll/collective.h"
#include "core/error.h"
#include "report/collective_report.h"
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
  std::string algo = "auto";
  std::string protocol = "Simple";
  std::string fidelity = "auto";
  int channels = 0;
  int chunks = 0;
  std::string network = "flow";
  std::string format = "table";
  OutputOptions outputs;
};

std::vector<core::Bytes> sizes(const CollectiveArgs& a) {
  if (!a.bytes.empty()) {
    core::Bytes b = core::parse_bytes(a.bytes, "--bytes");
    if (b.count() <= 0) throw core::InputError({"", 0, "--bytes"}, "must be greater than zero");
    return {b};
  }
  const core::Bytes lo = core::parse_bytes(a.min_bytes, "--min-bytes");
  const core::Bytes hi = core::parse_bytes(a.max_bytes, "--max-bytes");
  if (lo.count() <= 0) throw core::InputError({"", 0, "--min-bytes"}, "must be greater than zero");
  if (hi < lo) throw core::InputError({"", 0, "--max-bytes"}, "must not be smaller than --min-bytes");
  if (a.step_factor < 2) throw core::InputError({"", 0, "--step-factor"}, "must be at least 2");
  std::vector<core::Bytes> out;
  for (int64_t s = lo.count(); s <= hi.count(); s *= a.step_factor) {
    out.push_back(core::Bytes(s));
    if (s > hi.count() / a.step_factor) break;
  }
  return out;
}

// The command line as the report's inputs table.
report::PageInfo collective_page_info(const CollectiveArgs& a, const std::string& topology, const std::string& library,
                                      const std::string& fidelity, int gpus) {
  report::PageInfo info;
  info.title = fmt::format("{} on {} GPUs", a.op, gpus);
  info.source = "anatomy collective";
  info.facts = {{"topology", topology},
                {"network", fmt::format("{} model; library: {}; fidelity: {}; algorithm: {}", a.network, library,
                                        fidelity, a.algo)}};
  const auto add = [&](const std::string& field, const std::string& value) {
    if (!value.empty()) info.inputs.push_back({"collective", field, value});
  };
  add("--op", a.op);
  add("--algo", a.algo);
  add("--protocol", a.algo == "auto" ? "auto (every protocol)" : a.protocol);
  add("--fidelity", fidelity);
  add("--channels", a.channels > 0 ? fmt::format("{}", a.channels) : "as NCCL would");
  add("--chunks", a.chunks > 0 ? fmt::format("{}", a.chunks) : "from the protocol's chunk size");
  if (a.bytes.empty()) {
    add("--min-bytes", a.min_bytes);
    add("--max-bytes", a.max_bytes);
    add("--step-factor", fmt::format("{}", a.step_factor));
  } else {
    add("--bytes", a.bytes);
  }
  const auto cl = [&](const std::string& field, const std::string& value) {
    if (!value.empty()) info.inputs.push_back({"cluster", field, value});
  };
  const ClusterOptions& c = a.cluster;
  cl("--topology", c.topology);
  if (c.topology == "cluster") {
    cl("--system", c.system);
    cl("--gpus", fmt::format("{}", c.gpus));
    cl("--tiers", c.tiers > 0 ? fmt::format("{}", c.tiers) : "auto");
    cl("--radix", c.radix > 0 ? fmt::format("{}", c.radix) : "auto");
    cl("--oversubscription", fmt::format("{:g}", c.oversubscription));
    cl("--rails", c.no_rails ? "no (--no-rails)" : "rail-optimized");
    cl("--planes", fmt::format("{}", c.planes));
    cl("--nic-speed", c.nic_speed.empty() ? "the system's" : c.nic_speed);
    cl("--link-speed", c.link_speed.empty() ? "the NIC port speed" : c.link_speed);
    cl("--switch-latency", c.switch_latency);
  } else {
    cl("--gpus", fmt::format("{}", c.gpus));
    cl("--dims", c.dims);
    cl("--link-bandwidth", c.link_bandwidth);
    cl("--hop-latency", c.hop_latency);
  }
  cl("--library", c.library.empty() ? library : c.library);
  cl("--network", a.network);
  cl("topology (built)", topology);
  return info;
}

void write_collective_outputs(const CollectiveArgs& a, const std::vector<coll::CollectiveResult>& rows,
                              const std::string& topology, const std::string& library, const std::string& fidelity) {
  const int gpus = rows.empty() ? a.cluster.gpus : rows.front().ranks;
  if (!a.outputs.report.empty())
    write_output_file(a.outputs.report,
                      report::collective_report_html(rows, collective_page_info(a, topology, library, fidelity, gpus)),
                      "--report");
  if (!a.outputs.csv.empty())
    write_output_file((std::filesystem::path(a.outputs.csv) / "collective.csv").string(), report::collective_csv(rows),
                      "--csv");
}

int run_collective(const CollectiveArgs& a) {
  if (a.format != "table" && a.format != "json")
    throw core::InputError({"", 0, "--format"}, fmt::format("unknown format '{}' (known: table, json)", a.format));
  if (a.channels < 0 || a.channels > 64) throw core::InputError({"", 0, "--channels"}, "must be 0 (auto) to 64");
  if (a.chunks < 0) throw core::InputError({"", 0, "--chunks"}, "must not be negative");
  const coll::Op op = coll::parse_op(a.op, "--op");
  const coll::Protocol protocol = coll::parse_protocol(a.protocol, "--protocol");
  const std::vector<core::Bytes> sweep = sizes(a);
  const NetworkFactory factory = network_factory(net::parse_network_spec(a.network, "--network"));
  const topo::Topology topo = a.cluster.build();
  const coll::LibraryModel lib = a.cluster.library_model();
  coll::AlgorithmRegistry registry;
  coll::register_builtin_algorithms(registry);
  if (a.algo != "auto") registry.find(a.algo);  // fail before running anything
  const coll::Group group = coll::whole_topology(topo);
  // Step by step while the schedule stays small; bulk for large groups.
  const coll::Fidelity fidelity = a.fidelity == "auto"
                                      ? (group.size() <= 4096 ? coll::Fidelity::kStep : coll::Fidelity::kBulk)
                                      : coll::parse_fidelity(a.fidelity, "--fidelity");
  const coll::CollectiveRunner runner(topo, registry, lib, factory);
  check_writable(a.outputs.report, "--report");

  std::vector<coll::CollectiveResult> rows;
  {  // the progress line is erased before anything is printed
    report::Progress progress(stderr, a.outputs.progress(), static_cast<int64_t>(sweep.size()), "sizes");
    for (core::Bytes s : sweep) {
      coll::Request r;
      r.op = op;
      r.bytes = s;
      r.protocol = protocol;
      r.fidelity = fidelity;
      r.channels = a.channels;
      r.chunks = a.chunks;
      rows.push_back(runner.run(group, r, a.algo));
      progress.advance(rows.back().time);
    }
  }
  write_collective_outputs(a, rows, topo.description, lib.name, coll::to_string(fidelity));

  const std::string system_name = a.cluster.topology == "cluster" ? a.cluster.system : a.cluster.topology;
  if (a.format == "json") {
    nlohmann::ordered_json j;
    j["op"] = coll::to_string(op);
    j["gpus"] = group.size();
    j["system"] = system_name;
    j["topology"] = topo.description;
    j["network_model"] = a.network;
    j["library"] = lib.name;
    j["fidelity"] = coll::to_string(fidelity);
    j["rows"] = nlohmann::json::array();
    for (const auto& r : rows) j["rows"].push_back(collective_row_json(r));
    std::puts(j.dump(2).c_str());
    return 0;
  }
  fmt::print("# anatomy collective: {} on {} GPUs\n", coll::to_string(op), group.size());
  fmt::print("# topology: {}\n", topo.description);
  fmt::print("# network model: {}, library: {}, fidelity: {}, algorithm: {}\n", a.network, lib.name,
             coll::to_string(fidelity), a.algo);
  fmt::print("#\n");
  fmt::print("# {:>12} {:>12} {:>6} {:>6} {:>5} {:>11} {:>8} {:>8}  {}\n", "size", "count", "type", "redop", "root",
             "time", "algbw", "busbw", "algorithm");
  fmt::print("# {:>12} {:>12} {:>6} {:>6} {:>5} {:>11} {:>8} {:>8}\n", "(B)", "(elements)", "", "", "", "(us)",
             "(GB/s)", "(GB/s)");
  const bool rooted = op == coll::Op::kBroadcast || op == coll::Op::kReduce;
  const bool reduces = op == coll::Op::kAllReduce || op == coll::Op::kReduceScatter || op == coll::Op::kReduce;
  double sum_busbw = 0;
  for (const auto& r : rows) {
    fmt::print("  {:>12} {:>12} {:>6} {:>6} {:>5} {:>11.2f} {:>8.2f} {:>8.2f}  {}/{}\n", r.bytes.count(),
               r.bytes.count() / 4, "float", reduces ? "sum" : "none", rooted ? 0 : -1, r.time.micros(), r.algbw_GBps,
               r.busbw_GBps, r.algorithm, r.protocol);
    sum_busbw += r.busbw_GBps;
  }
  fmt::print("# Avg bus bandwidth    : {:.3f}\n", rows.empty() ? 0.0 : sum_busbw / rows.size());
  return 0;
}

}  // namespace

nlohmann::ordered_json collective_row_json(const coll::CollectiveResult& r) {
  nlohmann::ordered_json row;
  row["bytes"] = r.bytes.count();
  row["time_us"] = r.time.micros();
  row["algbw_GBps"] = r.algbw_GBps;
  row["busbw_GBps"] = r.busbw_GBps;
  row["algo"] = r.algorithm + "/" + r.protocol;
  return row;
}

void add_collective_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CollectiveArgs>();
  CLI::App* sub = app.add_subcommand("collective", "time a collective across message sizes, as nccl-tests prints it");
  args->cluster.add_to(*sub);
  sub->add_option("--op", args->op, "all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all, send_recv")
      ->capture_default_str();
  sub->add_option("-b,--min-bytes", args->min_bytes, "smallest size (nccl-tests -b)")->capture_default_str();
  sub->add_option("-e,--max-bytes", args->max_bytes, "largest size (nccl-tests -e)")->capture_default_str();
  sub->add_option("-f,--step-factor", args->step_factor, "size multiplier between rows (nccl-tests -f)")
      ->capture_default_str();
  sub->add_option("--bytes", args->bytes, "one size instead of a sweep");
  sub->add_option("--algo", args->algo, "ring, tree, hierarchical, nvls, direct or auto (fastest, as NCCL chooses)")
      ->capture_default_str();
  sub->add_option("--protocol", args->protocol, "LL, LL128 or Simple (with an explicit --algo)")->capture_default_str();
  sub->add_option("--fidelity", args->fidelity, "step, bulk or auto (step up to 4,096 GPUs)")->capture_default_str();
  sub->add_option("--channels", args->channels, "channels (0 = as NCCL would)")->capture_default_str();
  sub->add_option("--chunks", args->chunks, "pipeline chunks per channel (0 = from the protocol's chunk size)")
      ->capture_default_str();
  sub->add_option("--network", args->network, "network model: flow, or packet[:key=value,...] (e.g. packet:transport=roce,fabric=switch-scheduled; keys in src/net/packet/config.h)")->capture_default_str();
  sub->add_option("--format", args->format, "table or json")->capture_default_str();
  args->outputs.add_to(*sub, OutputOptions::kReport | OutputOptions::kCsv | OutputOptions::kQuiet);
  sub->callback([args, &exit_code] { exit_code = run_collective(*args); });
}

}  // namespace anatomy::cli
