#pragma once
// Transports: the endpoints' half of the packet model, as small strategies
// over one shared per-flow state.
//
// Every transfer is a Flow. What all transports share lives in the Flow:
// the packets acknowledged and received (bitmaps), the packets to resend,
// bytes in flight, the smoothed RTT, the retransmission timer. What differs
// is a Transport: when a sender may send (a window, a paced rate, credits
// from the receiver), what a receiver answers (an ACK per packet, a paced
// pull, a NAK and a CNP), and how it reacts to congestion signals. A
// Transport keeps no per-flow state of its own beyond the small `cc`
// block in the Flow, so adding a congestion control is one new file.
//
// The network (the Host) does the rest: it asks a flow's transport for the
// next packet whenever the flow's NIC port is free (next()), hands it
// every packet that reaches an endpoint (on_data() at the receiver,
// on_control() at the sender), runs the retransmission timer (with
// exponential backoff) and calls on_timeout().
//
//   TransportRegistry reg;
//   register_builtin_transports(reg);
//   std::unique_ptr<Transport> t = reg.make("eqds");

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/time.h"
#include "core/units.h"
#include "engine/callback.h"
#include "engine/simulator.h"
#include "net/network.h"
#include "net/packet/config.h"
#include "net/packet/packet.h"
#include "net/packet/paths.h"

namespace anatomy::net::packet {

inline constexpr uint32_t kNoSeq = UINT32_MAX;

// Per-transport congestion-control scratch, kept in the flow.
struct CcState {
  double rate = 0;     // bits per second (rate-based transports)
  double target = 0;   // DCQCN target rate
  double cwnd = 0;     // bytes (window-based transports)
  double alpha = 0;    // DCQCN congestion estimate
  SimTime t_alpha, t_increase, t_cnp;
  SimTime t_decrease;  // NSCC: the last multiplicative decrease (at most one per base RTT)
  int64_t byte_counter = 0;
  int32_t timer_stage = 0, byte_stage = 0;
  int32_t credits = 0;  // receiver-granted packets the sender may send
  uint32_t since_ack = 0;
};

struct Flow {
  // --- identity ---
  TransferId id = 0;
  uint32_t slot = 0;  // index in the network's flow table
  NodeId src = topo::kNoNode, dst = topo::kNoNode;
  uint32_t gen = 0;
  const PathSet* paths = nullptr;
  uint32_t inject = 0;      // port index the flow's packets leave through
  uint32_t path_cursor = 0; // spraying: next path
  int64_t bytes = 0;
  uint32_t npkts = 0;
  uint16_t last_payload = 0;
  uint16_t mtu = 0;

  // --- sender ---
  uint32_t snd_nxt = 0;   // next packet never sent (go-back-N: next to send)
  uint32_t snd_una = 0;   // lowest packet not acknowledged
  uint32_t highest_sent = 0;  // packets ever sent for the first time
  uint32_t acked = 0;     // packets acknowledged
  std::vector<uint64_t> acked_bits;
  std::vector<uint64_t> lost_bits;  // queued for retransmission
  std::vector<uint32_t> retx;       // packets to resend, oldest first
  size_t retx_head = 0;
  // spray_order recycle: paths whose packets were acknowledged unmarked,
  // oldest first (from recycled_head on).
  std::vector<uint16_t> recycled;
  size_t recycled_head = 0;
  int64_t inflight = 0;   // payload bytes sent and neither acknowledged nor known lost
  SimTime next_send;      // pacing: earliest time of the next packet
  SimTime srtt, rttvar;
  CcState cc;

  // --- retransmission timer ---
  SimTime rto_deadline;
  int backoff = 0;
  bool rto_armed = false;
  bool rto_event = false;

