// PacketNetwork's endpoints: the NIC that feeds its port from the flows
// queued there, the flows' lifecycle (transfer, completion, the slot
// table), the retransmission timer, and the observations. The pipeline
// (ports, switches, forwarding) is in packet_network.cc.

#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "net/packet/packet_network.h"

namespace anatomy::net::packet {

// ---- senders ---------------------------------------------------------------

uint32_t PacketNetwork::from_feeder(Port& port) {
  Feeder& fd = feeders_[port.feeder];
  size_t tries = fd.ring.size() - fd.head;
  while (tries-- > 0 && !fd.empty()) {
    const auto [slot, gen] = fd.ring[fd.head++];
    if (fd.head == fd.ring.size()) {
      fd.ring.clear();
      fd.head = 0;
    } else if (fd.head >= 1024 && 2 * fd.head >= fd.ring.size()) {
      fd.ring.erase(fd.ring.begin(), fd.ring.begin() + static_cast<std::ptrdiff_t>(fd.head));
      fd.head = 0;
    }
    Flow& f = flow_at(slot);
    if (f.gen != gen || !f.live || !f.in_ready) continue;
    uint32_t seq = kNoSeq;
    SimTime at;
    switch (transport_->next(f, sim_.now(), seq, at)) {
      case Transport::Next::kSend: {
        const uint32_t pi = make_data(f, seq);
        if (transport_->ready(f)) fd.ring.emplace_back(slot, gen);  // round robin: back of the ring
        else f.in_ready = false;
        return pi;
      }
      case Transport::Next::kWait:
        f.in_ready = false;
        if (!f.wake_pending) {
          f.wake_pending = true;
          sim_.schedule_at(std::max(at, sim_.now()), [this, slot = slot, gen = gen] { wake(slot, gen); });
        }
        break;
      case Transport::Next::kBlocked:
        f.in_ready = false;
        break;
    }
  }
  return kNoPacket;
}

uint32_t PacketNetwork::make_data(Flow& f, uint32_t seq) {
  const uint32_t pi = pool_.alloc();
  Packet& p = pool_[pi];
  const PathSet& s = *f.paths;
  uint32_t path = 0;
  if (s.count > 1) {
    const uint32_t n = f.path_cursor++;
    if (cfg_.spray_order == SprayOrder::kRoundRobin) {
      path = n % s.count;
    } else if (cfg_.spray_order != SprayOrder::kRecycle || !f.take_recycled(path)) {
      // A fresh entropy value hashes the seed's salt, the transfer and a
      // per-flow counter: the same seed draws the same values, another
      // seed others.
      path = static_cast<uint32_t>(core::mix64((spray_salt_ ^ f.id) * 0x9e3779b97f4a7c15ULL + n) % s.count);
    }
  }
  take_path(p, s, path, false);
  set_next_port(p, f.inject);
  p.kind = PacketKind::kData;
  p.payload = f.payload(seq);
  p.seq = seq;
  p.flow = f.slot;
  p.flow_gen = f.gen;
  p.stamp_ps = sim_.now().count_ps();
  if (seq < f.highest_sent) {
    p.flags |= kFlagRetransmit;
    ++stats_.retransmits;
    if (signals_->retransmit) signals_->retransmit.emit(sim_.now(), f.id);
  } else {
    f.highest_sent = seq + 1;
  }
  f.inflight += p.payload;
  // htsim's UEC sender (UecSrc) sets the same request when the next packet
  // would not fit its window or it has nothing new to send: a receiver that
  // waits for ack_bytes would otherwise leave it waiting for a timeout.
  if (cfg_.ack_bytes.count() > 0 && (f.inflight + f.mtu >= f.cc.cwnd || f.snd_nxt >= f.npkts))
    p.flags |= kFlagAckRequest;
  ++stats_.data_sent;
  if (!f.rto_armed) arm_rto(f, false);
  return pi;
}

void PacketNetwork::activate(Flow& f) {
  if (!f.live || !f.started || f.in_ready || f.wake_pending || f.sender_done) return;
  f.in_ready = true;
  Port& port = ports_[f.inject];
  feeders_[port.feeder].ring.emplace_back(f.slot, f.gen);
  kick(f.inject);
}

void PacketNetwork::wake(uint32_t slot, uint32_t gen) {
  Flow& f = flow_at(slot);
  if (f.gen != gen || !f.live) return;
  f.wake_pending = false;
  activate(f);
}

void PacketNetwork::send_control(Flow& f, PacketKind kind, uint32_t seq, uint32_t aux, uint8_t flags, uint16_t path,
                                 int64_t stamp_ps) {
  const uint32_t pi = pool_.alloc();
  Packet& c = pool_[pi];
  const PathSet& s = *f.paths;
  const Packet* d = delivering_;
  if (d && d->compact && d->flow == f.slot && d->path == path && 2 * s.len <= kCompactHops) {
    // The data packet's route bytes hold this path's reverse after its
    // forward (PathSet::local): no read of the path set, whose line is out
    // of cache since the packet was sent.
    c.route = s.reverse(path);
    c.path = path;
    c.hops = static_cast<uint16_t>(s.len);
    c.compact = 1;
    std::memcpy(c.local, d->local + s.len, kCompactHops / 2);
  } else {
    take_path(c, s, path, true);
  }
  c.kind = kind;
  c.flags = flags;
  c.seq = seq;
  c.aux = aux;
  c.flow = f.slot;
  c.flow_gen = f.gen;
  c.stamp_ps = stamp_ps;
  ++stats_.control_sent;
  // Every reverse path starts at the receiver's NIC, so a compact route's
  // first hop spares the path set's line too.
  const uint32_t first =
      port_index(c.compact && s.rev_first != PathSet::kNoSlot ? topo_.out_link(s.rev_first + c.local[0]) : c.route[0]);
  set_next_port(c, first);
  arrive_at_port(first, pi);
}

// ---- flows -----------------------------------------------------------------

uint32_t PacketNetwork::new_slot() {
  uint32_t slot;
  if (part_) {  // transfer_at() numbered it, and its record goes last
    slot = static_cast<uint32_t>(slots_.size() - 1);
    flows_.emplace_back();
    flows_.back().slot = slot;
  } else if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(flows_.size());
    flows_.emplace_back();
    flows_.back().slot = slot;
  }
  Flow& f = flow_at(slot);
  ++f.gen;
  f.live = f.started = f.reported = f.receiver_done = f.sender_done = false;
  f.in_ready = f.wake_pending = f.rto_armed = f.rto_event = f.report_scheduled = false;
  return slot;
}

