// EQDS/NDP-like endpoint-scheduled transport: the receiver decides who sends.
//
// A sender may put an initial window (one bandwidth-delay product unless
// configured, on an RTT with one packet of queueing per hop) on the wire
// unasked; after that it sends exactly one packet
// per pull (credit) from the receiver, a resend first if one is queued.
// Switches trim what they cannot buffer to a header, which still reaches
// the receiver at high priority: the receiver NACKs it at once (the sender
// queues that packet for resending) and, for every arrival, data or header,
// queues one pull in its pacer. The pacer releases pulls at the rate of the
// receiver's own link, one full data packet's wire time apart, so however
// many senders there are, the receiver's link stays busy and its queue
// short: an N-to-1 incast finishes near N x bytes / line rate (NDP,
// Handley et al. SIGCOMM'17; EQDS, Olteanu et al. NSDI'22).
//
// When even a switch's header queue is full, the header is returned to its
// sender (NDP's return-to-sender) as a NACK.
//
// Pulls carry the acknowledgement of the packet that earned them. The
// retransmission timer is a backstop for packets lost without a trace (a
// header dropped from a full header queue): on expiry the sender resends
// the oldest packet it has heard nothing about, with one credit.

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "net/packet/transport.h"

namespace anatomy::net::packet {
namespace {

class Eqds final : public Transport {
 public:
  const char* name() const override { return "eqds"; }
  Defaults defaults() const override {
    Defaults d;
    d.load_balancing = LoadBalancing::kSpray;
    d.trimming = true;
    d.pfc = false;
    d.rto_min = SimTime::us(500);
    return d;
  }

  void start(Flow& f, SimTime) override {
    const PacketConfig& c = host().config();
    // One bandwidth-delay product, on the RTT a pull sees when it waits
    // behind one data packet at every hop: it then keeps the link busy
    // while the reverse direction carries data too.
    const SimTime rtt = f.paths->base_rtt + f.paths->data_time_last * f.paths->len;
    const double bdp = f.paths->line_bps / 8.0 * rtt.seconds();
    const double iw = c.initial_window.count() > 0 ? static_cast<double>(c.initial_window.count()) : bdp;
    const double pkts = std::ceil(iw / (f.mtu + f.paths->wire_overhead));
    f.cc.credits = static_cast<int32_t>(std::clamp(pkts, 1.0, static_cast<double>(f.npkts)));
    f.cc.cwnd = f.cc.credits;  // the credit cap
  }

  Next next(Flow& f, SimTime, uint32_t& seq, SimTime&) override {
    if (f.cc.credits <= 0) return Next::kBlocked;
    seq = f.take_next();
    if (seq == kNoSeq) return Next::kBlocked;
    --f.cc.credits;
    return Next::kSend;
  }

  bool ready(const Flow& f) const override {
    return f.cc.credits > 0 && (f.snd_nxt < f.npkts || f.retx_pending());
  }

  void on_data(Flow& f, const Packet& p) override {
    if (f.receiver_done) {  // a late copy: say again that everything is in
      host().send_control(f, PacketKind::kAck, p.seq, 0, kFlagAllDone, p.path, p.stamp_ps);
      return;
    }
    if (p.kind == PacketKind::kHeader) {
      host().send_control(f, PacketKind::kNack, p.seq, 0, 0, p.path, p.stamp_ps);
      queue_pull(f, p, false);
      return;
    }
    f.receive(p.seq);
    if (f.all_received()) {
      host().send_control(f, PacketKind::kAck, p.seq, 0, kFlagAllDone, p.path, p.stamp_ps);
      host().receiver_complete(f);
      return;
    }
    queue_pull(f, p, true);
  }

