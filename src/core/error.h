#pragma once
// InputError: bad user input, with where it came from.
//
// anatomy keeps three kinds of error apart: bad input (this type, caught at
// the edge and turned into one line and exit code 2), broken invariants
// (assert / ANATOMY_CHECK), and simulated failures (model events, never
// exceptions). The location names the file, line and field when the value
// came from a file, or the command-line flag when it came from argv:
//
//   throw InputError({"scenario.yaml", 14, "parallelism.tp"},
//                    "3 does not divide 64 attention heads");
//   // what(): "scenario.yaml:14: parallelism.tp: 3 does not divide 64 attention heads"

#include <stdexcept>
#include <string>

namespace anatomy::core {

struct SourceLocation {
  std::string file;   // empty when the value did not come from a file
  int line = 0;       // 1-based; 0 when unknown
  std::string field;  // dotted field path or flag name, e.g. "network.links[3].bandwidth" or "--gpus"
};

class InputError : public std::runtime_error {
 public:
  InputError(SourceLocation where, const std::string& message);
  explicit InputError(const std::string& message) : InputError(SourceLocation{}, message) {}

  const SourceLocation& where() const { return where_; }
  const std::string& message() const { return message_; }
  // The same error re-attributed to a field (used when a parser deep down
  // does not know which field it is parsing).
  InputError with_field(const std::string& field) const;
  InputError with_location(const std::string& file, int line) const;

 private:
  SourceLocation where_;
  std::string message_;
};

[[noreturn]] void check_failed(const char* expr, const char* file, int line, const std::string& msg);

}  // namespace anatomy::core

// Invariant check that stays on in release builds: a failure is a bug in
// anatomy, not in the user's input, and aborts with the expression.
#define ANATOMY_CHECK(cond, msg)                                                \
  do {                                                                          \
    if (!(cond)) ::anatomy::core::check_failed(#cond, __FILE__, __LINE__, msg); \
  } while (0)
