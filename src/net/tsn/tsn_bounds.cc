#include "net/tsn/tsn_bounds.h"

namespace anatomy::net::tsn {

using core::Bandwidth;
using core::Bytes;
using core::SimTime;
using core::transfer_time;

SimTime strict_priority_bound(Bandwidth rate, Bytes lower_max, int64_t frames_in_class, Bytes frame, SimTime latency) {
  return transfer_time(lower_max, rate) + transfer_time(frame * frames_in_class, rate) + latency;
}

SimTime cbs_bound(Bandwidth rate, Bytes lower_max, int64_t burst_frames, Bytes frame, Bandwidth idle_slope,
                  SimTime latency) {
  return transfer_time(lower_max, rate) + transfer_time(frame * (burst_frames - 1), idle_slope) +
         transfer_time(frame, rate) + latency;
}

SimTime tas_bound(Bandwidth rate, SimTime cycle, SimTime window, Bytes frame, SimTime latency) {
  return (cycle - window) + transfer_time(frame, rate) * 2 + latency;
}

}  // namespace anatomy::net::tsn