const PathSet* PacketNetwork::live_paths(uint32_t slot, uint32_t gen) const {
  // A transit flow's record lives in its own parts, which never reuse a
  // slot: its packets are never stale here.
  if (part_ && slots_[slot].local == kNone) return slots_[slot].paths;
  const Flow& f = flow_at(slot);
  return f.gen == gen && f.live ? f.paths : nullptr;
}

void PacketNetwork::free_slot(uint32_t slot) {
  Flow& f = flow_at(slot);
  f.live = false;
  f.in_ready = false;
  f.rto_armed = false;
  f.on_done.reset();
  if (!part_) free_slots_.push_back(slot);  // every part numbers flows alike: no slot is reused
}

TransferId PacketNetwork::transfer_at(SimTime start, NodeId src, NodeId dst, Bytes bytes, Callback on_done,
                                      const TransferOptions& options) {
  ANATOMY_CHECK(bytes.count() >= 0, "a transfer cannot move negative bytes");
  ANATOMY_CHECK(start >= sim_.now(), "a transfer cannot start in the past");
  const TransferId id = next_id_++;
  ++counters_.transfers_started;
  ++active_;
  const uint64_t hash = options.flow_hash != 0 ? options.flow_hash : core::mix64(id ^ (uint64_t{src} << 32) ^ dst);
  const bool moves = src != dst && bytes.count() > 0;
  const PathSet* paths = !moves                          ? nullptr
                         : lb_ == LoadBalancing::kEcmp ? &paths_->ecmp(src, dst, hash)
                                                       : &paths_->spray(src, dst);
  if (part_) {
    // A part keeps a flow's record if it has its sender or its receiver;
    // the others only forward its packets.
    const bool keep = moves ? sends_here(*paths) || receives_here(*paths) : owns(src);
    slots_.push_back({paths, keep ? static_cast<uint32_t>(flows_.size()) : kNone});
    if (!keep) return id;
  }
  const uint32_t slot = new_slot();
  Flow& f = flow_at(slot);
  f.id = id;
  f.src = src;
  f.dst = dst;
  f.bytes = bytes.count();
  f.on_done = std::move(on_done);
  f.complete_on_send = options.complete_on_send;
  f.complete_on_ack = options.complete_on_ack && !options.complete_on_send;
  if (!moves) {
    // Nothing to packetize: the (empty) message only travels.
    f.sender_done = true;
    f.npkts = 0;
    SimTime travel = src == dst || f.complete_on_send ? SimTime::zero() : path_latency(src, dst, hash);
    if (f.complete_on_ack && src != dst) travel += path_latency(dst, src, hash);
    if (owns(src)) sim_.schedule_at(start + travel, [this, slot] { report(slot); });
    return id;
  }
  f.paths = paths;
  f.path_cursor = static_cast<uint32_t>(hash % f.paths->count);
  const bool sender = sends_here(f);
  if (sender) {
    f.inject = port_index(f.paths->forward(0)[0]);
    Port& inject = ports_[f.inject];
    if (inject.feeder == kNone) {
      inject.feeder = static_cast<uint32_t>(feeders_.size());
      feeders_.emplace_back();
    }
  }
  f.mtu = static_cast<uint16_t>(mtu_);
  f.npkts = static_cast<uint32_t>((f.bytes + mtu_ - 1) / mtu_);
  f.last_payload = static_cast<uint16_t>(f.bytes - static_cast<int64_t>(f.npkts - 1) * mtu_);
  const size_t words = (f.npkts + 63) / 64;
  f.acked_bits.assign(words, 0);
  f.lost_bits.assign(words, 0);
  f.rcv_bits.assign(words, 0);
  f.retx.clear();
  f.retx_head = 0;
  f.recycled.clear();
  f.recycled_head = 0;
  f.snd_nxt = f.snd_una = f.highest_sent = f.acked = 0;
  f.inflight = 0;
  f.next_send = start;
  f.srtt = f.paths->base_rtt;
  f.rttvar = f.paths->base_rtt / 2;
  f.cc = CcState{};
  f.backoff = 0;
  f.rcv_count = f.rcv_nxt = 0;
  f.nak_sent = false;
  f.ack_pending_bytes = 0;
  f.ack_pending.clear();
  f.ack_timer = false;
  f.live = true;
  transport_->start(f, start);
  const uint32_t gen = f.gen;
  // The host-side hops (the NIC's DMA read and write) are charged at
  // delivery (receiver_complete), so a send completion, like the flow
  // model's, carries no path latency.
  if (sender) sim_.schedule_at(start, [this, slot, gen] { start_flow(slot, gen); });
  return id;
}

