#pragma once
// TsnPort: one Ethernet egress port with the three IEEE 802.1Q transmission
// selection mechanisms a deterministic (TSN) segment uses, simulated frame
// by frame on the engine's clock so latency and jitter come out of queues.
//
//   * Strict priority (802.1Q 8.6.8.1): eight traffic classes, 7 highest;
//     the highest class with an eligible frame sends next. Transmission is
//     not preemptive: a frame that has started finishes.
//   * Credit-based shaper (802.1Qav, 802.1Q 8.6.8.2): a shaped class holds a
//     credit in bits. It may start a frame only with credit >= 0. While it
//     sends, credit falls at sendSlope = idleSlope - portRate; while frames
//     wait (gate open), it rises at idleSlope; with no frame waiting a
//     positive credit is reset to 0 and a negative one recovers to 0. With
//     the class's gate closed the credit is frozen.
//   * Time-aware shaper (802.1Qbv, 802.1Q 8.6.8.4): a gate control list of
//     (duration, open-class mask) entries repeats every cycle (the sum of
//     the durations) from time 0. A class may start a frame only while its
//     gate is open and only if the frame ends before the gate closes
//     (length-aware scheduling, so no guard band is wasted and no frame
//     overruns a closed window).
//
// Frame time on the wire is (payload + kEthernetOverheadBytes) x 8 / rate:
// preamble and SFD 8, MAC header 14, VLAN tag 4, FCS 4, inter-frame gap 12.
//
//   TsnPortConfig c;
//   c.rate = core::Bandwidth::gbps(1);
//   c.classes[6].cbs_idle_slope = core::Bandwidth::gbps(0.5);  // 50% reserved for class 6
//   c.gates = {{SimTime::us(100), 0x80}, {SimTime::us(900), 0x7f}};  // 100 us of class 7 only per 1 ms
//   validate_port(c, "port");

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/time.h"
#include "core/units.h"

namespace anatomy::net::tsn {

using core::Bandwidth;
using core::Bytes;
using core::SimTime;

inline constexpr int kClasses = 8;
inline constexpr int64_t kEthernetOverheadBytes = 42;
inline constexpr int64_t kMinPayloadBytes = 42;  // shorter payloads are padded (64-byte minimum frame with a tag)

struct GateEntry {
  SimTime duration;
  uint8_t open = 0xff;  // bit c set: class c's gate is open
};

struct ClassConfig {
  Bandwidth cbs_idle_slope;  // 0: no credit-based shaper on this class
};

struct TsnPortConfig {
  Bandwidth rate = Bandwidth::gbps(1);
  SimTime latency = SimTime::ns(500);  // propagation plus the next hop's forwarding (store and forward)
  std::array<ClassConfig, kClasses> classes{};
  std::vector<GateEntry> gates;  // empty: every gate always open
};

// Wire bytes of a frame with `payload` bytes, and its time on `rate`.
int64_t wire_bytes(int64_t payload);
SimTime frame_time(int64_t payload, Bandwidth rate);

// The gate schedule's arithmetic, shared by the port and by input checks.
class GateSchedule {
 public:
  GateSchedule() = default;
  explicit GateSchedule(const std::vector<GateEntry>& entries);
  bool always_open() const { return entries_.empty(); }
  SimTime cycle() const { return cycle_; }
  bool open(int cls, SimTime t) const;
  // How long class `cls` stays open from `t` (SimTime::max() if it never closes); 0 when closed.
  SimTime open_for(int cls, SimTime t) const;
  // The next time after `t` at which any gate changes (SimTime::max() if none).
  SimTime next_change(SimTime t) const;
  // The longest single open window of class `cls` in a cycle (a window may span the cycle's end).
  SimTime longest_window(int cls) const;

 private:
  size_t entry_at(SimTime t, SimTime* into) const;
  std::vector<GateEntry> entries_;
  std::vector<SimTime> starts_;
  SimTime cycle_;
};

// "" when fine, else why not (a zero rate, an idle slope at or above the
// port's rate, a zero-length gate entry).
std::string check_port(const TsnPortConfig& c);

}  // namespace anatomy::net::tsn
