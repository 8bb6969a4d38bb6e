#pragma once
// One experiment given in htsim's own files: a fat tree (.topo) and a
// connection matrix (.cm), run on anatomy's network model (flow, or packet
// with any transport), so that anatomy and htsim can be run on exactly the
// same input (bench/htsim_compare.sh runs both and prints the ratio).
//
//   HtsimRun r = run_htsim_files("perm.cm", "fat_tree_1024.topo", parse_network_spec("packet:transport=uec"));
//   r.max_fct_us;

#include <cstdint>
#include <string>
#include <vector>

#include "net/network_spec.h"

namespace anatomy::app {

struct HtsimRun {
  std::string topology;       // what was built
  uint32_t hosts = 0;
  size_t connections = 0;
  bool fct_at_sender = false;  // see run_htsim_files
  std::vector<double> fct_us;  // per connection in file order: finish - start
  double mean_fct_us = 0, p99_fct_us = 0, max_fct_us = 0;
  double finished_us = 0;      // when the last connection finished
  uint64_t events = 0;
  double wall_s = 0;           // wall time of the simulation alone (files read and fabric built before)
  // The packet model runs the network split into parts, on threads
  // (net/packet/parallel_run.h); the flow model runs as one part.
  int partitions = 1, threads = 1;
  uint64_t windows = 0, crossings = 0;
  double lookahead_us = 0;
};

struct HtsimOptions {
  // A flow finishes when its last byte arrives, or, with `fct_at_sender`,
  // when its sender has the acknowledgement of every byte, which is where
  // htsim's UEC and EQDS sources print "finished at" (one path's latency
  // later).
  bool fct_at_sender = false;
  int partitions = 0;  // packet model: parts of the network; 0: net::packet::default_partitions; 1: one event queue
  int threads = 0;     // packet model: 0 = one per core; never changes the results
};

// Throws InputError `file:line: field: message` for bad files, and for a
// connection matrix with more nodes than the topology has hosts.
HtsimRun run_htsim_files(const std::string& cm_path, const std::string& topo_path, const net::NetworkSpec& network,
                         const HtsimOptions& options = {});

}  // namespace anatomy::app
