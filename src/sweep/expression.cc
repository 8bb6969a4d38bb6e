#include "sweep/expression.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "core/time.h"
#include "core/units.h"

namespace anatomy::sweep {

// A tree of nodes: a literal, a name, a unary or binary operator, the
// ternary, or a function call; built by recursive descent, one function
// per precedence level.
struct Expression::Node {
  enum Kind { kLiteral, kName, kUnary, kBinary, kTernary, kCall } kind = kLiteral;
  ExprValue value;   // kLiteral
  std::string name;  // kName, kCall; the operator for kUnary / kBinary
  std::vector<std::shared_ptr<const Node>> args;
};

namespace {

using NodePtr = std::shared_ptr<const Expression::Node>;

std::optional<double> quantity_number(const std::string& t) {
  try {
    return core::parse_bandwidth(t).bps();
  } catch (const core::InputError&) {}
  try {
    return core::parse_bytes(t).as_double();
  } catch (const core::InputError&) {}
  try {
    return core::parse_time(t).seconds();
  } catch (const core::InputError&) {}
  return std::nullopt;
}

class Parser {
 public:
  Parser(const std::string& text, const core::SourceLocation& where, std::vector<std::string>& names)
      : s_(text), where_(where), names_(names) {}

  NodePtr parse() {
    NodePtr n = ternary();
    skip();
    if (i_ < s_.size()) fail(fmt::format("unexpected '{}'", s_.substr(i_, 1)));
    return n;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw core::InputError(where_, fmt::format("{} at column {} of '{}'", why, i_ + 1, s_));
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(const char* op) {
    skip();
    const std::string o = op;
    if (s_.compare(i_, o.size(), o) != 0) return false;
    // "<" must not eat the "<" of "<=", "=" alone is not an operator.
    if ((o == "<" || o == ">" || o == "!") && i_ + 1 < s_.size() && s_[i_ + 1] == '=') return false;
    i_ += o.size();
    return true;
  }
  static NodePtr make(Expression::Node::Kind k, std::string name, std::vector<NodePtr> args) {
    auto n = std::make_shared<Expression::Node>();
    n->kind = k;
    n->name = std::move(name);
    n->args = std::move(args);
    return n;
  }

  NodePtr ternary() {
    NodePtr c = binary(0);
    if (!eat("?")) return c;
    NodePtr a = ternary();
    if (!eat(":")) fail("expected ':'");
    NodePtr b = ternary();
    return make(Expression::Node::kTernary, "?:", {c, a, b});
  }

  // Precedence levels, loosest first.
  NodePtr binary(int level) {
    static const std::vector<std::vector<const char*>> kLevels = {
        {"||"}, {"&&"}, {"==", "!=", "<=", ">=", "<", ">"}, {"+", "-"}, {"*", "/", "%"}};
    if (level == static_cast<int>(kLevels.size())) return unary();
    NodePtr lhs = binary(level + 1);
    for (;;) {
      const char* found = nullptr;
      for (const char* op : kLevels[level])
        if (eat(op)) {
          found = op;
          break;
        }
      if (!found) return lhs;
      lhs = make(Expression::Node::kBinary, found, {lhs, binary(level + 1)});
    }
  }

  NodePtr unary() {
    if (eat("-")) return make(Expression::Node::kUnary, "-", {unary()});
    if (eat("!")) return make(Expression::Node::kUnary, "!", {unary()});
    return primary();
  }

  NodePtr primary() {
    skip();
    if (i_ >= s_.size()) fail("expression ends early");
    const char c = s_[i_];
    if (eat("(")) {
      NodePtr n = ternary();
      if (!eat(")")) fail("expected ')'");
      return n;
    }
    if (c == '\'' || c == '"') {
      const size_t end = s_.find(c, i_ + 1);
      if (end == std::string::npos) fail("text without its closing quote");
      auto n = std::make_shared<Expression::Node>();
      n->value = ExprValue::of_text(s_.substr(i_ + 1, end - i_ - 1));
      i_ = end + 1;
      return n;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      const size_t start = i_;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.' ||
                                s_[i_] == '/' || ((s_[i_] == '+' || s_[i_] == '-') && (s_[i_ - 1] == 'e' || s_[i_ - 1] == 'E'))))
        ++i_;
      std::string lit = s_.substr(start, i_ - start);
      // "800Gbps/2": a '/' that is not part of a unit ("Gb/s") divides.
      if (const size_t slash = lit.find('/'); slash != std::string::npos && lit.compare(slash, 2, "/s") != 0) {
        i_ = start + slash;
        lit.resize(slash);
      }
      char* end = nullptr;
      const double v = std::strtod(lit.c_str(), &end);
      auto n = std::make_shared<Expression::Node>();
      if (end && *end == '\0') {
        n->value = ExprValue::of(v);
      } else if (const auto q = quantity_number(lit)) {
        n->value = ExprValue::of(*q);
      } else {
        i_ = start;
        fail(fmt::format("'{}' is neither a number nor a quantity", lit));
      }
      return n;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const size_t start = i_;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == '.'))
        ++i_;
      const std::string name = s_.substr(start, i_ - start);
      if (name == "true" || name == "false") {
        auto n = std::make_shared<Expression::Node>();
        n->value = ExprValue::of(name == "true" ? 1 : 0);
        return n;
      }
      if (eat("(")) {
        static const std::vector<std::string> kFunctions = {"min", "max", "abs", "floor", "ceil",
                                                            "round", "sqrt", "log2", "log10"};
        if (std::find(kFunctions.begin(), kFunctions.end(), name) == kFunctions.end())
          fail(fmt::format("unknown function '{}' (known: min, max, abs, floor, ceil, round, sqrt, log2, log10)", name));
        std::vector<NodePtr> args;
        if (!eat(")")) {
          do args.push_back(ternary());
          while (eat(","));
          if (!eat(")")) fail("expected ')' or ','");
        }
        const size_t want = name == "min" || name == "max" ? 2 : 1;
        if (args.size() != want) fail(fmt::format("{}() takes {} argument{}", name, want, want == 1 ? "" : "s"));
        return make(Expression::Node::kCall, name, std::move(args));
      }
      if (std::find(names_.begin(), names_.end(), name) == names_.end()) names_.push_back(name);
      return make(Expression::Node::kName, name, {});
    }
    fail(fmt::format("unexpected '{}'", std::string(1, c)));
  }

  const std::string& s_;
  const core::SourceLocation& where_;
  std::vector<std::string>& names_;
  size_t i_ = 0;
};

