#include "core/stats.h"

#include <algorithm>

#include "core/error.h"

namespace anatomy::core {

double median(std::vector<double> values) {
  ANATOMY_CHECK(!values.empty(), "the median of no values");
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace anatomy::core
