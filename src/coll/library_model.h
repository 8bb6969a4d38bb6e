#pragma once
// LibraryModel: what the collective library (NCCL/RCCL) adds on top of the
// wire — its protocols' payload efficiency, its fixed per-call latency and
// its per-hop latency by link class, and its chunk sizes.
//
// The NCCL figures are NCCL's own tuning constants (src/graph/tuning.cc of
// NCCL 2.28; see docs/research/nccl_tuning.md for the tables and how NCCL
// combines them). anatomy uses them as inputs to a mechanistic model: bytes
// still move over the simulated network, and a hop costs NCCL's hop
// latency on the topology's physical path (hop_on_path: the longer of the
// two, and over NVLink a protocol's own work on top of a path longer than
// NCCL's), so the two are not counted twice. The ideal model has no
// software cost at all and full efficiency: it is what ASTRA-sim's
// analytical backend assumes, and what a plain ring/torus run uses.
//
// Protocol payload efficiency: LL sends 8 data bytes per 16-byte line (4-byte
// flags); LL128 keeps one 8-byte flag word per line, and NCCL's line is 128
// bytes (15 of 16 words data) where RCCL's is 64 (7 of 8: RCCL's device.h,
// NCCL_LL128_LINESIZE 64, the 64-lane wavefront's store); Simple has no
// flags. A protocol's step is its buffer over NCCL_STEPS (8) slots, sized by
// the library's threads per block: LL 8 lines of 16 B a thread (NCCL 512
// threads, RCCL 256), LL128 120 words a thread of 640 (NCCL) against 28 of
// 256 (RCCL), Simple 4 MiB in both.
//
// RCCL keeps NCCL's latency structure (base and per-hop latencies) but on
// AMD replaces NCCL's bandwidth refinements by per-platform tables tuned to
// choose an algorithm (tuning.cc rcclTuningModel: bwRatio and per-size
// correction factors); those are not rates, so anatomy keeps NCCL's
// refinements for both and takes from RCCL only its protocol formats above.

#include <string>
#include <string_view>

#include "coll/ops.h"
#include "core/units.h"

namespace anatomy::hw {
struct System;
}

