#pragma once
// PacketNetwork: the packet-level backend behind net::Network.
//
// A drop-in alternative to FlowNetwork: transfer(src, dst, bytes, on_done)
// becomes a flow of MTU-sized packets that a transport (transport.h) sends
// through the topology's links, packet by packet, and on_done runs when the
// receiver has the last byte (or, with complete_on_send, when the sender
// has put every packet on the wire once and has nothing left to resend).
//
// The pipeline, htsim-style, with one job per element:
//  * NIC (packet_endpoints.cc): each flow leaves through its first
//    modelled link's port; when the port is free it asks the flows queued
//    there, round robin, for their next packet (the transport's window,
//    rate or credits decide), so pacing happens at the NIC and nothing
//    queues in the host.
//  * Port (packet_network.cc; the egress of one directed link): two FIFOs,
//    control packets and trimmed headers first (strict priority: one that
//    finds no other ahead of it is committed to follow the packet on the
//    wire), then data, and a serializer. A packet takes wire_bytes x 8 /
//    line_rate to serialize, then the link's latency (propagation plus the
//    next node's forwarding) to arrive. A packet that finds the port idle
//    goes straight onto the wire, so an uncongested hop costs one event; a
//    queue adds one more per packet. Packets on a link arrive in the order
//    they left (constant latency), so each link keeps them in a ring and
//    only its head waits in the event queue: the queue holds one event per
//    busy link, not one per packet in flight.
//  * Switch (fabric switches): the injected BufferPolicy admits or refuses
//    a data packet; refused packets are trimmed to a header (forwarded at
//    high priority; NDP's return-to-sender when even the header queue is
//    full) or dropped; data joining a long queue is ECN-marked (RED); with
//    PFC, every ingress link's buffered bytes are counted and the upstream
//    port is paused above xoff and resumed below xon, after the link's
//    delay, so pauses spread hop by hop towards the senders. NICs,
//    NVSwitches and PCIe are lossless and unbounded.
//  * Switch-scheduled fabric (switch_scheduled.cc), instead of the above:
//    the ingress switch holds each packet in a virtual output queue for its
//    egress port, asks that port's scheduler for a grant, and on the grant
//    sprays it over the fabric; the egress switch restores each VOQ's order.
//  * Load balancing: ECMP (one path per flow hash), spraying (the next of
//    the flow's equal-cost paths per packet), adaptive (the least-queued
//    equal-cost next hop at every switch).
//
// What is not modelled: the host-side hops around the fabric (GPU <-> NIC
// over PCIe, a PXN hop over NVLink) are latency only (paths.h), so they
// never limit bandwidth; PFC has one lossless class (data) and control
// packets travel in a lossy priority class.
//
// Partitioned (parallel_run.h): the network can be one part of a larger
// run, modelling only its own nodes' ports; a packet bound for another
// part's node leaves through an outbox instead of the link's ring.
//
// Time is integer picoseconds; serialization rounds up to the next ps.
// Packets come from a pool (packet.h) and carry their route; the hot path
// allocates nothing. Flows and ports live in blocks that never move
// (stable_blocks.h), so references stay valid while callbacks start new
// transfers.
//
//   engine::Simulator sim;
//   PacketConfig cfg;                       // eqds, spraying, trimming
//   TransportRegistry reg;
//   register_builtin_transports(reg);
//   PacketNetwork net(sim, topology, cfg, reg.make(cfg.transport), make_buffer_policy(cfg));
//   net.transfer(topology.gpu_node(0), topology.gpu_node(8), Bytes::MiB(2), [&] { ... });
//   sim.run();

#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "net/network.h"
#include "net/packet/buffer_policy.h"
#include "net/packet/config.h"
#include "net/packet/packet.h"
#include "net/packet/partition.h"
#include "net/packet/paths.h"
#include "net/packet/stable_blocks.h"
#include "net/packet/transport.h"

