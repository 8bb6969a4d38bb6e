#include "core/error.h"

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

namespace anatomy::core {
namespace {

std::string render(const SourceLocation& w, const std::string& message) {
  std::string out;
  if (!w.file.empty()) {
    out += w.file;
    if (w.line > 0) out += fmt::format(":{}", w.line);
    out += ": ";
  }
  if (!w.field.empty()) out += w.field + ": ";
  return out + message;
}

}  // namespace

InputError::InputError(SourceLocation where, const std::string& message)
    : std::runtime_error(render(where, message)), where_(std::move(where)), message_(message) {}

InputError InputError::with_field(const std::string& field) const {
  SourceLocation w = where_;
  w.field = field;
  return InputError(w, message_);
}

InputError InputError::with_location(const std::string& file, int line) const {
  SourceLocation w = where_;
  w.file = file;
  w.line = line;
  return InputError(w, message_);
}

void check_failed(const char* expr, const char* file, int line, const std::string& msg) {
  std::fprintf(stderr, "anatomy: internal error at %s:%d: check '%s' failed: %s\n", file, line,
               expr, msg.c_str());
  std::abort();
}

}  // namespace anatomy::core