struct Evaluator {
  const Lookup& lookup;
  const Expression& e;

  [[noreturn]] void fail(const std::string& why) const {
    throw core::InputError(e.where(), fmt::format("{} in '{}'", why, e.text()));
  }
  double num(const Expression::Node& n) const {
    const ExprValue v = eval(n);
    if (v.is_text) fail(fmt::format("'{}' is text where a number is needed", v.text));
    return v.number;
  }
  ExprValue eval(const Expression::Node& n) const {
    using K = Expression::Node;
    switch (n.kind) {
      case K::kLiteral:
        return n.value;
      case K::kName: {
        if (auto v = lookup(n.name)) return *v;
        fail(fmt::format("'{}' has no value here (not an axis, a derived field, or a field the base scenario writes)",
                         n.name));
      }
      case K::kUnary:
        return ExprValue::of(n.name == "-" ? -num(*n.args[0]) : (num(*n.args[0]) == 0 ? 1 : 0));
      case K::kTernary:
        return num(*n.args[0]) != 0 ? eval(*n.args[1]) : eval(*n.args[2]);
      case K::kCall: {
        const double a = num(*n.args[0]);
        if (n.name == "min") return ExprValue::of(std::min(a, num(*n.args[1])));
        if (n.name == "max") return ExprValue::of(std::max(a, num(*n.args[1])));
        if (n.name == "abs") return ExprValue::of(std::fabs(a));
        if (n.name == "floor") return ExprValue::of(std::floor(a));
        if (n.name == "ceil") return ExprValue::of(std::ceil(a));
        if (n.name == "round") return ExprValue::of(std::round(a));
        if (a < 0 || ((n.name == "log2" || n.name == "log10") && a == 0))
          fail(fmt::format("{}() of {}", n.name, fmt::format("{:g}", a)));
        if (n.name == "sqrt") return ExprValue::of(std::sqrt(a));
        if (n.name == "log2") return ExprValue::of(std::log2(a));
        return ExprValue::of(std::log10(a));
      }
      case K::kBinary:
        break;
    }
    const std::string& op = n.name;
    if (op == "&&") return ExprValue::of(num(*n.args[0]) != 0 && num(*n.args[1]) != 0);
    if (op == "||") return ExprValue::of(num(*n.args[0]) != 0 || num(*n.args[1]) != 0);
    const ExprValue a = eval(*n.args[0]), b = eval(*n.args[1]);
    if (op == "==" || op == "!=") {
      bool eq;
      if (a.is_text != b.is_text) eq = false;
      else eq = a.is_text ? a.text == b.text : a.number == b.number;
      return ExprValue::of((op == "==") == eq);
    }
    if (a.is_text || b.is_text)
      fail(fmt::format("'{}' is text where a number is needed", a.is_text ? a.text : b.text));
    const double x = a.number, y = b.number;
    if (op == "<") return ExprValue::of(x < y);
    if (op == "<=") return ExprValue::of(x <= y);
    if (op == ">") return ExprValue::of(x > y);
    if (op == ">=") return ExprValue::of(x >= y);
    if (op == "+") return ExprValue::of(x + y);
    if (op == "-") return ExprValue::of(x - y);
    if (op == "*") return ExprValue::of(x * y);
    if (y == 0) fail("division by zero");
    if (op == "/") return ExprValue::of(x / y);
    return ExprValue::of(std::fmod(x, y));
  }
};

}  // namespace

ExprValue scalar_value(const std::string& t) {
  if (t == "true") return ExprValue::of(1);
  if (t == "false") return ExprValue::of(0);
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (!t.empty() && end && *end == '\0') return ExprValue::of(v);
  if (!t.empty() && (std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '.'))
    if (const auto q = quantity_number(t)) return ExprValue::of(*q);
  return ExprValue::of_text(t);
}

Expression Expression::parse(const std::string& text, core::SourceLocation where) {
  Expression e;
  e.text_ = text;
  e.where_ = std::move(where);
  e.root_ = Parser(e.text_, e.where_, e.names_).parse();
  return e;
}

ExprValue Expression::eval(const Lookup& lookup) const { return Evaluator{lookup, *this}.eval(*root_); }

double Expression::number(const Lookup& lookup) const {
  const ExprValue v = eval(lookup);
  if (v.is_text) throw core::InputError(where_, fmt::format("'{}' gives text ('{}'), not a number", text_, v.text));
  return v.number;
}

}  // namespace anatomy::sweep
