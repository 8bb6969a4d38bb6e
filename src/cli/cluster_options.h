#pragma once
// Command-line options that describe a cluster (system, GPU count, fabric)
// and turn into a Topology; shared by every subcommand that builds one.

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "coll/library_model.h"
#include "topo/builders.h"

namespace anatomy::cli {

struct ClusterOptions {
  std::string topology = "cluster";  // cluster | ring | torus
  std::string system = "dgx-h100";
  int gpus = 8;
  // Scale-out fabric.
  int tiers = 0;
  int radix = 0;
  double oversubscription = 1.0;
  double spine_oversubscription = 1.0;
  bool no_rails = false;
  int planes = 1;
  std::string nic_speed;
  std::string link_speed;
  std::string switch_latency = "600ns";
  // Ring / torus.
  std::string dims;
  std::string link_bandwidth = "50GB/s";
  std::string hop_latency = "500ns";
  std::string library;  // nccl | ideal; default nccl for clusters, ideal for ring/torus

  void add_to(CLI::App& app);
  // Throws InputError naming the flag on bad values.
  topo::Topology build() const;
  coll::LibraryModel library_model() const;

 private:
  CLI::Option* gpus_flag_ = nullptr;
};

}  // namespace anatomy::cli
