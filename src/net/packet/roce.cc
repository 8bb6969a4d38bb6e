// RoCEv2 with DCQCN (Zhu et al., SIGCOMM'15) and go-back-N.
//
// The sender (DCQCN's reaction point) paces packets at a current rate RC,
// starting at the path's line rate. The receiver (notification point)
// accepts packets only in order: the expected one is acknowledged
// (cumulatively, every `ack_every` packets); a later one is discarded and
// answered with one NAK naming the expected packet, and the sender goes
// back to it (go-back-N). A packet arriving with an ECN mark makes the
// receiver send a CNP, at most one per flow every 50 us. On a CNP:
//   RT <- RC;  RC <- RC (1 - alpha/2);  alpha <- (1 - g) alpha + g
// and alpha decays as alpha <- (1 - g) alpha every 55 us without one. The
// rate recovers in steps triggered every T = 55 us and every B = 10 MB
// sent; counting steps of each kind since the last cut (F = 5):
//   both < F:      fast recovery   RC <- (RT + RC) / 2
//   both >= F:     hyper increase  RT += R_HAI; RC <- (RT + RC) / 2
//   otherwise:     additive        RT += R_AI;  RC <- (RT + RC) / 2
// with g = 1/256, R_AI = line rate / 1000 (the paper's 40 Mb/s at 40 Gb/s)
// and R_HAI = 10 R_AI. Timers are applied lazily when the rate is next
// used, so an idle flow costs no events. Over PFC nothing is lost and the
// timeout (1 ms by default, as RoCE NICs use milliseconds) only guards
// against a misconfigured fabric: it goes back to the oldest unacknowledged
// packet.

#include <algorithm>
#include <cmath>

#include "net/packet/transport.h"

namespace anatomy::net::packet {
namespace {

constexpr double kG = 1.0 / 256.0;
constexpr int kF = 5;
constexpr int64_t kByteCounter = 10'000'000;
constexpr SimTime kTimer = SimTime::us(55);
constexpr SimTime kCnpInterval = SimTime::us(50);

class Roce final : public Transport {
 public:
  const char* name() const override { return "roce"; }
  Defaults defaults() const override {
    Defaults d;
    d.load_balancing = LoadBalancing::kEcmp;
    d.trimming = false;
    d.pfc = true;
    d.rto_min = SimTime::ms(1);
    return d;
  }

  void start(Flow& f, SimTime now) override {
    f.cc.rate = f.cc.target = f.paths->line_bps;
    f.cc.alpha = 1.0;
    f.cc.t_alpha = f.cc.t_increase = now;
    f.cc.t_cnp = SimTime::ps(-kCnpInterval.count_ps());
    f.cc.byte_counter = 0;
    f.cc.timer_stage = f.cc.byte_stage = 0;
    f.cc.since_ack = 0;
  }

  Next next(Flow& f, SimTime now, uint32_t& seq, SimTime& at) override {
    if (f.snd_nxt >= f.npkts) return Next::kBlocked;
    if (now < f.next_send) {
      at = f.next_send;
      return Next::kWait;
    }
    advance_timers(f, now);
    seq = f.snd_nxt++;
    const int64_t wire = f.payload(seq) + f.paths->wire_overhead;
    f.next_send = now + SimTime::ps(static_cast<int64_t>(std::ceil(static_cast<double>(wire) * 8e12 / f.cc.rate)));
    f.cc.byte_counter += wire;
    while (f.cc.byte_counter >= kByteCounter) {
      f.cc.byte_counter -= kByteCounter;
      ++f.cc.byte_stage;
      increase(f);
    }
    return Next::kSend;
  }

  bool ready(const Flow& f) const override { return f.snd_nxt < f.npkts; }