namespace anatomy::net::packet {

struct PacketStats {
  uint64_t data_sent = 0;          // data packets senders put on the wire (first sends and resends)
  uint64_t retransmits = 0;        // of which resends
  uint64_t control_sent = 0;       // acks, nacks, pulls, CNPs
  uint64_t drops = 0;              // data packets a full buffer dropped
  uint64_t header_drops = 0;       // control packets dropped (header queue full)
  uint64_t bounces = 0;            // trimmed headers sent back to their sender (header queue full)
  uint64_t trims = 0;              // data packets cut to their header
  uint64_t ecn_marks = 0;
  uint64_t pfc_pauses = 0;         // pause frames sent
  uint64_t pfc_headroom_drops = 0; // lossless packets dropped because the headroom overflowed
  uint64_t timeouts = 0;
  uint64_t cnps = 0;
  uint64_t stale = 0;              // packets that arrived for a flow already finished
  uint64_t grants = 0;             // switch-scheduled: packets granted from a VOQ
  uint64_t reordered = 0;          // switch-scheduled: packets held at the egress until their turn
  uint64_t voq_drops = 0;          // switch-scheduled: VOQ memory full
  int64_t peak_switch_bytes = 0;   // most bytes one switch held at once
  int64_t peak_port_bytes = 0;     // most bytes one egress queue held at once
  size_t peak_packets = 0;         // packets alive at once
};

struct PortStats {
  int64_t peak_bytes = 0;
  uint64_t drops = 0, trims = 0, ecn_marks = 0;
  uint64_t pauses_received = 0;  // PFC pause frames that stopped this port
  SimTime paused_time;           // how long it was paused in all (up to now)
  int64_t payload_bytes = 0;     // payload it has put on the wire
};

class PacketNetwork final : public Network, private Host {
 public:
  PacketNetwork(engine::Simulator& sim, const topo::Topology& topo, PacketConfig config,
                std::unique_ptr<Transport> transport, std::unique_ptr<BufferPolicy> buffers);
  ~PacketNetwork() override;
  PacketNetwork(const PacketNetwork&) = delete;
  PacketNetwork& operator=(const PacketNetwork&) = delete;

  TransferId transfer(NodeId src, NodeId dst, Bytes bytes, Callback on_done,
                      const TransferOptions& options = {}) override {
    return transfer_at(sim_.now(), src, dst, bytes, std::move(on_done), options);
  }
  // transfer() whose first packet may leave at `start` (>= now()), not now.
  TransferId transfer_at(SimTime start, NodeId src, NodeId dst, Bytes bytes, Callback on_done,
                         const TransferOptions& options = {});
  size_t active_transfers() const override { return active_; }
  const NetworkCounters& counters() const override { return counters_; }
  Bytes link_bytes(LinkId l) const override;
  int64_t queued_bytes(LinkId l) const override;
  const topo::Topology& topology() const override { return topo_; }
  engine::Simulator& simulator() override { return sim_; }
  const char* model_name() const override { return "packet"; }

  const PacketStats& stats() const;
  PortStats port_stats(LinkId l) const;
  // The configuration with every "auto" resolved by the transport.
  const PacketConfig& config() const override { return cfg_; }
  LoadBalancing load_balancing() const { return lb_; }
  bool trimming() const { return trimming_; }
  bool pfc() const { return pfc_; }
  const Transport& transport() const { return *transport_; }
  // Bytes of memory the model holds (pool, flows, ports, paths).
  size_t memory_bytes() const;
  // Flow records held: every transfer on one queue; in a part, those it sends or receives.
  size_t flow_records() const { return flows_.size(); }

