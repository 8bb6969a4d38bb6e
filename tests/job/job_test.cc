#include <gtest/gtest.h>

#include <algorithm>

#include <map>
#include <string>
#include <string_view>

#include <cmath>

#include "core/error.h"
#include "hw/catalog.h"
#include "hw/compute_model.h"
#include "job/checkpoint.h"
#include "job/failures.h"
#include "job/lifecycle.h"
#include "job/placement.h"
#include "job/startup.h"
#include "job/young_daly.h"
#include "net/flow/flow_network.h"
#include "topo/builders.h"
#include "workload/params.h"

namespace anatomy::job {
namespace {

TEST(YoungDaly, MatchesTheWorkedNumbersOfCaseC6) {
  // Llama 3's MTBI of 3.09 h = 11,135 s and a 60 s checkpoint: Young gives
  // sqrt(2 x 60 x 11135) = 1,156 s, Daly 1,116 s, and Young's interval
  // wastes 60/1156 + 1156/(2 x 11135) = 10.4% before restarts.
  const SimTime delta = SimTime::sec(60), mtbi = SimTime::sec(11135);
  EXPECT_NEAR(young_interval(delta, mtbi).seconds(), 1156, 1);
  EXPECT_NEAR(daly_interval(delta, mtbi).seconds(), 1116, 1);
  EXPECT_NEAR(expected_waste(young_interval(delta, mtbi), delta, mtbi, SimTime::zero()), 0.104, 0.001);
  // Daly's formula gives M itself when a checkpoint costs more than 2M.
  EXPECT_EQ(daly_interval(SimTime::sec(30000), mtbi), mtbi);
}

FailureSpec two_classes() {
  FailureSpec f;
  f.classes.push_back({"GPU", "GPU", FailureClass::Per::kGpu, 1e-3, false, true});
  f.classes.push_back({"Switch", "Network", FailureClass::Per::kJob, 0.5, true, true});
  return f;
}

TEST(Failures, ARateThatWouldDrawWithoutBoundIsRefused) {
  // Found by a mutation fuzzer: 1e20 failures per GPU-day grew memory until
  // bad_alloc. 1e20 x 1,024 GPUs x 1 day = 1.0e23 expected, past the
  // 1,000,000 a job may draw: one error naming job.failures instead.
  FailureSpec f;
  f.classes.push_back({"GPU", "GPU", FailureClass::Per::kGpu, 1e20, false, true});
  const Units u{1024, 128, 1024, 0};
  try {
    draw_failures(f, u, SimTime::sec(86400), 1);
    FAIL() << "expected InputError";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().field, "job.failures");
    EXPECT_NE(std::string(e.what()).find("1.02e+23 failures"), std::string::npos) << e.what();
  }
  // 1e-3 per GPU-day on the same GPUs for 30 days: ~31 expected, drawn.
  f.classes[0].rate_per_unit_day = 1e-3;
  EXPECT_LT(draw_failures(f, u, SimTime::sec(30 * 86400), 1).size(), 100u);
}

TEST(Failures, SameSeedSameHistoryOtherSeedOther) {
  const Units u{1024, 128, 1024, 0};
  const auto a = draw_failures(two_classes(), u, SimTime::sec(30 * 86400), 7);
  const auto b = draw_failures(two_classes(), u, SimTime::sec(30 * 86400), 7);
  const auto c = draw_failures(two_classes(), u, SimTime::sec(30 * 86400), 8);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].at, b[i].at);
    EXPECT_EQ(a[i].unit, b[i].unit);
  }
  EXPECT_TRUE(a.size() != c.size() || a.front().at != c.front().at);
}

TEST(Failures, CountsFollowTheRates) {
  // 1024 GPUs x 1e-3 per day + 0.5 per day = 1.524 per day: 45.7 expected
  // in 30 days; over 20 seeds the mean is within 3 standard errors.
  const Units u{1024, 128, 1024, 0};
  double total = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed)
    total += static_cast<double>(draw_failures(two_classes(), u, SimTime::sec(30 * 86400), seed).size());
  const double mean = total / 20, expect = 1.524 * 30;
  EXPECT_NEAR(mean, expect, 3 * std::sqrt(expect / 20));
  EXPECT_NEAR(failures_per_day(two_classes(), u), 1.524, 1e-12);
}

TEST(Failures, AddingAClassDoesNotMoveAnotherClasssArrivals) {
  const Units u{1024, 128, 1024, 0};
  FailureSpec one;
  one.classes.push_back(two_classes().classes[0]);
  const auto a = draw_failures(one, u, SimTime::sec(30 * 86400), 3);
  const auto b = draw_failures(two_classes(), u, SimTime::sec(30 * 86400), 3);
  std::vector<JobTime> gpu_b;
  for (const auto& e : b)
    if (e.cls == 0) gpu_b.push_back(e.at);
  ASSERT_EQ(a.size(), gpu_b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].at, gpu_b[i]);
}

// A 4-node DGX H100 job with storage; small enough to simulate quickly.
struct Cluster {
  workload::ModelSpec model = workload::find_model("gpt-1.7b");
  workload::ParallelPlan plan;
  workload::TrainingSpec training;
  topo::Topology topology;
  hw::ComputeModel compute = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  coll::AlgorithmRegistry registry;

  explicit Cluster(bool shared_storage) {
    topo::ClusterSpec spec;
    spec.system = hw::find_system("dgx-h100");
    spec.gpus = 32;
    spec.storage.servers = 2;
    spec.storage.nic_speed = Bandwidth::gbps(400);
    spec.storage.shared_with_compute = shared_storage;
    topology = topo::build_cluster(spec);
    coll::register_builtin_algorithms(registry);
    plan.dp = 32;
    plan.zero_stage = 1;
    training.seq_len = 2048;
    training.global_batch = 64;
    training.micro_batch = 2;
  }
  workload::IterationInputs inputs() {
    workload::IterationInputs in;
    in.model = &model;
    in.plan = &plan;
    in.training = &training;
    in.topology = &topology;
    in.compute = &compute;
    in.library = coll::nccl_library(hw::find_system("dgx-h100"));
    in.make_network = [](engine::Simulator& sim, const topo::Topology& t) -> std::unique_ptr<net::Network> {
      return std::make_unique<net::FlowNetwork>(sim, t);
    };
    in.algorithms = &registry;
    return in;
  }
};

