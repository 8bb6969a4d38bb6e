#include "net/tsn/tsn_port.h"

#include <algorithm>

#include <fmt/format.h>

namespace anatomy::net::tsn {

int64_t wire_bytes(int64_t payload) { return std::max(payload, kMinPayloadBytes) + kEthernetOverheadBytes; }

SimTime frame_time(int64_t payload, Bandwidth rate) { return core::transfer_time(Bytes(wire_bytes(payload)), rate); }

GateSchedule::GateSchedule(const std::vector<GateEntry>& entries) : entries_(entries) {
  SimTime at;
  for (const GateEntry& e : entries_) {
    starts_.push_back(at);
    at += e.duration;
  }
  cycle_ = at;
  if (cycle_ <= SimTime::zero()) entries_.clear(), starts_.clear();
}

size_t GateSchedule::entry_at(SimTime t, SimTime* into) const {
  const SimTime in_cycle = SimTime::ps(t.count_ps() % cycle_.count_ps());
  const size_t i = static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), in_cycle) - starts_.begin()) - 1;
  *into = in_cycle - starts_[i];
  return i;
}

bool GateSchedule::open(int cls, SimTime t) const {
  if (always_open()) return true;
  SimTime into;
  return (entries_[entry_at(t, &into)].open >> cls) & 1;
}

SimTime GateSchedule::open_for(int cls, SimTime t) const {
  if (always_open()) return SimTime::max();
  SimTime into;
  size_t i = entry_at(t, &into);
  if (!((entries_[i].open >> cls) & 1)) return SimTime::zero();
  SimTime left = entries_[i].duration - into;
  // Walk on through the entries that keep the gate open; a gate open in
  // every entry never closes.
  for (size_t n = 1; n < entries_.size(); ++n) {
    i = (i + 1) % entries_.size();
    if (!((entries_[i].open >> cls) & 1)) return left;
    left += entries_[i].duration;
  }
  return SimTime::max();
}

SimTime GateSchedule::next_change(SimTime t) const {
  if (always_open()) return SimTime::max();
  SimTime into;
  const size_t i = entry_at(t, &into);
  return t + (entries_[i].duration - into);
}

SimTime GateSchedule::longest_window(int cls) const {
  if (always_open()) return SimTime::max();
  SimTime best;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (!((entries_[i].open >> cls) & 1)) continue;
    best = std::max(best, open_for(cls, SimTime::zero() + starts_[i]));
    if (best == SimTime::max()) break;
  }
  return best;
}

std::string check_port(const TsnPortConfig& c) {
  if (c.rate.bps() <= 0) return "the port's rate must be positive";
  for (int k = 0; k < kClasses; ++k)
    if (c.classes[k].cbs_idle_slope.bps() < 0 || c.classes[k].cbs_idle_slope >= c.rate)
      return fmt::format("class {}'s idle slope must be below the port's rate", k);
  for (const GateEntry& g : c.gates)
    if (g.duration <= SimTime::zero()) return "every gate entry needs a positive duration";
  return "";
}

}  // namespace anatomy::net::tsn
