#include "job/edge/edge_site.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "hw/catalog.h"

namespace anatomy::job::edge {
namespace {

using core::Bandwidth;
using core::Bytes;
using core::SimTime;

// 8 MI325X (roofline), ResNet-50 fully fine-tuned hourly for 24 h, two
// dedicated serving nodes, four cameras on a switched segment.
struct Site {
  hw::ComputeModel compute = hw::make_compute_model(hw::find_accelerator("MI325X"), nullptr);
  EdgeInputs in;
  Site() {
    in.model = workload::find_edge_model("resnet-50", 0);
    in.compute = &compute;
    in.gpus = 8;
    in.gpus_per_host = 8;
    in.hbm_per_gpu = Bytes(256'000'000'000);
    in.allreduce = [](Bytes, int) { return SimTime::ms(1); };
    EdgeSpec& e = in.spec;
    e.retrain.mode = workload::FineTune::kFull;
    e.sensor.window = SimTime::ms(200);
    e.sensor.streams = {{.name = "camera", .count = 4, .message = Bytes(2'000'000), .mtu = 9000,
                         .period = SimTime::ms(33), .deadline = SimTime::ms(5), .priority = 5, .inference = true}};
  }
  EdgeResult run() const { return run_edge_site(in); }
};

// Llama 2 70B LoRA at 4,096 tokens, batch 1, 64 samples a cycle, on all 8
// MI325X (serving shares them; no streams), unpaced.
Site llama_lora_site() {
  Site s;
  s.in.model = workload::find_edge_model("llama2-70b", 4096);
  s.in.spec.retrain.mode = workload::FineTune::kLora;
  s.in.spec.retrain.batch_per_gpu = 1;
  s.in.spec.retrain.samples = 64;
  s.in.spec.serving.shared = true;
  s.in.spec.sensor.streams.clear();
  s.in.hbm_per_gpu = Bytes(512'000'000'000);
  s.in.pace_training = false;
  return s;
}

TEST(EdgeSite, HourlyRetrainingForADayIsTwentyFourCycles) {
  const EdgeResult r = Site().run();
  ASSERT_EQ(r.cycles.size(), 24u);
  EXPECT_EQ(r.cycles[5].start, SimTime::sec(5 * 3600));
  EXPECT_EQ(r.training_gpus, 6);
  // 20,000 samples at 64 per GPU on 6 GPUs: ceil(20000 / 384) = 53 steps.
  EXPECT_EQ(r.cycles[0].steps, 53);
  // Collect: 20,000 x 200 kB at 2 GB/s = 2 s.
  EXPECT_EQ(r.cycles[0].collect, SimTime::sec(2));
  EXPECT_EQ(r.registry.size(), 25u);
}

// Retraining is a synchronous job of the 6 accelerators the serving nodes
// leave: on B200 its step is timed at the slowest of 6's pace, 0.995 x (1 -
// 0.0245 + 0.049 / 7) = 0.977588 of one alone (hw/sync_pace.h), not the
// site's 8 GPUs' 0.976040; serving frames, one GPU each, is not paced.
TEST(EdgeSite, RetrainingStepsAtTheSlowestOfItsAcceleratorsPace) {
  Site paced;
  paced.compute = hw::make_compute_model(hw::find_accelerator("B200"), nullptr);
  paced.in.compute = &paced.compute;
  Site alone = paced;
  alone.in.compute = &alone.compute;
  alone.in.pace_training = false;
  const EdgeResult p = paced.run(), a = alone.run();
  ASSERT_EQ(p.training_gpus, 6);
  EXPECT_EQ(p.inference_time, a.inference_time);
  const Retrain& rt = paced.in.spec.retrain;
  auto step = [&](double pace) {
    return workload::train_step_time(paced.in.model, rt.mode, rt.lora_rank, rt.batch_per_gpu,
                                     paced.compute.paced(pace, ""), paced.in.precision,
                                     {.recompute_layers = rt.recompute_layers});
  };
  EXPECT_EQ(a.step_time - a.allreduce_time, step(1.0));
  EXPECT_EQ(p.step_time - p.allreduce_time, step(0.995 * (1 - 0.0245 + 0.049 / 7)));
  EXPECT_GT(p.step_time, a.step_time);
}

// The site hands its step's FP8 attention and kept-quantized weights to
// the fine-tuning model: a LoRA step of Llama 2 70B at 4,096 tokens on 8
// MI325X in FP8 is timed with both options, and differs from one without.
TEST(EdgeSite, RetrainingStepTakesFp8AttentionAndQuantizedWeights) {
  Site s = llama_lora_site();
  s.in.precision = hw::Precision::kFp8;
  s.in.fp8_attention = true;
  s.in.spec.retrain.quantized_weights = true;
  const EdgeResult r = s.run();
  const Retrain& rt = s.in.spec.retrain;
  const auto step = [&](bool attention, bool quantized) {
    return workload::train_step_time(s.in.model, rt.mode, rt.lora_rank, 1, s.compute, hw::Precision::kFp8,
                                     {.fp8_attention = attention, .quantized_weights = quantized});
  };
  EXPECT_EQ(r.step_time - r.allreduce_time, step(true, true));
  EXPECT_NE(step(true, true), step(false, true));
  EXPECT_NE(step(true, true), step(true, false));
}

// Context parallelism: 8 accelerators in pairs train 4 samples a step of
// batch 1 each pair, every accelerator on half of each sample's tokens;
// a CP that does not divide the training accelerators is refused.
TEST(EdgeSite, ContextParallelPairsShareEachSample) {
  Site s = llama_lora_site();
  s.in.spec.retrain.context_parallel = 2;
  const EdgeResult r = s.run();
  EXPECT_EQ(r.training_gpus, 8);
  EXPECT_EQ(r.samples_per_step, 4);
  EXPECT_EQ(r.cycles[0].steps, 16);  // 64 samples, 4 a step
  const Retrain& rt = s.in.spec.retrain;
  EXPECT_EQ(r.step_time - r.allreduce_time,
            workload::train_step_time(workload::split_sequence(s.in.model, 2), rt.mode, rt.lora_rank, 1, s.compute,
                                      s.in.precision));
  s.in.spec.retrain.context_parallel = 3;
  try {
    s.run();
    FAIL() << "a CP of 3 over 8 accelerators ran";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().field, "edge.retrain.context_parallel");
    EXPECT_EQ(e.message(), "3 does not divide the 8 training accelerators");
  }
}

// All-to-all context parallelism puts its exchanges on the step: Llama 2
// 70B's 80 layers each run four all-to-alls forward (Q, K, V, the output)
// and four backward, each 1 ms here: 640 ms beside the kernels of the
// heads-split shard; the first layers' recomputed forwards run theirs again.
TEST(EdgeSite, AllToAllContextParallelismAddsItsExchangesToTheStep) {
  Site s = llama_lora_site();
  s.in.spec.retrain.context_parallel = 2;
  s.in.spec.retrain.context_parallel_comm = workload::CpComm::kAllToAll;
  int calls = 0;
  s.in.all_to_all = [&](Bytes, int ranks) {
    ++calls;
    EXPECT_EQ(ranks, 2);
    return SimTime::ms(1);
  };
  const EdgeResult r = s.run();
  EXPECT_EQ(calls, 4);  // one a tensor, once: the same for every layer
  EXPECT_EQ(r.cp_all_to_all_time, SimTime::ms(640));
  const Retrain& rt = s.in.spec.retrain;
  EXPECT_EQ(r.step_time - r.allreduce_time - r.cp_all_to_all_time,
            workload::train_step_time(workload::split_sequence(s.in.model, 2, workload::CpComm::kAllToAll), rt.mode,
                                      rt.lora_rank, 1, s.compute, s.in.precision));
  s.in.spec.retrain.recompute_layers = 10;
  EXPECT_EQ(s.run().cp_all_to_all_time, SimTime::ms(640 + 40));
  // A frozen backbone's backward does not pass through attention: the
  // forward's exchanges alone (and the recomputed ones its step replays).
  s.in.spec.retrain.mode = workload::FineTune::kFrozenBackbone;
  EXPECT_EQ(s.run().cp_all_to_all_time, SimTime::ms(320 + 40));
  // What each GPU sends of Q: all 4,096 tokens of its 32 of the 64 heads
  // (4,096 wide), 2 B an element, or 1 under FP8 attention (delayed
  // scaling's FP8 data).
  std::vector<int64_t> sent;
  s.in.all_to_all = [&](Bytes b, int) {
    sent.push_back(b.count());
    return SimTime::ms(1);
  };
  s.run();
  ASSERT_FALSE(sent.empty());
  EXPECT_EQ(sent[0], int64_t{4096} * 4096 * 2);
  sent.clear();
  s.in.precision = hw::Precision::kFp8;
  s.in.fp8_attention = true;
  s.run();
  ASSERT_FALSE(sent.empty());
  EXPECT_EQ(sent[0], int64_t{4096} * 4096);
}

TEST(EdgeSite, EveryAcceleratorSecondIsAccountedFor) {
  const EdgeResult r = Site().run();
  const double total = r.acc_inference_s + r.acc_training_s + r.acc_rollout_s + r.acc_down_s + r.acc_idle_s;
  EXPECT_NEAR(total, 8 * r.simulated.seconds(), 1e-6 * total);
  EXPECT_GT(r.acc_inference_s, 0);
  EXPECT_GT(r.acc_training_s, 0);
}

TEST(EdgeSite, RollingHotSwapKeepsEveryLineCoveredAndNaiveDoesNot) {
  Site s;
  const EdgeResult safe = s.run();
  EXPECT_TRUE(safe.hot_swap);  // 2 x 51 MB fits 256 GB
  EXPECT_EQ(safe.coverage_gap, SimTime::zero());
  s.in.spec.rollout.strategy = RolloutStrategy::kNaive;
  const EdgeResult naive = s.run();
  // Both nodes stop, fetch 51.1 MB each over a shared 100 Gb/s (2 x 4.09 ms
  // = 8.18 ms), load at 25 GB/s (2.04 ms) and warm up 2 s, every cycle:
  // 24 x 2.0102 s.
  const SimTime per_cycle = core::transfer_time(Bytes(51'114'064 * 2), Bandwidth::gbps(100)) +
                            core::transfer_time(Bytes(51'114'064), Bandwidth::gigabytes_per_s(25)) + SimTime::sec(2);
  EXPECT_EQ(naive.coverage_gap, per_cycle * 24);
  EXPECT_DOUBLE_EQ(naive.uncovered_line_s, 4 * naive.coverage_gap.seconds());
  EXPECT_GT(naive.misses_uncovered, 0);
}

// The clock's limit is 2^63 ps = 106.75 days. With a 106-day site and a
// 60-day interval the third cycle would be due at 120 days: the due time
// must be computed past int64 (UBSan flags an overflow otherwise) and stop
// the loop after two cycles, at 0 and 60 days.
TEST(EdgeSite, ADueTimePastTheClocksLimitEndsTheRunInsteadOfOverflowing) {
  Site s;
  s.in.spec.duration = SimTime::sec(106LL * 86400);
  s.in.spec.retrain.interval = SimTime::sec(60LL * 86400);
  const EdgeResult r = s.run();
  ASSERT_EQ(r.cycles.size(), 2u);
  EXPECT_EQ(r.cycles[1].start, SimTime::sec(60LL * 86400));
}

// A 1-second interval is shorter than a cycle, so cycles run back to back
// for the 6 hours (thousands of them); the registry keeps exactly
// keep_versions (3) entries unpruned — the newest serving, the two before it
// superseded, the base model v0 among the pruned — and a naive rollout's gaps each land in the cycle they
// start in, so the cycles' gaps add up to the site's.
TEST(EdgeSite, BackToBackCyclesKeepTheRegistryAndGapsConsistent) {
  Site s;
  s.in.spec.duration = SimTime::sec(6 * 3600);
  s.in.spec.retrain.interval = SimTime::sec(1);
  s.in.spec.rollout.keep_versions = 3;
  s.in.spec.rollout.strategy = RolloutStrategy::kNaive;
  const EdgeResult r = s.run();
  ASSERT_GT(r.cycles.size(), 1000u);
  for (size_t i = 1; i < r.cycles.size(); ++i) EXPECT_EQ(r.cycles[i].start, r.cycles[i - 1].end());
  ASSERT_EQ(r.registry.size(), r.cycles.size() + 1);
  int live = 0;
  for (const RegistryEntry& e : r.registry) live += e.status != "pruned";
  EXPECT_EQ(live, 3);
  EXPECT_EQ(r.registry.back().status, "serving");
  EXPECT_EQ(r.registry[r.registry.size() - 2].status, "superseded");
  EXPECT_EQ(r.registry[0].status, "pruned");
  SimTime sum;
  for (const CycleResult& c : r.cycles) {
    EXPECT_GT(c.coverage_gap, SimTime::zero());
    sum += c.coverage_gap;
  }
  EXPECT_EQ(sum, r.coverage_gap);
}

TEST(EdgeSite, AFailedVersionIsRolledBackAfterTheDetectionDelay) {
  Site s;
  s.in.spec.quality.failure_probability = 0.999999;
  const EdgeResult r = s.run();
  for (const CycleResult& c : r.cycles) {
    EXPECT_TRUE(c.failed);
    // Detection (2 min) + reloading the cached last good version on both
    // nodes one at a time: 2 x (51.1 MB / 25 GB/s + 2 s).
    EXPECT_EQ(c.rollback, SimTime::sec(120) + (core::transfer_time(Bytes(51'114'064), Bandwidth::gigabytes_per_s(25)) +
                                               SimTime::sec(2)) * 2);
  }
  EXPECT_EQ(r.registry[0].status, "serving");  // the base model was never replaced
  EXPECT_EQ(r.registry[1].status, "pruned");
  EXPECT_EQ(r.registry.back().status, "failed (rolled back)");
}

TEST(EdgeSite, ACanaryCatchesAFailureBeforeTheOtherNodesGetIt) {
  Site s;
  s.in.spec.rollout.strategy = RolloutStrategy::kCanary;
  s.in.spec.quality.failure_probability = 0.999999;
  const EdgeResult r = s.run();
  const SimTime one = core::transfer_time(Bytes(51'114'064), Bandwidth::gbps(100)) +
                      core::transfer_time(Bytes(51'114'064), Bandwidth::gigabytes_per_s(25)) + SimTime::sec(2);
  EXPECT_EQ(r.cycles[0].rollout, one + SimTime::sec(120));
  EXPECT_EQ(r.cycles[0].rollback, one - core::transfer_time(Bytes(51'114'064), Bandwidth::gbps(100)));
  EXPECT_EQ(r.coverage_gap, SimTime::zero());
}

TEST(EdgeSite, ThermalThrottlingSlowsTheStepsInsideItsWindow) {
  Site s;
  const EdgeResult cool = s.run();
  s.in.spec.faults.thermal = {.enabled = true, .at = SimTime::sec(3600), .duration = SimTime::sec(600), .clock_fraction = 0.5};
  const EdgeResult hot = s.run();
  // Cycle 1 trains inside the window: its compute takes twice as long.
  const double compute = (cool.step_time - cool.allreduce_time).seconds() * cool.cycles[1].steps;
  EXPECT_NEAR(hot.cycles[1].train.seconds() - cool.cycles[1].train.seconds(), compute, 1e-6);
  EXPECT_EQ(hot.cycles[2].train, cool.cycles[2].train);
}

TEST(EdgeSite, APowerEventOnTheServingHostLeavesTheLinesUncovered) {
  Site s;
  s.in.spec.faults.power = {.enabled = true, .at = SimTime::sec(1800), .down = SimTime::sec(300), .host = 0};
  const EdgeResult r = s.run();
  EXPECT_EQ(r.coverage_gap, SimTime::sec(300));
  EXPECT_DOUBLE_EQ(r.acc_down_s, 8 * 300.0);
}

TEST(EdgeSite, TrainingTrafficOnTheSensorSwitchRaisesTheCamerasTail) {
  Site s;
  s.in.spec.sensor.streams[0].priority = 0;  // a flat network: one class for all
  s.in.spec.retrain.samples = 10'000'000;     // training takes 5% of each hour: above the 1% p99 looks at
  const EdgeResult alone = s.run();
  s.in.spec.sensor.shared_with_training = true;
  const EdgeResult shared = s.run();
  EXPECT_GT(shared.sensor.p99_ps, alone.sensor.p99_ps);
}

TEST(EdgeSite, ALinkFailureDuringRolloutDelaysItByTheSwitchover) {
  Site s;
  const EdgeResult base = s.run();
  const CycleResult& c = base.cycles[3];
  s.in.spec.faults.link = {.enabled = true, .tier = "training", .at = c.end() - SimTime::ms(500), .switchover = SimTime::ms(50)};
  const EdgeResult hit = s.run();
  EXPECT_EQ(hit.cycles[3].rollout, c.rollout + SimTime::ms(50));
  EXPECT_EQ(hit.coverage_gap, SimTime::zero());
}

TEST(EdgeSite, WhatTheSiteCannotDoIsAnInputError) {
  Site s;
  s.in.spec.rollout.nodes = 3;
  try {
    s.run();
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().field, "edge.rollout.nodes");
  }
  Site big;
  big.in.model = workload::find_edge_model("llama3-70b", 4096);  // 141 GB: two copies do not fit 256 GB
  big.in.spec.rollout.strategy = RolloutStrategy::kBlueGreen;
  big.in.spec.sensor.streams.clear();
  try {
    big.run();
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().field, "edge.rollout.strategy");
  }
}

}  // namespace
}  // namespace anatomy::job::edge
