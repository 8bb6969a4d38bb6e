// The switch-scheduled fabric (Jericho/Ramon-style), as PacketNetwork's
// alternative to endpoint scheduling.
//
// A data packet that enters a fabric switch from a NIC waits there in a
// virtual output queue (VOQ) for its egress port: the switch port facing
// the destination NIC, possibly on another switch. Each packet sends the
// egress port's scheduler a request, which arrives one fabric crossing
// later (the latency from the ingress switch to the egress switch). The
// scheduler grants one packet per full-packet time of the egress link,
// round robin over the VOQs that asked, so the egress link is never
// offered more than it can carry and the fabric in between never
// congests; the grant travels back one crossing. On a grant the VOQ sends
// its head packet into the fabric on the next equal-cost path, round robin
// over everything the ingress switch sends (the cells of Jericho/Ramon
// fabrics are modelled at packet granularity), and the egress switch holds
// packets that overtook others of the same VOQ until their turn. The cost of the scheme is latency: a
// request-grant round trip for every packet, and `deep_buffer_latency`
// more for a packet that found its VOQ non-empty and so went to off-chip
// (HBM) memory. VOQ memory per ingress switch is `voq_buffer`; ECN marks
// are set with the same RED curve as shallow queues, on the VOQ's backlog
// beyond the packets the request-grant loop itself holds.
// Switches past the ingress are cell switches with link-level flow
// control: lossless, unbounded here.

#include <algorithm>

#include "core/error.h"
#include "net/packet/packet_network.h"

