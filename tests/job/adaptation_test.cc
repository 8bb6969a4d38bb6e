// The shipped static/adaptive pairs of scenarios/adaptive/, run through the
// binary as a user runs them (`anatomy run FILE --format json`).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "../cli/shell.h"

namespace anatomy::job {
namespace {

// A scenario file run as a user runs it, `args` after the file.
nlohmann::json run_file(const std::string& path, const std::string& args = "") {
  const auto out = anatomy::testing::run_shell(std::string(ANATOMY_BINARY) + " run " + path + " --format json" + args);
  EXPECT_EQ(out.code, 0) << path << ": " << out.err;
  return nlohmann::json::parse(out.out);
}

nlohmann::json run_json(const std::string& file) {
  return run_file(std::string(ANATOMY_SOURCE_DIR) + "/scenarios/adaptive/" + file);
}

// `text` written to a temporary scenario file; its path.
std::string temp_scenario(const std::string& text, const std::string& name) {
  const std::string path = ::testing::TempDir() + "adaptation_" + name + ".yaml";
  std::ofstream(path) << text;
  return path;
}

// A shipped scenario's text.
std::string shipped(const std::string& file) {
  std::ifstream in(std::string(ANATOMY_SOURCE_DIR) + "/scenarios/adaptive/" + file);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A job's JSON is {"schema", ..., "runs": [...]} or the run itself.
const nlohmann::json& first_run(const nlohmann::json& j) { return j.contains("runs") ? j["runs"][0] : j; }

// congestion-static.yaml's job with `conditions` instead of its own, written
// to a temporary file and run.
nlohmann::json run_with_conditions(const std::string& conditions, const std::string& name, int seed = 1) {
  const std::string text = shipped("congestion-static.yaml");
  return run_file(temp_scenario(text.substr(0, text.find("  conditions:")) + "  conditions:\n" + conditions, name),
                  " --seed " + std::to_string(seed));
}

// Llama 3 8B on 64 H100 (TP 8, storage on 2 servers) with `job` as its
// job section, written to a temporary file and run.
nlohmann::json run_llama_job(const std::string& job, const std::string& name) {
  return run_file(temp_scenario("model: llama3-8b\n"
                                "cluster: {system: dgx-h100, gpus: 64, storage: {servers: 2}}\n"
                                "parallelism: {tp: 8}\n"
                                "training: {seq_len: 8192, global_batch: 64, recompute: selective}\n"
                                "job:\n" +
                                    job,
                                name));
}

// Waiting on others as a share of the productive hours (compute, exposed
// communication and waiting).
double waiting_share(const nlohmann::json& run) {
  const nlohmann::json& h = run["gpu_hours"];
  const double waiting = h["waiting on others"].get<double>();
  return waiting / (h["productive compute"].get<double>() + h["exposed communication"].get<double>() + waiting);
}

TEST(Condition, PausesCostTheirLengthOnEveryGpuWhenNobodyHasSlack) {
  // A rank stops 100 ms every 10 s for 10 minutes: 60 pauses. With one
  // pipeline stage nobody idles in the steady step (no slack: what waiting
  // there is, is the mean GPU's on the slowest, which has none), so every
  // GPU waits the whole 100 ms each time: 6 s per GPU, x 64 GPUs = 384
  // GPU-s = 0.10667 GPU-hours, all of it waiting.
  const nlohmann::json j = run_with_conditions(
      "    - {kind: pause, pause: 100ms, pause_every: 10s, at: 30min, duration: 10min}\n", "pause");
  EXPECT_NEAR(j["adaptation_cost_gpu_hours"]["waiting"].get<double>(), 64 * 6.0 / 3600, 1e-9);
  EXPECT_EQ(j["adaptation_cost_gpu_hours"]["exposed communication"].get<double>(), 0.0);
}

TEST(Condition, ASeededStreamGivesTheSameEpisodesForTheSameSeedOnly) {
  // Background bursts at 3 per hour over 2 hours: about 6 episodes, drawn
  // from stream "conditions" 0 of the run's seed.
  const std::string c = "    - {kind: background_traffic, load: 0.5, rate_per_hour: 3, duration: 1min}\n";
  const nlohmann::json a = run_with_conditions(c, "stream_a", 1), b = run_with_conditions(c, "stream_b", 1),
                       other = run_with_conditions(c, "stream_c", 2);
  ASSERT_FALSE(a["conditions"].empty());
  EXPECT_EQ(a["conditions"], b["conditions"]);
  EXPECT_NE(a["conditions"], other["conditions"]);
}

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

TEST(Controller, RebalancingAStragglersMicroBatchesBeatsDoingNothingWithoutARestart) {
  // k = 1.3, DP = 8: the rebalanced step takes k DP / (1 + k (DP - 1)) =
  // 10.4 / 10.1 = 1.030 of the balanced one instead of 1.3, and no host is
  // swapped (no interruption), so its ETTR is above the static run's.
  const nlohmann::json st_run = run_json("straggler-static.yaml"), rb_run = run_json("straggler-rebalance.yaml");
  const nlohmann::json& st = first_run(st_run);
  const nlohmann::json& rb = first_run(rb_run);
  EXPECT_GT(rb["ettr"].get<double>(), st["ettr"].get<double>());
  EXPECT_EQ(rb["interruptions"].get<int>(), 0);
  ASSERT_EQ(rb["controller_decisions"].size(), 1u);
  EXPECT_EQ(rb["controller_decisions"][0]["action"].get<std::string>().rfind("rebalance", 0), 0u);
}

TEST(Controller, TheTunerPicksWhatItObservesFastestAndChoosesAgainWhenTheLinkHeals) {
  // The tuner reads its communicator's collective times (the executors'
  // signals). 10 s after the link degrades they are more than 1.1x those it
  // chose on; it times every candidate (ring and tree, three protocols
  // each) on the degraded cluster and moves to the tree, which sends fewer
  // of the all-reduce's bytes through the one slow uplink than the ring
  // (2 (n - 1) / n = 1.75 S for n = 8). 10 s after the link heals the
  // times have fallen by more than 1.1x: it chooses again, a ring.
  const nlohmann::json run = run_json("degrading-link-adaptive.yaml");
  std::vector<nlohmann::json> tuner;
  for (const auto& d : first_run(run)["controller_decisions"])
    if (d["controller"] == "collective_tuner") tuner.push_back(d);
  ASSERT_EQ(tuner.size(), 2u) << first_run(run)["controller_decisions"].dump(1);
  EXPECT_NEAR(tuner[0]["t_s"].get<double>(), 20 * 60 + 10, 1e-6);
  EXPECT_NE(tuner[0]["action"].get<std::string>().find("-> tree/"), std::string::npos) << tuner[0]["action"];
  EXPECT_NEAR(tuner[1]["t_s"].get<double>(), 80 * 60 + 10, 1e-6);
  EXPECT_NE(tuner[1]["action"].get<std::string>().find("-> ring/"), std::string::npos) << tuner[1]["action"];
}

TEST(Condition, CheckpointsOnTimeMissTheTenantStaggeredAfterThem) {
  // The other tenant's writes start 100 ms after each of ours is scheduled
  // to end; with nothing delaying the job, no write of ours meets one.
  const nlohmann::json j = run_with_conditions(
      "    - {kind: storage_congestion, bandwidth_fraction: 0.02, after_checkpoints: true, at: 100ms, duration: 2min}\n",
      "staggered");
  ASSERT_FALSE(j["conditions"].empty());
  EXPECT_EQ(j["adaptation_cost_gpu_hours"]["checkpoint stalls"].get<double>(), 0.0);
}

TEST(Condition, ACheckpointComesDueWhileAStragglerHoldsTheStepBelowHalfItsPace) {
  // One GPU computes 4x slower from 5 min to the end of the 2 h job, so the
  // step runs at about a third of its pace while checkpoints fall due every
  // 10 min of work. Each step of the run delays the next checkpoint by what
  // it cost; stepping to where the steady pace would put the checkpoint
  // crept up on it picosecond by picosecond (below half the pace a 1 ps step
  // does no whole ps of work) until the 20M-sample limit refused the job.
  // Stepping at the slowed pace, the run ends and the straggler's cost is
  // the 64 GPUs' 115 min of it less the share trained: between none and all.
  const nlohmann::json j = run_with_conditions(
      "    - {kind: straggler, gpus: 1, slowdown: 3, at: 5min, duration: 2h}\n", "slow_checkpoints");
  const double waiting = j["adaptation_cost_gpu_hours"]["waiting"].get<double>();
  EXPECT_GT(waiting, 64 * 115 / 60.0 * 0.5);
  EXPECT_LT(waiting, 64 * 115 / 60.0);
}

TEST(Condition, AStorageCongestionMeetsTheCheckpointsOfALongJobPastTheFoldedTimeline) {
  // A checkpoint after every 1.26 s iteration for 30 h: 54,543 of them.
  // Past kFoldCheckpointsAfter phases (100,000: about the 50,000th
  // checkpoint, 27.5 h in) the timeline folds checkpoints into training.
  // Storage at 2% for 10 minutes stretches each 0.72 s write about 50x, so
  // nearly all of those 10 minutes go to checkpoint stalls on all 64 GPUs
  // (under 64 x 600 s = 10.67 GPU-hours). The same congestion at 29 h, where
  // the phases no longer name the checkpoints, costs what it costs at 25 h:
  // the adaptation hears every write the timeline makes.
  const auto stalls = [](const std::string& at) {
    const nlohmann::json j = run_llama_job("  duration: 30h\n"
                                           "  checkpoint: {policy: synchronous, interval_iterations: 1}\n"
                                           "  conditions:\n"
                                           "    - {kind: storage_congestion, bandwidth_fraction: 0.02, at: " +
                                               at + ", duration: 10min}\n",
                                           "long_" + at);
    EXPECT_GT(j["checkpoints"].get<int>(), 50000);
    return j["adaptation_cost_gpu_hours"]["checkpoint stalls"].get<double>();
  };
  const double early = stalls("25h"), late = stalls("29h");
  EXPECT_GT(early, 0.9 * 64 * 600 / 3600.0);
  EXPECT_LT(early, 64 * 600 / 3600.0);
  EXPECT_NEAR(late, early, 0.02 * early);
}

TEST(Condition, AStragglerSlowsOnlyTheTrainingTheJobDoes) {
  // One GPU 30% slower for the whole day. Host crashes (96 a day, none with
  // none) leave the job restarting and redoing lost work for half of it;
  // the straggler slows the training that remains and costs nothing while
  // the job recovers or trains what a crash then throws away. So its
  // waiting is the same share of the productive hours at any crash rate:
  // 18% here. Charged over the whole wall clock it had been the same
  // 262 GPU-hours at every rate, 30% of what 96 crashes a day leave.
  const auto share = [](int crashes_per_day) {
    return waiting_share(run_llama_job("  duration: 24h\n"
                                       "  checkpoint: {policy: synchronous, interval: 10min}\n"
                                       "  failures:\n"
                                       "    classes:\n"
                                       "      - {name: Host crash, per: job, rate_per_day: " +
                                           std::to_string(crashes_per_day) +
                                           ", needs_replacement: false}\n"
                                           "  conditions:\n"
                                           "    - {kind: straggler, gpus: 1, slowdown: 0.3, at: 0s, duration: 24h}\n",
                                       "crashes_" + std::to_string(crashes_per_day)));
  };
  const double healthy = share(0), crashing = share(96);
  EXPECT_GT(healthy, 0.1);
  EXPECT_NEAR(crashing, healthy, 0.01 * healthy);
}

TEST(Condition, AStragglerSlowsNothingWhileACheckpointStallsTraining) {
  // One GPU 30% slower for 6 h, and a synchronous checkpoint after every
  // 1.26 s iteration: each write stalls training 0.72 s, a third of the
  // job. The straggler slows the iterations, not the writes, so its
  // waiting is the same share of the productive hours as with no
  // checkpoints (17.9%): it was 27.5% charged through the stalls, then
  // 19.0% while the writes the slowed job no longer reaches before the end
  // (the timeline runs at the steady pace) still counted as stalls.
  const auto share = [](const std::string& checkpoint) {
    return waiting_share(run_llama_job("  duration: 6h\n"
                                       "  checkpoint: {" + checkpoint + "}\n"
                                       "  conditions:\n"
                                       "    - {kind: straggler, gpus: 1, slowdown: 0.3, at: 0s, duration: 6h}\n",
                                       "stalls_" + std::to_string(checkpoint.size())));
  };
  const double none = share("enabled: false"), every = share("policy: synchronous, interval_iterations: 1");
  EXPECT_GT(none, 0.1);
  EXPECT_NEAR(every, none, 0.01 * none);
}

TEST(Controller, AnActionTakesEffectAtOnceSoTheSampleIntervalChangesNoCost) {
  // congestion-adaptive.yaml's reroute, acting 2 s into the 20-minute
  // congestion, with no decision cost (which stops training for it and so
  // looked again at its end). From that instant the job runs on the
  // detour: telemetry sampled every iteration (1.26 s) or every minute must
  // cost the same. Charging the congested pace until the next sample cost
  // up to a minute more per action.
  std::string text = shipped("congestion-adaptive.yaml");
  const size_t at = text.find("decision_cost: 10ms");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("decision_cost: 10ms").size(), "decision_cost: 0s");
  const std::string path = temp_scenario(text, "free_reroute");
  const auto costs = [&](const std::string& interval) {
    const nlohmann::json run =
        run_file(path, interval.empty() ? "" : " --set job.mechanisms.telemetry_interval=" + interval);
    return first_run(run)["adaptation_cost_gpu_hours"]["exposed communication"].get<double>();
  };
  const double every_iteration = costs(""), every_minute = costs("1min");
  EXPECT_GT(every_iteration, 0.0);
  EXPECT_NEAR(every_minute, every_iteration, 1e-9 * every_iteration);  // picoseconds' rounding
}

TEST(Condition, ATwoYearJobUnderAConditionThroughoutIsSampledWithinItsBudget) {
  // One GPU 30% slower for all of a 2-year job: at one sample per 1.26 s
  // iteration that is 50 M samples, past the 20 M a job may take; the
  // default interval widens to 2 y / 2 M = 31.5 s (samples between change
  // points add telemetry, not cost), so the job runs and its straggler
  // costs the same share as over a day.
  const auto share = [](const std::string& duration, const std::string& name) {
    return waiting_share(run_llama_job("  duration: " + duration +
                                           "\n"
                                           "  checkpoint: {policy: synchronous, interval: 1h}\n"
                                           "  conditions:\n"
                                           "    - {kind: straggler, gpus: 1, slowdown: 0.3, at: 0s, duration: 100d, "
                                           "every: 100d, count: 0}\n",
                                       name));
  };
  const double day = share("1d", "two_years_day"), years = share("2y", "two_years");
  EXPECT_GT(day, 0.1);
  EXPECT_NEAR(years, day, 0.01 * day);
}

TEST(Cascade, TheStaticRunNamesEveryLinkOfTheChainInOrder) {
  // 50 ms without packets -> one retry timer (134 ms) -> the buckets queued
  // meanwhile overflow 256 MB of headroom -> a 100 ms allocator pause -> the
  // peers wait -> the checkpoint, 234 ms late, runs 134 ms past the 100 ms
  // gap into the other tenant's write: the last 134 / 717 = 18.7% of its
  // bytes write at 2% of the storage bandwidth.
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
  EXPECT_NE(chain.back()["what"].get<std::string>().find("runs into the next storage write"), std::string::npos);
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
