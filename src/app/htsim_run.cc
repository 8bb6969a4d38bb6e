#include "app/htsim_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "app/network_factory.h"
#include "core/error.h"
#include "net/connection_matrix.h"
#include "net/packet/parallel_run.h"
#include "net/packet/partition.h"
#include "topo/htsim_topo.h"

namespace anatomy::app {

namespace {

// The summary figures of the per-connection FCTs.
void summarize(HtsimRun& r) {
  if (r.fct_us.empty()) return;
  std::vector<double> sorted = r.fct_us;
  std::sort(sorted.begin(), sorted.end());
  r.mean_fct_us = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
  r.max_fct_us = sorted.back();
  // Nearest rank: the smallest FCT at or above 99% of the connections.
  const size_t k = static_cast<size_t>(std::ceil(0.99 * static_cast<double>(sorted.size())));
  r.p99_fct_us = sorted[std::max<size_t>(k, 1) - 1];
}

// One event queue: the flow model, or the packet model as one part.
void run_whole(HtsimRun& r, const topo::Topology& t, const net::ConnectionMatrix& cm, const net::NetworkSpec& network,
               const net::TransferOptions& options) {
  engine::Simulator sim;
  auto net = network_factory(network)(sim, t);
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < cm.connections.size(); ++i) {
    const net::Connection& c = cm.connections[i];
    sim.schedule_at(c.start, [&, i, c] {
      net->transfer(
          t.gpu_node(c.src), t.gpu_node(c.dst), c.size,
          [&, i, c] {
            r.fct_us[i] = (sim.now() - c.start).micros();
            r.finished_us = std::max(r.finished_us, sim.now().micros());
          },
          options);
    });
  }
  sim.run();
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.events = sim.events_processed();
}

void run_parts(HtsimRun& r, const topo::Topology& t, const net::ConnectionMatrix& cm, const net::NetworkSpec& network,
               const net::TransferOptions& options, int partitions, int threads) {
  std::vector<net::packet::TimedTransfer> xs;
  xs.reserve(cm.connections.size());
  for (const net::Connection& c : cm.connections) xs.push_back({c.start, t.gpu_node(c.src), t.gpu_node(c.dst), c.size});
  const net::packet::PartitionedResult p = net::packet::run_partitioned(
      t, network.packet, xs, {.partitions = partitions, .threads = threads, .transfer = options});
  for (size_t i = 0; i < xs.size(); ++i) {
    if (p.finished_ps[i] < 0) continue;
    const core::SimTime at = core::SimTime::ps(p.finished_ps[i]);
    r.fct_us[i] = (at - xs[i].start).micros();
    r.finished_us = std::max(r.finished_us, at.micros());
  }
  r.wall_s = p.wall_s;
  r.events = p.events;
  r.partitions = p.partitions;
  r.threads = p.threads;
  r.windows = p.windows;
  r.crossings = p.crossings;
  r.lookahead_us = p.cut_links > 0 ? p.lookahead.micros() : 0;
}

}  // namespace

HtsimRun run_htsim_files(const std::string& cm_path, const std::string& topo_path, const net::NetworkSpec& network,
                         const HtsimOptions& options) {
  const topo::Topology t = topo::build_htsim_fat_tree(topo::read_htsim_topo(topo_path));
  const net::ConnectionMatrix cm = net::read_connection_matrix(cm_path);
  if (cm.nodes > t.num_gpus())
    throw core::InputError({cm_path, 1, "Nodes"},
                           fmt::format("{} nodes, but the topology {} has {} hosts", cm.nodes, topo_path, t.num_gpus()));
  if (options.partitions < 0 || options.threads < 0)
    throw core::InputError(options.partitions < 0 ? "--partitions: must be 0 (automatic) or more"
                                                  : "--threads: must be 0 (one per core) or more");
  const bool packet = network.model == net::NetworkModel::kPacket;
  const bool in_parts = packet && net::packet::runs_in_parts(network.packet);
  if (options.partitions > 1 && !in_parts)
    throw core::InputError(fmt::format("--partitions: {} runs as one part (its {} need one event queue)",
                                       packet ? "a switch-scheduled fabric" : "the flow model",
                                       packet ? "requests and grants" : "max-min shares"));
  if (options.partitions > static_cast<int>(t.num_gpus()))
    throw core::InputError(fmt::format("--partitions: {} is more than the topology's {} hosts", options.partitions,
                                       t.num_gpus()));
  int partitions = options.partitions;
  if (partitions == 0) partitions = in_parts ? net::packet::default_partitions(t.num_gpus()) : 1;
  HtsimRun r;
  r.topology = t.description;
  r.hosts = t.num_gpus();
  r.connections = cm.connections.size();
  r.fct_at_sender = options.fct_at_sender;
  const net::TransferOptions transfer{.complete_on_ack = options.fct_at_sender};
  r.fct_us.assign(cm.connections.size(), 0.0);
  if (partitions == 1) run_whole(r, t, cm, network, transfer);
  else run_parts(r, t, cm, network, transfer, partitions, options.threads);
  summarize(r);
  return r;
}

}  // namespace anatomy::app
