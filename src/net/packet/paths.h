#pragma once
// PathSet and PathCache: the routes packets carry.
//
// The packet backend models the network, not the inside of a host: of a
// route from the topology (topo::Topology::route), the links from the
// first fabric link (the source NIC's port) to the last one (the switch
// port facing the destination NIC) are modelled packet by packet; the hops
// before and after (GPU -> NIC over PCIe, a PXN hop over NVLink, NIC ->
// GPU) are the NIC's DMA and are charged as latency only (pre_delay,
// post_delay, both added when the last byte is delivered). A route with no fabric link (inside a scale-up domain, a
// torus, GPU -> host memory) is modelled whole.
//
// A PathSet is the equal-cost paths one flow may use: one path for ECMP,
// up to `spray_paths` for spraying and adaptive routing, sampled the way
// switches pick them, by hashing entropy values through the topology's own
// ECMP (so a set holds what per-packet entropy would reach). Paths are
// sorted lexicographically, so the paths that share a prefix are
// contiguous: adaptive routing chooses among them hop by hop. Each path is
// stored forward and reversed (the reverse links in reverse order) for the
// acknowledgements that travel back along it.
//
// Each path is also kept compact, for the packets to carry: each link as
// its place among its node's out-links (one byte a hop), which forwarding
// turns back into the link with the topology's table (Topology::out_link)
// instead of reading the path set, whose lines are cold by the time a
// packet lands (a flow's 256 paths on 8,192 hosts are 100 MB in all).
// Where every compact byte of path i is either the same for all paths or
// picked from a few values by a bit field of i (a fat tree's equal-cost
// paths differ only in their up-going choices, in sorted order), the set
// keeps those fields instead of each path's bytes: a packet's copy then
// reads the set's own record, not one cold line of a 3 KB table a flow.
//
// Sets are immutable once built and shared by every flow between the same
// pair (spray) or on the same route (ECMP), so the cache grows with the
// pairs and routes in use, not with transfers.
//
//   PathCache cache(topology, config);
//   const PathSet& s = cache.spray(topology.gpu_node(0), topology.gpu_node(9));
//   const LinkId* first = s.forward(0);   // s.len links

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

#include "net/packet/config.h"
#include "net/packet/packet.h"
#include "net/packet/stable_blocks.h"
#include "topo/topology.h"

namespace anatomy::net::packet {

using topo::LinkId;
using topo::NodeId;

inline bool is_fabric_link(topo::LinkKind k) { return k == topo::LinkKind::kFabric || k == topo::LinkKind::kStorage; }

struct PathSet {
  uint32_t count = 0;  // paths
  uint32_t len = 0;    // modelled links per path (equal-cost paths have equal length)
  std::vector<LinkId> fwd;  // count x len, sorted
  std::vector<LinkId> rev;  // rev[i*len + k] is the reverse of fwd[i*len + len-1-k]
  // fwd and rev compact: each link's index among its from-node's
  // out-links, path by path, forward then reverse (2 x len bytes a path),
  // padded with kCompactHops zeros at the end; empty when a path is longer
  // than kCompactHops or a node on it has more than 255 out-links.
  std::vector<uint8_t> local;
  // The same bytes as fields (see the top), when they are that: with
  // `fields` > 0, local is empty and byte b of path i's 2 x len is
  // field_values[f.values + ((i >> f.shift) & f.mask)] for the field f at
  // b, and fixed[b] elsewhere. fixed is zero past 2 x len.
  struct Field {
    uint8_t pos = 0, shift = 0, mask = 0, values = 0;
  };
  static constexpr size_t kMaxFields = 8, kMaxFieldValues = 64;
  uint8_t fields = 0;
  std::array<Field, kMaxFields> field;
  std::array<uint8_t, kMaxFieldValues> field_values{};
  std::array<uint8_t, 3 * kCompactHops> fixed{};
  // Topology::out_begin of the node every reverse path starts at (kNoSlot:
  // they start at different nodes).
  uint32_t rev_first = 0;
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  SimTime pre_delay;   // host-side hops before the first modelled link (latency only)
  SimTime post_delay;  // host-side hops after the last one
  SimTime latency;     // propagation + forwarding over the modelled links of path 0
  double line_bps = 0;         // slowest modelled link's line rate (wire bits per second)
  int wire_overhead = 0;       // wire bytes a data packet adds on that link
  SimTime data_time_last;      // wire time of a full data packet on the last modelled link
  SimTime base_rtt;            // full data packet out, control packet back, no queues

