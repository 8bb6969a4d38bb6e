#include "report/edge_trace.h"

#include <gtest/gtest.h>

namespace anatomy::report {
namespace {

using core::SimTime;

TEST(EdgeTrace, EachCyclePhaseIsASliceAndEachGapAnother) {
  // One cycle from 3600 s: collect 20 s, train 7 s, no validate, package
  // 5 s, rollout 10 s: four slices back to back (validate's 0 s is left
  // out), the rollout from 3632 s; one 5 s gap with 4 lines uncovered.
  job::edge::EdgeResult r;
  job::edge::CycleResult c;
  c.index = 1;
  c.version = 2;
  c.start = SimTime::sec(3600);
  c.collect = SimTime::sec(20);
  c.train = SimTime::sec(7);
  c.package = SimTime::sec(5);
  c.rollout = SimTime::sec(10);
  r.cycles.push_back(c);
  r.gaps.push_back({SimTime::sec(3632), SimTime::sec(3637), 4});
  const std::string t = edge_trace(r, "line");
  EXPECT_NE(t.find("\"name\": \"rollout\", \"ts\": 3632000000.000000, \"dur\": 10000000.000000, "
                   "\"args\": {\"cycle\": 1, \"version\": 2}"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("\"validate\""), std::string::npos);
  EXPECT_NE(t.find("\"name\": \"no valid model\", \"ts\": 3632000000.000000, \"dur\": 5000000.000000, "
                   "\"args\": {\"lines\": 4}"),
            std::string::npos);
}

}  // namespace
}  // namespace anatomy::report
