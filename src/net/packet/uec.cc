// UEC-like sender-based transport: a congestion window driven by ECN and
// queueing delay, packets sprayed over the equal-cost paths.
//
// The window starts at one bandwidth-delay product (BDP = path line rate x
// unloaded RTT), rounded up to whole packets. Packets are sprayed over
// every equal-cost path (the entropy value is 16 bits), reusing the values
// that came back unmarked (REPS). The receiver acknowledges every packet, echoing its ECN
// mark and send time, or with ack_bytes once that many bytes wait, as htsim's UEC
// receiver does (one ACK then also names the waiting packets up to 32 under it); a
// trimmed header is NACKed and resent at once. The
// window follows NSCC (UEC 1.0's sender congestion control) by its four
// quadrants of (ECN mark, queueing delay d = RTT - base RTT against a
// target of 3/4 of the base RTT), per ACK of b bytes:
//   * no mark, d under the target: w += b (MTU / w) + b k (1 - d/target)
//     (one MTU per window, plus a proportional term with k = 1/2 that
//     refills an empty path within a few RTTs);
//   * no mark, d over the target: w += b (MTU / w) (fair increase);
//   * marked, d over the target: w <- w max(1 - gamma (d - target) / d, 1/2)
//     with gamma = 0.8, at most once per base RTT (multiplicative decrease);
//   * marked, d under the target: nothing. A mark without delay is one
//     path's queue, not the flow's, and REPS leaves that entropy value.
//     (A DCTCP-style cut on every marked window, the rule before, slowed
//     flows that had only crossed a busy path: the slowest flow of an
//     8,192-host permutation grew with the fabric where htsim NSCC's did
//     not; bench/README.md has the figures.)
//   * per NACK (a trim): w <- w - MTU;
//   * w stays within [1 MTU, 1.5 BDP].
// The target and gamma are htsim NSCC's (uec.cpp, main_uec.cpp: target
// queueing delay 0.75 of the network's unloaded RTT, gamma 0.8).
// Packets are sent while bytes in flight fit the window. On a timeout every
// packet sent and not acknowledged is presumed lost and resent, and the
// window halves.

#include <algorithm>
#include <bit>
#include <cmath>

#include "net/packet/transport.h"

namespace anatomy::net::packet {
namespace {

constexpr double kProportional = 0.5;
constexpr double kTargetOfRtt = 0.75;
constexpr double kGamma = 0.8;

class Uec final : public Transport {
 public:
  const char* name() const override { return "uec"; }
  Defaults defaults() const override {
    Defaults d;
    d.load_balancing = LoadBalancing::kSpray;
    d.trimming = true;
    d.pfc = false;
    d.rto_min = SimTime::us(200);
    // UET packets carry a 16-bit entropy value the sender may change per
    // packet and the switches hash over every next hop (UEC 1.0, packet
    // spraying): a flow reaches all of the fabric's equal-cost paths, not a
    // sample of them.
    d.spray_paths = kEveryPath;
    // Which value a packet gets is the sender's choice (UE 1.0 leaves the
    // algorithm open and names several); this one is REPS (recycled
    // entropy packet spraying, also htsim UEC's default): a value whose
    // packet was acknowledged unmarked is used again, oldest first, and a
    // fresh random one otherwise, so a flow keeps to the paths that did not
    // queue. Round robin over paths enumerated aggregation switch by
    // aggregation switch sent k/2 packets in a row through one of them and
    // kept flows in step; its tail grew with the fabric (max FCT 46.8,
    // 59.7, 102.9 us at 128, 1,024, 8,192 hosts; random 56.0, 63.0, 63.2;
    // recycled 56.3, 55.8, 60.8, all with the DCTCP-style window and timed
    // at the receiver; htsim UEC, timed at its sender, 53.8, 56.0, 56.2:
    // bench/README.md).
    d.spray_order = SprayOrder::kRecycle;
    return d;
  }

  void start(Flow& f, SimTime) override {
    f.cc.cwnd = std::ceil(bdp(f) / f.mtu) * f.mtu;  // whole packets
    f.cc.t_decrease = SimTime::ps(-f.paths->base_rtt.count_ps());  // a decrease is allowed at once
  }