  const LinkId* forward(uint32_t i) const { return fwd.data() + static_cast<size_t>(i) * len; }
  const LinkId* reverse(uint32_t i) const { return rev.data() + static_cast<size_t>(i) * len; }
  bool compact() const { return fields > 0 || !local.empty(); }
  // The kCompactHops bytes a packet on path i carries (compact() only):
  // forward, its len links then the len of the way back; reverse, the way
  // back. Bytes past those are padding (another path's, or zero).
  void compact_bytes(uint32_t i, bool reverse, uint8_t* out) const {
    const size_t from = reverse ? len : 0;
    if (fields == 0) {
      std::memcpy(out, local.data() + 2 * static_cast<size_t>(i) * len + from, kCompactHops);
      return;
    }
    std::memcpy(out, fixed.data() + from, kCompactHops);
    for (uint8_t k = 0; k < fields; ++k) {
      const Field& f = field[k];
      if (f.pos >= from && f.pos < from + kCompactHops)
        out[f.pos - from] = field_values[f.values + ((i >> f.shift) & f.mask)];
    }
  }
  // [begin, end) of the paths that share path i's first `hops` links.
  void block(uint32_t i, uint32_t hops, uint32_t& begin, uint32_t& end) const;
};

class PathCache {
 public:
  PathCache(const topo::Topology& t, const PacketConfig& c);

  // The one path the topology's ECMP gives this flow hash.
  const PathSet& ecmp(NodeId src, NodeId dst, uint64_t hash);
  // Up to config.spray_paths distinct equal-cost paths between the pair.
  const PathSet& spray(NodeId src, NodeId dst);

  // Wire model of a link (see config.h): its line rate in bits per second,
  // and the wire bytes of a packet with `payload` bytes on it (control
  // packets and headers: payload 0).
  double line_bps(LinkId l) const;
  int64_t wire_bytes(LinkId l, int payload) const;
  LinkId reverse_of(LinkId l);

  size_t sets() const { return owned_.size(); }
  size_t memory_bytes() const;

 private:
  // Splits a full route into pre-delay, modelled links and post-delay.
  void model(const std::vector<LinkId>& full, std::vector<LinkId>& links, SimTime& pre, SimTime& post) const;
  PathSet& finish(PathSet&& made);
  const PathSet& store(uint64_t key, const std::vector<LinkId>& flat, uint32_t len, SimTime pre, SimTime post);
  const PathSet& every_path(uint64_t key, NodeId src, NodeId dst, uint32_t want);
  static constexpr uint32_t kSampledPaths = 1024;  // above this, enumerate instead of sampling

  const topo::Topology& topo_;
  const PacketConfig& cfg_;
  std::vector<LinkId> reverse_;
  std::vector<uint8_t> local_of_;  // by link: its index among its node's out-links; 255: too many
  std::unordered_map<uint64_t, std::vector<PathSet*>> by_route_;  // ECMP: hash of the modelled route
  std::unordered_map<uint64_t, PathSet*> by_pair_;                 // spray: (src, dst)
  // Made as flows first need them, kept side by side: a packet reads its
  // set's first lines as it is made.
  StableBlocks<PathSet, 8> owned_;
  std::vector<LinkId> full_, links_;  // scratch
};

}  // namespace anatomy::net::packet
