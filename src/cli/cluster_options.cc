#include "cli/cluster_options.h"

namespace anatomy::cli {

void ClusterOptions::add_to(CLI::App& app) {
  app::ClusterRequest& r = request;
  app.add_option("--topology", r.topology, "cluster (a system preset + Clos fabric), ring or torus")->capture_default_str();
  app.add_option("--system", r.system, "system preset (see `anatomy list`)")->capture_default_str();
  gpus_flag_ = app.add_option("--gpus", r.gpus, "number of GPUs (ring/torus: taken from --dims when given)");
  gpus_flag_->capture_default_str();
  app.add_option("--tiers", r.tiers, "scale-out Clos tiers: 2, 3, or 0 = the fewest that fit")->capture_default_str();
  app.add_option("--radix", r.radix, "switch ports (0 = a 51.2 Tb/s switch's worth at the port speed)")->capture_default_str();
  app.add_option("--oversubscription", r.oversubscription, "leaf down:up ratio (1 = non-blocking)")->capture_default_str();
  app.add_option("--spine-oversubscription", r.spine_oversubscription, "spine down:up ratio, 3 tiers")->capture_default_str();
  app.add_flag("--no-rails", r.no_rails, "all NICs of a host on one leaf (classic fat-tree) instead of rail-optimized");
  app.add_flag("--in-network-reduction", r.in_network_reduction,
               "the fabric's switches reduce (SHARP): NVLS across domains aggregates in the fabric");
  app.add_option("--planes", r.planes, "independent fabric planes each NIC is split across")->capture_default_str();
  app.add_option("--nic-speed", r.nic_speed, "scale-out NIC speed, e.g. 800Gbps (default: the preset's)");
  app.add_option("--link-speed", r.link_speed, "switch-to-switch link speed (default: the NIC port speed)");
  app.add_option("--switch-latency", r.switch_latency, "forwarding delay per switch")->capture_default_str();
  app.add_option("--dims", r.dims, "ring/torus shape, e.g. 1024 or 32x32 (default: --gpus)");
  app.add_option("--link-bandwidth", r.link_bandwidth, "ring/torus link bandwidth per direction")->capture_default_str();
  app.add_option("--hop-latency", r.hop_latency, "ring/torus latency per hop")->capture_default_str();
  app.add_option("--library", r.library, "collective library model: nccl or ideal (default: nccl on clusters, ideal on ring/torus)");
}

app::ClusterRequest ClusterOptions::given() const {
  app::ClusterRequest r = request;
  r.gpus_given = gpus_flag_ && gpus_flag_->count() > 0;
  return r;
}

}  // namespace anatomy::cli