  Next next(Flow& f, SimTime, uint32_t& seq, SimTime&) override {
    if (f.inflight > 0 && static_cast<double>(f.inflight + f.mtu) > f.cc.cwnd) return Next::kBlocked;
    seq = f.take_next();
    return seq == kNoSeq ? Next::kBlocked : Next::kSend;
  }

  bool ready(const Flow& f) const override {
    return (f.snd_nxt < f.npkts || f.retx_pending()) && static_cast<double>(f.inflight + f.mtu) <= f.cc.cwnd;
  }

  void on_data(Flow& f, const Packet& p) override {
    if (p.kind == PacketKind::kHeader) {
      if (f.receiver_done) return;
      host().send_control(f, PacketKind::kNack, p.seq, 0, 0, p.path, p.stamp_ps);
      // The sender may now be held by its window with what waits here
      // counted in it, and the trimmed packet may have been the one that
      // asked for an ACK: answer what waits.
      flush_pending(f, 0);
      return;
    }
    const bool fresh = f.receive(p.seq);
    const bool marked = (p.flags & kFlagEcn) != 0;
    const int64_t every = host().config().ack_bytes.count();
    if (every > 0 && fresh) f.ack_pending_bytes += f.payload(p.seq);
    // htsim's UEC receiver (UecSink::processData): at once for a marked,
    // resent or duplicate packet, one whose sender asked (kFlagAckRequest)
    // and the first and the last, else once enough bytes wait.
    const bool now = every <= 0 || !fresh || marked || (p.flags & (kFlagRetransmit | kFlagAckRequest)) ||
                     f.rcv_count == 1 || f.all_received() || f.ack_pending_bytes >= every;
    if (!now) {
      f.ack_pending.push_back({p.seq, p.path, p.stamp_ps, host().sim().now().count_ps()});
      if (!f.ack_timer) arm_ack_timer(f, oldest_waiting(f) + f.paths->base_rtt);
      return;
    }
    uint8_t flags = marked ? kFlagEcnEcho : 0;
    if (f.all_received()) flags |= kFlagAllDone;
    host().send_control(f, PacketKind::kAck, p.seq, take_sack(f, p.seq), flags, p.path, p.stamp_ps);
    // What it cannot name (beyond it, or too far under it) waits for the next
    // ACK, as in htsim, whose ACK names a window under the packet it answers.
    f.ack_pending_bytes = 0;
    if (f.all_received()) host().receiver_complete(f);
  }

  void on_control(Flow& f, const Packet& p) override {
    if (f.sender_done) return;
    const SimTime now = host().sim().now();
    if (p.kind == PacketKind::kAck) {
      if (p.flags & kFlagAllDone) {
        f.ack_all();
        host().sender_complete(f);
        return;
      }
      // The packet the ACK answers, and those it names beside it.
      double bytes = 0;
      auto take = [&](uint32_t s) {
        const uint16_t b = f.payload(s);
        if (f.ack(s)) bytes += b;
      };
      take(p.seq);
      for (uint32_t bits = p.aux; bits != 0; bits &= bits - 1) take(p.seq - kSackBelow + std::countr_zero(bits));
      if (bytes == 0) return;
      const SimTime rtt = now - SimTime::ps(p.stamp_ps);
      sample_rtt(f, rtt);
      on_ack(f, bytes, (p.flags & kFlagEcnEcho) != 0, rtt, now);
      host().arm_rto(f, true);
      host().activate(f);
    } else if (p.kind == PacketKind::kNack) {
      if (!f.mark_lost(p.seq)) return;
      f.cc.cwnd = std::max<double>(f.mtu, f.cc.cwnd - f.mtu);
      host().arm_rto(f, true);
      host().activate(f);
    }
  }

  void on_timeout(Flow& f) override {
    for (uint32_t s = f.snd_una; s < f.snd_nxt; ++s) f.mark_lost(s);
    f.cc.cwnd = std::max<double>(f.mtu, f.cc.cwnd / 2);
    host().activate(f);
  }

 private:
  // An ACK names, beside the packet it answers (seq), the waiting packets
  // from seq - 32 to seq - 1, a bit each in its aux (htsim's UEC ACK carries
  // a 64-bit SACK bitmap of the packets under the one it answers).
  static constexpr uint32_t kSackBelow = 32;

