// Readable names of nodes and links, for the links a report or a trace
// shows: the ids the simulator uses ("nic 1799") tell a person nothing.
#include <fmt/format.h>

#include "topo/topology.h"

namespace anatomy::topo {
namespace {

const char* tier_name(uint8_t level) {
  switch (level) {
    case 1: return "leaf";
    case 2: return "spine";
    case 3: return "core";
    default: return "switch";
  }
}

constexpr uint8_t kStorageFabric = 1;

}  // namespace

std::string Topology::node_label(NodeId n) const {
  switch (kind_[n]) {
    case NodeKind::kGpu: {
      const uint32_t g = gpu_index(n);
      const uint32_t h = gpu_host_[g];
      uint32_t first = g;  // a host's GPUs are numbered contiguously
      while (first > 0 && gpu_host_[first - 1] == h) --first;
      return fmt::format("host {} gpu {}", h, g - first);
    }
    case NodeKind::kHost: return fmt::format("host {}", n < node_to_host_.size() ? node_to_host_[n] : n);
    case NodeKind::kNic: {
      for (uint32_t g = 0; g < num_gpus(); ++g)
        if (gpu_nic_[g].nic == n) return fmt::format("host {} nic {}", gpu_host_[g], gpu_nic_[g].rail);
      for (size_t h = 0; h < host_storage_nics_.size(); ++h)
        for (size_t k = 0; k < host_storage_nics_[h].size(); ++k)
          if (host_storage_nics_[h][k].nic == n) return fmt::format("host {} storage nic {}", h, k);
      return fmt::format("nic {}", n);
    }
    case NodeKind::kScaleUpSwitch:
      for (uint32_t d = 0; d < num_domains(); ++d)
        if (domains_[d].switch_node == n) return fmt::format("scale-up switch of domain {}", d);
      return fmt::format("scale-up switch {}", n);
    case NodeKind::kSwitch: {
      size_t ordinal = 0;  // among the switches of its fabric and tier built before it
      for (NodeId m = 0; m < n; ++m)
        if (kind_[m] == NodeKind::kSwitch && level_[m] == level_[n] && fabric_[m] == fabric_[n]) ++ordinal;
      return fmt::format("{}{} {}", fabric_[n] == kStorageFabric ? "storage " : "", tier_name(level_[n]), ordinal);
    }
    case NodeKind::kStorage:
      for (size_t i = 0; i < storage_.size(); ++i)
        if (storage_[i] == n) return fmt::format("storage server {}", i);
      return fmt::format("storage {}", n);
  }
  return fmt::format("node {}", n);
}

std::string Topology::link_label(LinkId l) const {
  const Link& link = links_[l];
  const auto is_switch = [this](NodeId n) {
    return kind_[n] == NodeKind::kSwitch || kind_[n] == NodeKind::kScaleUpSwitch;
  };
  // Parallel cables between the same two nodes are told apart by their
  // rank: the r-th link a -> b pairs with the r-th link b -> a.
  const auto from_out = out_links(link.from);
  size_t from_port = 0, rank = 0;
  for (size_t i = 0; i < from_out.size(); ++i) {
    if (from_out[i] == l) from_port = i + 1;
    if (from_port == 0 && links_[from_out[i]].to == link.to) ++rank;
  }
  size_t to_port = 0;
  const auto to_out = out_links(link.to);
  for (size_t i = 0, seen = 0; i < to_out.size() && to_port == 0; ++i)
    if (links_[to_out[i]].to == link.from && seen++ == rank) to_port = i + 1;
  const auto port = [&](NodeId n, size_t p) {
    return is_switch(n) && p > 0 ? fmt::format(" port {}", p) : std::string();
  };
  return fmt::format("{}{} -> {}{}", node_label(link.from), port(link.from, from_port), node_label(link.to),
                     port(link.to, to_port));
}

}  // namespace anatomy::topo