namespace anatomy::coll {

using core::Bytes;
using core::SimTime;

enum class AlgoClass { kTree, kRing, kNvls };
enum class LinkClass { kNvlink, kPci, kNet };

struct LibraryModel {
  std::string name;  // "NCCL 2.28 tuning", "ideal"
  bool ideal = false;
  // The library chooses LL128 by itself on this platform
  // (hw::Architecture::ll128_only_with_nics); when not, auto leaves it out,
  // and only an explicit request (NCCL_PROTO=LL128) runs it.
  bool ll128 = true;
  double nvls_efficiency = 1.0;  // NCCL's nvlsEfficiency for this GPU generation
  double nvls_step_us = 0;       // an NVLS chunk step's fixed cost (hw::Architecture::nvls_step_us)
  int compute_capability = 0;    // NCCL's, x10 (90 Hopper, 100 Blackwell): NVLS channels and tuning
  // The scale-out switches reduce (InfiniBand SHARP, Spectrum-X) and NCCL's
  // CollNet uses them: NVLS across domains aggregates in the fabric
  // (cluster.fabric.in_network_reduction).
  bool fabric_reduction = false;
  // Thread blocks a collective's kernel occupies while it runs (one per
  // channel; NCCL runs 16 channels for multi-node collectives on DGX H100,
  // e.g. "16 coll channels" in NCCL's init log on 2x p5.48xlarge). Compute
  // that overlaps a collective loses this many SMs.
  int collective_ctas = 0;
  // A communicator's CTA limits: NCCL's minCTAs / maxCTAs (ncclConfig_t per
  // communicator, as Megatron-Core's --nccl-communicator-config-path sets
  // them, or NCCL_MIN_CTAS / NCCL_MAX_CTAS for all); 0 = NCCL's own. NCCL
  // runs one CTA a channel (init.cc bounds nChannels by them, and the p2p
  // channels by nChannels), so they bound every algorithm's channels.
  // with_ctas() applies them; clamp_ctas() bounds a channel count.
  int min_ctas = 0;
  int max_ctas = 0;
  int clamp_ctas(int channels) const;
  double ll_max_GBps[3] = {0, 0, 0};  // LL bus-bandwidth cap: 1 node, 2 nodes, 3 or more
  // NCCL's cost to post a network operation (tuning.cc getNetOverhead: 1 us
  // on Intel hosts and by default, 2 us on AMD x86 hosts).
  double net_overhead_us = 1.0;
  // The protocols' formats (see above): 8-byte words per LL128 line, and
  // one pipeline step of LL and of LL128 on the wire, flags included.
  int ll128_line_words = 16;
  Bytes ll_step = Bytes::KiB(64);
  Bytes ll128_step = Bytes(614'400);
  // NCCL's p2p channels inside one NVLink domain (p2p_plan.h): p2pnChannels,
  // the collective channel count rounded up to a power of two (32 on DGX
  // H100's 24 and DGX B200's 32, as their init logs print); a peer's most,
  // two per NVLink rounded up to a power of two (paths.cc
  // ncclTopoGetNchannels) and capped at p2pnChannels; and what one channel
  // moves (hw::Architecture::p2p_channel_GBps). 0 GB/s: not modelled.
  int p2p_channels = 32;
  int p2p_channels_per_peer = 32;
  double p2p_channel_GBps = 0;
  double p2p_ll_channel_GBps = 0;  // an LL part's payload rate (hw::Architecture's); 0: half the above
  // What one CTA moves under `p`: p2p_ll_channel_GBps for LL (p2p_channel_GBps
  // at LL's efficiency where unmeasured), p2p_channel_GBps otherwise.
  double cta_GBps(Protocol p) const;
  double p2p_recv_copy_GBps = 0;   // the receiver's copy out of its FIFO (hw::Architecture's); 0: p2p_channel_GBps
  // What RCCL's channels to one peer carry over an Infinity Fabric mesh on
  // one node, GB/s of payload (hw::Architecture::mesh_p2p_peer_GBps); 0: the
  // link bounds it.
  double mesh_p2p_peer_GBps = 0;
  // NCCL's ring and tree channels inside one NVLink-switch domain, one CTA
  // each at p2p_channel_GBps (hw::Architecture::nvlink_coll_channels); 0: not known.
  int nvlink_coll_channels = 0;
  // The bus bandwidth those CTAs can put on the wire in one NVLink-switch
  // domain (GB/s; Simple's payload, LL128's less its flags); 0: no such bound.
  double nvlink_channels_busbw_GBps() const { return nvlink_coll_channels * p2p_channel_GBps; }
  // A communicator that spans NVLink domains takes a network peer's channel
  // count for every peer (p2p_bound.h), which is no fewer than the NICs a
  // GPU needs to match its link to the host (NCCL's netCountByBw,
  // graph/topo.cc getLocalNetCountByBw: its own NICs, one on most
  // platforms), and the network's p2p chunk, 128 KiB, doubled on
  // Grace-Blackwell hosts (init.cc computeBuffSizes).
  int p2p_net_nics = 1;
  Bytes p2p_net_chunk = Bytes::KiB(128);

  double efficiency(Protocol p) const;
  // NCCL's cap on an LL collective's bus bandwidth (llMaxBws, GB/s): by GPU
  // generation on one node, by host CPU vendor across nodes; 0 = no cap.
  double ll_max_busbw_GBps(int nodes) const;
  // What NCCL's tree keeps of the link bandwidth per protocol (tuning.cc:
  // x0.92, then LL /3.8, LL128 x7/9 on one node or, across nodes, its
  // payload efficiency: 120/128 in NCCL's, 7/8 in RCCL's line).
  double tree_efficiency(Protocol p, int nodes) const;
  // NCCL's per-channel ceiling on NVLSTree (perChMaxNVLSTreeBws, GB/s of
  // bus bandwidth per NVLS head): Hopper 57.7 on 2 nodes, 45.5 on 3 or
  // more; Blackwell 96.0 / 80.0; 0 = none (one node, or no NVLS).
  double nvls_tree_max_per_head_GBps(int nodes) const;
  SimTime base_latency(AlgoClass a, Protocol p) const;
  // The least a step of a ring all-reduce, all-gather or reduce-scatter
  // takes once the ring crosses domains: NCCL's ring latency charges every
  // intra-node step max(its hop latency, the network post overhead), x3
  // for Simple (tuning.cc: intraLat = max(intraLat, netOverhead)), because
  // every step waits on the proxy that posts the ring's network hops.
  // Zero on one domain.
  SimTime ring_step_floor(Protocol p, int domains) const;
  // A proxy thread posting `ops` network operations one after another, each
  // at net_overhead_us (zero for an ideal library, or for no operations).
  SimTime net_posts(int ops) const;
  SimTime hop_latency(LinkClass l, AlgoClass a, Protocol p) const;
  // A hop over a path whose physical latency is `path`: NCCL's hop latency,
  // which covers the path it was measured on, or the path where that is
  // longer. Over NVLink, NCCL's LL figure (0.6 us) is that path: LL waits on
  // nothing but its lines' arrival. LL128's and Simple's figures add their
  // own per-hop work (line groups; a fence, then a flag behind the data),
  // which stays on top of a longer path: an NVL72 rack's GPU-to-GPU hop of
  // 1.37 us runs a ring's LL128 step in 1.37 + 1.9 - 0.6 = 2.67 us, not 1.9.
  SimTime hop_on_path(LinkClass l, AlgoClass a, Protocol p, SimTime path) const;
  // One level of NVLSTree's tree across domains (tuning.cc hwLat[NET]
  // [NVLS_TREE][Simple] = 20.9 us, above the plain tree's 14).
  SimTime nvls_tree_net_latency() const;
  // Payload per channel per pipeline step.
  Bytes chunk(AlgoClass a, Protocol p) const;
};

LibraryModel ideal_library();
// NCCL's MAXCHANNELS: the most channels, and CTA limits, it takes.
inline constexpr int kMaxChannels = 64;
// `channels` within CTA limits (0 = none): at most max_ctas, at least min_ctas.
int clamp_ctas(int channels, int min_ctas, int max_ctas);
// Why NCCL would not take a least of `min_ctas` under a most of `max_ctas`
// (the one named `max_name` in the message), or "" if it would.
std::string crossed_ctas(int min_ctas, int max_ctas, std::string_view max_name);
// `lib` for a communicator with these CTA limits (0 = none): its collective,
// NVLink and p2p channel counts clamped to them; ring, tree and NVLS clamp
// theirs as they build. A maximum also bounds a collective across NVLink
// domains by what that many CTAs carry over the NVLink hops inside each
// domain (pipeline.h cap_by_channel_ctas).
LibraryModel with_ctas(LibraryModel lib, int min_ctas, int max_ctas);
// The limits as a report names them: "at most 8", "at least 32", "16-32",
// or "" for none.
std::string ctas_text(int min_ctas, int max_ctas);
// NCCL for NVIDIA systems; for AMD, RCCL: NCCL's tuning model with RCCL's
// protocol formats.
LibraryModel nccl_library(const hw::System& system);

}  // namespace anatomy::coll