workload::TrainingSpec trained(hw::Precision p, bool master_weights = true) {
  workload::TrainingSpec t;
  t.precision = p;
  t.master_weights = master_weights;
  return t;
}

TEST(Checkpoint, ShardsAddUpToFourteenBytesPerParameter) {
  // bf16 weights (2 B) + fp32 master, m and v (12 B), sharded over DP.
  Cluster c(false);
  const Bytes shard = shard_bytes(c.model, c.plan, trained(hw::Precision::kBf16), 0);
  EXPECT_NEAR(shard.as_double() * 32, 14.0 * c.model.params(), 14.0 * 32);
}

TEST(Checkpoint, Fp32TrainingStoresTwelveBytesPerParameter) {
  // fp32 weights are their own master copy: 4 B + Adam's m and v (8 B), so
  // a shard is 12/14 of the mixed-precision one (to the byte, up to rounding).
  Cluster c(false);
  const Bytes mixed = shard_bytes(c.model, c.plan, trained(hw::Precision::kBf16), 0);
  const Bytes fp32 = shard_bytes(c.model, c.plan, trained(hw::Precision::kFp32), 0);
  EXPECT_NEAR(fp32.as_double(), mixed.as_double() * 12 / 14, 1.0);
}

TEST(Checkpoint, WithoutMasterWeightsAShardIsTheBf16WeightsAndMoments) {
  // A model cast to bf16 stores its weights (2 B) and AdamW's bf16 m and v
  // (4 B): 6/14 of the mixed-precision shard (up to rounding).
  Cluster c(false);
  const Bytes mixed = shard_bytes(c.model, c.plan, trained(hw::Precision::kBf16), 0);
  const Bytes pure = shard_bytes(c.model, c.plan, trained(hw::Precision::kBf16, false), 0);
  EXPECT_NEAR(pure.as_double(), mixed.as_double() * 6 / 14, 1.0);
}

TEST(Checkpoint, ALoraCheckpointHoldsTheAdaptersAndARestartAlsoReadsTheFrozenWeights) {
  // Under LoRA the checkpoint is the adapters' 14 B a parameter, sharded
  // over DP; the frozen base weights are not in it, so a restart reads
  // them too: the stage's parameters at 2 B (bf16), whole on every replica.
  Cluster c(false);
  workload::TrainingSpec t = trained(hw::Precision::kBf16);
  EXPECT_EQ(frozen_weight_bytes(c.model, c.plan, t, 0), Bytes(0));
  t.lora_rank = 16;
  const int64_t adapters = workload::trained_stage_params(c.model, c.plan, t, 0).total();
  EXPECT_NEAR(shard_bytes(c.model, c.plan, t, 0).as_double() * 32, 14.0 * adapters, 14.0 * 32);
  EXPECT_EQ(frozen_weight_bytes(c.model, c.plan, t, 0), Bytes(workload::stage_params(c.model, c.plan, 0).total() * 2));
}

TEST(Checkpoint, ALoraRestartReadsItsFrozenWeightsBesideTheAdaptersShard) {
  // Full training reads back 14 B a parameter over 32 replicas, 0.44 B a
  // parameter a GPU; a LoRA restart reads its adapters' shard (a few MB)
  // and the stage's frozen weights at 2 B, whole on every replica: 2 / 0.44
  // = 4.6 times the bytes, so the load storm takes over three times as long.
  Cluster c(false);
  const coll::NetworkFactory net = c.inputs().make_network;
  c.training = trained(hw::Precision::kBf16);
  const SimTime full = measure_checkpoint_load(c.inputs(), 1.0, net);
  c.training.lora_rank = 16;
  const SimTime lora = measure_checkpoint_load(c.inputs(), 1.0, net);
  EXPECT_GT(lora.seconds(), 3 * full.seconds());
  EXPECT_LT(lora.seconds(), 6 * full.seconds());
}

TEST(Checkpoint, TheSnapshotRunsAtTheGpusMeasuredCopyRate) {
  // DGX H100's GPUs reach host memory over PCIe Gen5 (64 GB/s a direction);
  // the H200 table measured a pinned device-to-host copy over PCIe Gen5 at
  // 55.35 GB/s (copy.d2h_pinned_GBps), so with the table the snapshot takes
  // shard / 55.35 GB/s, without it shard / 64 GB/s: 64 / 55.35 = 1.156x.
  CheckpointSpec spec;
  spec.policy = CheckpointPolicy::kAsynchronous;
  spec.interval_iterations = 10;
  Cluster c(false);
  const hw::CalibrationTable table = hw::load_calibration(std::string(ANATOMY_SOURCE_DIR) + "/data/calibration/h200.json");
  const hw::ComputeModel measured = hw::make_compute_model(hw::find_accelerator("H100"), &table);
  auto in = c.inputs();
  const auto steady = workload::simulate_iteration(in);
  const CheckpointCost roofline = measure_checkpoint(spec, in, steady, in.make_network);
  in.compute = &measured;
  const CheckpointCost calibrated = measure_checkpoint(spec, in, steady, in.make_network);
  const double shard = roofline.bytes_per_gpu.as_double();
  EXPECT_NEAR(roofline.stall.seconds(), shard / 64e9, 1e-9);
  EXPECT_NEAR(calibrated.stall.seconds(), shard / (table.d2h_GBps * 1e9), 1e-9);
  EXPECT_NEAR(calibrated.stall.seconds() / roofline.stall.seconds(), 64 / 55.3455, 1e-3);
}

