// The fleet: section: read knob by knob, and the inputs a fleet cannot
// run refused with file, line and field.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "scenario/scenario.h"

namespace anatomy::scenario {
namespace {

const char* const kFleet = R"(cluster: {system: dgx-h100, gpus: 64}
fleet:
  duration: 2d
  scheduler: {policy: priority, placement: spread, preemption: false, restart: 7min}
  classes:
    - {name: small, max_gpus: 8, step: 500ms, all_reduce: 1GiB}
    - {name: llm, min_gpus: 16, model: llama3-8b, tp: 8, checkpoint_interval: 30min, priority: 5}
  jobs:
    - {id: a, class: llm, gpus: 32, arrival: 1h, duration: 3h}
    - {gpus: 8, iterations: 100}
  generator: {jobs: 20, interarrival: 10min, sizes: "8:3,16:1"}
  failures: {per_gpu_day: 0.001, recovery: 15min}
)";

std::string fleet_error_of(const std::string& yaml) {
  try {
    parse_scenario(yaml, "fleet.yaml");
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string fleet_replace(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(FleetFields, EveryKnobIsRead) {
  const Scenario s = parse_scenario(kFleet, "fleet.yaml");
  ASSERT_TRUE(s.fleet);
  const fleet::FleetSpec& f = *s.fleet;
  EXPECT_EQ(f.duration, core::JobTime::sec(2 * 86400));
  EXPECT_EQ(f.scheduler.policy, fleet::Policy::kPriority);
  EXPECT_EQ(f.scheduler.placement.policy, job::PlacementPolicy::kSpread);
  EXPECT_FALSE(f.scheduler.preemption);
  EXPECT_EQ(f.scheduler.restart, core::JobTime::sec(420));
  ASSERT_EQ(f.classes.size(), 2u);
  EXPECT_EQ(f.classes[1].model, "llama3-8b");
  EXPECT_EQ(f.classes[1].tp, 8);
  EXPECT_EQ(f.classes[1].checkpoint_interval, core::JobTime::sec(1800));
  ASSERT_EQ(f.jobs.size(), 2u);
  EXPECT_EQ(f.jobs[0].id, "a");
  EXPECT_EQ(f.jobs[0].job_class, 1);
  EXPECT_EQ(f.jobs[0].priority, 5);  // its class's
  EXPECT_EQ(f.jobs[0].arrival, core::JobTime::sec(3600));
  EXPECT_EQ(f.jobs[1].id, "j1");      // derived
  EXPECT_EQ(f.jobs[1].job_class, 0);  // the first class
  EXPECT_EQ(f.jobs[1].iterations, 100);
  EXPECT_EQ(f.generator.jobs, 20);
  ASSERT_EQ(f.generator.sizes.size(), 2u);
  EXPECT_EQ(f.generator.sizes[1].first, 16);
  EXPECT_DOUBLE_EQ(f.failures.per_gpu_day, 0.001);
  // No model: needed at the top: every class names its own.
  EXPECT_TRUE(s.model.name.empty());
}

TEST(FleetFields, BadInputNamesFileLineAndField) {
  EXPECT_EQ(fleet_error_of(fleet_replace(kFleet, "class: llm, gpus: 32", "class: big, gpus: 32")),
            "fleet.yaml:9: fleet.jobs[0].class: no job class is named 'big' (fleet.classes)");
  EXPECT_EQ(fleet_error_of(fleet_replace(kFleet, "gpus: 32, arrival", "gpus: 128, arrival")),
            "fleet.yaml:9: fleet.jobs[0].gpus: 128 GPUs, but the cluster has 64 (cluster.gpus)");
  EXPECT_EQ(fleet_error_of(fleet_replace(kFleet, "{gpus: 8, iterations: 100}", "{gpus: 8}")),
            "fleet.yaml:10: fleet.jobs[1].duration: set a duration or iterations");
  EXPECT_EQ(fleet_error_of(fleet_replace(kFleet, "\"8:3,16:1\"", "\"8:3,16\"")),
            "fleet.yaml:11: fleet.generator.sizes: '16' is not GPUs:weight (e.g. \"8:4,64:2\")");
  EXPECT_NE(fleet_error_of(fleet_replace(kFleet, "policy: priority", "policy: lottery")).find("fleet.yaml:4: fleet.scheduler.policy"),
            std::string::npos);
  EXPECT_NE(fleet_error_of(fleet_replace(kFleet, "model: llama3-8b", "model: llama9-1t")).find("fleet.yaml:7: fleet.classes[1].model"),
            std::string::npos);
  EXPECT_EQ(fleet_error_of(fleet_replace(kFleet, "name: llm", "name: small")),
            "fleet.yaml:7: fleet.classes[1].name: 'small' is the name of fleet.classes[0] too");
}

}  // namespace
}  // namespace anatomy::scenario
