#pragma once
// A deduplicating, forwarding all-to-all, the traffic of DeepEP's and
// HybridEP's normal (training) kernels: an item bound for ranks of another
// scale-up domain crosses the network once, to the rank in the sender's
// own place of that domain (place modulo its size where domains differ:
// an extrapolation, as DeepEP itself needs 8 GPUs in every node),
// which forwards it over the domain's links to the ranks that want it;
// inside the sender's domain it goes straight to them. Both legs run at
// once (the forwarding is pipelined in chunks behind the network leg), so
// the slower of the two sets the time. (Megatron-LM's MoE README on its
// flex dispatcher's DeepEP backend: it "removes redundant tokens during
// cross-node communication, fuses intra/inter-node communication into
// single kernel".)
//
// Every rank sends to_domain[e] payload bytes to its counterpart in each
// other domain e (the group's domains, in order), and `to_peer` to every
// other rank of its own domain for itself; a counterpart forwards
// `to_peer` to every other rank of its domain for each rank it receives
// from. Sizes come from the caller's routing model
// (workload/moe_routing.h). Sends carry wire bytes (payload over the
// protocol's efficiency); the latency is one network hop and one
// forwarding hop.
//
//   Schedule s = build_forwarded_all_to_all(group, {Bytes(0), Bytes::MiB(4)}, Bytes::MiB(2), Protocol::kSimple, lib);

#include <vector>

#include "coll/algorithm.h"

namespace anatomy::coll {

Schedule build_forwarded_all_to_all(const Group& g, const std::vector<Bytes>& to_domain, Bytes to_peer,
                                    Protocol protocol, const LibraryModel& lib);

}  // namespace anatomy::coll