TEST(Checkpoint, WritesOnTheTrainingFabricSlowTheIterationsTheyOverlap) {
  // The same asynchronous checkpoint, with storage on a separate fabric and
  // on the training fabric: only the shared one slows the data-parallel
  // all-reduce running beside it.
  CheckpointSpec spec;
  spec.policy = CheckpointPolicy::kAsynchronous;
  spec.interval_iterations = 10;
  for (bool shared : {false, true}) {
    Cluster c(shared);
    const auto in = c.inputs();
    const auto steady = workload::simulate_iteration(in);
    const CheckpointCost cost = measure_checkpoint(spec, in, steady, in.make_network);
    EXPECT_GT(cost.background, SimTime::zero());
    if (shared) {
      EXPECT_GT(cost.slowed_iteration, steady.iteration) << "shared storage fabric";
    } else {
      EXPECT_EQ(cost.slowed_iteration, steady.iteration) << "separate storage fabric";
    }
  }
}

JobInputs job_inputs(Cluster& c, SimTime duration) {
  JobInputs in;
  in.iteration = c.inputs();
  in.spec.duration = duration;
  in.spec.checkpoint.policy = CheckpointPolicy::kSynchronous;
  in.spec.checkpoint.interval_iterations = 50;
  in.units = Units{32, 4, 32, 8};
  return in;
}

// An asynchronous checkpoint costs its stall and the slowdown of the
// iterations its write overlaps; a write that outlasts the interval makes
// the next checkpoint wait for the rest of it (one write in flight).
TEST(Checkpoint, AWriteLongerThanTheIntervalHoldsTheNextCheckpoint) {
  using core::SimTime;
  CheckpointCost c;
  c.stall = SimTime::ms(30);
  c.background = SimTime::ms(700);
  c.slowed_iteration = SimTime::ms(500);
  c.slowed_iterations = 2;
  const SimTime steady = SimTime::ms(400);
  // Every 10 iterations: 2 x 100 ms slower, the write long done.
  EXPECT_EQ(c.cost(steady, 10), SimTime::ms(30 + 200));
  // Every iteration: one slowed iteration (500 ms), then 200 ms until the
  // write that began after the stall ends: the period is 30 + 500 + 200.
  EXPECT_EQ(c.cost(steady, 1), SimTime::ms(30 + 100 + 200));
  EXPECT_EQ(steady + c.cost(steady, 1), c.stall + c.background);
}

TEST(Startup, TheInitialBroadcastSendsWhatTheLargestStageHolds) {
  // Every stage's data-parallel groups broadcast at once; the job waits for
  // the largest. GPT 1.7B's 24 layers on PP 2 with experts in all but the
  // first 12: stage 1 holds the 12 MoE layers (8 experts each), far more
  // than stage 0's dense layers and embedding, so its bytes are sent.
  Cluster c(false);
  c.model.experts = 8;
  c.model.top_k = 2;
  c.model.dense_layers = 12;
  c.plan.pp = 2;
  c.plan.dp = 16;
  const StartupCost cost = startup_cost(StartupSpec{}, c.inputs(), false, 0, SimTime::zero());
  const StartupPhase& broadcast = cost.phases.back();
  ASSERT_EQ(broadcast.name, "initial broadcast");
  EXPECT_NE(broadcast.inputs.find("(pipeline stage 1, the largest)"), std::string::npos) << broadcast.inputs;
  const int64_t bytes = workload::stage_params(c.model, c.plan, 1).total() * 2;  // bf16 weights
  EXPECT_NE(broadcast.inputs.find(core::format_bytes(Bytes(bytes))), std::string::npos) << broadcast.inputs;
}

TEST(Lifecycle, WithoutFailuresOnlyCheckpointsAndStartupCost) {
  Cluster c(false);
  JobInputs in = job_inputs(c, SimTime::sec(6 * 3600));
  const JobResult r = run_job(in);
  EXPECT_EQ(r.interruptions, 0);
  EXPECT_EQ(r.time.lost_work + r.time.recovery, SimTime::zero());
  EXPECT_EQ(r.time.total(), r.wall);  // every GPU-second accounted
  // Each period is 50 iterations and one checkpoint: ETTR = 50T / (50T + C),
  // less the startup.
  const double T = r.steady.iteration.seconds(), C = r.checkpoint_cost().seconds();
  const double startup = r.first_start.total().seconds() / r.wall.seconds();
  EXPECT_NEAR(r.ettr, 50 * T / (50 * T + C) * (1 - startup), 0.002);
}

// Productive training splits as the steady iteration does, and waiting on
// others is a cause of its own beside the pipeline bubble: each is its
// bucket's share of the iteration times the productive time (within the
// split's rounding).
TEST(Lifecycle, WaitingOnOthersIsACauseApartFromTheBubble) {
  Cluster c(false);
  c.plan.pp = 4;  // 4 micro-batches over 4 stages: a bubble
  c.plan.dp = 8;
  JobInputs in = job_inputs(c, SimTime::sec(6 * 3600));
  const hw::ComputeModel slowest = c.compute.paced(0.9, ""), mean = c.compute.paced(0.95, "");
  in.iteration.compute = &slowest;  // and the mean GPU waits for it
  in.iteration.compute_mean = &mean;
  const JobResult r = run_job(in);
  ASSERT_GT(r.steady.mean.bubble, SimTime::zero());
  ASSERT_GT(r.steady.mean.waiting, SimTime::zero());
  EXPECT_EQ(r.time.total(), r.wall);
  const JobTime productive = r.time.compute + r.time.communication + r.time.bubble + r.time.waiting;
  const workload::TimeBreakdown& b = r.steady.mean;
  const double T = r.steady.iteration.seconds();
  // Waiting is the remainder of the split, so it also takes the mean's
  // truncation: each of its nine fields loses under 1 ps an iteration (a
  // sum over 4 stages, divided), over productive / T iterations.
  const double tol = 9e-12 * productive.seconds() / T;
  EXPECT_NEAR(r.time.bubble.seconds(), productive.seconds() * b.bubble.seconds() / T, tol);
  EXPECT_NEAR(r.time.waiting.seconds(), productive.seconds() * b.waiting.seconds() / T, tol);
  const auto named = r.time.named();
  EXPECT_TRUE(std::any_of(named.begin(), named.end(), [](const auto& n) { return std::string(n.first) == "waiting on others"; }));
}

