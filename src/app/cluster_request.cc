#include "app/cluster_request.h"

#include <fmt/format.h>

#include "core/error.h"
#include "hw/catalog.h"
#include "topo/builders.h"

namespace anatomy::app {

using core::InputError;

topo::Topology build_topology(const ClusterRequest& r) {
  if (r.gpus < 1) throw InputError({"", 0, "--gpus"}, fmt::format("must be at least 1, not {}", r.gpus));
  if (r.topology == "ring" || r.topology == "torus") {
    std::vector<uint32_t> d;
    if (r.dims.empty()) {
      d.push_back(static_cast<uint32_t>(r.gpus));
    } else {
      size_t pos = 0;
      while (pos <= r.dims.size()) {
        size_t x = r.dims.find('x', pos);
        if (x == std::string::npos) x = r.dims.size();
        const std::string part = r.dims.substr(pos, x - pos);
        try {
          size_t used = 0;
          const long v = std::stol(part, &used);
          if (used != part.size() || v < 1) throw std::invalid_argument(part);
          d.push_back(static_cast<uint32_t>(v));
        } catch (const std::exception&) {
          throw InputError({"", 0, "--dims"}, fmt::format("'{}' is not a shape like 1024 or 32x32", r.dims));
        }
        pos = x + 1;
      }
    }
    if (r.topology == "ring" && d.size() != 1) throw InputError({"", 0, "--dims"}, "a ring has one dimension");
    uint64_t n = 1;
    for (auto v : d) n *= v;
    if (!r.dims.empty() && r.gpus_given && n != static_cast<uint64_t>(r.gpus))
      throw InputError({"", 0, "--dims"}, fmt::format("{} holds {} devices but --gpus is {}", r.dims, n, r.gpus));
    return topo::build_torus(d, core::parse_bandwidth(r.link_bandwidth, "--link-bandwidth"),
                             core::parse_time(r.hop_latency, "--hop-latency"));
  }
  if (r.topology != "cluster")
    throw InputError({"", 0, "--topology"}, fmt::format("unknown topology '{}' (known: cluster, ring, torus)", r.topology));
  topo::ClusterSpec spec;
  try {
    spec.system = hw::find_system(r.system);
  } catch (const InputError& e) {
    throw e.with_field("--system");
  }
  spec.gpus = r.gpus;
  spec.fabric.tiers = r.tiers;
  spec.fabric.radix = r.radix;
  spec.fabric.oversubscription = r.oversubscription;
  spec.fabric.spine_oversubscription = r.spine_oversubscription;
  spec.fabric.rail_optimized = !r.no_rails;
  spec.fabric.planes = r.planes;
  spec.fabric.in_network_reduction = r.in_network_reduction;
  if (!r.nic_speed.empty()) spec.fabric.nic_speed = core::parse_bandwidth(r.nic_speed, "--nic-speed");
  if (!r.link_speed.empty()) spec.fabric.link_speed = core::parse_bandwidth(r.link_speed, "--link-speed");
  spec.fabric.switch_latency = core::parse_time(r.switch_latency, "--switch-latency");
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

coll::LibraryModel library_model(const ClusterRequest& r) {
  const bool plain = r.topology == "ring" || r.topology == "torus";
  const std::string lib = r.library.empty() ? (plain ? "ideal" : "nccl") : r.library;
  if (lib == "ideal") return coll::ideal_library();
  if (lib != "nccl") throw InputError({"", 0, "--library"}, fmt::format("unknown library '{}' (known: nccl, ideal)", lib));
  if (plain) {
    hw::System s = hw::find_system("dgx-h100");
    return coll::nccl_library(s);
  }
  coll::LibraryModel m = coll::nccl_library(hw::find_system(r.system));
  m.fabric_reduction = r.in_network_reduction;
  return m;
}

}  // namespace anatomy::app
