#pragma once
// PacketConfig: every knob of the packet backend, with its default and
// what it models. Models never parse text: packet_options.h declares each
// knob once (key, kind, default, validator, help) and turns
// "transport=roce,pfc=on" (--network packet:...) and the scenario's
// network section into this struct through that one table.
//
// The MTU and the per-packet wire overhead are not here: they belong to
// the fabric (topo::Framing, set by cluster.fabric), which derates its
// links' bandwidth by them, and the packet network reads them from the
// topology it runs on.
//
// "auto" knobs take the transport's own choice (Transport::defaults()):
// RoCE runs over a lossless (PFC) fabric with ECMP; the endpoint-scheduled
// (EQDS) and UEC-like transports run over a lossy fabric with trimming and
// per-packet spraying.

#include <cstdint>
#include <string>

#include "core/time.h"
#include "core/units.h"

namespace anatomy::net::packet {

using core::Bytes;
using core::SimTime;

enum class LoadBalancing : uint8_t {
  kAuto,      // the transport's default
  kEcmp,      // one path per flow, chosen by the flow hash (collisions included)
  kSpray,     // every packet on one of the flow's equal-cost paths, in the spray order
  kAdaptive,  // at every switch, the equal-cost next hop with the least queued bytes
};

// In which order a sprayed flow takes its paths.
enum class SprayOrder : uint8_t {
  kAuto,        // the transport's
  kRoundRobin,  // path i, i + 1, ... from a per-flow offset
  kRandom,      // a fresh pseudo-random entropy value per packet (oblivious spraying)
  kRecycle,     // REPS: again the values acknowledged unmarked, first come first reused; else a fresh random one
};

enum class BufferKind : uint8_t {
  kShared,  // one pool per switch; a port may hold alpha x (free pool) (dynamic thresholds)
  kStatic,  // a fixed share per port
};

enum class Toggle : uint8_t { kAuto, kOn, kOff };

enum class FabricKind : uint8_t {
  kEndpoint,         // shallow-buffer switches; the endpoints' transport does the scheduling
  kSwitchScheduled,  // ingress VOQs, a request/grant scheduler per egress port, cells sprayed over the fabric
};

// How "auto" picks a collective's algorithm and protocol at packet level.
enum class Chooser : uint8_t {
  kFlow,    // every candidate on the flow model (seconds), then only the winner packet by packet
  kPacket,  // every candidate packet by packet (as on the flow model; hours for a whole iteration)
};

// Which transfers the packet model carries; the rest run on the flow model
// (net/hybrid_network.h states the rule at the boundary).
enum class PacketScope : uint8_t {
  kAll,           // every transfer
  kDataParallel,  // the iteration's data-parallel collectives on the shared fabric
  kGpus,          // transfers whose both ends belong to GPUs scope_first_gpu .. + scope_gpus - 1 (e.g. one pod)
  kWindow,        // transfers that start in [window_from, window_until)
  kFabric,        // transfers whose route crosses the scale-out or storage fabric
};

const char* to_string(LoadBalancing lb);
const char* to_string(BufferKind b);
const char* to_string(FabricKind f);

struct PacketConfig {
  std::string transport = "eqds";  // a name in the transport registry (transport.h)
  FabricKind fabric = FabricKind::kEndpoint;

  // Control packets and trimmed headers are minimum Ethernet frames on
  // fabric links (data packets: the topology's MTU plus its overhead).
  int header_wire = 84;  // 64 B frame + 20 B preamble and gap

  LoadBalancing load_balancing = LoadBalancing::kAuto;
  int spray_paths = 0;  // equal-cost paths a flow sprays over (sampled by hashing, as entropy values are); 0: the transport's
  SprayOrder spray_order = SprayOrder::kAuto;

  // Switch buffers (fabric switches only; NICs, NVSwitches and PCIe are lossless and unbounded).
  BufferKind buffer = BufferKind::kShared;
  Bytes switch_buffer = Bytes::MiB(32);  // shared pool per switch
  double dt_alpha = 0.125;               // dynamic threshold: a port may queue alpha x (pool - used)
  Bytes port_buffer = Bytes::MiB(1);     // kStatic: per egress port

  // ECN: a data packet joining a queue of q bytes is marked with probability
  // 0 below kmin, rising linearly to pmax at kmax, and 1 above kmax (RED as
  // DCQCN uses it; kmin == kmax is DCTCP's step).
  Bytes ecn_kmin = Bytes(100'000);
  Bytes ecn_kmax = Bytes(400'000);
  double ecn_pmax = 0.2;

  // Trimming: a data packet the buffer refuses is cut to its header and
  // forwarded at high priority (NDP, EQDS, UEC) instead of dropped.
  Toggle trimming = Toggle::kAuto;
  Bytes header_queue = Bytes::MiB(1);  // per port, for trimmed headers and control packets

  // PFC: per ingress port, pause the upstream sender when this switch holds
  // more than xoff bytes that arrived through it; resume below xon. The
  // headroom above xoff (what is still on the wire when the pause lands,
  // 2 x link delay x rate + 2 packets) is computed per link; overflowing it
  // is a drop, counted apart.
  Toggle pfc = Toggle::kAuto;
  Bytes pfc_xoff = Bytes::KiB(256);
  Bytes pfc_xon = Bytes(0);  // 0: xoff - 2 full packets

  // Retransmission timeout: max(rto_min, srtt + 4 rttvar), doubled after
  // every timeout without progress (up to 2^rto_backoff_max), reset by
  // progress. 0: the transport's default.
  SimTime rto_min = SimTime::zero();
  int rto_backoff_max = 6;

  // Endpoint-scheduled (EQDS) initial window; 0: one bandwidth-delay product.
  Bytes initial_window = Bytes(0);
  // RoCE: an ACK every this many packets (and for the last one).
  int ack_every = 1;
  // UEC: the receiver acknowledges once this many payload bytes wait
  // unacknowledged, and at once for a marked, resent or duplicate packet, one
  // its sender flagged (window full or nothing new left), and a flow's first
  // and last; an ACK also names the waiting packets up to 32 under the one it
  // answers. htsim's UEC receiver and sender do the same with 16 KiB
  // (UecSink::_bytes_unacked_threshold); beyond them, packets that waited
  // one unloaded RTT are answered then. 0: every packet.
  Bytes ack_bytes = Bytes(0);

  // Switch-scheduled fabric.
  SimTime deep_buffer_latency = SimTime::ns(500);  // extra latency of a packet that waits in off-chip (HBM) VOQ memory
  Bytes voq_buffer = Bytes::GiB(4);                // per ingress switch (Jericho-class HBM)
  int cell_bytes = 512;                            // fabric cell payload

  uint64_t seed = 1;

  // Fidelity: what runs packet by packet (app/network_factory.cc wires it).
  Chooser choose = Chooser::kFlow;
  PacketScope scope = PacketScope::kFabric;
  int scope_first_gpu = 0;
  int scope_gpus = 0;  // 0: every GPU from scope_first_gpu on
  SimTime window_from = SimTime::zero();
  SimTime window_until = SimTime::zero();  // 0: no end

  friend bool operator==(const PacketConfig&, const PacketConfig&) = default;
};

}  // namespace anatomy::net::packet