// A job of years runs past int64 picoseconds' 106 days on the job's
// 128-bit clock: every GPU-second is still accounted to the picosecond, and
// with no failures its goodput is the closed form of a short job's (the
// folded timeline counts runs of identical periods at once, and must count
// each period's training and checkpoint as the short job does).
TEST(Lifecycle, AJobOfYearsAddsUpExactlyAndKeepsTheShortJobsGoodput) {
  Cluster c(false);
  const JobTime three_years = JobTime::sec(3 * 365 * 86400);
  JobInputs in = job_inputs(c, SimTime::sec(86400));
  in.spec.duration = three_years;
  const JobResult r = run_job(in);
  EXPECT_EQ(r.wall, three_years);
  EXPECT_EQ(r.time.total(), r.wall);
  EXPECT_TRUE(r.checkpoints_folded);  // past kFoldCheckpointsAfter phases
  EXPECT_EQ(r.phases.back().end, r.wall);
  // ETTR = 50T / (50T + C), less the startup (as for the 6-hour job above).
  const double T = r.steady.iteration.seconds(), C = r.checkpoint_cost().seconds();
  const double startup = r.first_start.total().seconds() / r.wall.seconds();
  EXPECT_NEAR(r.ettr, 50 * T / (50 * T + C) * (1 - startup), 1e-6);
  // Every whole period kept its 50 iterations: the last, cut by the end, at
  // most 50 (all of them when the end falls in its checkpoint).
  EXPECT_GE(r.iterations_kept, 50 * r.checkpoints);
  EXPECT_LE(r.iterations_kept, 50 * (r.checkpoints + 1));

  // With failures, three years add up exactly too.
  in.spec.failures = two_classes();
  in.spec.seed = 11;
  const JobResult f = run_job(in);
  EXPECT_GT(f.interruptions, 0);
  EXPECT_EQ(f.time.total(), f.wall);
  EXPECT_LT(f.ettr, r.ettr);
}

// Planned restarts are counted before they are drawn: an interval that
// would plan more than kMaxFailures of them over the job is refused.
TEST(Lifecycle, PlannedRestartsWithoutBoundAreRefused) {
  Cluster c(false);
  JobInputs in = job_inputs(c, SimTime::sec(86400));
  in.spec.duration = JobTime::sec(10 * 365 * 86400);
  in.spec.failures.planned_interval = SimTime::sec(60);  // 5.3 million over ten years
  try {
    run_job(in);
    FAIL() << "accepted";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("job.failures.planned_interval"), std::string::npos) << e.what();
  }
}

TEST(Lifecycle, FailuresLoseWorkAndTimeAndAddUp) {
  Cluster c(false);
  JobInputs in = job_inputs(c, SimTime::sec(7 * 86400));
  in.spec.failures = two_classes();
  in.spec.seed = 11;
  const JobResult a = run_job(in);
  EXPECT_GT(a.interruptions, 0);
  EXPECT_GT(a.time.lost_work, SimTime::zero());
  EXPECT_GT(a.time.recovery, SimTime::zero());
  EXPECT_EQ(a.time.total(), a.wall);
  EXPECT_LT(a.ettr, 1.0);
  // Same seed, same history; another seed, another.
  const JobResult b = run_job(in);
  EXPECT_EQ(a.interruptions, b.interruptions);
  EXPECT_EQ(a.time.lost_work, b.time.lost_work);
  in.spec.seed = 12;
  const JobResult d = run_job(in);
  EXPECT_TRUE(d.interruptions != a.interruptions || d.time.lost_work != a.time.lost_work);
}

TEST(Lifecycle, TimelineCoversTheWallTimeWithoutGapsAndMatchesTheBuckets) {
  Cluster c(false);
  JobInputs in = job_inputs(c, SimTime::sec(86400));
  in.spec.failures = two_classes();
  in.spec.failures.classes[1].rate_per_unit_day = 5;  // a few interruptions in the day
  in.spec.seed = 11;
  const JobResult r = run_job(in);
  ASSERT_GT(r.interruptions, 0);
  ASSERT_FALSE(r.phases.empty());
  ASSERT_FALSE(r.checkpoints_folded);
  EXPECT_EQ(r.phases.front().start, SimTime::zero());
  EXPECT_EQ(r.phases.back().end, r.wall);
  std::map<std::string, JobTime> by_kind;
  for (size_t i = 0; i < r.phases.size(); ++i) {
    if (i > 0) {
      EXPECT_EQ(r.phases[i].start, r.phases[i - 1].end) << i;
    }
    EXPECT_LT(r.phases[i].start, r.phases[i].end) << i;
    by_kind[r.phases[i].kind] += r.phases[i].end - r.phases[i].start;
  }
  EXPECT_EQ(by_kind["startup"], r.time.startup);
  EXPECT_EQ(by_kind["recovery"], r.time.recovery);
  // Lost training holds the lost work and the checkpoints it cut short.
  EXPECT_EQ(by_kind["lost training"] + by_kind["checkpoint"], r.time.lost_work + r.time.checkpoint);
  EXPECT_GT(by_kind["lost training"], SimTime::zero());
}

