#pragma once
// Failure arrivals: each failure class is a Poisson process over the whole
// job (its units x its rate), drawn from its own named seeded stream
// ("failures.<class name>"), so adding a class or changing one class's rate
// never moves another's arrivals.

#include <vector>

#include "job/job_spec.h"

namespace anatomy::job {

struct FailureEvent {
  JobTime at;
  int cls = 0;        // index into FailureSpec::classes
  uint64_t unit = 0;  // which GPU / host / NIC / switch
};

struct Units {
  int64_t gpus = 0, hosts = 0, nics = 0, switches = 0;
  int64_t count(FailureClass::Per per) const;
};

// Failures a job may draw: past this the rates are refused (a rate in the
// wrong unit), so a run stays bounded in time and memory.
inline constexpr int64_t kMaxFailures = 1'000'000;

// Every failure in [0, duration), time-ordered (ties by class order).
// Throws InputError (field job.failures) when the rates expect more than
// kMaxFailures over the duration.
std::vector<FailureEvent> draw_failures(const FailureSpec& spec, const Units& units, JobTime duration,
                                        uint64_t seed);
// Expected interruptions per day from the classes' rates (1 / MTBI).
double failures_per_day(const FailureSpec& spec, const Units& units);

}  // namespace anatomy::job
