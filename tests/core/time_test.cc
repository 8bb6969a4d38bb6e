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

// A job's clock is the same picoseconds in 128 bits: a SimTime widens into
// it exactly, and it spans years where SimTime stops at 106 days.
TEST(JobTime, SpansYearsAndWidensSimTimeExactly) {
  EXPECT_EQ(JobTime(SimTime::us(13)).count_ps(), 13'000'000);
  EXPECT_EQ(JobTime(SimTime::max()).to_sim(), SimTime::max());
  // 2 years = 730 days = 63,072,000 s = 6.3072e19 ps, past int64's 9.2e18.
  const JobTime two = parse_long_time("2y");
  EXPECT_EQ(two, JobTime::sec(730 * 86400));
  EXPECT_GT(two.count_ps(), static_cast<int128_ps>(SimTime::max().count_ps()));
  EXPECT_EQ(parse_long_time("54d"), JobTime(parse_time("54d")));
  EXPECT_EQ(format_time(two), "730d");
  EXPECT_THROW(two.to_sim(), std::overflow_error);
  EXPECT_EQ(parse_long_time("100 years"), JobTime::sec(int64_t{100} * 365 * 86400));
  EXPECT_THROW(parse_long_time("101y"), InputError);  // past kMaxJobYears
  EXPECT_THROW(parse_time("1y"), InputError);          // past SimTime's 106 days
  EXPECT_EQ(JobTime::from_seconds(1.5), JobTime(SimTime::from_seconds(1.5)));
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
