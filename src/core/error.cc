#include "core/error.h"

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

namespace anatomy::core {
namespace {

// An error is one line however odd the text it quotes: a key or value a
// user wrote with a line break or other control character in it (a YAML
// double-quoted "a\nb", found by a mutation fuzzer) is shown escaped.
void append_one_line(std::string& out, const std::string& text) {
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (u < 0x20 || u == 0x7f) out += fmt::format("\\x{:02x}", u);
    else out += c;
  }
}

std::string render(const SourceLocation& w, const std::string& message) {
  std::string out;
  if (!w.file.empty()) {
    append_one_line(out, w.file);
    if (w.line > 0) out += fmt::format(":{}", w.line);
    out += ": ";
  }
  if (!w.field.empty()) {
    append_one_line(out, w.field);
    out += ": ";
  }
  append_one_line(out, message);
  return out;
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
