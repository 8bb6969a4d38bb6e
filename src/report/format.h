#pragma once
// How the report layer writes numbers. Times are exact decimals of the
// integer picosecond clock (no floating point between the model and the
// file), so the same run always gives the same bytes and durations written
// out add up exactly to the iteration.
//
//   exact_seconds(SimTime::ps(1310257953365))  // "1.310257953365"
//   exact_micros(SimTime::ps(1310257953365))   // "1310257.953365"
//   human_time(SimTime::ms(12))                // "12.00 ms"

#include <string>

#include "core/time.h"
#include "core/units.h"

namespace anatomy::report {

// Seconds with 12 decimals (every picosecond), e.g. "0.000275935004".
std::string exact_seconds(core::SimTime t);
// Microseconds with 6 decimals (every picosecond), e.g. "275.935004".
std::string exact_micros(core::SimTime t);
std::string exact_micros(core::JobTime t);
// "1.310 s" from a second up, else "12.08 ms" (as `anatomy run` prints).
std::string human_time(core::SimTime t);
// "82.8 GB" (decimal gigabytes).
std::string human_gb(core::Bytes b);
// A percentage with one decimal: "58.8%".
std::string percent(double fraction);
// "+1.25", "-0.50"; what rounds to zero is "+0.00", never "-0.00".
std::string signed_fixed(double v, int decimals);
// Picoseconds as microseconds, for latency tables.
inline double us_from_ps(int64_t ps) { return static_cast<double>(ps) * 1e-6; }

}  // namespace anatomy::report
