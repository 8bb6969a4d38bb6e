#include "job/young_daly.h"

#include <cmath>

namespace anatomy::job {

core::SimTime young_interval(core::SimTime delta, core::SimTime mtbi) {
  return core::SimTime::from_seconds(std::sqrt(2.0 * delta.seconds() * mtbi.seconds()));
}

core::SimTime daly_interval(core::SimTime delta, core::SimTime mtbi) {
  const double d = delta.seconds(), m = mtbi.seconds();
  if (d >= 2 * m) return mtbi;
  const double x = d / (2 * m);
  return core::SimTime::from_seconds(std::sqrt(2 * d * m) * (1 + std::sqrt(x) / 3 + x / 9) - d);
}

double expected_waste(core::SimTime tau, core::SimTime delta, core::SimTime mtbi, core::SimTime restart) {
  return delta.seconds() / tau.seconds() + (tau.seconds() / 2 + restart.seconds()) / mtbi.seconds();
}

}  // namespace anatomy::job
