#include "app/htsim_run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "app/network_factory.h"
#include "core/error.h"
#include "net/connection_matrix.h"
#include "topo/htsim_topo.h"

namespace anatomy::app {

HtsimRun run_htsim_files(const std::string& cm_path, const std::string& topo_path, const net::NetworkSpec& network,
                         bool fct_at_sender) {
  const topo::Topology t = topo::build_htsim_fat_tree(topo::read_htsim_topo(topo_path));
  const net::ConnectionMatrix cm = net::read_connection_matrix(cm_path);
  if (cm.nodes > t.num_gpus())
    throw core::InputError({cm_path, 1, "Nodes"},
                           fmt::format("{} nodes, but the topology {} has {} hosts", cm.nodes, topo_path, t.num_gpus()));
  HtsimRun r;
  r.topology = t.description;
  r.hosts = t.num_gpus();
  r.connections = cm.connections.size();
  r.fct_at_sender = fct_at_sender;
  const net::TransferOptions options{.complete_on_ack = fct_at_sender};
  r.fct_us.assign(cm.connections.size(), 0.0);
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
  if (!r.fct_us.empty()) {
    std::vector<double> sorted = r.fct_us;
    std::sort(sorted.begin(), sorted.end());
    r.mean_fct_us = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
    r.max_fct_us = sorted.back();
    // Nearest rank: the smallest FCT at or above 99% of the connections.
    const size_t k = static_cast<size_t>(std::ceil(0.99 * static_cast<double>(sorted.size())));
    r.p99_fct_us = sorted[std::max<size_t>(k, 1) - 1];
  }
  return r;
}

}  // namespace anatomy::app
