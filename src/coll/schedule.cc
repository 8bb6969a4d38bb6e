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
