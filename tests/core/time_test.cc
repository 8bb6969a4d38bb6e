#include "core/time.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace anatomy::core {
namespace {

TEST(SimTime, IsIntegerPicoseconds) {
  EXPECT_EQ(SimTime::us(13).count_ps(), 13'000'000);
  EXPECT_EQ((SimTime::ns(1) + SimTime::ps(500)).count_ps(), 1500);
  // A million 1 ps steps add up to exactly 1 us: no drift.
  SimTime t;
  for (int i = 0; i < 1'000'000; ++i) t += SimTime::ps(1);
  EXPECT_EQ(t, SimTime::us(1));
}

TEST(SimTime, ParsesUnits) {
  EXPECT_EQ(parse_time("13us"), SimTime::us(13));
  EXPECT_EQ(parse_time("1.5 ms"), SimTime::us(1500));
  EXPECT_EQ(parse_time("15min"), SimTime::sec(900));
  EXPECT_EQ(parse_time("2h"), SimTime::sec(7200));
  EXPECT_EQ(parse_time("500ns"), SimTime::ns(500));
  EXPECT_EQ(parse_time("3d"), SimTime::sec(3 * 86400));
}

TEST(SimTime, RejectsBadText) {
  EXPECT_THROW(parse_time("13"), InputError);
  EXPECT_THROW(parse_time("-1s"), InputError);
  EXPECT_THROW(parse_time("1 fortnight"), InputError);
  EXPECT_THROW(parse_time("200d"), InputError);
}

TEST(SimTime, Formats) {
  EXPECT_EQ(format_time(SimTime::us(13)), "13us");
  EXPECT_EQ(format_time(SimTime::ns(13500)), "13.5us");
  EXPECT_EQ(format_time(SimTime::sec(900)), "15min");
  EXPECT_EQ(format_time(SimTime::ps(250)), "250ps");
  EXPECT_EQ(format_time(SimTime::zero()), "0s");
}

TEST(InputError, NamesFileLineAndField) {
  InputError e({"scenario.yaml", 14, "parallelism.tp"}, "3 does not divide 64 attention heads");
  EXPECT_EQ(std::string(e.what()), "scenario.yaml:14: parallelism.tp: 3 does not divide 64 attention heads");
  EXPECT_EQ(std::string(InputError("plain").what()), "plain");
  EXPECT_EQ(std::string(e.with_field("x").what()), "scenario.yaml:14: x: 3 does not divide 64 attention heads");
}

}  // namespace
}  // namespace anatomy::core
