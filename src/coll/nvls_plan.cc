#include "coll/nvls_plan.h"

#include <algorithm>

#include "coll/library_model.h"
#include "coll/pipeline.h"

namespace anatomy::coll {
namespace {

constexpr int64_t KiB = 1024;

struct Tuning {
  int channels;
  int64_t chunk;
  int64_t tree_max_chunk;  // 0 = NCCL's fallback (64 KiB from 4 nodes, else the chunk)
};

// transport/nvls.cc: ncclNvlsTuning and ncclNvlsTreeSm100Tuning. The GPU
// to NIC path is taken as PXB or closer (a NIC per GPU behind a PCIe
// switch), which is how every preset attaches its NICs.
Tuning tuning(const NvlsShape& s) {
  const bool sm100 = s.compute_capability >= 100;
  Tuning t{sm100 ? (s.domains > 1 ? 32 : 24) : 16, kNvlsDefaultChunk.count(), 0};
  if (!sm100 || s.domains <= 1) return t;
  const int ppn = s.min_domain_gpus;
  if (s.domains == 2 && s.nic_GBps >= 48) {
    t.channels = 32;
    t.tree_max_chunk = 128 * KiB;
    if (ppn <= 4) {
      t.chunk = t.tree_max_chunk = 256 * KiB;
    } else if (ppn >= 16 || (ppn <= 8 && s.nic_GBps < 96)) {
      t.tree_max_chunk = 64 * KiB;
    }
  } else if (s.nic_GBps >= 96) {
    if (ppn <= 8) {
      t.channels = 24;
      t.chunk = t.tree_max_chunk = 256 * KiB;
    } else {
      t.channels = 32;
      t.tree_max_chunk = ppn < 32 ? 128 * KiB : 64 * KiB;
    }
  } else if (s.nic_GBps >= 48) {
    t.channels = 24;
    t.tree_max_chunk = 64 * KiB;  // 128 KiB, halved for a PXB path
  }
  return t;
}

}  // namespace

NvlsPlan nvls_plan(const NvlsShape& shape, Bytes bytes) {
  NvlsPlan p;
  const Tuning t = tuning(shape);
  p.heads = std::max(1, std::min(kMaxNvlsArity, shape.min_domain_gpus));
  p.channels = clamp_ctas(t.channels, shape.min_ctas, shape.max_ctas);
  const double S = bytes.as_double();
  const double ops = static_cast<double>(p.channels) * p.heads;  // concurrentOps
  int64_t chunk = t.chunk;
  if (shape.domains <= 1 || shape.in_network_reduction) {
    if (S < 64 * ops * chunk && chunk > 64 * KiB) chunk = 64 * KiB;
    if (S < 8 * ops * chunk && chunk > 32 * KiB) chunk = 32 * KiB;
    if (S < 2 * ops * chunk && chunk > 16 * KiB) chunk = 16 * KiB;
    p.stages = shape.domains <= 1 ? 3 : 5;  // SHARP: up to the switches, and back
  } else {
    const int64_t tree_max = t.tree_max_chunk > 0 ? t.tree_max_chunk : (shape.domains >= 4 ? 64 * KiB : chunk);
    chunk = std::min(chunk, tree_max);
    if (S < 32 * ops * chunk && chunk > 256 * KiB) chunk = 256 * KiB;
    if (S < 16 * ops * chunk && chunk > 128 * KiB) chunk = 128 * KiB;
    if (S < 4 * ops * chunk && chunk > 64 * KiB) chunk = 64 * KiB;
    if (S < 1 * ops * chunk && chunk > 32 * KiB) chunk = 32 * KiB;
    p.stages = 3 + 2 * detail::ceil_log2(shape.domains);
  }
  p.chunk = Bytes(chunk);
  p.loops = S / (ops * static_cast<double>(chunk));
  return p;
}

}  // namespace anatomy::coll
