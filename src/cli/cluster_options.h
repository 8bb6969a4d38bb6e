#pragma once
// Command-line options that describe a cluster (system, GPU count, fabric,
// or a ring / torus), shared by every subcommand that builds one: flags
// bound to an app::ClusterRequest.

#include <CLI/CLI.hpp>

#include "app/cluster_request.h"

namespace anatomy::cli {

struct ClusterOptions {
  app::ClusterRequest request;

  void add_to(CLI::App& app);
  // The request as given (with whether --gpus was).
  app::ClusterRequest given() const;

 private:
  CLI::Option* gpus_flag_ = nullptr;
};

}  // namespace anatomy::cli
