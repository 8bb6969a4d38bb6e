#include "core/units.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace anatomy::core {
namespace {

TEST(Bytes, ParsesDecimalAndBinarySuffixes) {
  EXPECT_EQ(parse_bytes("140GB").count(), 140'000'000'000);
  EXPECT_EQ(parse_bytes("8GiB").count(), int64_t{8} << 30);
  EXPECT_EQ(parse_bytes("1.5MB").count(), 1'500'000);
  EXPECT_EQ(parse_bytes("512").count(), 512);
  EXPECT_EQ(parse_bytes("64 KiB").count(), 65536);
  // nccl-tests reads -e 8G as 8 GiB.
  EXPECT_EQ(parse_bytes("8G").count(), int64_t{8} << 30);
  EXPECT_EQ(parse_bytes("1M").count(), 1 << 20);
}

TEST(Bytes, RejectsNegativeAndUnknownUnits) {
  EXPECT_THROW(parse_bytes("-5"), InputError);
  EXPECT_THROW(parse_bytes("5 parsecs"), InputError);
  EXPECT_THROW(parse_bytes("GB"), InputError);
  try {
    parse_bytes("-5", "--bytes");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "--bytes: '-5' must not be negative");
  }
}

TEST(Bytes, FormatsBinaryWhenExactElseDecimal) {
  EXPECT_EQ(format_bytes(Bytes::GiB(8)), "8GiB");
  EXPECT_EQ(format_bytes(Bytes(140'000'000'000)), "140GB");
  EXPECT_EQ(format_bytes(Bytes(1'500'000)), "1.5MB");
  EXPECT_EQ(format_bytes(Bytes(512)), "512B");
  EXPECT_EQ(format_bytes(Bytes::MiB(1)), "1MiB");
}

TEST(Count, FormatsWithADecimalSuffix) {
  EXPECT_EQ(format_count(70.6e9), "70.6B");
  EXPECT_EQ(format_count(405.85e9), "405.9B");
  EXPECT_EQ(format_count(8.03e9), "8.03B");
  EXPECT_EQ(format_count(2'090'000), "2.09M");
  EXPECT_EQ(format_count(999.6e6), "999.6M");
  EXPECT_EQ(format_count(999.97e6), "1.00B");
  EXPECT_EQ(format_count(950), "950");
}

TEST(Bandwidth, ParsesBitAndByteRates) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("800Gbps").bps(), 800e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("800Gb/s").bps(), 800e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("900GB/s").bps(), 7200e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("50GBps").bytes_per_second(), 50e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1.6Tbps").bps(), 1.6e12);
}

TEST(Bandwidth, RejectsZeroNegativeAndMissingUnit) {
  EXPECT_THROW(parse_bandwidth("0Gbps"), InputError);
  EXPECT_THROW(parse_bandwidth("-400Gbps"), InputError);
  EXPECT_THROW(parse_bandwidth("400"), InputError);
}

TEST(Bandwidth, FormatsBitsAndBytes) {
  EXPECT_EQ(format_bandwidth(Bandwidth::gbps(800)), "800Gbps");
  EXPECT_EQ(format_bandwidth(Bandwidth::gbps(1600)), "1.6Tbps");
  EXPECT_EQ(format_bytes_rate(Bandwidth::gigabytes_per_s(900)), "900GB/s");
}

TEST(TransferTime, IsSizeOverRateRoundedUp) {
  // 1 GB at 8 Gb/s (1 GB/s) is exactly one second.
  EXPECT_EQ(transfer_time(Bytes(1'000'000'000), Bandwidth::gbps(8)), SimTime::sec(1));
  // 1 byte at 3 bit/s is 8/3 s = 2.666...e12 ps, rounded up.
  EXPECT_EQ(transfer_time(Bytes(1), Bandwidth::bits_per_s(3)).count_ps(), 2'666'666'666'667);
  EXPECT_EQ(transfer_time(Bytes(0), Bandwidth::gbps(1)), SimTime::zero());
}

TEST(TransferTime, RateOfInvertsIt) {
  auto r = rate_of(Bytes(1'000'000), SimTime::us(20));
  EXPECT_DOUBLE_EQ(r.bytes_per_second(), 50e9);
}

}  // namespace
}  // namespace anatomy::core
