#include "net/packet/packet_network.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.h"

namespace anatomy::net::packet {

PacketNetwork::PacketNetwork(engine::Simulator& sim, const topo::Topology& topo, PacketConfig config,
                             std::unique_ptr<Transport> transport, std::unique_ptr<BufferPolicy> buffers)
    : sim_(sim),
      topo_(topo),
      cfg_(std::move(config)),
      mtu_(topo.framing.mtu_bytes),
      wire_overhead_(topo.framing.overhead_bytes),
      transport_(std::move(transport)),
      buffers_(std::move(buffers)),
      own_paths_(std::make_unique<PathCache>(topo_, cfg_)),
      paths_(own_paths_.get()),
      port_of_link_(topo.num_links(), kNone),
      switch_of_node_(topo.num_nodes(), kNone),
      rng_(core::RngStreams(cfg_.seed).stream("packet.ecn")),
      spray_salt_(core::RngStreams(cfg_.seed).stream("packet.spray").next_u64()) {
  ANATOMY_CHECK(transport_ && buffers_, "a packet network needs a transport and a buffer policy");
  transport_->attach(*this);
  const Transport::Defaults d = transport_->defaults();
  lb_ = cfg_.load_balancing == LoadBalancing::kAuto ? d.load_balancing : cfg_.load_balancing;
  // A switch-scheduled fabric sprays every packet over the fabric itself.
  if (cfg_.fabric == FabricKind::kSwitchScheduled) lb_ = LoadBalancing::kSpray;
  trimming_ = cfg_.trimming == Toggle::kAuto ? d.trimming : cfg_.trimming == Toggle::kOn;
  pfc_ = cfg_.pfc == Toggle::kAuto ? d.pfc : cfg_.pfc == Toggle::kOn;
  if (cfg_.rto_min == SimTime::zero()) cfg_.rto_min = d.rto_min;
  if (cfg_.spray_paths == 0) cfg_.spray_paths = d.spray_paths;  // paths_ reads it on first use
  if (cfg_.spray_order == SprayOrder::kAuto) cfg_.spray_order = d.spray_order;
  cfg_.load_balancing = lb_;
  cfg_.trimming = trimming_ ? Toggle::kOn : Toggle::kOff;
  cfg_.pfc = pfc_ ? Toggle::kOn : Toggle::kOff;
  // Adaptive routing picks route[hop] at each switch and a switch-scheduled
  // fabric re-sprays at its ingress: there the next hop is not known ahead.
  hop_cache_ = lb_ != LoadBalancing::kAdaptive && cfg_.fabric == FabricKind::kEndpoint;
  const int64_t full = mtu_ + wire_overhead_;
  xon_ = cfg_.pfc_xon.count() > 0 ? cfg_.pfc_xon.count() : std::max<int64_t>(0, cfg_.pfc_xoff.count() - 2 * full);
  for (NodeId n = 0; n < topo.num_nodes(); ++n) {
    if (topo.kind(n) != topo::NodeKind::kSwitch) continue;
    switch_of_node_[n] = static_cast<uint32_t>(switches_.size());
    switches_.emplace_back();
  }
  if (pfc_) {
    ingress_bytes_.assign(topo.num_links(), 0);
    pause_sent_.assign(topo.num_links(), 0);
  }
}

PacketNetwork::~PacketNetwork() = default;

// ---- ports -----------------------------------------------------------------

// Most of the backend's events are landings, and each starts with a chain
// of cache misses on records spread over the whole fabric's state: the
// port, its wire ring, the packet, its route, the next port (or the flow).
// On 1,024 hosts those stalls were 60-90% of the time of forward(), land()
// and serve() (perf annotate). The simulator calls these hints on the
// events queued just ahead (engine/callback.h), so the misses overlap.
struct PacketNetwork::LandEvent {
  PacketNetwork* net;
  uint32_t port, packet;
  void operator()() const { net->land(port, packet); }
  void prefetch_far() const { net->prefetch_land_far(port, packet); }
  void prefetch_near() const { net->prefetch_land_near(port, packet); }
};

void PacketNetwork::transmit(uint32_t idx, uint32_t pi, SimTime start) {
  Port& port = ports_[idx];
  Packet& p = pool_[pi];
  port.busy_until = start + serialization(port, wire(port, p));
  port.payload_bytes += p.payload;
  if (signals_->link_tx) signals_->link_tx.emit(start, cold_[idx].link, int64_t{p.payload});
  if (p.hop == 0 && p.kind == PacketKind::kData) {
    // The sender's NIC: the packet's send time (for RTT samples) is when it
    // starts on the wire. With complete_on_send, the transfer is done when
    // its last packet has left and nothing waits to be resent.
    p.stamp_ps = start.count_ps();
    Flow& f = flow_at(p.flow);
    if (f.complete_on_send && !f.reported && !f.report_scheduled && f.highest_sent == f.npkts &&
        f.snd_nxt >= f.npkts && !f.retx_pending()) {
      const uint32_t slot = p.flow;
      f.report_scheduled = true;
      sim_.schedule_at(port.busy_until, [this, slot] { report(slot); });
    }
  }
  const SimTime arrive = port.busy_until + port.latency;
  if (port.far_part != kNoPart) [[unlikely]] {
    cross(port.far_part, arrive, pi);
    return;
  }
  if (port.wire_count == port.wire_mask + (port.wire ? 1u : 0u)) {  // grow the ring (rare: once per new record)
    const uint32_t size = port.wire ? 2 * (port.wire_mask + 1) : 8;
    auto grown = std::make_unique<WireSlot[]>(size);
    for (uint32_t k = 0; k < port.wire_count; ++k) grown[k] = port.wire[(port.wire_head + k) & port.wire_mask];
    port.wire = std::move(grown);
    port.wire_mask = size - 1;
    port.wire_head = 0;
  }
  port.wire[(port.wire_head + port.wire_count) & port.wire_mask] = {arrive.count_ps(), pi};
  if (port.wire_count++ == 0) sim_.schedule_at(arrive, LandEvent{this, idx, pi});
}

// A busy port's next send: the port itself, then what it will send (the
// head of a queue, or the flow its NIC asks next).
struct PacketNetwork::ServeEvent {
  PacketNetwork* net;
  uint32_t port;
  void operator()() const { net->serve(port); }
  void prefetch_far() const {
    const char* q = reinterpret_cast<const char*>(&net->ports_[port]);
    __builtin_prefetch(q);
    __builtin_prefetch(q + 64);
  }
  void prefetch_near() const { net->prefetch_serve_near(port); }
};

void PacketNetwork::prefetch_serve_near(uint32_t idx) const {
  const Port& port = ports_[idx];
  if (!port.hi.empty()) {
    __builtin_prefetch(&pool_[port.hi.front()]);
  } else if (!port.lo.empty()) {
    __builtin_prefetch(&pool_[port.lo.front()]);
  } else if (port.feeder != kNone) {
    const Feeder& fd = feeders_[port.feeder];
    if (fd.empty()) return;
    const char* f = reinterpret_cast<const char*>(&flow_at(fd.ring[fd.head].first));
    for (int k = 0; k < 4; ++k) __builtin_prefetch(f + 64 * k);
  }
}

uint32_t PacketNetwork::port_index(LinkId l) {
  uint32_t& idx = port_of_link_[l];
  if (idx != kNone) return idx;
  const topo::Link& k = topo_.link(l);
  Port p;
  p.latency = k.latency;
  p.ps_per_byte = 8e12 / paths_->line_bps(l);
  p.overhead = static_cast<uint16_t>(is_fabric_link(k.kind) ? wire_overhead_ : 0);
  p.data_time = SimTime::ps(static_cast<int64_t>(std::ceil((mtu_ + p.overhead) * p.ps_per_byte - 1e-6)));
  p.ctrl_time = SimTime::ps(static_cast<int64_t>(std::ceil(cfg_.header_wire * p.ps_per_byte - 1e-6)));
  // In a switch-scheduled fabric the switches past the ingress VOQs are
  // cell switches with link-level flow control: lossless here.
  if (cfg_.fabric == FabricKind::kEndpoint) p.sw = switch_of_node_[k.from];
  p.far_first = topo_.out_begin(k.to);
  if (part_) {
    ANATOMY_CHECK(owns(k.from), "a part modelled a port of another part's node");
    if (!owns(k.to)) p.far_part = part_->owner[k.to];
  }
  idx = static_cast<uint32_t>(ports_.size());
  ports_.push_back(std::move(p));
  cold_.emplace_back();
  cold_.back().link = l;
  return idx;
}

SimTime PacketNetwork::serialization(const Port& port, int64_t wire_bytes) const {
  if (wire_bytes == mtu_ + port.overhead) return port.data_time;
  if (wire_bytes == cfg_.header_wire) return port.ctrl_time;
  return SimTime::ps(static_cast<int64_t>(std::ceil(static_cast<double>(wire_bytes) * port.ps_per_byte - 1e-6)));
}

bool PacketNetwork::has_work(const Port& port) const {
  if (!port.hi.empty()) return true;
  if (port.paused) return false;
  return !port.lo.empty() || (port.feeder != kNone && !feeders_[port.feeder].empty());
}

void PacketNetwork::kick(uint32_t idx) {
  Port& port = ports_[idx];
  if (port.service_pending) return;
  if (sim_.now() >= port.busy_until) {
    serve(idx);
    return;
  }
  if (!has_work(port)) return;
  port.service_pending = true;
  sim_.schedule_at(port.busy_until, ServeEvent{this, idx});
}

void PacketNetwork::serve(uint32_t idx) {
  Port& port = ports_[idx];
  port.service_pending = true;  // a transport called from here cannot re-enter this port
  // A control packet may have taken the wire since this service was
  // scheduled; the next packet then follows it (a few ns later).
  const SimTime start = std::max(sim_.now(), port.busy_until);
  uint32_t pi = kNoPacket;
  if (!port.hi.empty()) {
    pi = port.hi.front();
    const int64_t w = wire(port, pool_[pi]);
    port.hi.pop(pool_, w);
    if (port.sw != kNone) switches_[port.sw].used -= w;
  } else if (!port.paused && !port.lo.empty()) {
    pi = port.lo.front();
    const Packet& p = pool_[pi];
    const int64_t w = wire(port, p);
    port.lo.pop(pool_, w);
    if (port.sw != kNone) {
      switches_[port.sw].used -= w;
      if (pfc_) {
        const LinkId in = p.route[p.hop - 1];
        ingress_bytes_[in] -= w;
        if (pause_sent_[in] && ingress_bytes_[in] <= xon_) send_pause(in, false);
      }
    }
  } else if (!port.paused && port.feeder != kNone) {
    pi = from_feeder(port);
  }
  if (pi == kNoPacket) {
    port.service_pending = false;
    return;
  }
  transmit(idx, pi, start);
  if (has_work(port)) {
    sim_.schedule_at(port.busy_until, ServeEvent{this, idx});
    // The same for the packet that service will take, waiting in the queue.
    if (!port.hi.empty()) __builtin_prefetch(&pool_[port.hi.front()]);
    else if (!port.lo.empty()) __builtin_prefetch(&pool_[port.lo.front()]);
  } else {
    port.service_pending = false;
  }
}

void PacketNetwork::prefetch_land_far(uint32_t idx, uint32_t pi) const {
  __builtin_prefetch(&ports_[idx]);
  __builtin_prefetch(&pool_[pi]);
}

void PacketNetwork::prefetch_land_near(uint32_t idx, uint32_t pi) const {
  const Port& port = ports_[idx];
  if (port.wire_count > 1) __builtin_prefetch(&port.wire[(port.wire_head + 1) & port.wire_mask]);
  prefetch_next_hop(pool_[pi]);
}

void PacketNetwork::prefetch_next_hop(const Packet& p) const {
  const uint32_t next = p.hop + 1u;
  // forward() reads the link after the next (next_port's, see there): the
  // route is one of a flow's many paths, out of cache since the last hop.
  if (hop_cache_ && !p.compact && next + 1 < p.hops) __builtin_prefetch(p.route + next + 1);
  if (next < p.hops) {
    const uint32_t to = p.next_port != kNoPort ? p.next_port : port_of_link_[p.route[next]];
    if (to == kNone) return;
    const char* q = reinterpret_cast<const char*>(&ports_[to]);
    __builtin_prefetch(q);
    __builtin_prefetch(q + 64);
    return;
  }
  const char* f = reinterpret_cast<const char*>(&flow_at(p.flow));
  for (int k = 0; k < 4; ++k) __builtin_prefetch(f + 64 * k);
}

void PacketNetwork::land(uint32_t idx, uint32_t pi) {
  Port& port = ports_[idx];
  port.wire_head = (port.wire_head + 1) & port.wire_mask;
  if (--port.wire_count > 0) {
    const WireSlot& next = port.wire[port.wire_head];
    sim_.schedule_at(SimTime::ps(next.arrive_ps), LandEvent{this, idx, next.packet});
    // Its record went cold on the wire, and its landing is often too soon
    // for the queue's far hint (inserted after it was given): fetch it now.
    __builtin_prefetch(&pool_[next.packet]);
  }
  forward(pi);
}

void PacketNetwork::enqueue(Port& port, uint32_t pi, bool high) {
  const int64_t w = wire(port, pool_[pi]);
  (high ? port.hi : port.lo).push(pool_, pi, w);
  const int64_t q = port.hi.bytes() + port.lo.bytes();
  if (q > port.peak_bytes) {
    port.peak_bytes = q;
    if (q > stats_.peak_port_bytes) stats_.peak_port_bytes = q;
  }
  if (port.sw != kNone) {
    Switch& s = switches_[port.sw];
    s.used += w;
    if (s.used > s.peak) {
      s.peak = s.used;
      if (s.used > stats_.peak_switch_bytes) stats_.peak_switch_bytes = s.used;
    }
  }
}

void PacketNetwork::arrive_at_port(uint32_t idx, uint32_t pi) {
  Port& port = ports_[idx];
  Packet& p = pool_[pi];
  const SimTime now = sim_.now();
  bool data = p.kind == PacketKind::kData;
  if (!data) {
    // Strict priority: with no other control packet ahead, it goes next,
    // as soon as the packet on the wire is out.
    if (port.hi.empty()) {
      transmit(idx, pi, std::max(now, port.busy_until));
      return;
    }
  } else if (now >= port.busy_until && port.hi.empty() && port.lo.empty() && !port.service_pending &&
             !port.paused && (port.feeder == kNone || feeders_[port.feeder].empty())) {
    transmit(idx, pi, now);  // nothing ahead of it: straight onto the wire
    return;
  }
  if (port.sw == kNone) {  // NIC, NVSwitch, PCIe: lossless and unbounded
    enqueue(port, pi, !data);
    kick(idx);
    return;
  }
  int64_t w = wire(port, p);
  if (data) {
    if (pfc_) {
      const LinkId in = p.route[p.hop - 1];
      if (ingress_bytes_[in] + w > cfg_.pfc_xoff.count() + headroom(in)) {
        ++stats_.pfc_headroom_drops;
        ++cold_[idx].stats.drops;
        if (signals_->drop) signals_->drop.emit(now, cold_[idx].link);
        pool_.free(pi);
        return;
      }
      ingress_bytes_[in] += w;
      if (!pause_sent_[in] && ingress_bytes_[in] > cfg_.pfc_xoff.count()) send_pause(in, true);
    } else if (!buffers_->admit(port.hi.bytes() + port.lo.bytes(), switches_[port.sw].used, w)) {
      if (!trimming_) {
        ++stats_.drops;
        ++cold_[idx].stats.drops;
        if (signals_->drop) signals_->drop.emit(now, cold_[idx].link);
        pool_.free(pi);
        return;
      }
      ++stats_.trims;
      ++cold_[idx].stats.trims;
      p.kind = PacketKind::kHeader;
      p.payload = 0;
      data = false;
      w = cfg_.header_wire;
    }
    if (data && ecn_mark(port.lo.bytes())) {
      p.flags |= kFlagEcn;
      ++stats_.ecn_marks;
      ++cold_[idx].stats.ecn_marks;
      if (signals_->ecn_mark) signals_->ecn_mark.emit(now, cold_[idx].link, port.lo.bytes());
    }
  }
  if (!data && port.hi.empty()) {  // a header: next after the packet on the wire
    transmit(idx, pi, std::max(now, port.busy_until));
    return;
  }
  if (!data && port.hi.bytes() + w > cfg_.header_queue.count()) {
    if (p.kind == PacketKind::kHeader) {
      bounce(pi);
      return;
    }
    ++stats_.header_drops;
    ++cold_[idx].stats.drops;
    if (signals_->drop) signals_->drop.emit(now, cold_[idx].link);
    pool_.free(pi);
    return;
  }
  enqueue(port, pi, !data);
  kick(idx);
}

void PacketNetwork::bounce(uint32_t pi) {
  // NDP's return-to-sender: the header turns round here and travels back
  // as a NACK, so the sender learns of the loss in a fraction of an RTT
  // instead of a timeout. From the node before route[hop], the way back is
  // the reverse path from index len - hop on.
  Packet& p = pool_[pi];
  const PathSet* paths = live_paths(p.flow, p.flow_gen);
  ++stats_.bounces;
  if (paths == nullptr) {
    ++stats_.stale;
    pool_.free(pi);
    return;
  }
  const PathSet& s = *paths;
  take_path(p, s, p.path, true);
  p.hop = static_cast<uint16_t>(s.len - p.hop);
  p.next_port = kNoPort;
  p.kind = PacketKind::kNack;
  p.flags |= kFlagBounced;
  arrive_at_port(port_index(p.route[p.hop]), pi);
}

bool PacketNetwork::ecn_mark(int64_t q) {
  const int64_t kmin = cfg_.ecn_kmin.count(), kmax = cfg_.ecn_kmax.count();
  if (q <= kmin) return false;
  if (q >= kmax) return true;
  const double p = cfg_.ecn_pmax * static_cast<double>(q - kmin) / static_cast<double>(kmax - kmin);
  return rng_.uniform01() < p;
}

int64_t PacketNetwork::headroom(LinkId l) const {
  // What can still arrive after the pause is sent: a link delay for the
  // pause to travel up, one for the bytes already on the wire to land, and
  // a packet in serialization at each end.
  const double in_flight = 2.0 * topo_.link(l).latency.seconds() * paths_->line_bps(l) / 8.0;
  return static_cast<int64_t>(in_flight) + 2 * (mtu_ + wire_overhead_);
}

void PacketNetwork::send_pause(LinkId in, bool pause) {
  pause_sent_[in] = pause ? 1 : 0;
  if (pause) ++stats_.pfc_pauses;
  const topo::Link& k = topo_.link(in);
  if (!owns(k.from)) {  // the upstream port is another part's
    Crossing c;
    c.at_ps = (sim_.now() + k.latency).count_ps();
    c.pause_link = in;
    c.pause = pause;
    c.is_pause = true;
    earliest_crossing_ps_ = std::min(earliest_crossing_ps_, c.at_ps);
    (*outboxes_)[part_->owner[k.from]].push_back(c);
    return;
  }
  sim_.schedule_in(k.latency, [this, in, pause] { pause_arrived(in, pause); });
}

void PacketNetwork::pause_arrived(LinkId link, bool pause) {
  const uint32_t idx = port_of_link_[link];
  ANATOMY_CHECK(idx != kNone, "a pause frame for a port that never sent");
  Port& port = ports_[idx];
  PortCold& cold = cold_[idx];
  if (signals_->pfc) signals_->pfc.emit(sim_.now(), link, pause);
  if (pause) {
    ++cold.stats.pauses_received;
    if (!port.paused) {
      port.paused = true;
      cold.paused_since = sim_.now();
    }
    return;
  }
  if (!port.paused) return;
  port.paused = false;
  cold.stats.paused_time += sim_.now() - cold.paused_since;
  kick(idx);
}

// ---- partitions ------------------------------------------------------------

void PacketNetwork::join_partition(const Partition& partition, uint16_t self,
                                   std::vector<std::vector<Crossing>>* outboxes) {
  ANATOMY_CHECK(flows_.empty() && ports_.empty(), "a network joins a partition before its first transfer");
  ANATOMY_CHECK(self < partition.parts && outboxes && outboxes->size() == partition.parts,
                "a part needs an outbox for every part");
  ANATOMY_CHECK(runs_in_parts(cfg_), "a switch-scheduled fabric runs as one part");
  ANATOMY_CHECK(topo_.num_links() < kNextLinkTag, "too many links to carry one in a packet's next_port");
  part_ = &partition;
  self_ = self;
  outboxes_ = outboxes;
  // Independent ECN draws per part (the same seed gives the same draws).
  rng_ = core::RngStreams(cfg_.seed).stream("packet.ecn.part", self);
}

void PacketNetwork::share_paths(PacketNetwork& owner) {
  ANATOMY_CHECK(flows_.empty(), "a network shares a path cache before its first transfer");
  paths_ = owner.paths_;
  own_paths_.reset();
}

void PacketNetwork::cross(uint16_t to, SimTime arrive, uint32_t pi) {
  std::vector<Crossing>& out = (*outboxes_)[to];
  out.emplace_back();
  out.back().at_ps = arrive.count_ps();
  earliest_crossing_ps_ = std::min(earliest_crossing_ps_, out.back().at_ps);
  out.back().packet = pool_[pi];
  pool_.free(pi);
}

// An imported packet lands like any other: forward() takes it on from the
// node at the end of route[hop].
struct PacketNetwork::ImportEvent {
  PacketNetwork* net;
  uint32_t packet;
  void operator()() const { net->forward(packet); }
  void prefetch_far() const { __builtin_prefetch(&net->pool_[packet]); }
  void prefetch_near() const { net->prefetch_next_hop(net->pool_[packet]); }
};

void PacketNetwork::import(const Crossing& c) {
  if (c.is_pause) {
    sim_.schedule_at(SimTime::ps(c.at_ps), [this, l = c.pause_link, pause = c.pause] { pause_arrived(l, pause); });
    return;
  }
  const uint32_t pi = pool_.alloc();
  Packet& p = pool_[pi];
  p = c.packet;
  p.next = kNoPacket;
  // The sender put the next link in next_port (forward()): its port here.
  p.next_port = p.next_port != kNoPort && (p.next_port & kNextLinkTag) ? port_index(p.next_port & ~kNextLinkTag) : kNoPort;
  sim_.schedule_at(SimTime::ps(c.at_ps), ImportEvent{this, pi});
}

// ---- forwarding ------------------------------------------------------------

void PacketNetwork::forward(uint32_t pi) {
  Packet& p = pool_[pi];
  if (++p.hop == p.hops) {
    at_endpoint(pi);
    return;
  }
  if (cfg_.fabric == FabricKind::kSwitchScheduled && p.kind == PacketKind::kData) {
    if (p.hop == 1 && voq_ingress(pi)) return;
    if (p.hop + 1 == p.hops && p.hop > 1) {
      egress_reorder(pi);
      return;
    }
  }
  if (lb_ == LoadBalancing::kAdaptive && !is_control(p.kind)) {
    if (const PathSet* s = live_paths(p.flow, p.flow_gen)) adapt(p, *s);
  }
  uint32_t idx = p.next_port;
  if (!hop_cache_ || idx == kNoPort) idx = port_index(p.route[p.hop]);
  set_next_port(p, idx);
  arrive_at_port(idx, pi);
}

void PacketNetwork::set_next_port(Packet& p, uint32_t idx) {
  if (!hop_cache_) return;
  // Look the next port up now, while the port is in cache, not at the next
  // landing. A compact route names the next link by its place at the
  // port's far end, so the path set's line is not read at all; otherwise
  // route[hop + 1] shares the line route[hop] was just read from.
  // When the next hop is another part's, whose ports are not modelled
  // here, the packet carries the link instead, and that part looks its
  // port up when the packet crosses (import()).
  if (p.hop + 1u == p.hops) {
    p.next_port = kNoPort;
    return;
  }
  const Port& port = ports_[idx];
  const LinkId next = p.compact ? topo_.out_link(port.far_first + p.local[p.hop + 1]) : p.route[p.hop + 1];
  p.next_port = port.far_part == kNoPart ? port_index(next) : kNextLinkTag | next;
}

void PacketNetwork::take_path(Packet& p, const PathSet& s, uint32_t i, bool reverse) const {
  p.route = reverse ? s.reverse(i) : s.forward(i);
  p.path = static_cast<uint16_t>(i);
  p.hops = static_cast<uint16_t>(s.len);
  p.compact = hop_cache_ && s.compact() ? 1 : 0;
  if (p.compact) s.compact_bytes(i, reverse, p.local);
}

void PacketNetwork::adapt(Packet& p, const PathSet& s) {
  if (s.count <= 1) return;
  uint32_t b, e;
  s.block(p.path, p.hop, b, e);
  if (e - b <= 1) return;
  auto load = [&](LinkId l) -> int64_t {
    const uint32_t idx = port_of_link_[l];
    if (idx == kNone) return 0;
    const Port& q = ports_[idx];
    return q.hi.bytes() + q.lo.bytes() + (sim_.now() < q.busy_until ? 1 : 0);
  };
  uint32_t best = p.path;
  int64_t best_load = load(p.route[p.hop]);
  for (uint32_t i = b; i < e;) {
    const LinkId l = s.forward(i)[p.hop];
    uint32_t j = i + 1;
    while (j < e && s.forward(j)[p.hop] == l) ++j;
    const int64_t q = load(l);
    if (q < best_load) {
      best_load = q;
      best = i + p.seq % (j - i);
    }
    i = j;
  }
  if (best != p.path) take_path(p, s, best, false);
}

void PacketNetwork::at_endpoint(uint32_t pi) {
  const Packet& p = pool_[pi];
  Flow& f = flow_at(p.flow);
  if (f.gen != p.flow_gen || !f.live) {
    ++stats_.stale;
  } else if (is_control(p.kind)) {
    // A single-path flow never takes from its buffer: nothing to keep.
    if (cfg_.spray_order == SprayOrder::kRecycle && p.kind == PacketKind::kAck && !(p.flags & kFlagEcnEcho) &&
        f.paths->count > 1)
      f.recycle(p.path);
    transport_->on_control(f, p);
  } else {
    delivering_ = &p;
    transport_->on_data(f, p);
    delivering_ = nullptr;
  }
  pool_.free(pi);
}

}  // namespace anatomy::net::packet