  void on_data(Flow& f, const Packet& p) override {
    const SimTime now = host().sim().now();
    if ((p.flags & kFlagEcn) && now - f.cc.t_cnp >= kCnpInterval) {
      f.cc.t_cnp = now;
      host().count_cnp();
      host().send_control(f, PacketKind::kCnp, p.seq, 0, 0, p.path, p.stamp_ps);
    }
    if (p.kind == PacketKind::kData && p.seq == f.rcv_nxt) {
      ++f.rcv_nxt;
      f.receive(p.seq);
      f.nak_sent = false;
      if (f.all_received()) {
        host().send_control(f, PacketKind::kAck, p.seq, f.rcv_nxt, kFlagAllDone, p.path, p.stamp_ps);
        host().receiver_complete(f);
      } else if (++f.cc.since_ack >= static_cast<uint32_t>(host().config().ack_every)) {
        f.cc.since_ack = 0;
        host().send_control(f, PacketKind::kAck, p.seq, f.rcv_nxt, 0, p.path, p.stamp_ps);
      }
      return;
    }
    if (p.seq < f.rcv_nxt) {  // a copy of what we have: acknowledge again
      host().send_control(f, PacketKind::kAck, p.seq, f.rcv_nxt, f.all_received() ? kFlagAllDone : 0, p.path,
                          p.stamp_ps);
      return;
    }
    // A gap (or a trimmed header): discard and ask once for the expected packet.
    if (!f.nak_sent) {
      f.nak_sent = true;
      host().send_control(f, PacketKind::kNack, f.rcv_nxt, f.rcv_nxt, 0, p.path, p.stamp_ps);
    }
  }

  void on_control(Flow& f, const Packet& p) override {
    if (f.sender_done) return;
    switch (p.kind) {
      case PacketKind::kAck:
        if (p.aux > f.snd_una) {
          f.snd_una = p.aux;
          host().arm_rto(f, true);
        }
        if (p.stamp_ps > 0) sample_rtt(f, host().sim().now() - SimTime::ps(p.stamp_ps));
        if ((p.flags & kFlagAllDone) || f.snd_una >= f.npkts) {
          f.ack_all();
          host().sender_complete(f);
        }
        return;
      case PacketKind::kNack:
        if (p.aux > f.snd_una) f.snd_una = p.aux;
        if (p.aux < f.snd_nxt) f.snd_nxt = p.aux;  // go back
        host().arm_rto(f, true);
        host().activate(f);
        return;
      case PacketKind::kCnp:
        cut(f, host().sim().now());
        return;
      default:
        return;
    }
  }

  void on_timeout(Flow& f) override {
    f.snd_nxt = f.snd_una;
    host().activate(f);
  }

 private:
  static void increase(Flow& f) {
    CcState& c = f.cc;
    const double line = f.paths->line_bps;
    const double r_ai = line / 1000.0;
    if (std::max(c.timer_stage, c.byte_stage) < kF) {
      // fast recovery: halfway back to the target
    } else if (std::min(c.timer_stage, c.byte_stage) >= kF) {
      c.target += 10 * r_ai;
    } else {
      c.target += r_ai;
    }
    c.target = std::min(c.target, line);
    c.rate = std::min(line, (c.target + c.rate) / 2);
  }

  static void advance_timers(Flow& f, SimTime now) {
    CcState& c = f.cc;
    const int64_t alpha_steps = (now - c.t_alpha).count_ps() / kTimer.count_ps();
    if (alpha_steps > 0) {
      c.alpha *= std::pow(1 - kG, static_cast<double>(alpha_steps));
      c.t_alpha += kTimer * alpha_steps;
    }
    const int64_t steps = (now - c.t_increase).count_ps() / kTimer.count_ps();
    if (steps > 0) {
      c.t_increase += kTimer * steps;
      // Past a few dozen steps the rate is back at line rate whatever came before.
      for (int64_t i = 0; i < std::min<int64_t>(steps, 64); ++i) {
        ++c.timer_stage;
        increase(f);
      }
    }
  }

  static void cut(Flow& f, SimTime now) {
    advance_timers(f, now);
    CcState& c = f.cc;
    c.target = c.rate;
    c.rate = std::max(c.rate * (1 - c.alpha / 2), f.paths->line_bps / 1000.0);
    c.alpha = (1 - kG) * c.alpha + kG;
    c.timer_stage = c.byte_stage = 0;
    c.byte_counter = 0;
    c.t_increase = now;
    c.t_alpha = now;
  }
};

}  // namespace

std::unique_ptr<Transport> make_roce_transport() { return std::make_unique<Roce>(); }

}  // namespace anatomy::net::packet