namespace anatomy::net::packet {

uint32_t PacketNetwork::voq_of(NodeId ingress, LinkId egress, const Packet& p, bool create) {
  const uint64_t key = (uint64_t{ingress} << 32) | egress;
  auto it = voq_index_.find(key);
  if (it != voq_index_.end()) return it->second;
  ANATOMY_CHECK(create, "a packet reached an egress switch through a VOQ that does not exist");
  Voq q;
  q.ingress_sw = switch_of_node_[ingress];
  for (uint16_t h = 1; h + 1 < p.hops; ++h) q.one_way += topo_.link(p.route[h]).latency;
  auto [s, fresh] = sched_of_link_.try_emplace(egress, static_cast<uint32_t>(scheds_.size()));
  if (fresh) {
    scheds_.emplace_back();
    scheds_.back().interval = ports_[port_index(egress)].data_time;
  }
  q.sched = s->second;
  const uint32_t v = static_cast<uint32_t>(voqs_.size());
  voqs_.push_back(q);
  voq_index_.emplace(key, v);
  return v;
}

bool PacketNetwork::voq_ingress(uint32_t pi) {
  Packet& p = pool_[pi];
  const NodeId node = topo_.link(p.route[1]).from;
  const uint32_t sw = switch_of_node_[node];
  if (sw == kNone) return false;  // not a fabric (scale-up, PCIe): forwarded as usual
  const uint32_t v = voq_of(node, p.route[p.hops - 1], p, true);
  Voq& q = voqs_[v];
  Switch& s = switches_[sw];
  const int64_t w = p.payload + wire_overhead_;
  if (s.used + w > cfg_.voq_buffer.count()) {
    ++stats_.voq_drops;
    if (signals_->drop) signals_->drop.emit(sim_.now(), p.route[p.hops - 1]);
    pool_.free(pi);
    return true;
  }
  p.flags |= kFlagVoq;
  if (!q.q.empty()) p.flags |= kFlagDeep;
  // Mark on the backlog beyond what the request-grant loop itself keeps
  // queued (the egress rate times a request and a grant crossing).
  const Sched& sc = scheds_[q.sched];
  const int64_t loop = static_cast<int64_t>(2.0 * q.one_way.seconds() / sc.interval.seconds() + 1) *
                       (mtu_ + wire_overhead_);
  if (ecn_mark(q.q.bytes() - loop)) {
    p.flags |= kFlagEcn;
    ++stats_.ecn_marks;
    if (signals_->ecn_mark) signals_->ecn_mark.emit(sim_.now(), p.route[p.hops - 1], q.q.bytes());
  }
  q.q.push(pool_, pi, w);
  s.used += w;
  if (s.used > s.peak) {
    s.peak = s.used;
    stats_.peak_switch_bytes = std::max(stats_.peak_switch_bytes, s.used);
  }
  stats_.peak_port_bytes = std::max(stats_.peak_port_bytes, q.q.bytes());
  sim_.schedule_in(q.one_way, [this, v] { voq_request(v); });
  return true;
}

void PacketNetwork::voq_request(uint32_t v) {
  Voq& q = voqs_[v];
  Sched& s = scheds_[q.sched];
  if (q.requests++ == 0) s.ring.push_back(v);
  if (s.event) return;
  s.event = true;
  const uint32_t si = q.sched;
  sim_.schedule_at(std::max(sim_.now(), s.next_grant), [this, si] { voq_grant(si); });
}

void PacketNetwork::voq_grant(uint32_t si) {
  Sched& s = scheds_[si];
  s.event = false;
  if (s.head == s.ring.size()) return;
  const uint32_t v = s.ring[s.head++];
  Voq& q = voqs_[v];
  if (--q.requests > 0) s.ring.push_back(v);
  if (s.head == s.ring.size()) {
    s.ring.clear();
    s.head = 0;
  } else if (s.head >= 1024 && 2 * s.head >= s.ring.size()) {
    s.ring.erase(s.ring.begin(), s.ring.begin() + static_cast<std::ptrdiff_t>(s.head));
    s.head = 0;
  }
  ++stats_.grants;
  s.next_grant = sim_.now() + s.interval;
  sim_.schedule_in(q.one_way, [this, v] { voq_release(v); });
  if (s.head == s.ring.size()) return;
  s.event = true;
  sim_.schedule_at(s.next_grant, [this, si] { voq_grant(si); });
}

void PacketNetwork::voq_release(uint32_t v) {
  Voq& q = voqs_[v];
  if (q.q.empty()) return;  // its packet was dropped
  const uint32_t pi = q.q.front();
  Packet& p = pool_[pi];
  const int64_t w = p.payload + wire_overhead_;
  q.q.pop(pool_, w);
  switches_[q.ingress_sw].used -= w;
  p.aux = q.next_seq++;
  const Flow& f = flow_at(p.flow);
  if (f.gen == p.flow_gen && f.live && f.paths->count > 1) {
    take_path(p, *f.paths, switches_[q.ingress_sw].spray++ % f.paths->count, false);
  }
  if (p.flags & kFlagDeep) {
    sim_.schedule_in(cfg_.deep_buffer_latency, [this, pi] { fabric_inject(pi); });
  } else {
    fabric_inject(pi);
  }
}

void PacketNetwork::fabric_inject(uint32_t pi) {
  const Packet& p = pool_[pi];
  arrive_at_port(port_index(p.route[p.hop]), pi);
}

void PacketNetwork::egress_reorder(uint32_t pi) {
  Packet& p = pool_[pi];
  if (!(p.flags & kFlagVoq)) {
    arrive_at_port(port_index(p.route[p.hop]), pi);
    return;
  }
  const uint32_t v = voq_of(topo_.link(p.route[1]).from, p.route[p.hops - 1], p, false);
  Voq& q = voqs_[v];
  if (p.aux != q.expect) {
    // It overtook: park it at its sequence number in the reorder window,
    // which doubles (rarely: once per new record gap) to hold the gap.
    ++stats_.reordered;
    const uint32_t gap = p.aux - q.expect;
    if (gap >= q.window.size()) {
      size_t size = std::max<size_t>(16, q.window.size());
      while (size <= gap) size *= 2;
      std::vector<uint32_t> grown(size, kNoPacket);
      for (uint32_t h : q.window)
        if (h != kNoPacket) grown[pool_[h].aux & (size - 1)] = h;
      q.window.swap(grown);
    }
    q.window[p.aux & (q.window.size() - 1)] = pi;
    ++q.held;
    return;
  }
  ++q.expect;
  arrive_at_port(port_index(p.route[p.hop]), pi);
  // Release whoever was waiting for it (re-reading the VOQ: arrive_at_port may grow the tables).
  while (voqs_[v].held > 0) {
    Voq& w = voqs_[v];
    uint32_t& slot = w.window[w.expect & (w.window.size() - 1)];
    if (slot == kNoPacket) break;
    const uint32_t h = slot;
    slot = kNoPacket;
    --w.held;
    ++w.expect;
    arrive_at_port(port_index(pool_[h].route[pool_[h].hop]), h);
  }
}

}  // namespace anatomy::net::packet
