// The progress line: what it says, that it fits, and that a disabled
// progress writes nothing at all.

#include "report/progress.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <chrono>
#include <cstdio>
#include <string>

namespace anatomy::report {
namespace {

std::string contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  char buf[512];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  return out;
}

TEST(ProgressLine, ShowsCountSimulatedWallAndEta) {
  // 12 of 45 in 4 s: 1/3 s each, 33 left -> ETA 11 s.
  ProgressState st{12, 45, "cases", core::SimTime::ms(3210), 4.0};
  const std::string line = progress_line(st, 100);
  EXPECT_NE(line.find("12/45 cases"), std::string::npos) << line;
  EXPECT_NE(line.find("simulated 3.21 s"), std::string::npos) << line;
  EXPECT_NE(line.find("wall 4.0 s"), std::string::npos) << line;
  EXPECT_NE(line.find("ETA 11.0 s"), std::string::npos) << line;
  EXPECT_EQ(line.rfind("[#", 0), 0u) << line;
}

TEST(ProgressLine, SweepsShowFailuresAndTheRate) {
  // 12 of 64 points in 4 s, 1 failed: 3.0 points/s; 52 left at 1/3 s each -> ETA 17.3 s.
  ProgressState st{12, 64, "points", {}, 4.0, true, 1};
  const std::string line = progress_line(st, 120);
  EXPECT_NE(line.find("12/64 points  1 failed  3.0/s  wall 4.0 s  ETA 17.3 s"), std::string::npos) << line;
  EXPECT_EQ(line.find("simulated"), std::string::npos) << line;
}

TEST(ProgressLine, EtaIsUnknownBeforeTheFirstUnit) {
  EXPECT_NE(progress_line({0, 1, "iteration", {}, 1.5}, 100).find("ETA ?"), std::string::npos);
}

TEST(ProgressLine, FitsTheWidth) {
  for (int w : {20, 40, 80, 100})
    EXPECT_LE(progress_line({3, 7, "sizes", core::SimTime::us(5), 75.0}, w).size(), size_t(w));
}

TEST(Progress, DisabledWritesNothing) {
  std::FILE* f = std::tmpfile();
  {
    Progress p(f, false, 3, "runs", std::chrono::milliseconds(0));
    p.advance(core::SimTime::ms(1));
    p.advance(core::SimTime::ms(1));
  }
  EXPECT_EQ(contents(f), "");
  std::fclose(f);
}

TEST(Progress, EnabledDrawsThenErasesItsLine) {
  std::FILE* f = std::tmpfile();
  {
    Progress p(f, true, 2, "runs", std::chrono::milliseconds(0));
    p.advance(core::SimTime::ms(1));
    // The ticker may have drawn "0/2" just before the advance, which then
    // waits out the 100 ms between draws; its next redraw (every 200 ms)
    // shows the advance.
    std::this_thread::sleep_for(std::chrono::milliseconds(450));
  }
  const std::string out = contents(f);
  EXPECT_NE(out.find("1/2 runs"), std::string::npos) << out;
  EXPECT_EQ(out.substr(out.size() - 4), "\r\033[K");
  std::fclose(f);
}

}  // namespace
}  // namespace anatomy::report
