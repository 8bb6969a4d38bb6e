#include "cli/packet_command.h"

#include <cstdio>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "app/htsim_run.h"
#include "cli/outputs.h"
#include "net/network_spec.h"
#include "report/schema.h"

namespace anatomy::cli {
namespace {

struct PacketArgs {
  std::string cm, topo;
  std::string network = "packet";
  std::string format = "table";
  std::string fct = "receiver";
  int partitions = 0;
  int threads = 0;
};

void run_packet(const PacketArgs& a) {
  check_format(a.format);
  const net::NetworkSpec spec = net::parse_network_spec(a.network, "--network");
  const app::HtsimRun r = app::run_htsim_files(
      a.cm, a.topo, spec, {.fct_at_sender = a.fct == "sender", .partitions = a.partitions, .threads = a.threads});
  if (a.format == "json") {
    nlohmann::ordered_json j = report::schema_header("packet");
    j["cm"] = a.cm;
    j["topo"] = a.topo;
    j["network"] = net::to_string(spec);
    j["topology"] = r.topology;
    j["connections"] = r.connections;
    j["fct_at"] = r.fct_at_sender ? "sender" : "receiver";
    j["mean_fct_us"] = r.mean_fct_us;
    j["p99_fct_us"] = r.p99_fct_us;
    j["max_fct_us"] = r.max_fct_us;
    j["finished_us"] = r.finished_us;
    j["events"] = r.events;
    // Not the thread count: the JSON is the same whatever it was.
    j["partitions"] = r.partitions;
    j["fct_us"] = r.fct_us;
    print_json(j);
    return;
  }
  std::string out;
  const auto to = std::back_inserter(out);
  fmt::format_to(to, "# anatomy packet: {} on {}\n# topology: {}\n# network: {}\n", a.cm, a.topo, r.topology,
                 net::to_string(spec));
  fmt::format_to(to, "connections    {}\nFCT ends       {}\n", r.connections,
                 r.fct_at_sender ? "when the sender has every acknowledgement (as htsim prints it)"
                                   : "when the receiver has the last byte");
  fmt::format_to(to, "mean FCT       {:.1f} us\np99 FCT        {:.1f} us\nmax FCT        {:.1f} us\n", r.mean_fct_us,
                 r.p99_fct_us, r.max_fct_us);
  fmt::format_to(to, "last finished  {:.1f} us\nevents         {}\n", r.finished_us, r.events);
  if (r.partitions > 1)
    fmt::format_to(to, "partitions     {} on {} threads: {} windows of {:.3f} us, {} packets crossed\n", r.partitions,
                   r.threads, r.windows, r.lookahead_us, r.crossings);
  fmt::format_to(to, "wall           {:.2f} s\n", r.wall_s);
  std::fputs(out.c_str(), stdout);
}

}  // namespace

void add_packet_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<PacketArgs>();
  CLI::App* sub = app.add_subcommand(
      "packet", "run an experiment given in htsim's files (a .cm connection matrix on a .topo fat tree)");
  sub->add_option("--cm", args->cm, "htsim connection matrix: Nodes, Connections, then src->dst start PS size BYTES")
      ->required();
  sub->add_option("--topo", args->topo, "htsim fat-tree topology: Nodes, Tiers, Podsize, then a section per tier")
      ->required();
  sub->add_option("--network", args->network,
                  "network model: flow, or packet[:key=value,...] (anatomy schema lists the keys as network.*)")
      ->capture_default_str();
  sub->add_option("--format", args->format, "table or json")->capture_default_str();
  sub->add_option("--fct", args->fct,
                  "where a flow's completion is timed: receiver (its last byte arrives) or sender (the "
                  "acknowledgement of every byte is back, where htsim's UEC and EQDS print \"finished at\")")
      ->check(CLI::IsMember({"receiver", "sender"}))
      ->capture_default_str();
  sub->add_option("--partitions", args->partitions,
                  "packet model: parts the network is split into, each with its own event queue (0: one per 256 hosts, "
                  "8 to 64, at most the hosts; 1: one queue). The results depend on it, not on --threads")
      ->capture_default_str();
  sub->add_option("--threads", args->threads, "packet model: threads that run the parts (0: one per core)")
      ->capture_default_str();
  sub->callback([args, &exit_code] {
    run_packet(*args);
    exit_code = 0;
  });
}

}  // namespace anatomy::cli