  void on_control(Flow& f, const Packet& p) override {
    if (f.sender_done) return;
    switch (p.kind) {
      case PacketKind::kAck:
        if (p.flags & kFlagAllDone) {
          f.ack_all();
          host().sender_complete(f);
        }
        return;
      case PacketKind::kNack:
        f.mark_lost(p.seq);
        // A header the receiver saw earns a pull; one a switch bounced does
        // not, so when nothing else is out to earn one, grant it here.
        if ((p.flags & kFlagBounced) && f.inflight == 0) f.cc.credits = std::max(f.cc.credits, 1);
        host().arm_rto(f, true);
        if (f.cc.credits > 0) host().activate(f);
        return;
      case PacketKind::kPull:
        if (p.flags & kFlagAckValid) f.ack(p.seq);
        f.cc.credits = std::min(f.cc.credits + 1, static_cast<int32_t>(f.cc.cwnd));
        host().arm_rto(f, true);
        host().activate(f);
        return;
      default:
        return;
    }
  }

  void on_timeout(Flow& f) override {
    for (uint32_t s = f.snd_una; s < f.snd_nxt; ++s) {
      if (!f.is_acked(s) && !f.is_lost(s)) {
        f.mark_lost(s);
        break;
      }
    }
    f.cc.credits = std::max(f.cc.credits, 1);
    host().activate(f);
  }

 private:
  struct PullEntry {
    uint32_t slot, gen, seq;
    uint16_t path;
    uint8_t flags;
    int64_t stamp_ps;
  };
  // One pacer per receiver link (the last link into the receiving NIC).
  struct Pacer {
    std::vector<PullEntry> queue;
    size_t head = 0;
    SimTime next_time;
    SimTime interval;
    bool event = false;
  };

  void queue_pull(Flow& f, const Packet& p, bool ack) {
    const LinkId last = p.route[p.hops - 1];
    auto [it, fresh] = pacer_of_.try_emplace(last, static_cast<uint32_t>(pacers_.size()));
    if (fresh) {
      pacers_.emplace_back();
      pacers_.back().interval = f.paths->data_time_last;
    }
    const uint32_t pi = it->second;
    Pacer& pc = pacers_[pi];
    const uint8_t flags = ack ? kFlagAckValid : 0;
    engine::Simulator& sim = host().sim();
    if (!pc.event && pc.head == pc.queue.size() && sim.now() >= pc.next_time) {
      // The pacer is idle: this pull goes at once.
      pc.next_time = sim.now() + pc.interval;
      host().send_control(f, PacketKind::kPull, p.seq, 0, flags, p.path, p.stamp_ps);
      return;
    }
    pc.queue.push_back({f.slot, f.gen, p.seq, p.path, flags, p.stamp_ps});
    if (pc.event) return;
    pc.event = true;
    sim.schedule_at(std::max(sim.now(), pc.next_time), [this, pi] { release(pi); });
  }

  void release(uint32_t pi) {
    Pacer& pc = pacers_[pi];
    pc.event = false;
    engine::Simulator& sim = host().sim();
    while (pc.head < pc.queue.size()) {
      const PullEntry e = pc.queue[pc.head++];
      Flow& f = host().flow(e.slot);
      if (f.gen != e.gen || !f.live || f.receiver_done) continue;
      host().send_control(f, PacketKind::kPull, e.seq, 0, e.flags, e.path, e.stamp_ps);
      pc.next_time = sim.now() + pc.interval;
      break;
    }
    if (pc.head == pc.queue.size()) {
      pc.queue.clear();
      pc.head = 0;
      return;
    }
    if (pc.head >= 1024 && 2 * pc.head >= pc.queue.size()) {
      pc.queue.erase(pc.queue.begin(), pc.queue.begin() + static_cast<std::ptrdiff_t>(pc.head));
      pc.head = 0;
    }
    pc.event = true;
    sim.schedule_at(pc.next_time, [this, pi] { release(pi); });
  }

  std::unordered_map<LinkId, uint32_t> pacer_of_;
  std::vector<Pacer> pacers_;
};

}  // namespace

std::unique_ptr<Transport> make_eqds_transport() { return std::make_unique<Eqds>(); }

}  // namespace anatomy::net::packet
