#include "net/network.h"

#include <vector>

#include "core/rng.h"

namespace anatomy::net {

uint64_t connection_hash(NodeId src, NodeId dst) {
  return core::mix64((uint64_t{src} << 32 | dst) ^ 0x636f6e6e65637431ULL);
}

SimTime Network::path_latency(NodeId src, NodeId dst, uint64_t flow_hash) const {
  thread_local std::vector<LinkId> path;
  path.clear();
  topology().route(src, dst, flow_hash, path);
  SimTime total;
  for (LinkId l : path) total += topology().link(l).latency;
  return total;
}

}  // namespace anatomy::net