// The timeline's signals tell what a cluster's monitoring would see: one
// failure per interruption, a restart per recovery that ends inside the
// job, and one checkpoint per checkpoint written, each with its bytes and
// the time its write held storage (a synchronous write: the stall).
TEST(JobSignals, TheTimelineTellsEveryFailureRestartAndCheckpoint) {
  Cluster c(false);
  JobInputs in = job_inputs(c, SimTime::sec(86400));
  in.spec.failures = two_classes();
  in.spec.failures.classes[1].rate_per_unit_day = 5;
  in.spec.seed = 11;
  Telemetry tel;
  int failures = 0, restarts = 0;
  int64_t checkpoints = 0;
  JobTime last_checkpoint;
  tel.failure.subscribe([&](JobTime, const std::string& cause) {
    ++failures;
    EXPECT_FALSE(cause.empty());
  });
  tel.restart.subscribe([&](JobTime) { ++restarts; });
  Bytes bytes;
  SimTime held;
  tel.checkpoint.subscribe([&](JobTime t, Bytes b, SimTime h) {
    EXPECT_GE(t, last_checkpoint);  // in time order
    last_checkpoint = t;
    ++checkpoints;
    bytes = b;
    held = h;
  });
  in.telemetry = &tel;
  const JobResult r = run_job(in);
  ASSERT_GT(r.interruptions, 1);
  EXPECT_EQ(failures, r.interruptions);
  EXPECT_GE(restarts, 1);
  EXPECT_LE(restarts, failures);
  EXPECT_EQ(checkpoints, r.checkpoints);
  // Uncompressed (ratio 1): every byte of the shards leaves; synchronous:
  // the write holds storage for the stall, nothing in the background.
  EXPECT_EQ(bytes, r.checkpoint.bytes_total);
  EXPECT_EQ(held, r.checkpoint.stall);
  // Nobody listening: the same job, to the picosecond.
  in.telemetry = nullptr;
  const JobResult quiet = run_job(in);
  EXPECT_EQ(quiet.time.lost_work, r.time.lost_work);
  EXPECT_EQ(quiet.ettr, r.ettr);
}

// The online Young/Daly controller reads failures from the failure signal,
// so it sees all of them: JobResult::events keeps the first 200 for the
// report, and a controller that read that list stopped counting there.
// Switches fail 20 times a day over 30 days: about 600 interruptions, so a
// controller that waits for 300 failures must still act.
TEST(JobSignals, TheOnlineIntervalSeesFailuresPastTheFirst200) {
  Cluster c(false);
  JobInputs in = job_inputs(c, SimTime::sec(30 * 86400));
  in.spec.failures = two_classes();
  in.spec.failures.classes[1].rate_per_unit_day = 20;
  in.spec.seed = 5;
  ControllerSpec ck;
  ck.kind = ControllerKind::kCheckpoint;
  ck.min_failures = 300;
  ck.compression = false;
  in.spec.controllers.push_back(ck);
  Telemetry tel;
  int heard = 0;
  tel.failure.subscribe([&](JobTime, const std::string&) { ++heard; });
  in.telemetry = &tel;
  const JobResult r = run_job(in);
  ASSERT_GT(r.interruptions, 300);
  ASSERT_TRUE(r.adaptation.has_value());
  int interval_decisions = 0;
  for (const ControllerDecision& d : r.adaptation->decisions)
    if (d.controller == "checkpoint") ++interval_decisions;
  EXPECT_GE(interval_decisions, 1);
  // Outside subscribers hear the timeline the job ended with, once.
  EXPECT_EQ(heard, r.interruptions);
}

// Under storage congestion a checkpoint's write is slower, and the
// checkpoint signal shows it: storage keeping a quarter of its bandwidth
// for the job's second hour stretches every write it meets (the
// synchronous write is storage-bound on this cluster: 2 servers' 400G NICs
// for 32 GPUs), so the write throughput a monitor computes (bytes / time)
// falls to a quarter.
TEST(JobSignals, ACongestedCheckpointWritesSlowerAndTheSignalShowsIt) {
  Cluster c(false);
  JobInputs in = job_inputs(c, SimTime::sec(2 * 3600));
  ConditionSpec storage;
  storage.kind = ConditionKind::kStorageCongestion;
  storage.at = JobTime::sec(3600);
  storage.duration = SimTime::sec(3600);
  storage.bandwidth_fraction = 0.25;
  in.spec.conditions.push_back(storage);
  Telemetry tel;
  std::vector<std::pair<JobTime, double>> gbps;  // (t, write GB/s)
  tel.checkpoint.subscribe([&](JobTime t, Bytes b, SimTime held) { gbps.push_back({t, b.as_double() / held.seconds() / 1e9}); });
  in.telemetry = &tel;
  const JobResult r = run_job(in);
  ASSERT_TRUE(r.adaptation.has_value());
  // Each checkpoint once (the adaptation tells them, the timeline does not
  // as well), in time order: before the congestion exactly the timeline's;
  // after it, the adaptation's, delayed by what the congestion cost, so
  // the last few fall past the job's end.
  for (size_t i = 1; i < gbps.size(); ++i) EXPECT_GT(gbps[i].first, gbps[i - 1].first);
  int64_t before = 0, timeline_before = 0;
  for (const auto& [t, rate] : gbps) before += t < JobTime::sec(3600);
  for (const JobPhase& p : r.phases) timeline_before += std::string_view(p.kind) == "checkpoint" && p.start < JobTime::sec(3600);
  EXPECT_GT(before, 100);
  EXPECT_EQ(before, timeline_before);
  EXPECT_LE(static_cast<int64_t>(gbps.size()), r.checkpoints);
  EXPECT_GT(static_cast<int64_t>(gbps.size()), r.checkpoints / 2);
  double healthy = 0, congested = 1e30;
  for (const auto& [t, rate] : gbps) {
    if (t < JobTime::sec(3600)) healthy = std::max(healthy, rate);
    else congested = std::min(congested, rate);
  }
  ASSERT_GT(healthy, 0);
  ASSERT_LT(congested, 1e30);
  // Healthy: about the 2 servers' 2 x 400 Gb/s = 100 GB/s (98 GB/s: the
  // stall has more in it than the bytes at line rate). Storage-bound, a
  // quarter of the bandwidth takes four times as long: a quarter the rate.
  EXPECT_GT(healthy, 90);
  EXPECT_NEAR(congested / healthy, 0.25, 0.01);

  // A checkpoint controller that compresses under congestion halves the
  // bytes and, storage-bound, about halves the write: the rate a monitor
  // sees is still what the congested storage gives (less the compression
  // on the GPUs), not half of it.
  ControllerSpec ck;
  ck.kind = ControllerKind::kCheckpoint;
  ck.reaction_time = SimTime::sec(1);
  in.spec.controllers.push_back(ck);
  gbps.clear();
  const JobResult with_controller = run_job(in);
  ASSERT_TRUE(with_controller.adaptation.has_value());
  ASSERT_FALSE(with_controller.adaptation->decisions.empty());
  double compressed = 1e30;
  for (const auto& [t, rate] : gbps)
    if (t > JobTime::sec(3700) && t < JobTime::sec(7200)) compressed = std::min(compressed, rate);
  EXPECT_GT(compressed, 0.75 * congested);
  EXPECT_LT(compressed, 1.05 * congested);
}

