#include "net/network.h"

#include <vector>

namespace anatomy::net {

SimTime Network::path_latency(NodeId src, NodeId dst, uint64_t flow_hash) const {
  thread_local std::vector<LinkId> path;
  path.clear();
  topology().route(src, dst, flow_hash, path);
  SimTime total;
  for (LinkId l : path) total += topology().link(l).latency;
  return total;
}

}  // namespace anatomy::net
