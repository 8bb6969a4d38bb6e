#include "job/young_daly.h"

#include <cmath>

namespace anatomy::job {

core::JobTime young_interval(core::JobTime delta, core::JobTime mtbi) {
  return core::JobTime::from_seconds(std::sqrt(2.0 * delta.seconds() * mtbi.seconds()));
}

core::JobTime daly_interval(core::JobTime delta, core::JobTime mtbi) {
  const double d = delta.seconds(), m = mtbi.seconds();
  if (d >= 2 * m) return mtbi;
  const double x = d / (2 * m);
  return core::JobTime::from_seconds(std::sqrt(2 * d * m) * (1 + std::sqrt(x) / 3 + x / 9) - d);
}

double expected_waste(core::JobTime tau, core::JobTime delta, core::JobTime mtbi, core::JobTime restart) {
  return delta.seconds() / tau.seconds() + (tau.seconds() / 2 + restart.seconds()) / mtbi.seconds();
}

}  // namespace anatomy::job
