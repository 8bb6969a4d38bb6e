#pragma once
// NvlsPlan: how NCCL cuts an NVLS all-reduce into work — how many GPUs of
// each domain reduce a slice (heads), how many CTAs (channels) each GPU
// runs, the chunk each head handles per channel per loop, how many loops
// the buffer takes and how many pipeline stages a loop crosses. Pure
// arithmetic over NCCL 2.30's rules, so it is tested alone:
//
//  * heads: the NVLS graph has one channel per head, at most
//    NCCL_MAX_NVLS_ARITY = 32 (include/device.h, graph/search.cc), and
//    every rank keeps the smallest head count of any node (init.cc takes
//    the minimum of each graph's nChannels over ranks): a partial NVL72
//    domain of 16 GPUs leaves 16 heads in every domain, NVLS stays on.
//  * channels (transport/nvls.cc): 16 CTAs on SM90; on SM100 24 inside one
//    NVLink domain and 32 across domains, which ncclNvlsTreeSm100Tuning
//    then sets by node count and NIC bandwidth (2 nodes at >= 48 GB/s: 32;
//    >= 96 GB/s: 24 with 8 or fewer GPUs per node, else 32; >= 48 GB/s: 24).
//  * chunk (enqueue.cc): NVLS starts at NCCL_NVLS_CHUNKSIZE = 128 KiB and
//    drops to 64/32/16 KiB below 64/8/2 x (channels x heads x chunk)
//    bytes; NVLSTree starts at min(128 KiB, the tree's maximum chunk: 64
//    KiB from 4 nodes, or the SM100 tuning's) and steps down to 256/128/
//    64/32 KiB below 32/16/4/1 x (channels x heads x chunk).
//  * loops = S / (channels x heads x chunk): one loop moves one chunk per
//    head per channel (enqueue.cc: nchunksPerLoop = nHeads).
//  * stages (device/all_reduce.h): each CTA splits its warps into a
//    scatter (user buffer into the heads' NVLS buffers), a reduce that
//    multimem.ld_reduce-s and multimem.st-s its head's chunk, and a gather
//    (NVLS buffers to the user buffer), connected by NCCL_STEPS-deep FIFOs:
//    a three-stage pipeline. Across domains a chunk also climbs and
//    descends the inter-domain tree: 2 ceil(log2 m) more stages; with
//    in-network reduction (NVLS + SHARP) two, up to the switches and back,
//    replace the tree.
//
// Filling and draining the pipeline costs one loop's way through every
// stage beyond the slowest (nvls.cc times the stages: the reduce at the
// NVLink stage's pace with its chunk steps, the scatter's and gather's
// copies in the GPU's own memory at that pace at NCCL's default chunk, each
// network stage as one chunk per channel over a NIC), which is what makes
// NVLS bus bandwidth depend on size even where latency no longer does.
//
//   NvlsPlan p = nvls_plan({.compute_capability = 100, .min_domain_gpus = 72, .domains = 1}, Bytes::GiB(4));
//   p.heads == 32; p.channels == 24; p.chunk == Bytes::KiB(64);

#include <cstdint>

#include "core/units.h"

namespace anatomy::coll {

using core::Bytes;

struct NvlsShape {
  int compute_capability = 90;  // NCCL's, x10
  int min_domain_gpus = 8;      // the smallest domain's GPUs (NCCL's minLocalRanks)
  int domains = 1;              // NVLink domains (NCCL's nNodes across MNNVL cliques)
  double nic_GBps = 0;          // one NIC's bandwidth (NCCL's minNetBw); multi-domain tuning only
  // Across domains, the fabric's switches reduce (SHARP: NCCL's NVLS with
  // CollNet): NVLS's chunk rule, and one network stage instead of a tree.
  bool in_network_reduction = false;
  // The communicator's CTA limits (LibraryModel::min_ctas, max_ctas; 0 =
  // none): NCCL's NVLS channels are CTAs too.
  int min_ctas = 0;
  int max_ctas = 0;
};

struct NvlsPlan {
  int heads = 0;
  int channels = 0;
  Bytes chunk;
  double loops = 0;  // fractional: the last loop is partial
  int stages = 3;
};

constexpr int kMaxNvlsArity = 32;  // NCCL_MAX_NVLS_ARITY
constexpr Bytes kNvlsDefaultChunk = Bytes::KiB(128);  // NCCL_NVLS_CHUNKSIZE's default

NvlsPlan nvls_plan(const NvlsShape& shape, Bytes bytes);

}  // namespace anatomy::coll
