#include "core/quantity_text.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "core/error.h"

namespace anatomy::core::detail {

Quantity split_quantity(std::string_view text, std::string_view what) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
  };
  std::string_view s = trim(text);
  Quantity q;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  // from_chars rejects a leading '+', which people do write.
  if (begin != end && *begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, q.value);
  if (ec != std::errc() || ptr == begin) {
    throw InputError({"", 0, std::string(what)},
                     fmt::format("'{}' is not a number with a unit", std::string(text)));
  }
  if (!std::isfinite(q.value)) {
    throw InputError({"", 0, std::string(what)}, fmt::format("'{}' is not finite", std::string(text)));
  }
  q.unit = std::string(trim(std::string_view(ptr, static_cast<size_t>(end - ptr))));
  return q;
}

std::string format_number(double v) {
  std::string s = fmt::format("{:.4g}", v);
  if (s.find('e') != std::string::npos) s = fmt::format("{:.0f}", v);
  return s;
}

}  // namespace anatomy::core::detail
