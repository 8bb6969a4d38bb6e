#include "sweep/expression.h"

#include <gtest/gtest.h>

#include <map>

namespace anatomy::sweep {
namespace {

double eval(const std::string& text, const std::map<std::string, std::string>& fields = {}) {
  const Expression e = Expression::parse(text, {"s.yaml", 3, "derived.x"});
  return e.number([&](const std::string& name) -> std::optional<ExprValue> {
    const auto it = fields.find(name);
    if (it == fields.end()) return std::nullopt;
    return scalar_value(it->second);
  });
}

TEST(SweepExpression, ArithmeticFollowsTheUsualPrecedence) {
  // 2 + 3 x 4 = 14; (2 + 3) x 4 = 20; 17 % 5 = 2; -2 x 3 = -6.
  EXPECT_EQ(eval("2 + 3 * 4"), 14);
  EXPECT_EQ(eval("(2 + 3) * 4"), 20);
  EXPECT_EQ(eval("17 % 5"), 2);
  EXPECT_EQ(eval("-2 * 3"), -6);
}

TEST(SweepExpression, DerivedDataParallelSizeFromTheFields) {
  // 1024 GPUs / (TP 4 x PP 8) = 32.
  EXPECT_EQ(eval("cluster.gpus / (parallelism.tp * parallelism.pp)",
                 {{"cluster.gpus", "1024"}, {"parallelism.tp", "4"}, {"parallelism.pp", "8"}}),
            32);
}

TEST(SweepExpression, QuantitiesReadAsTheirSiNumbers) {
  // 800Gbps is 8e11 bit/s, in a field and as a literal; 15min is 900 s.
  EXPECT_EQ(eval("cluster.fabric.nic_speed >= 800Gbps", {{"cluster.fabric.nic_speed", "800Gbps"}}), 1);
  EXPECT_EQ(eval("cluster.fabric.nic_speed / 2", {{"cluster.fabric.nic_speed", "800Gbps"}}), 4e11);
  EXPECT_EQ(eval("15min"), 900);
  EXPECT_EQ(eval("800Gbps/2"), 4e11);  // '/' after a unit divides unless it is the unit's "/s"
  EXPECT_EQ(eval("100Gb/s"), 1e11);
}

TEST(SweepExpression, ComparisonsLogicTernaryAndText) {
  EXPECT_EQ(eval("3 < 4 && 4 <= 4 && !(5 > 6) || 0"), 1);
  EXPECT_EQ(eval("x == 'rail' ? 10 : 20", {{"x", "rail"}}), 10);
  EXPECT_EQ(eval("x != \"rail\" ? 10 : 20", {{"x", "rail"}}), 20);
  EXPECT_EQ(eval("min(3, 7) + max(3, 7) + floor(2.5) + ceil(2.5) + log2(8)"), 3 + 7 + 2 + 3 + 3);
}

TEST(SweepExpression, ErrorsNameTheFileLineAndFieldWhereItWasWritten) {
  try {
    eval("2 * (3 + ");
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().file, "s.yaml");
    EXPECT_EQ(e.where().line, 3);
    EXPECT_EQ(e.where().field, "derived.x");
  }
  EXPECT_THROW(eval("nope + 1"), core::InputError);      // no such name
  EXPECT_THROW(eval("1 / 0"), core::InputError);         // division by zero
  EXPECT_THROW(eval("x * 2", {{"x", "rail"}}), core::InputError);  // text is not a number
  EXPECT_THROW(eval("frobnicate(2)"), core::InputError);
}

}  // namespace
}  // namespace anatomy::sweep
