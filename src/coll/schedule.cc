#include "coll/schedule.h"

#include <algorithm>
#include <tuple>

namespace anatomy::coll {

Bytes Schedule::total_bytes() const {
  Bytes total;
  for (const auto& p : phases)
    for (const auto& s : p.sends) total += s.bytes * p.repeat;
  return total;
}

void Schedule::merge_sends() {
  for (auto& p : phases) {
    auto key = [](const Send& s) { return std::tie(s.src, s.dst, s.flow_hash); };
    std::sort(p.sends.begin(), p.sends.end(), [&](const Send& a, const Send& b) { return key(a) < key(b); });
    size_t out = 0;
    for (size_t i = 0; i < p.sends.size(); ++i) {
      if (out > 0 && key(p.sends[out - 1]) == key(p.sends[i])) {
        p.sends[out - 1].bytes += p.sends[i].bytes;
      } else {
        p.sends[out++] = p.sends[i];
      }
    }
    p.sends.resize(out);
  }
}

}  // namespace anatomy::coll

namespace anatomy::coll {

void Schedule::cap_bus_bandwidth(int ranks, double efficiency, Bandwidth cap) {
  if (cap.bps() <= 0 || ranks <= 0) return;
  for (auto& p : phases) {
    double wire = 0;
    for (const auto& s : p.sends) wire += s.bytes.as_double();
    const double payload_per_rank = wire * efficiency / ranks;
    p.min_duration = std::max(p.min_duration, SimTime::from_seconds(payload_per_rank / cap.bytes_per_second()));
  }
}

}  // namespace anatomy::coll
