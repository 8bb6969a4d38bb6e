#pragma once
// Packet, PacketPool, PacketFifo: the unit the packet backend moves, where
// it lives, and the queues it waits in.
//
// A Packet is a fixed record of 64 bytes, one cache line (measured: 7%
// fewer cache misses than packing them). It carries its route (a pointer
// into a path set the network keeps, htsim-style), the index of the next
// hop and, where the path is short, the route itself in one byte a hop
// (PathSet's compact form), so forwarding reads no path set; it never owns
// memory. Packets live in a
// pool of fixed-size blocks: `alloc()` reuses a freed slot, and makes a new
// record (in a new block of 4,096 when the last is full) only when more
// packets are in flight than ever before, so the steady state allocates
// nothing per packet and a reference to a packet stays valid while it is
// alive (blocks never move).
//
// Queues are intrusive FIFOs threaded through Packet::next, so enqueueing is
// two stores and no allocation.
//
//   PacketPool pool;
//   uint32_t i = pool.alloc();
//   pool[i].seq = 7;
//   PacketFifo q;
//   q.push(pool, i, /*wire_bytes=*/4178);
//   uint32_t j = q.pop(pool, 4178);   // == i
//   pool.free(j);

#include <cstdint>
#include <memory>
#include <vector>

#include "core/error.h"
#include "net/packet/stable_blocks.h"
#include "topo/topology.h"

namespace anatomy::net::packet {

using topo::LinkId;

inline constexpr uint32_t kNoPacket = UINT32_MAX;
// Longest route a packet carries compact (PathSet::local): the bytes left in its record.
inline constexpr uint32_t kCompactHops = 13;
inline constexpr uint32_t kNoPort = UINT32_MAX;  // the same as PacketNetwork's kNone for a port index

enum class PacketKind : uint8_t {
  kData,    // payload, sender -> receiver
  kHeader,  // a data packet whose payload a switch trimmed off (NDP/EQDS), sender -> receiver
  kAck,     // acknowledgement, receiver -> sender
  kNack,    // "this packet was trimmed / is missing", receiver -> sender
  kPull,    // a credit for one packet (receiver-driven transports), receiver -> sender
  kCnp,     // congestion notification (DCQCN), receiver -> sender
};

inline bool is_control(PacketKind k) { return k != PacketKind::kData && k != PacketKind::kHeader; }

// Packet::flags bits.
inline constexpr uint8_t kFlagEcn = 1;         // congestion experienced (set by a switch)
inline constexpr uint8_t kFlagEcnEcho = 2;     // control: the acknowledged packet carried kFlagEcn
inline constexpr uint8_t kFlagAckValid = 4;    // pull: `seq` is also acknowledged
// data: the sender asks for an ACK at once (its window is full, or nothing new
// is left to send), past a coalescing receiver (PacketConfig::ack_bytes). It
// shares kFlagAckValid's bit, which only control packets carry.
inline constexpr uint8_t kFlagAckRequest = kFlagAckValid;
inline constexpr uint8_t kFlagAllDone = 8;     // ack: the receiver has every byte
inline constexpr uint8_t kFlagRetransmit = 16;  // data: not the first transmission
inline constexpr uint8_t kFlagBounced = 32;     // nack: a switch returned the header to its sender
inline constexpr uint8_t kFlagVoq = 64;         // data: went through a switch-scheduled fabric's VOQ (aux = its sequence)
inline constexpr uint8_t kFlagDeep = 128;       // data: waited in a VOQ's off-chip memory

struct alignas(64) Packet {
  const LinkId* route = nullptr;  // the links this packet crosses, in order
  int64_t stamp_ps = 0;           // data: when it left the sender; control: the echoed data stamp
  uint32_t flow = 0;              // flow slot in the network
  uint32_t flow_gen = 0;          // the slot's generation when sent; stale packets are dropped on arrival
  uint32_t seq = 0;               // data: packet number in the flow; control: the packet it is about
  uint32_t aux = 0;               // control: cumulative acknowledgement (packets) where the transport uses one
  uint32_t next = kNoPacket;      // intrusive FIFO link
  // The port of route[hop + 1], worked out while route[hop] was in cache, so
  // the next landing skips two dependent misses (route entry, link -> port);
  // kNoPort: not known (a new packet, a route that changed).
  uint32_t next_port = kNoPort;
  uint16_t payload = 0;           // payload bytes (0 for control packets and trimmed headers)
  uint16_t path = 0;              // index of `route` in the flow's path set
  uint16_t hop = 0;               // index into route of the link it is on or about to take
  uint16_t hops = 0;              // route length
  PacketKind kind = PacketKind::kData;
  uint8_t flags = 0;
  // The route compact (PathSet::local), when `compact`: local[k] is
  // route[k]'s index among its node's out-links. A data packet on a path
  // of at most kCompactHops / 2 links also carries the reverse route in
  // local[hops, 2 hops), for its acknowledgement.
  uint8_t compact = 0;
  uint8_t local[kCompactHops] = {};
};
static_assert(sizeof(Packet) == 64, "a packet record is one cache line (the issue allows 200 bytes per packet)");

class PacketPool {
 public:
  static constexpr uint32_t kBlockBits = 12;
  static constexpr uint32_t kBlock = 1u << kBlockBits;

  // A freed slot, the most recently freed first, or else a new one: slots
  // come in address order and a block's records are made only as needed.
  uint32_t alloc() {
    if (++live_ > peak_live_) peak_live_ = live_;
    if (free_.empty()) {
      ANATOMY_CHECK(records_.size() < (size_t{1} << 32) - 1, "packet pool exhausted");
      const uint32_t i = static_cast<uint32_t>(records_.size());
      records_.emplace_back();
      return i;
    }
    const uint32_t i = free_.back();
    free_.pop_back();
    (*this)[i] = Packet{};
    return i;
  }
  void free(uint32_t i) {
    free_.push_back(i);
    --live_;
  }
  Packet& operator[](uint32_t i) { return records_[i]; }
  const Packet& operator[](uint32_t i) const { return records_[i]; }

  size_t live() const { return live_; }
  size_t peak() const { return peak_live_; }
  size_t capacity() const { return records_.capacity(); }
  // Bytes the pool holds (records plus the free list), for the memory figures.
  size_t memory_bytes() const { return capacity() * sizeof(Packet) + free_.capacity() * sizeof(uint32_t); }

 private:
  StableBlocks<Packet, kBlockBits> records_;
  std::vector<uint32_t> free_;
  size_t live_ = 0;
  size_t peak_live_ = 0;
};

class PacketFifo {
 public:
  bool empty() const { return head_ == kNoPacket; }
  int64_t bytes() const { return bytes_; }
  uint32_t front() const { return head_; }

  void push(PacketPool& pool, uint32_t i, int64_t wire_bytes) {
    pool[i].next = kNoPacket;
    if (tail_ == kNoPacket) head_ = i;
    else pool[tail_].next = i;
    tail_ = i;
    bytes_ += wire_bytes;
  }
  // Pops the head, whose wire size the caller knows.
  uint32_t pop(PacketPool& pool, int64_t wire_bytes) {
    const uint32_t i = head_;
    head_ = pool[i].next;
    if (head_ == kNoPacket) tail_ = kNoPacket;
    bytes_ -= wire_bytes;
    return i;
  }

 private:
  uint32_t head_ = kNoPacket;
  uint32_t tail_ = kNoPacket;
  int64_t bytes_ = 0;
};

}  // namespace anatomy::net::packet