  // ---- one part of a partitioned run (parallel_run.h) ----
  // A packet, or a PFC pause frame, bound for a node of another part; it
  // arrives there at at_ps, at least one lookahead after it left.
  struct Crossing {
    Packet packet;              // a packet (when !is_pause); first, so the record is two cache lines
    int64_t at_ps = 0;
    LinkId pause_link = topo::kNoLink;
    bool pause = false;         // a pause frame: pause (true) or resume
    bool is_pause = false;
  };
  static_assert(sizeof(Crossing) == 128, "a crossing is two cache lines");
  // Makes this network the part `self` of `partition`: it models the
  // nodes that part owns and their egress ports, and appends what leaves
  // for another part k to (*outboxes)[k]. Every part is given every
  // transfer, in the same order, so a flow has one slot number everywhere;
  // only the parts of its two ends keep its state. Slots are not reused.
  // Call before the first transfer.
  void join_partition(const Partition& partition, uint16_t self, std::vector<std::vector<Crossing>>* outboxes);
  // Routes from `owner`'s path cache instead of its own: every part's
  // packets carry pointers into one cache. Call before the first transfer.
  void share_paths(PacketNetwork& owner);
  // A crossing another part posted for this one.
  void import(const Crossing& c);
  // When the earliest crossing this part posted since the last call
  // arrives (SimTime::max() if none), and forget it: what a window adds to
  // the run's next event besides the parts' own queues.
  SimTime take_earliest_crossing() {
    const int64_t at = std::exchange(earliest_crossing_ps_, INT64_MAX);
    return at == INT64_MAX ? SimTime::max() : SimTime::ps(at);
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint16_t kNoPart = UINT16_MAX;
  // Partitioned: a packet bound for another part carries its next link,
  // not a port index, in next_port, tagged by this bit (import() resolves it).
  static constexpr uint32_t kNextLinkTag = 0x80000000u;
  static_assert(kNone == kNoPort, "a packet's next_port and a port index share the empty value");

  struct WireSlot {
    int64_t arrive_ps;  // when its last bit reaches the far end
    uint32_t packet;
  };
  // What every packet touches, in two cache lines; the rest is in PortCold.
  struct alignas(64) Port {
    SimTime busy_until;         // the serializer is busy until then
    PacketFifo hi, lo;          // control and trimmed headers; data
    std::unique_ptr<WireSlot[]> wire;  // on the link, in arrival order: a ring
    uint32_t wire_mask = 0;     // ring size - 1 (a power of two), or 0 before the first packet
    uint32_t wire_head = 0, wire_count = 0;
    uint32_t sw = kNone;        // fabric switch whose buffer it uses; kNone: lossless, unbounded
    SimTime latency;            // link propagation + forwarding at the far node
    SimTime data_time;          // wire time of a full data packet
    SimTime ctrl_time;          // wire time of a control packet or header
    double ps_per_byte = 0;
    int64_t payload_bytes = 0;  // payload it has put on the wire
    int64_t peak_bytes = 0;
    uint32_t feeder = kNone;    // NIC ring of flows that inject here
    uint16_t overhead = 0;      // wire bytes a data packet adds beyond its payload
    bool paused = false;        // PFC: data may not start
    bool service_pending = false;
    uint16_t far_part = kNoPart;  // partitioned: the part of the link's far end, if not this one
    uint32_t far_first = kNone;   // Topology::out_begin of the link's far end (a compact route's next hop)
  };
  static_assert(sizeof(Port) == 128, "a port is two cache lines");
  struct PortCold {
    LinkId link = topo::kNoLink;
    SimTime paused_since;
    PortStats stats;            // counters; payload and peak live in Port
  };
  struct Feeder {
    std::vector<std::pair<uint32_t, uint32_t>> ring;  // (flow slot, generation), ready to send
    size_t head = 0;
    bool empty() const { return head == ring.size(); }
  };
  struct Switch {
    int64_t used = 0;
    int64_t peak = 0;
    uint32_t spray = 0;  // switch-scheduled: the next fabric path, round robin over the ingress's packets
  };
  // Switch-scheduled fabric (switch_scheduled.cc): a virtual output queue
  // at an ingress switch for one egress port, and that port's scheduler.
  struct Voq {
    PacketFifo q;
    uint32_t sched = kNone;      // the egress port's scheduler
    uint32_t ingress_sw = kNone;
    uint32_t requests = 0;       // requests the scheduler holds for this VOQ
    uint32_t next_seq = 0;       // stamped on packets as they leave for the fabric
    uint32_t expect = 0;         // egress: next sequence number to release
    std::vector<uint32_t> window;  // egress: packets that overtook, at sequence mod size (a power of two)
    uint32_t held = 0;             // how many wait there
    SimTime one_way;             // ingress switch to egress switch, for requests and grants
  };
  struct Sched {
    std::vector<uint32_t> ring;  // VOQs with requests, round robin
    size_t head = 0;
    SimTime next_grant;
    SimTime interval;            // one full packet on the egress link
    bool event = false;
  };

  // Host (transport services).
  engine::Simulator& sim() override { return sim_; }
  Flow& flow(uint32_t slot) override { return flow_at(slot); }
  void send_control(Flow& f, PacketKind kind, uint32_t seq, uint32_t aux, uint8_t flags, uint16_t path,
                    int64_t stamp_ps) override;
  void activate(Flow& f) override;
  void arm_rto(Flow& f, bool progress) override;
  void disarm_rto(Flow& f) override { f.rto_armed = false; }
  void receiver_complete(Flow& f) override;
  void sender_complete(Flow& f) override;
  void count_cnp() override { ++stats_.cnps; }

  uint32_t port_index(LinkId l);
  // The record of the flow in `slot`: one this part sends or receives (any
  // flow on one queue).
  Flow& flow_at(uint32_t slot) { return flows_[part_ ? slots_[slot].local : slot]; }
  const Flow& flow_at(uint32_t slot) const { return flows_[part_ ? slots_[slot].local : slot]; }
  // The paths of the flow a packet in transit belongs to, or nullptr when
  // that flow is over (its packet is stale). A part keeps only the paths of
  // a flow it neither sends nor receives; the flow's own part retires it.
  const PathSet* live_paths(uint32_t slot, uint32_t gen) const;
  uint32_t new_slot();
  void free_slot(uint32_t slot);
  void report(uint32_t slot);
  void start_flow(uint32_t slot, uint32_t gen);
  void wake(uint32_t slot, uint32_t gen);
  void rto_fired(uint32_t slot, uint32_t gen);

  int64_t wire(const Port& port, const Packet& p) const {
    return p.payload ? p.payload + port.overhead : cfg_.header_wire;
  }
  SimTime serialization(const Port& port, int64_t wire_bytes) const;
  // A packet reaches the node at the end of route[hop - 1] (or, hop 0, is injected).
  void forward(uint32_t pi);
  // Packet::next_port of `p`, about to take route[hop] through port `idx`.
  void set_next_port(Packet& p, uint32_t idx);
  // Puts path `i` of `s` on `p` (reversed for a packet back to the sender):
  // the route, its length and, where the next port is looked up ahead, the
  // route compact.
  void take_path(Packet& p, const PathSet& s, uint32_t i, bool reverse) const;
  void arrive_at_port(uint32_t port, uint32_t pi);
  void enqueue(Port& port, uint32_t pi, bool high);
  void transmit(uint32_t port, uint32_t pi, SimTime start);
  // A link's head packet `pi` reaches the far end of port's link. The event
  // carries the packet, so it can prefetch its records (LandEvent).
  struct LandEvent;
  struct ImportEvent;  // forward() of a packet another part posted
  void land(uint32_t port, uint32_t pi);
  void prefetch_land_far(uint32_t port, uint32_t pi) const;
  void prefetch_land_near(uint32_t port, uint32_t pi) const;
  // What forward() of `p` will touch first: the next port, or at the end its flow.
  void prefetch_next_hop(const Packet& p) const;
  void serve(uint32_t port);
  struct ServeEvent;  // serve(port) at the end of the packet on its wire, with prefetch hints
  void prefetch_serve_near(uint32_t port) const;
  void kick(uint32_t port);
  bool has_work(const Port& port) const;
  uint32_t from_feeder(Port& port);
  uint32_t make_data(Flow& f, uint32_t seq);
  void at_endpoint(uint32_t pi);
  void bounce(uint32_t pi);
  void adapt(Packet& p, const PathSet& s);
  void send_pause(LinkId in_link, bool pause);
  bool voq_ingress(uint32_t pi);
  void voq_request(uint32_t voq);
  void voq_grant(uint32_t sched);
  void voq_release(uint32_t voq);
  void fabric_inject(uint32_t pi);
  void egress_reorder(uint32_t pi);
  uint32_t voq_of(NodeId ingress, LinkId egress, const Packet& p, bool create);
  void pause_arrived(LinkId link, bool pause);
  bool owns(NodeId n) const { return part_ == nullptr || part_->owner[n] == self_; }
  // Whether this part keeps the flow's sender (the node its first
  // modelled link leaves) or its receiver (the node its last one reaches).
  bool sends_here(const PathSet& s) const { return owns(topo_.link(s.forward(0)[0]).from); }
  bool receives_here(const PathSet& s) const { return owns(topo_.link(s.forward(0)[s.len - 1]).to); }
  bool sends_here(const Flow& f) const { return sends_here(*f.paths); }
  bool receives_here(const Flow& f) const { return receives_here(*f.paths); }
  // Posts a packet that reaches another part's node at `arrive` (it leaves this part's pool).
  void cross(uint16_t to, SimTime arrive, uint32_t pi);
  bool ecn_mark(int64_t queue_bytes);
  int64_t headroom(LinkId l) const;

  engine::Simulator& sim_;
  const topo::Topology& topo_;
  PacketConfig cfg_;
  // The fabric's framing (topo::Framing): payload per packet and the bytes
  // each adds on a fabric link, from the topology, which derated its fabric
  // links' bandwidth by the same two numbers.
  int mtu_;
  int wire_overhead_;
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<BufferPolicy> buffers_;
  LoadBalancing lb_;
  bool trimming_;
  bool pfc_;
  bool hop_cache_ = false;  // Packet::next_port is kept (see forward())
  // The data packet the transport is being handed (at_endpoint()), whose
  // compact bytes carry the reverse route its acknowledgement takes.
  const Packet* delivering_ = nullptr;
  int64_t xon_;

  std::unique_ptr<PathCache> own_paths_;
  PathCache* paths_;  // own_paths_, or a partitioned run's shared cache
  const Partition* part_ = nullptr;  // partitioned: the split, this network's part, and its outboxes
  uint16_t self_ = 0;
  std::vector<std::vector<Crossing>>* outboxes_ = nullptr;
  int64_t earliest_crossing_ps_ = INT64_MAX;  // of those posted since take_earliest_crossing()
  PacketPool pool_;
  StableBlocks<Flow> flows_;  // on one queue by slot; in a part, only the flows it sends or receives
  std::vector<uint32_t> free_slots_;
  // Partitioned: every part numbers every transfer alike, but stores a
  // flow's record only where its sender or receiver is (at 8,192 hosts in
  // 32 parts, 32x fewer records); the others keep their paths alone.
  struct SlotRef {
    const PathSet* paths = nullptr;
    uint32_t local = kNone;  // index in flows_, or kNone: a transit flow here
  };
  std::vector<SlotRef> slots_;
  StableBlocks<Port> ports_;
  StableBlocks<PortCold> cold_;  // by port index
  std::vector<uint32_t> port_of_link_;
  std::vector<Feeder> feeders_;
  std::vector<Switch> switches_;
  std::vector<uint32_t> switch_of_node_;
  std::vector<int64_t> ingress_bytes_;  // PFC: bytes buffered downstream that came in over each link
  std::vector<uint8_t> pause_sent_;
  std::vector<Voq> voqs_;
  std::unordered_map<uint64_t, uint32_t> voq_index_;  // (ingress node, egress link) -> VOQ
  std::vector<Sched> scheds_;
  std::unordered_map<LinkId, uint32_t> sched_of_link_;
  core::Rng rng_;
  uint64_t spray_salt_;  // spray_order random/recycle: mixed into every fresh entropy value, from the seed

  size_t active_ = 0;
  TransferId next_id_ = 1;
  NetworkCounters counters_;
  mutable PacketStats stats_;
};

}  // namespace anatomy::net::packet