void PacketNetwork::start_flow(uint32_t slot, uint32_t gen) {
  Flow& f = flow_at(slot);
  if (f.gen != gen || !f.live) return;
  f.started = true;
  activate(f);
}

void PacketNetwork::report(uint32_t slot) {
  Flow& f = flow_at(slot);
  if (f.reported) return;
  f.reported = true;
  --active_;
  ++counters_.transfers_finished;
  counters_.bytes_delivered += Bytes(f.bytes);
  Callback cb = std::move(f.on_done);
  if (f.sender_done) free_slot(slot);
  if (cb) cb();  // last: it may start transfers that reuse the slot
}

void PacketNetwork::receiver_complete(Flow& f) {
  if (f.receiver_done) return;
  f.receiver_done = true;
  if (f.reported || f.report_scheduled) return;
  if (f.complete_on_send) {  // every byte is in, so every byte has been sent
    if (sends_here(f)) report(f.slot);  // else the sender's part reports it
    return;
  }
  if (f.complete_on_ack) return;  // sender_complete reports it
  // The NIC's DMA out of the source's and into the destination's memory
  // (pre_delay + post_delay) ends the transfer.
  const uint32_t slot = f.slot;
  sim_.schedule_in(f.paths->pre_delay + f.paths->post_delay, [this, slot] { report(slot); });
}