  // Removes from f's waiting packets those an ACK for `seq` can name, and
  // returns their bits.
  static uint32_t take_sack(Flow& f, uint32_t seq) {
    auto& w = f.ack_pending;
    if (w.empty()) return 0;  // always so with one ACK a packet
    uint32_t bits = 0;
    w.erase(std::remove_if(w.begin(), w.end(),
                           [&](const Flow::PendingAck& a) {
                             const uint32_t s = a.seq;
                             if (s == seq) return true;  // a duplicate of the packet answered
                             const int64_t i = int64_t{s} - seq + kSackBelow;
                             if (i < 0 || i >= kSackBelow) return false;
                             bits |= uint32_t{1} << i;
                             return true;
                           }),
            w.end());
    return bits;
  }

  // Acknowledges every waiting packet: the latest answered with its own
  // path and its send time moved on by the time it waited here (so the
  // sender's RTT sample is the network's, not the receiver's hold), the
  // others named beside it, and any too far from it in ACKs of their own.
  void flush_pending(Flow& f, uint8_t flags) {
    const int64_t now_ps = host().sim().now().count_ps();
    while (!f.ack_pending.empty()) {
      const Flow::PendingAck a = f.ack_pending.back();
      f.ack_pending.pop_back();
      host().send_control(f, PacketKind::kAck, a.seq, take_sack(f, a.seq), flags, a.path,
                          a.stamp_ps + (now_ps - a.arrived_ps));
    }
    f.ack_pending_bytes = 0;
  }

  // When the oldest waiting packet arrived (some are waiting).
  static SimTime oldest_waiting(const Flow& f) {
    int64_t oldest = INT64_MAX;
    for (const Flow::PendingAck& a : f.ack_pending) oldest = std::min(oldest, a.arrived_ps);
    return SimTime::ps(oldest);
  }

  // htsim's receiver answers a waiting packet only when more arrive or its
  // sender asks; a sender whose window shrank (a NACK, a cut) after it sent
  // them cannot ask, and would wait for its timeout. So anatomy's receiver
  // also answers packets that have waited one unloaded RTT, which those of a
  // flow at speed never do (ack_bytes fills in a few packet times).
  void arm_ack_timer(Flow& f, SimTime at) {
    f.ack_timer = true;
    host().sim().schedule_at(at, [this, slot = f.slot, gen = f.gen] {
      Flow& g = host().flow(slot);
      if (g.gen != gen) return;
      g.ack_timer = false;
      if (!g.live || g.receiver_done || g.ack_pending.empty()) return;
      const SimTime due = oldest_waiting(g) + g.paths->base_rtt;
      if (host().sim().now() >= due) flush_pending(g, 0);
      else arm_ack_timer(g, due);
    });
  }

  static double bdp(const Flow& f) { return f.paths->line_bps / 8.0 * f.paths->base_rtt.seconds(); }

  static void on_ack(Flow& f, double bytes, bool marked, SimTime rtt, SimTime now) {
    CcState& cc = f.cc;
    const double base = f.paths->base_rtt.seconds();
    const double target = kTargetOfRtt * base;
    const double delay = std::max(0.0, (rtt - f.paths->base_rtt).seconds());
    if (!marked) {
      cc.cwnd += bytes * (f.mtu / cc.cwnd);  // fair increase: one MTU per window
      if (delay < target) cc.cwnd += bytes * kProportional * (1.0 - delay / target);  // proportional
    } else if (delay >= target && delay > 0 && now - cc.t_decrease >= f.paths->base_rtt) {
      cc.cwnd *= std::max(1.0 - kGamma * (delay - target) / delay, 0.5);
      cc.t_decrease = now;
    }
    // Marked under the target: the path is congested, not the flow; REPS
    // leaves that entropy value and the window stays.
    cc.cwnd = std::clamp(cc.cwnd, static_cast<double>(f.mtu), std::max<double>(f.mtu, 1.5 * bdp(f)));
  }
};

}  // namespace

std::unique_ptr<Transport> make_uec_transport() { return std::make_unique<Uec>(); }

}  // namespace anatomy::net::packet
