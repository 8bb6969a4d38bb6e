#include "cli/cluster_options.h"

#include <fmt/format.h>

#include "core/error.h"
#include "hw/catalog.h"

namespace anatomy::cli {

using core::InputError;

void ClusterOptions::add_to(CLI::App& app) {
  app.add_option("--topology", topology, "cluster (a system preset + Clos fabric), ring or torus")->capture_default_str();
  app.add_option("--system", system, "system preset (see `anatomy list`)")->capture_default_str();
  gpus_flag_ = app.add_option("--gpus", gpus, "number of GPUs (ring/torus: taken from --dims when given)");
  gpus_flag_->capture_default_str();
  app.add_option("--tiers", tiers, "scale-out Clos tiers: 2, 3, or 0 = the fewest that fit")->capture_default_str();
  app.add_option("--radix", radix, "switch ports (0 = a 51.2 Tb/s switch's worth at the port speed)")->capture_default_str();
  app.add_option("--oversubscription", oversubscription, "leaf down:up ratio (1 = non-blocking)")->capture_default_str();
  app.add_option("--spine-oversubscription", spine_oversubscription, "spine down:up ratio, 3 tiers")->capture_default_str();
  app.add_flag("--no-rails", no_rails, "all NICs of a host on one leaf (classic fat-tree) instead of rail-optimized");
  app.add_option("--planes", planes, "independent fabric planes each NIC is split across")->capture_default_str();
  app.add_option("--nic-speed", nic_speed, "scale-out NIC speed, e.g. 800Gbps (default: the preset's)");
  app.add_option("--link-speed", link_speed, "switch-to-switch link speed (default: the NIC port speed)");
  app.add_option("--switch-latency", switch_latency, "forwarding delay per switch")->capture_default_str();
  app.add_option("--dims", dims, "ring/torus shape, e.g. 1024 or 32x32 (default: --gpus)");
  app.add_option("--link-bandwidth", link_bandwidth, "ring/torus link bandwidth per direction")->capture_default_str();
  app.add_option("--hop-latency", hop_latency, "ring/torus latency per hop")->capture_default_str();
  app.add_option("--library", library, "collective library model: nccl or ideal (default: nccl on clusters, ideal on ring/torus)");
}

topo::Topology ClusterOptions::build() const {
  if (gpus < 1) throw InputError({"", 0, "--gpus"}, fmt::format("must be at least 1, not {}", gpus));
  if (topology == "ring" || topology == "torus") {
    std::vector<uint32_t> d;
    if (dims.empty()) {
      d.push_back(static_cast<uint32_t>(gpus));
    } else {
      size_t pos = 0;
      while (pos <= dims.size()) {
        size_t x = dims.find('x', pos);
        if (x == std::string::npos) x = dims.size();
        const std::string part = dims.substr(pos, x - pos);
        try {
          size_t used = 0;
          const long v = std::stol(part, &used);
          if (used != part.size() || v < 1) throw std::invalid_argument(part);
          d.push_back(static_cast<uint32_t>(v));
        } catch (const std::exception&) {
          throw InputError({"", 0, "--dims"}, fmt::format("'{}' is not a shape like 1024 or 32x32", dims));
        }
        pos = x + 1;
      }
    }
    if (topology == "ring" && d.size() != 1) throw InputError({"", 0, "--dims"}, "a ring has one dimension");
    uint64_t n = 1;
    for (auto v : d) n *= v;
    if (!dims.empty() && gpus_flag_ && gpus_flag_->count() > 0 && n != static_cast<uint64_t>(gpus))
      throw InputError({"", 0, "--dims"}, fmt::format("{} holds {} devices but --gpus is {}", dims, n, gpus));
    return topo::build_torus(d, core::parse_bandwidth(link_bandwidth, "--link-bandwidth"),
                             core::parse_time(hop_latency, "--hop-latency"));
  }
  if (topology != "cluster")
    throw InputError({"", 0, "--topology"}, fmt::format("unknown topology '{}' (known: cluster, ring, torus)", topology));
  topo::ClusterSpec spec;
  try {
    spec.system = hw::find_system(system);
  } catch (const InputError& e) {
    throw e.with_field("--system");
  }
  spec.gpus = gpus;
  spec.fabric.tiers = tiers;
  spec.fabric.radix = radix;
  spec.fabric.oversubscription = oversubscription;
  spec.fabric.spine_oversubscription = spine_oversubscription;
  spec.fabric.rail_optimized = !no_rails;
  spec.fabric.planes = planes;
  if (!nic_speed.empty()) spec.fabric.nic_speed = core::parse_bandwidth(nic_speed, "--nic-speed");
  if (!link_speed.empty()) spec.fabric.link_speed = core::parse_bandwidth(link_speed, "--link-speed");
  spec.fabric.switch_latency = core::parse_time(switch_latency, "--switch-latency");
  try {
    return topo::build_cluster(spec);
  } catch (const InputError& e) {
    // Builder fields are named as in a scenario file ("fabric.radix"); map to flags.
    std::string f = e.where().field;
    if (f.rfind("fabric.", 0) == 0) f = "--" + f.substr(7);
    for (auto& c : f)
      if (c == '_') c = '-';
    throw e.with_field(f);
  }
}

coll::LibraryModel ClusterOptions::library_model() const {
  const bool plain = topology == "ring" || topology == "torus";
  const std::string lib = library.empty() ? (plain ? "ideal" : "nccl") : library;
  if (lib == "ideal") return coll::ideal_library();
  if (lib != "nccl") throw InputError({"", 0, "--library"}, fmt::format("unknown library '{}' (known: nccl, ideal)", lib));
  if (plain) {
    hw::System s = hw::find_system("dgx-h100");
    return coll::nccl_library(s);
  }
  return coll::nccl_library(hw::find_system(system));
}

}  // namespace anatomy::cli