  // --- receiver ---
  std::vector<uint64_t> rcv_bits;
  uint32_t rcv_count = 0;
  uint32_t rcv_nxt = 0;  // go-back-N: the next packet in order
  bool nak_sent = false;
  // Coalesced acknowledgements (PacketConfig::ack_bytes): payload received
  // since the last ACK, and the packets no ACK has named yet, each with what
  // its own ACK would echo.
  struct PendingAck {
    uint32_t seq;
    uint16_t path;
    int64_t stamp_ps;    // when it was sent
    int64_t arrived_ps;  // when it arrived
  };
  uint32_t ack_pending_bytes = 0;
  std::vector<PendingAck> ack_pending;
  bool ack_timer = false;  // a check of how long they have waited is scheduled

  // --- completion ---
  engine::Callback on_done;
  bool complete_on_send = false;
  bool complete_on_ack = false;  // on_done runs when the sender has the last acknowledgement
  bool live = false;
  bool reported = false;       // on_done ran
  bool report_scheduled = false;  // complete_on_send: on_done runs when the last packet is out
  bool receiver_done = false;
  bool sender_done = false;
  bool in_ready = false;       // queued at its NIC port for a send opportunity
  bool wake_pending = false;   // a pacing wake-up is scheduled
  bool started = false;

  uint16_t payload(uint32_t seq) const { return seq + 1 == npkts ? last_payload : mtu; }
  bool is_acked(uint32_t seq) const { return (acked_bits[seq >> 6] >> (seq & 63)) & 1; }
  bool is_lost(uint32_t seq) const { return (lost_bits[seq >> 6] >> (seq & 63)) & 1; }
  bool is_received(uint32_t seq) const { return (rcv_bits[seq >> 6] >> (seq & 63)) & 1; }
  bool retx_pending() const { return retx_head < retx.size(); }

  // Sender: records an acknowledgement; false if it was already known.
  bool ack(uint32_t seq) {
    uint64_t& w = acked_bits[seq >> 6];
    const uint64_t bit = uint64_t{1} << (seq & 63);
    if (w & bit) return false;
    w |= bit;
    ++acked;
    if (!is_lost(seq)) inflight -= payload(seq);
    while (snd_una < npkts && is_acked(snd_una)) ++snd_una;
    return true;
  }
  // Sender: a packet is known lost (trimmed, or timed out); queue it once.
  bool mark_lost(uint32_t seq) {
    if (is_acked(seq) || is_lost(seq)) return false;
    lost_bits[seq >> 6] |= uint64_t{1} << (seq & 63);
    inflight -= payload(seq);
    retx.push_back(seq);
    return true;
  }
  // Sender: the next packet to send, resends first; kNoSeq if none.
  uint32_t take_next() {
    while (retx_head < retx.size()) {
      const uint32_t s = retx[retx_head++];
      if (retx_head == retx.size()) {
        retx.clear();
        retx_head = 0;
      }
      if (is_acked(s) || !is_lost(s)) continue;
      lost_bits[s >> 6] &= ~(uint64_t{1} << (s & 63));
      return s;
    }
    return snd_nxt < npkts ? snd_nxt++ : kNoSeq;
  }
  // Sender, spray_order recycle: `path` came back unmarked. What was taken
  // is dropped once it is half the buffer, so the buffer stays about as long
  // as the paths waiting in it.
  void recycle(uint16_t path) {
    if (recycled_head > 64 && 2 * recycled_head > recycled.size()) {
      recycled.erase(recycled.begin(), recycled.begin() + static_cast<std::ptrdiff_t>(recycled_head));
      recycled_head = 0;
    }
    recycled.push_back(path);
  }
  // Sender: the oldest recycled path, or false when none waits.
  bool take_recycled(uint32_t& path) {
    if (recycled_head == recycled.size()) return false;
    path = recycled[recycled_head++];
    return true;
  }
  // Receiver: records an arrival; false for a duplicate.
  bool receive(uint32_t seq) {
    uint64_t& w = rcv_bits[seq >> 6];
    const uint64_t bit = uint64_t{1} << (seq & 63);
    if (w & bit) return false;
    w |= bit;
    ++rcv_count;
    return true;
  }
  bool all_received() const { return rcv_count == npkts; }
  // Sender: the receiver says it has everything.
  void ack_all() {
    acked = npkts;
    snd_una = npkts;
    inflight = 0;
  }
  bool all_acked() const { return acked == npkts; }
};

// What the network offers a transport.
class Host {
 public:
  virtual ~Host() = default;
  virtual engine::Simulator& sim() = 0;
  virtual const PacketConfig& config() const = 0;
  virtual Flow& flow(uint32_t slot) = 0;
  // Receiver -> sender control packet on the reverse of path `path`.
  virtual void send_control(Flow& f, PacketKind kind, uint32_t seq, uint32_t aux, uint8_t flags, uint16_t path,
                            int64_t stamp_ps) = 0;
  // The flow may have something to send: queue it at its NIC port.
  virtual void activate(Flow& f) = 0;
  // (Re)starts the retransmission timer from now (progress: the backoff
  // starts over); disarm stops it.
  virtual void arm_rto(Flow& f, bool progress) = 0;
  virtual void disarm_rto(Flow& f) = 0;
  // The receiver has every byte / the sender has every acknowledgement.
  virtual void receiver_complete(Flow& f) = 0;
  virtual void sender_complete(Flow& f) = 0;
  // Counts a congestion notification sent (for the statistics).
  virtual void count_cnp() = 0;
};

class Transport {
 public:
  enum class Next : uint8_t { kSend, kWait, kBlocked };

