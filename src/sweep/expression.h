#pragma once
// A small arithmetic expression over a sweep point's fields, for a sweep's
// constraints, derived fields and metrics:
//
//   cluster.gpus % (parallelism.tp * parallelism.pp) == 0
//   cluster.gpus / (parallelism.tp * parallelism.pp)          # derived dp
//   result.gpus * result.iteration_s / 3600 * 2.5             # dollars per iteration
//   cluster.fabric.nic_speed >= 800Gbps ? 1.3 : 1.0
//
// Values are numbers (doubles) or text. A name is a dotted field path,
// looked up by the caller; a field written as a quantity ("800Gbps",
// "80GB", "15min") reads as its SI number (bit/s, bytes, seconds), and so
// does a quantity literal. Operators, loosest first: ?:, ||, &&, == != < <=
// > >=, + -, * / %, unary - and !; functions min, max, abs, floor, ceil,
// round, sqrt, log2, log10. Truth is a number != 0; comparisons give 1 or 0.
// Text compares only with == and != ('rail' == "rail").
//
// Parse errors and evaluation errors (an unknown name, a division by zero)
// are InputErrors at the location the expression was written.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"

namespace anatomy::sweep {

struct ExprValue {
  bool is_text = false;
  double number = 0;
  std::string text;
  static ExprValue of(double v) { return {false, v, {}}; }
  static ExprValue of_text(std::string t) { return {true, 0, std::move(t)}; }
};

// A scalar as a YAML file writes it: a number, true/false, a quantity
// ("800Gbps" -> 8e11), else text.
ExprValue scalar_value(const std::string& yaml_scalar);

// The value of a name, or nullopt when it has none.
using Lookup = std::function<std::optional<ExprValue>(const std::string& name)>;

class Expression {
 public:
  struct Node;
  // Throws InputError at `where` when `text` is not an expression.
  static Expression parse(const std::string& text, core::SourceLocation where);
  // Throws InputError at where() for an unknown name, a division by zero,
  // or text where a number is needed.
  ExprValue eval(const Lookup& lookup) const;
  double number(const Lookup& lookup) const;
  const std::string& text() const { return text_; }
  const core::SourceLocation& where() const { return where_; }
  // Every name it reads, in order of first appearance.
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::string text_;
  core::SourceLocation where_;
  std::shared_ptr<const Node> root_;
  std::vector<std::string> names_;
};

}  // namespace anatomy::sweep
