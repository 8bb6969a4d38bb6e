#include "job/failures.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "core/rng.h"
#include "core/units.h"

namespace anatomy::job {

int64_t Units::count(FailureClass::Per per) const {
  switch (per) {
    case FailureClass::Per::kGpu: return gpus;
    case FailureClass::Per::kHost: return hosts;
    case FailureClass::Per::kNic: return nics;
    case FailureClass::Per::kSwitch: return switches;
    case FailureClass::Per::kJob: return 1;
  }
  return 0;
}

std::vector<FailureEvent> draw_failures(const FailureSpec& spec, const Units& units, JobTime duration,
                                        uint64_t seed) {
  // A rate written in the wrong unit (1e20 per day) would draw without
  // bound: the expected count is checked before any is drawn.
  const double expected = failures_per_day(spec, units) * duration.seconds() / 86400.0;
  if (expected > static_cast<double>(kMaxFailures))
    throw core::InputError({"", 0, "job.failures"},
                           fmt::format("the rates give {:.3g} failures over the job's {} (rate_per_day x units x "
                                       "duration); at most {} are simulated: check each rate_per_day and what it counts",
                                       expected, core::format_time(duration), kMaxFailures));
  const core::RngStreams streams(seed);
  std::vector<FailureEvent> out;
  for (size_t c = 0; c < spec.classes.size(); ++c) {
    const FailureClass& fc = spec.classes[c];
    const int64_t n = units.count(fc.per);
    const double per_second = fc.rate_per_unit_day * static_cast<double>(n) / 86400.0;
    if (per_second <= 0 || n <= 0) continue;
    core::Rng rng = streams.stream("failures." + fc.name);
    double t = 0;
    for (;;) {
      t += rng.exponential(per_second);
      if (t >= duration.seconds()) break;
      out.push_back(FailureEvent{JobTime::from_seconds(t), static_cast<int>(c), rng.uniform_index(static_cast<uint64_t>(n))});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const FailureEvent& a, const FailureEvent& b) {
    return a.at < b.at || (a.at == b.at && a.cls < b.cls);
  });
  return out;
}

double failures_per_day(const FailureSpec& spec, const Units& units) {
  double total = 0;
  for (const auto& fc : spec.classes) total += fc.rate_per_unit_day * static_cast<double>(units.count(fc.per));
  return total;
}

}  // namespace anatomy::job
