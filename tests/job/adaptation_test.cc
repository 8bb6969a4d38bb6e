// The shipped static/adaptive pairs of scenarios/adaptive/, run through the
// binary as a user runs them (`anatomy run FILE --format json`).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../cli/shell.h"

namespace anatomy::job {
namespace {

nlohmann::json run_json(const std::string& file) {
  const std::string path = std::string(ANATOMY_SOURCE_DIR) + "/scenarios/adaptive/" + file;
  const auto out = anatomy::testing::run_shell(std::string(ANATOMY_BINARY) + " run " + path + " --format json");
  EXPECT_EQ(out.code, 0) << file << ": " << out.err;
  return nlohmann::json::parse(out.out);
}

// A job's JSON is {"schema", ..., "runs": [...]} or the run itself.
const nlohmann::json& first_run(const nlohmann::json& j) { return j.contains("runs") ? j["runs"][0] : j; }

class Pair : public ::testing::TestWithParam<const char*> {};

TEST_P(Pair, TheAdaptiveRunTrainsMoreOfTheWallTimeAndSaysWhatItDid) {
  // Same job, same conditions; the adaptive run's controllers act, so its
  // effective training time (and with it tokens/s over the job) is higher,
  // and each decision names its time, controller, signal and action.
  const std::string name = GetParam();
  const nlohmann::json s = run_json(name + "-static.yaml");
  const nlohmann::json a = run_json(name + "-adaptive.yaml");
  const nlohmann::json& st = first_run(s);
  const nlohmann::json& ad = first_run(a);
  EXPECT_GT(ad["ettr"].get<double>(), st["ettr"].get<double>()) << name;
  EXPECT_GT(ad["tokens_per_s"].get<double>(), st["tokens_per_s"].get<double>()) << name;
  EXPECT_TRUE(st["controller_decisions"].empty()) << name;
  ASSERT_FALSE(ad["controller_decisions"].empty()) << name;
  for (const auto& d : ad["controller_decisions"]) {
    EXPECT_TRUE(d["t_s"].is_number());
    for (const char* key : {"controller", "signal", "action"}) EXPECT_FALSE(d[key].get<std::string>().empty()) << key;
  }
  // What the conditions cost is inside the job's GPU-hours, which still add
  // up to GPUs x wall time.
  double hours = 0;
  for (const auto& [cause, h] : ad["gpu_hours"].items()) hours += h.get<double>();
  EXPECT_NEAR(hours, ad["gpus"].get<double>() * ad["wall_hours"].get<double>(), 1e-6);
}

INSTANTIATE_TEST_SUITE_P(Adaptive, Pair,
                         ::testing::Values("congestion", "degrading-link", "straggler", "storage", "cascade"));

TEST(Controller, ARerouteReactingFasterThanTheFlapsFollowsEveryOne) {
  // The link goes down 3 s of every 4 s, 30 times. With a 100 ms reaction
  // the reroute controller acts 100 ms into every outage and undoes it 100
  // ms after the link is back: reroute, restore, 30 times each (60
  // decisions, alternating). With 1.5 s, longer than the 1 s the link stays
  // up, the release never holds: one reroute, and one restore 1.5 s after
  // the last flap.
  const nlohmann::json mis_run = run_json("flapping-mistuned.yaml"), tuned_run = run_json("flapping-tuned.yaml");
  const nlohmann::json& mis = first_run(mis_run);
  const nlohmann::json& tuned = first_run(tuned_run);
  const auto& d = mis["controller_decisions"];
  ASSERT_EQ(d.size(), 60u);
  for (size_t i = 0; i < d.size(); ++i)
    EXPECT_EQ(d[i]["action"].get<std::string>().rfind(i % 2 == 0 ? "reroute" : "restore", 0), 0u) << i;
  EXPECT_EQ(tuned["controller_decisions"].size(), 2u);
}

TEST(Cascade, TheStaticRunNamesEveryLinkOfTheChainInOrder) {
  // 50 ms without packets -> one retry timer (134 ms) -> the buckets queued
  // meanwhile overflow 256 MB of headroom -> a 100 ms allocator pause -> the
  // peers wait -> the late checkpoint lands in the storage burst.
  const nlohmann::json st_run = run_json("cascade-static.yaml");
  const nlohmann::json& st = first_run(st_run);
  const std::vector<std::string> expect = {"congestion", "transport timeout and retry", "memory pressure",
                                           "load imbalance", "checkpoint overwhelms storage"};
  const auto& chain = st["chain"];
  ASSERT_EQ(chain.size(), expect.size()) << chain.dump(1);
  double last = 0;
  for (size_t i = 0; i < chain.size(); ++i) {
    EXPECT_EQ(chain[i]["mechanism"].get<std::string>(), expect[i]);
    EXPECT_GE(chain[i]["t_s"].get<double>(), last) << i;
    last = chain[i]["t_s"].get<double>();
  }
  EXPECT_GT(chain.back()["cost_s"].get<double>(), 1.0);  // the congested write costs seconds
  EXPECT_TRUE(st["chain_broken_by"].get<std::string>().empty());
  // With adaptive routing the chain stops at its second link.
  const nlohmann::json ad_run = run_json("cascade-adaptive.yaml");
  const nlohmann::json& ad = first_run(ad_run);
  ASSERT_EQ(ad["chain"].size(), 2u) << ad["chain"].dump(1);
  EXPECT_LT(ad["chain"][1]["cost_s"].get<double>(), 0.02);  // the 10 ms until the reroute, no retry
  EXPECT_EQ(ad["chain_broken_by"].get<std::string>().rfind("reroute", 0), 0u);
}

}  // namespace
}  // namespace anatomy::job
