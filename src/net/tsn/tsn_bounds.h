#pragma once
// The standards' analytic worst-case latency bounds for one TsnPort hop,
// against which the frame-level simulation (tsn_segment.h) is checked.
// C is the port's rate, L a frame's wire size (tsn_port.h), d the port's
// latency (propagation and forwarding); every bound includes d.
//
//   strict priority (802.1Q 8.6.8.1), the highest class, non-preemptive:
//     D = L_lower_max / C + n L / C + d
//     a lower-priority frame that has just started blocks once (no
//     preemption), then the n frames of the class ahead of and including
//     this one are sent back to back.
//   credit-based shaper (802.1Qav), the highest shaped class, a burst of n
//   frames of L arriving together with the credit at 0:
//     D = L_lower_max / C + (n - 1) L / idleSlope + L / C + d
//     the credit after k frames have been sent is idleSlope t - k L (it
//     rises at idleSlope whenever the class is not sending and falls by L
//     per frame in all: sendSlope x L/C = (idleSlope - C) L / C), so frame
//     k + 1 may start once t >= k L / idleSlope, plus at most one
//     lower-priority frame that has just started.
//   time-aware shaper (802.1Qbv), a class alone in a window of W every
//   cycle T, length-aware (a frame starts only if it ends in the window):
//     D = (T - W) + 2 L / C + d
//     a frame that arrives with less than L / C of the window left waits
//     for the next window (T - W plus what was left, under L / C) and is
//     then sent; nothing else can delay it, for no other class is open.
//
//   SimTime d = cbs_bound(rate, Bytes(1542), 4, Bytes(1042), idle, SimTime::ns(500));

#include <cstdint>

#include "core/time.h"
#include "core/units.h"

namespace anatomy::net::tsn {

// Frame sizes here are wire bytes (wire_bytes(payload)).
core::SimTime strict_priority_bound(core::Bandwidth rate, core::Bytes lower_max, int64_t frames_in_class,
                                    core::Bytes frame, core::SimTime latency);
core::SimTime cbs_bound(core::Bandwidth rate, core::Bytes lower_max, int64_t burst_frames, core::Bytes frame,
                        core::Bandwidth idle_slope, core::SimTime latency);
core::SimTime tas_bound(core::Bandwidth rate, core::SimTime cycle, core::SimTime window, core::Bytes frame,
                        core::SimTime latency);

}  // namespace anatomy::net::tsn
