#pragma once
// Shared lexer for "<number><unit>" quantities ("800Gbps", "1.5 ms").
// Internal to core: users call parse_time / parse_bytes / parse_bandwidth.

#include <string>
#include <string_view>

namespace anatomy::core::detail {

struct Quantity {
  double value = 0.0;
  std::string unit;  // the suffix as written, whitespace trimmed
};

// Splits text into a finite decimal number and its unit suffix.
// Throws InputError naming `what` if there is no number or it is not finite.
Quantity split_quantity(std::string_view text, std::string_view what);

// "%.4g" without a trailing ".0" and without exponent for ordinary magnitudes.
std::string format_number(double v);

}  // namespace anatomy::core::detail