TEST(Lifecycle, HangsCostTheWatchdogTimeout) {
  // A class that hangs is found only when the collective watchdog fires.
  Cluster c(false);
  JobInputs in = job_inputs(c, SimTime::sec(2 * 86400));
  in.spec.failures.classes.push_back({"Link", "Network", FailureClass::Per::kJob, 2.0, true, false});
  in.spec.seed = 5;
  const JobResult hang = run_job(in);
  in.spec.failures.classes[0].hangs = false;
  const JobResult crash = run_job(in);
  ASSERT_EQ(hang.interruptions, crash.interruptions);
  ASSERT_GT(hang.interruptions, 0);
  const SimTime difference = in.spec.failures.watchdog_timeout - in.spec.failures.crash_detection;
  EXPECT_EQ(hang.time.recovery - crash.time.recovery, difference * hang.interruptions);
}

}  // namespace
}  // namespace anatomy::job

namespace anatomy::job {
namespace {

topo::Topology inventory(int gpus) {
  topo::ClusterSpec spec;
  spec.system = hw::find_system("dgx-h100");
  spec.gpus = gpus;
  spec.fabric.radix = 16;  // 8 hosts per leaf and rail: leaves are small fault domains
  return topo::build_cluster(spec);
}

workload::ParallelPlan plan_of(int gpus) {
  workload::ParallelPlan p;
  p.tp = 8;
  p.dp = gpus / 8;
  return p;
}

TEST(Placement, PackedFillsTheFewestRacks) {
  const auto t = inventory(8 * 64);
  PlacementSpec spec;
  spec.hosts_per_rack = 4;
  const Placement p = place(spec, t, plan_of(8 * 16), 700);
  EXPECT_EQ(p.racks_used, 4);  // 16 hosts, 4 per rack
  EXPECT_EQ(p.max_ranks_per_rack, 32);
  EXPECT_EQ(p.rank_to_gpu.size(), 128u);
  // A tensor-parallel group (8 consecutive ranks) stays on one host.
  for (uint32_t r = 0; r < 128; r += 8) EXPECT_EQ(t.host_of(p.rank_to_gpu[r]), t.host_of(p.rank_to_gpu[r + 7]));
}

TEST(Placement, SpreadTakesOneHostPerRackAndCrossesMoreSwitches) {
  const auto t = inventory(8 * 64);
  PlacementSpec spec;
  spec.hosts_per_rack = 4;
  const Placement packed = place(spec, t, plan_of(8 * 16), 700);
  spec.policy = PlacementPolicy::kSpread;
  const Placement spread = place(spec, t, plan_of(8 * 16), 700);
  EXPECT_EQ(spread.racks_used, 16);
  EXPECT_EQ(spread.max_ranks_per_rack, 8);  // one host's worth
  EXPECT_LT(spread.max_ranks_per_rack, packed.max_ranks_per_rack);
  EXPECT_GE(spread.dp_hops, packed.dp_hops);
  EXPECT_LE(spread.rail_aligned, packed.rail_aligned);
}

// Placement hands out whole hosts: a cluster whose last host is part-filled
// (100 GPUs of 8-GPU hosts) is refused, naming placement.cluster_gpus,
// rather than placed as if every host had 100 / 13 GPUs, which split
// tensor-parallel groups across hosts.
TEST(Placement, AClusterOfPartHostsIsRefused) {
  try {
    place(PlacementSpec{}, inventory(100), plan_of(64), 700);
    FAIL() << "placed on 12.5 hosts";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().field, "placement.cluster_gpus");
  }
  EXPECT_NO_THROW(place(PlacementSpec{}, inventory(104), plan_of(64), 700));
}

TEST(Placement, SaysWhyItCannotPlace) {
  const auto t = inventory(8 * 16);
  PlacementSpec spec;
  spec.hosts_per_rack = 4;
  // Too big.
  EXPECT_THROW(place(spec, t, plan_of(8 * 32), 700), core::InputError);
  // Power: 4 kW racks hold no 7.6 kW DGX host.
  spec.rack_power_kw = 4;
  try {
    place(spec, t, plan_of(8 * 4), 700);
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rack power"), std::string::npos) << e.what();
  }
  // Fault-domain rule: at most 8 ranks per rack with packed placement of 16 hosts in 4 racks.
  spec.rack_power_kw = 0;
  spec.max_ranks_per_rack = 8;
  EXPECT_THROW(place(spec, t, plan_of(8 * 8), 700), core::InputError);
}

TEST(Placement, BusyHostsAreSkippedTheSameWayForEveryPolicy) {
  const auto t = inventory(8 * 64);
  PlacementSpec spec;
  spec.busy_fraction = 0.5;
  spec.seed = 3;
  const Placement a = place(spec, t, plan_of(8 * 16), 700);
  const Placement b = place(spec, t, plan_of(8 * 16), 700);
  EXPECT_EQ(a.hosts, b.hosts);
  // Some early hosts were busy, so packing reaches further into the cluster.
  EXPECT_GT(a.hosts.back(), 15u);
}

}  // namespace
}  // namespace anatomy::job

