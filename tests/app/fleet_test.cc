// The fleet use case end to end on the shipped scenarios: the figures the
// issue asks for are there, and the same scenario (seed, trace) gives
// byte-identical output.
#include "app/fleet.h"

#include <gtest/gtest.h>

#include "app/data_dir.h"
#include "report/fleet_report.h"
#include "scenario/scenario.h"

namespace anatomy::app {
namespace {

std::string shipped(const char* name) { return std::string(ANATOMY_SOURCE_DIR) + "/scenarios/cluster/" + name; }

TEST(FleetRun, SameSeedAndTraceGiveByteIdenticalOutput) {
  const scenario::Scenario s = scenario::load_scenario(shipped("trace-replay.yaml"));
  const FleetRun a = run_fleet(s), b = run_fleet(s);
  EXPECT_EQ(report::fleet_json(s, a.result, a.topology).dump(), report::fleet_json(s, b.result, b.topology).dump());
  EXPECT_EQ(report::fleet_text(s, a.result, a.topology), report::fleet_text(s, b.result, b.topology));
  EXPECT_EQ(report::fleet_jobs_csv(a.result), report::fleet_jobs_csv(b.result));
}

TEST(FleetRun, TheTraceReplayReportsItsRejectedRowsAndRunsTheRest) {
  const scenario::Scenario s = scenario::load_scenario(shipped("trace-replay.yaml"));
  const FleetRun r = run_fleet(s);
  // traces/philly-sample.json: 18 jobs, two malformed (no attempt; an
  // attempt that never ended), 16 replayed.
  EXPECT_EQ(r.result.stream.rows, 18);
  EXPECT_EQ(r.result.stream.rejected, 2);
  ASSERT_EQ(r.result.stream.errors.size(), 2u);
  EXPECT_NE(r.result.stream.errors[0].find("philly-sample.json:8: attempts:"), std::string::npos);
  EXPECT_NE(r.result.stream.errors[1].find("philly-sample.json:14: attempts[0].end_time:"), std::string::npos);
  EXPECT_EQ(r.result.jobs.size(), 16u);
  const auto j = report::fleet_json(s, r.result, r.topology);
  ASSERT_TRUE(j.contains("jobs"));
  for (const auto& job : j["jobs"])
    for (const char* key : {"id", "queue_s", "jct_s", "slowdown", "shared_with"}) EXPECT_TRUE(job.contains(key)) << key;
  EXPECT_TRUE(j["cluster"].contains("gpu_utilization"));
  for (const char* cause : {"idle", "queued", "productive", "exposed communication", "contention", "checkpoint",
                            "failure recovery"})
    EXPECT_TRUE(j["cluster"]["gpu_hours"].contains(cause)) << cause;
  // The training class's step comes from the iteration model.
  ASSERT_EQ(r.result.profiles.size(), 1u);
  EXPECT_NE(r.result.profiles[0].find("llama3-8b TP8 PP1 DP8"), std::string::npos);
}

}  // namespace
}  // namespace anatomy::app
