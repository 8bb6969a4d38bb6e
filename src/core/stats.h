#pragma once
// Order statistics shared by the layers that summarize measurements (a
// calibration table's repeated timings, validation's errors).

#include <vector>

namespace anatomy::core {

// The median of at least one value; an even count takes the mean of the
// middle two.
double median(std::vector<double> values);

}  // namespace anatomy::core