#include <nlohmann/json.hpp>

#include "job/cascade.h"
#include "../cli/shell.h"

namespace anatomy::job {
namespace {

// The job of job_inputs with a congestion event traced at 30 min of its hour.
JobInputs with_congestion(JobInputs in, double bandwidth_fraction, SimTime duration) {
  in.spec.trace_congestion = true;
  in.spec.congestion.bandwidth_fraction = bandwidth_fraction;
  in.spec.congestion.duration = duration;
  in.spec.congestion.at = SimTime::sec(1800);
  return in;
}

JobTime phase_length(const JobPhase& p) { return p.end - p.start; }

TEST(Cascade, AnOutageCostsTheJobItsTimeoutWaitRestartAndLostWork) {
  // A link down for 60 s at 30 min: after 7 retries x 4.295 s = 30.07 s
  // the queue pairs give up, NCCL reports a transport error and the job
  // crashes there, as a failure does. Regression: the chain was worked out
  // beside the job and none of it reached the job's buckets.
  Cluster c(false);
  const JobInputs plain = job_inputs(c, SimTime::sec(3600));
  const JobResult base = run_job(plain);
  const JobInputs in = with_congestion(plain, 1e-4, SimTime::sec(60));
  const JobResult r = run_job(in);
  ASSERT_TRUE(r.cascade.has_value());
  EXPECT_TRUE(r.cascade->happened);
  EXPECT_TRUE(r.cascade->failed_job);
  EXPECT_EQ(r.cascade->at, SimTime::sec(1800));
  ASSERT_EQ(r.cascade->chain.size(), 3u);
  const CongestionEffect e = measure_congestion(in.spec.congestion, in.iteration, r.steady);
  ASSERT_TRUE(e.fails_job);
  EXPECT_EQ(e.give_up, SimTime::us(4'294'967) * 7);
  // Failure recovery: the wait on the dead link, give_up x (1 - 1/slowdown)
  // (the chain's first step), then crash detection + teardown + a restart
  // on cached images with its checkpoint load (the second step's wait).
  const FailureSpec& f = in.spec.failures;
  const SimTime crash = f.crash_detection + f.teardown + r.restart.total();
  EXPECT_EQ(r.cascade->chain[0].cost, e.cost);
  EXPECT_EQ(r.time.recovery, e.cost + crash);
  // Lost work: the training since the last checkpoint before 1800 s (the
  // job trains in periods of 50 iterations and one checkpoint after its
  // startup) and the give_up / slowdown that the stalled iterations did.
  const SimTime period = r.steady.iteration * 50 + r.checkpoint_cost();
  const SimTime since = SimTime::ps((SimTime::sec(1800) - r.first_start.total()).count_ps() % period.count_ps());
  ASSERT_LT(since, r.steady.iteration * 50);  // 1800 s falls in training, not in a checkpoint
  EXPECT_EQ(r.time.lost_work, since + (e.give_up - e.cost));
  EXPECT_EQ(r.cascade->chain[1].cost, crash + r.time.lost_work);
  // The chain's total is what the buckets hold (the job has no other failure).
  EXPECT_EQ(base.time.recovery + base.time.lost_work, SimTime::zero());
  EXPECT_EQ(r.cascade->total, r.time.recovery + r.time.lost_work);
  EXPECT_EQ(r.interruptions, 1);
  EXPECT_EQ(r.by_category.at("Network"), 1);
  EXPECT_EQ(r.time.total(), r.wall);  // residue 0
  // ETTR: productive training drops by the chain's total, less the
  // checkpoint time the restart leaves out of the hour.
  EXPECT_NEAR((base.ettr - r.ettr) * r.wall.seconds(),
              r.cascade->total.seconds() - (base.time.checkpoint - r.time.checkpoint).seconds(), 1e-6);
  EXPECT_LT(r.ettr, base.ettr);
  // The timeline: lost training up to 1800 s, the wait until the transport
  // gives up, then the recovery; no gaps to the end of the job.
  size_t k = 0;
  while (k < r.phases.size() && std::string(r.phases[k].kind) != "congestion") ++k;
  ASSERT_LT(k + 1, r.phases.size());
  EXPECT_STREQ(r.phases[k - 1].kind, "lost training");
  EXPECT_EQ(r.phases[k].start, SimTime::sec(1800));
  EXPECT_EQ(phase_length(r.phases[k]), e.give_up);
  EXPECT_STREQ(r.phases[k + 1].kind, "recovery");
  EXPECT_EQ(phase_length(r.phases[k + 1]), crash);
  for (size_t i = 1; i < r.phases.size(); ++i) EXPECT_EQ(r.phases[i].start, r.phases[i - 1].end) << i;
  EXPECT_EQ(r.phases.back().end, r.wall);
}

TEST(Cascade, AbsorbedCongestionCostsWhatItsChainSaysAndNoMore) {
  // 10% of the busiest fabric link for 50 ms: traffic keeps flowing, no
  // queue pair gives up; while it lasts training runs at T / T_slow of its
  // pace, so it costs 50 ms x (1 - T / T_slow), as exposed communication.
  Cluster c(false);
  JobInputs plain = job_inputs(c, SimTime::sec(3600));
  // The job ends halfway through a training period: an end that fell in a
  // checkpoint would cut that checkpoint by the delay and book the cost
  // there, whatever the iteration time makes of the hour.
  const JobResult hour = run_job(plain);
  for (auto p = hour.phases.rbegin(); p != hour.phases.rend(); ++p)
    if (std::string(p->kind) == "training") {
      plain.spec.duration = p->start + (p->end - p->start) / 2;
      break;
    }
  const JobResult base = run_job(plain);
  ASSERT_STREQ(base.phases.back().kind, "training");
  const JobInputs in = with_congestion(plain, 0.1, SimTime::ms(50));
  const JobResult r = run_job(in);
  ASSERT_TRUE(r.cascade.has_value());
  EXPECT_TRUE(r.cascade->happened);
  EXPECT_FALSE(r.cascade->failed_job);
  const CongestionEffect e = measure_congestion(in.spec.congestion, in.iteration, r.steady);
  ASSERT_GT(e.slowed, e.steady);
  const SimTime cost = SimTime::from_seconds(0.05 * (1 - e.steady.seconds() / e.slowed.seconds()));
  EXPECT_EQ(e.cost, cost);
  EXPECT_EQ(r.cascade->total, cost);
  ASSERT_GT(cost, SimTime::zero());
  // No failure, no lost work, the same startup and checkpoints.
  EXPECT_EQ(r.interruptions, 0);
  EXPECT_EQ(r.time.lost_work + r.time.recovery, SimTime::zero());
  EXPECT_EQ(r.time.startup, base.time.startup);
  EXPECT_EQ(r.checkpoints, base.checkpoints);
  EXPECT_EQ(r.time.checkpoint, base.time.checkpoint);
  // And no more: productive training drops by exactly the cost ...
  EXPECT_NEAR((base.ettr - r.ettr) * r.wall.seconds(), cost.seconds(), 1e-9);
  // ... which is exposed communication: it grows by the cost, less the
  // communication share (exposed comm over T) of the training it displaced.
  const workload::TimeBreakdown& b = r.steady.mean;
  const double comm_share =
      (b.tp_comm + b.cp_comm + b.ep_comm + b.dp_comm + b.pp_comm).seconds() / r.steady.iteration.seconds();
  EXPECT_NEAR((r.time.communication - base.time.communication).seconds(), cost.seconds() * (1 - comm_share), 1e-9);
  EXPECT_EQ(r.time.total(), r.wall);  // residue 0
  // The timeline shows the congestion where it struck, for its 50 ms.
  bool found = false;
  for (const JobPhase& p : r.phases)
    if (std::string(p.kind) == "congestion") {
      found = true;
      EXPECT_EQ(p.start, SimTime::sec(1800));
      EXPECT_EQ(phase_length(p), SimTime::ms(50));
    }
  EXPECT_TRUE(found);
}

TEST(Cascade, ASurvivableOutageIsAbsorbedAndAnEventAfterTheJobIsRefused) {
  // 20 s down is less than the 30.07 s of retries: the job survives it.
  Cluster c(false);
  JobInputs in = with_congestion(job_inputs(c, SimTime::sec(3600)), 1e-4, SimTime::sec(20));
  const JobResult r = run_job(in);
  ASSERT_TRUE(r.cascade.has_value());
  EXPECT_FALSE(r.cascade->failed_job);
  EXPECT_EQ(r.interruptions, 0);
  EXPECT_EQ(r.time.total(), r.wall);
  in.spec.congestion.at = SimTime::sec(3600);
  try {
    run_job(in);
    FAIL() << "an event at the job's end was accepted";
  } catch (const core::InputError& err) {
    EXPECT_EQ(err.where().field, "job.congestion.at");
  }
}

// `anatomy compare` of the shipped cascade scenarios, as JSON: metric key ->
// B - A.
std::map<std::string, double> compare_diffs(const std::string& a, const std::string& b) {
  const std::string dir = ANATOMY_SOURCE_DIR;
  const auto out = anatomy::testing::run_shell(std::string(ANATOMY_BINARY) + " compare " + dir + "/" + a + " " + dir +
                                               "/" + b + " --format json");
  EXPECT_EQ(out.code, 0) << out.err;
  std::map<std::string, double> diffs;
  const nlohmann::json j = nlohmann::json::parse(out.out);
  for (const auto& m : j.at("metrics")) diffs[m["metric"].get<std::string>()] = m["diff"][1].get<double>();
  return diffs;
}

TEST(Cascade, CompareOfTheCongestionAndTheOutageShowsWhatTheOutageCost) {
  // Regression: compare showed +0.00% everywhere. The 50 ms congestion is
  // absorbed (no failure recovery); the 60 s outage crashes the job, so B -
  // A of failure recovery and lost work is the outage's chain (its total,
  // on 512 GPUs, in GPU-hours) less the congestion's (exposed
  // communication in A), and ETTR drops.
  const std::string dir = ANATOMY_SOURCE_DIR;
  const auto run = [&](const std::string& file) {
    const auto out = anatomy::testing::run_shell(std::string(ANATOMY_BINARY) + " run " + dir + "/" + file +
                                                 " --format json");
    EXPECT_EQ(out.code, 0) << out.err;
    return nlohmann::json::parse(out.out);
  };
  const nlohmann::json outage = run("scenarios/cascade-outage.yaml");
  const nlohmann::json congestion = run("scenarios/cascade-congestion.yaml");
  ASSERT_TRUE(outage["cascade"]["failed_job"].get<bool>());
  ASSERT_FALSE(congestion["cascade"]["failed_job"].get<bool>());
  EXPECT_EQ(congestion["gpu_hours"]["failure recovery"].get<double>(), 0.0);
  const double outage_gpu_hours = outage["cascade"]["total_s"].get<double>() * 512 / 3600;
  const auto d = compare_diffs("scenarios/cascade-congestion.yaml", "scenarios/cascade-outage.yaml");
  EXPECT_GT(d.at("failure_recovery_gpu_hours"), 0);
  EXPECT_GT(d.at("lost_work_gpu_hours"), 0);
  EXPECT_NEAR(d.at("failure_recovery_gpu_hours") + d.at("lost_work_gpu_hours"), outage_gpu_hours, 1e-6);
  EXPECT_LT(d.at("ettr"), 0);
  EXPECT_EQ(d.at("interruptions"), 1);
}

}  // namespace
}  // namespace anatomy::job