void PacketNetwork::sender_complete(Flow& f) {
  if (f.sender_done) return;
  f.sender_done = true;
  f.rto_armed = false;
  f.in_ready = false;
  if (f.reported) {
    free_slot(f.slot);
  } else if ((f.complete_on_send && !f.report_scheduled) || f.complete_on_ack) {
    report(f.slot);
  } else if (!receives_here(f)) {
    // Partitioned: the receiver's part reports the flow, and nothing here
    // waits for this copy. (That part cannot know the sender is done, so
    // it keeps answering late copies of data that one queue would drop as
    // stale: a few acknowledgements more on the way back.)
    free_slot(f.slot);
  }
}

void PacketNetwork::arm_rto(Flow& f, bool progress) {
  if (progress) f.backoff = 0;
  f.rto_armed = true;
  SimTime rto = std::max(cfg_.rto_min, f.srtt + f.rttvar * 4);
  rto = rto * (int64_t{1} << f.backoff);
  f.rto_deadline = sim_.now() + rto;
  if (f.rto_event) return;
  f.rto_event = true;
  const uint32_t slot = f.slot, gen = f.gen;
  sim_.schedule_at(f.rto_deadline, [this, slot, gen] { rto_fired(slot, gen); });
}

void PacketNetwork::rto_fired(uint32_t slot, uint32_t gen) {
  Flow& f = flow_at(slot);
  if (f.gen != gen || !f.live) return;
  f.rto_event = false;
  if (!f.rto_armed || f.sender_done) return;
  if (sim_.now() < f.rto_deadline) {  // progress moved the deadline: wait on
    f.rto_event = true;
    sim_.schedule_at(f.rto_deadline, [this, slot, gen] { rto_fired(slot, gen); });
    return;
  }
  ++stats_.timeouts;
  f.backoff = std::min(f.backoff + 1, cfg_.rto_backoff_max);
  f.rto_armed = false;
  transport_->on_timeout(f);
  if (f.live && !f.sender_done && !f.rto_armed) arm_rto(f, false);
}

// ---- observations ----------------------------------------------------------

const PacketStats& PacketNetwork::stats() const {
  stats_.peak_packets = pool_.peak();
  return stats_;
}

PortStats PacketNetwork::port_stats(LinkId l) const {
  const uint32_t idx = port_of_link_[l];
  if (idx == kNone) return {};
  const Port& p = ports_[idx];
  const PortCold& c = cold_[idx];
  PortStats s = c.stats;
  s.payload_bytes = p.payload_bytes;
  s.peak_bytes = p.peak_bytes;
  if (p.paused) s.paused_time += sim_.now() - c.paused_since;
  return s;
}

Bytes PacketNetwork::link_bytes(LinkId l) const {
  const uint32_t idx = port_of_link_[l];
  return idx == kNone ? Bytes(0) : Bytes(ports_[idx].payload_bytes);
}

int64_t PacketNetwork::queued_bytes(LinkId l) const {
  const uint32_t idx = port_of_link_[l];
  return idx == kNone ? 0 : ports_[idx].hi.bytes() + ports_[idx].lo.bytes();
}

size_t PacketNetwork::memory_bytes() const {
  size_t total = pool_.memory_bytes() + paths_->memory_bytes();
  total += slots_.capacity() * sizeof(SlotRef);
  flows_.for_each([&](const Flow& f) {
    total += sizeof(Flow) + (f.acked_bits.capacity() + f.lost_bits.capacity() + f.rcv_bits.capacity()) * 8 +
             f.retx.capacity() * 4 + f.recycled.capacity() * 2 + f.ack_pending.capacity() * sizeof(Flow::PendingAck);
  });
  total += ports_.size() * (sizeof(Port) + sizeof(PortCold)) + port_of_link_.capacity() * 4 +
           switch_of_node_.capacity() * 4;
  ports_.for_each([&](const Port& p) { total += (p.wire ? p.wire_mask + 1 : 0) * sizeof(WireSlot); });
  for (const Feeder& fd : feeders_) total += sizeof(Feeder) + fd.ring.capacity() * 8;
  total += ingress_bytes_.capacity() * 8 + pause_sent_.capacity();
  return total;
}

}  // namespace anatomy::net::packet
