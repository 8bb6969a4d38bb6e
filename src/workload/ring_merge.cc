#include "workload/ring_merge.h"

namespace anatomy::workload {

RingMerges ring_merges(const hw::ComputeModel& cm, int64_t out_elems, int64_t dq_elems, int64_t dkv_elems,
                       int64_t cp) {
  if (cp <= 1) return {};
  constexpr int64_t kBytes = 2;  // 16-bit output and gradients
  // The first step's tensor read and written, each later step's three accesses.
  const auto passes = [&](int64_t first, int64_t later) {
    return cm.memory_bound(core::Bytes((2 * first + 3 * later * (cp - 1)) * kBytes));
  };
  return {passes(out_elems, out_elems), passes(dq_elems, dq_elems) + passes(dkv_elems, dkv_elems / 2)};
}

}  // namespace anatomy::workload
