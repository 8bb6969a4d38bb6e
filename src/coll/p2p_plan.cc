#include "coll/p2p_plan.h"

#include <algorithm>
#include <bit>
#include <set>

namespace anatomy::coll {
namespace {

constexpr int kRoundsPerBatch = 8;          // NCCL_MAX_DEV_WORK_P2P_PER_BATCH
constexpr int64_t kLlThreshold = 16 * 1024;  // NCCL_P2P_LL_THRESHOLD

int reverse_low_bits(int x, int bits) {
  int r = 0;
  for (int i = 0; i < bits; ++i)
    if (x & (1 << i)) r |= 1 << (bits - 1 - i);
  return r;
}

int64_t div_up(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

std::vector<int> all_to_all_rounds(int ranks) {
  std::vector<int> k;
  for (int i = 1; i < ranks; ++i) k.push_back(i);
  return k;
}

P2pPlan p2p_plan(const P2pShape& s, Bytes bytes_per_peer, const std::vector<int>& rounds) {
  P2pPlan p;
  const int max_parts = std::max(1, std::min(s.channels, s.channels_per_peer));
  int min_parts = max_parts;
  while (min_parts * s.ranks > s.channels && min_parts > 1) min_parts /= 2;
  const int64_t bytes = bytes_per_peer.count();
  p.ll = bytes <= max_parts * kLlThreshold;
  const int64_t step = p.ll ? s.ll_step.count() : s.chunk.count();
  const int64_t min_part = std::max<int64_t>(1, s.across_nodes ? step / 2 : step / 8);
  const int64_t max_part = s.across_nodes ? step : step * 32;
  int parts = bytes <= 0 ? 1 : static_cast<int>(std::min<int64_t>(min_parts, div_up(bytes, min_part)));
  int64_t part = std::max(min_part, div_up(std::max<int64_t>(bytes, 0), parts));
  while (part > max_part && parts <= max_parts / 2) {
    parts *= 2;
    part = div_up(bytes, parts);
  }
  p.parts_per_peer = parts;
  p.part = Bytes(div_up(std::max<int64_t>(bytes, 0), parts));
  p.last_step = p.ll ? Bytes(0) : std::min(p.part, s.chunk);

  const int bits = std::countr_zero(static_cast<unsigned>(s.channels));  // channels: a power of two
  std::vector<double> load(static_cast<size_t>(s.channels), 0.0);
  std::vector<std::set<int>> groups(static_cast<size_t>(s.channels));
  const double per_part = static_cast<double>(bytes) / parts;
  for (int k : rounds) {
    const int base = reverse_low_bits(k, bits);
    for (int i = 0; i < parts; ++i) {
      const auto c = static_cast<size_t>((base + i) & (s.channels - 1));
      load[c] += per_part;
      groups[c].insert(k / kRoundsPerBatch);
    }
  }
  p.busiest_channel_bytes = Bytes(static_cast<int64_t>(*std::max_element(load.begin(), load.end()) + 0.5));
  for (const auto& g : groups) p.most_batches = std::max(p.most_batches, static_cast<int>(g.size()));
  return p;
}

}  // namespace anatomy::coll