  virtual ~Transport() = default;
  virtual const char* name() const = 0;
  // What this transport runs over when the config says "auto".
  struct Defaults {
    LoadBalancing load_balancing = LoadBalancing::kSpray;
    bool trimming = true;
    bool pfc = false;
    SimTime rto_min = SimTime::us(200);
    // Equal-cost paths a sprayed flow uses (PacketConfig::spray_paths = 0):
    // kEveryPath for a transport whose packets carry a free entropy value
    // per packet that the switches hash over all their next hops.
    int spray_paths = 32;
    SprayOrder spray_order = SprayOrder::kRoundRobin;
  };
  static constexpr int kEveryPath = 1 << 16;  // UET's entropy value is 16 bits: 65,536 per flow
  virtual Defaults defaults() const = 0;

  void attach(Host& h) { host_ = &h; }
  // A new flow (its shared state is set up) whose first packet may leave
  // at `at` (now or later): initial window, rate, credits.
  virtual void start(Flow& f, SimTime at) = 0;
  // The flow's NIC port can send: kSend with `seq` to send packet seq now;
  // kWait with `at` when pacing says later; kBlocked until activate().
  virtual Next next(Flow& f, SimTime now, uint32_t& seq, SimTime& at) = 0;
  // After a send: whether next() may send again without news (credits or
  // window left). False keeps the flow off its port's ring until activate().
  virtual bool ready(const Flow& f) const = 0;
  // A data packet or a trimmed header reached the receiver.
  virtual void on_data(Flow& f, const Packet& p) = 0;
  // A control packet reached the sender.
  virtual void on_control(Flow& f, const Packet& p) = 0;
  // The retransmission timer expired (the host has already doubled the backoff).
  virtual void on_timeout(Flow& f) = 0;

 protected:
  Host& host() { return *host_; }
  // RTT sample at the sender (Jacobson/Karels smoothing).
  static void sample_rtt(Flow& f, SimTime rtt);

 private:
  Host* host_ = nullptr;
};

// Transports by name, each with a line saying what it models.
class TransportRegistry {
 public:
  using Make = std::function<std::unique_ptr<Transport>()>;
  struct Entry {
    std::string name;
    std::string help;
    Make make;
  };
  void add(std::string name, std::string help, Make make);
  std::unique_ptr<Transport> make(std::string_view name) const;  // throws InputError for an unknown name
  const std::vector<Entry>& all() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

// roce (DCQCN, go-back-N), eqds (receiver-driven pulls, trimming), uec (ECN/delay window, spraying).
void register_builtin_transports(TransportRegistry& reg);

std::unique_ptr<Transport> make_roce_transport();
std::unique_ptr<Transport> make_eqds_transport();
std::unique_ptr<Transport> make_uec_transport();

}  // namespace anatomy::net::packet
