#include <gtest/gtest.h>

#include "report/scenario_page.h"
#include "workload/training.h"

namespace anatomy::report {
namespace {

// The plan line names a gather launch other than Megatron-LM's default, and
// only where there is one to launch: interleaved ZeRO-1/2 with overlapped
// gathers.
TEST(PlanText, SaysWhenInterleavedGathersWaitForTheirFirstForward) {
  workload::ParallelPlan p;
  p.pp = 2;
  p.dp = 4;
  p.virtual_stages = 2;
  p.zero_stage = 1;
  const std::string said = ", each chunk's parameter gather at its first forward";
  EXPECT_EQ(plan_text(p).find(said), std::string::npos);  // aligned: the default, said nowhere
  p.align_param_gather = false;
  EXPECT_NE(plan_text(p).find(said), std::string::npos) << plan_text(p);
  p.virtual_stages = 1;  // one chunk: nothing to align
  EXPECT_EQ(plan_text(p).find(said), std::string::npos);
  p.virtual_stages = 2;
  p.zero_stage = 3;  // ZeRO-3 gathers every step's parameters in the step
  EXPECT_EQ(plan_text(p).find(said), std::string::npos);
}

}  // namespace
}  // namespace anatomy::report
