#include "fleet/fleet_sim.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <tuple>

#include "four_hosts.h"

namespace anatomy::fleet {
namespace {

using test_cluster::four_hosts;

// Two light jobs of 16 GPUs (2 hosts): 1 s of compute, then an all-reduce
// of S = 16 GB per GPU; no startup, so the running time is the steps alone.
FleetSpec two_jobs(job::PlacementPolicy policy) {
  FleetSpec s;
  s.duration = JobTime::sec(86400);
  s.scheduler.policy = Policy::kGang;
  s.scheduler.placement.policy = policy;
  s.scheduler.placement.hosts_per_rack = 2;
  s.scheduler.startup = JobTime::zero();
  JobClass c;
  c.name = "light";
  c.step = JobTime::sec(1);
  c.all_reduce = core::Bytes(int64_t{16'000'000'000});
  s.classes = {c};
  for (int i = 0; i < 2; ++i) {
    JobRequest r;
    r.id = i == 0 ? "x" : "y";
    r.gpus = 16;
    r.duration = JobTime::sec(3200);
    s.jobs.push_back(r);
  }
  return s;
}

const ProfileFn kNoTraining = [](const JobClass&, int) -> StepProfile { throw std::logic_error("no training classes"); };

TEST(Fleet, TwoJobsSharingTheSpineUplinkEachSlowByTheirMaxMinShare) {
  // Spread placement, one host per rack in turn: x on hosts 0 and 2, y on
  // 1 and 3, so both rings cross leaf 0's and leaf 1's single uplink.
  // Per NIC per step: 2 (N-1)/N x S / g = 2 x 15/16 x 16 GB / 8 = 3.75 GB;
  // 8 rails -> 8 flows, 30 GB on each uplink per step.
  // Alone: 30 GB at 400 Gb/s (50 GB/s) = 0.6 s, so a step is 1.6 s.
  // Shared: the other job offers 30 GB / 1.6 s = 150 Gb/s on 8 flows,
  // 18.75 Gb/s each, under the fair level 400/16 = 25 Gb/s: it keeps
  // 150 and the job in its all-reduce gets 250 Gb/s: 30 GB / 31.25 GB/s
  // = 0.96 s, 0.36 s more per step: slowdown (1.6 + 0.36) / 1.6 = 1.225.
  const topo::Topology t = four_hosts();
  const FleetResult r = simulate_fleet(two_jobs(job::PlacementPolicy::kSpread), t, 700, kNoTraining);
  ASSERT_EQ(r.jobs.size(), 2u);
  for (const JobOutcome& j : r.jobs) {
    EXPECT_EQ(j.state, JobState::kFinished);
    EXPECT_NEAR(j.alone_s, 3200, 1e-6);
    EXPECT_NEAR(j.slowdown, 1.225, 1e-6) << j.id;
    ASSERT_EQ(j.shared_with.size(), 1u);
  }
  EXPECT_EQ(r.jobs[0].shared_with[0], "y");
  EXPECT_EQ(r.jobs[1].shared_with[0], "x");
  EXPECT_FALSE(r.heat.empty());
}

TEST(Fleet, TheSameTwoJobsOnDisjointLeavesDoNotSlow) {
  // Packed: x on hosts 0-1 (leaf 0), y on 2-3 (leaf 1); neither ring leaves
  // its leaf, they share no link: slowdown 1, nobody shared with.
  const topo::Topology t = four_hosts();
  const FleetResult r = simulate_fleet(two_jobs(job::PlacementPolicy::kPacked), t, 700, kNoTraining);
  for (const JobOutcome& j : r.jobs) {
    EXPECT_NEAR(j.slowdown, 1.0, 1e-9) << j.id;
    EXPECT_TRUE(j.shared_with.empty());
  }
  EXPECT_TRUE(r.heat.empty());
}

TEST(Fleet, WithContentionOffTheSharedSpineCostsNothing) {
  const topo::Topology t = four_hosts();
  FleetSpec s = two_jobs(job::PlacementPolicy::kSpread);
  s.scheduler.contention = false;
  const FleetResult r = simulate_fleet(s, t, 700, kNoTraining);
  for (const JobOutcome& j : r.jobs) EXPECT_NEAR(j.slowdown, 1.0, 1e-9);
}

TEST(Fleet, GpuHoursAddUpToTheClusterTimesTheSpan) {
  const topo::Topology t = four_hosts();
  const FleetResult r = simulate_fleet(two_jobs(job::PlacementPolicy::kSpread), t, 700, kNoTraining);
  double total = 0;
  for (const Cause& c : r.causes) total += c.gpu_hours;
  // 32 GPUs x 24 h = 768 GPU-hours.
  EXPECT_NEAR(total, 768, 1e-6);
}

TEST(Fleet, FifoMakesTheSecondJobWaitForTheFirst) {
  // Two jobs of the whole cluster (32 GPUs), 3200 s each, no traffic to
  // share (one job at a time): y waits 3200 s; JCT 6400 s.
  const topo::Topology t = four_hosts();
  FleetSpec s = two_jobs(job::PlacementPolicy::kPacked);
  s.scheduler.policy = Policy::kFifo;
  for (JobRequest& j : s.jobs) j.gpus = 32;
  const FleetResult r = simulate_fleet(s, t, 700, kNoTraining);
  EXPECT_NEAR(r.jobs[0].queue_s, 0, 1e-9);
  EXPECT_NEAR(r.jobs[1].queue_s, 3200, 1e-6);
  EXPECT_NEAR(r.jobs[1].jct_s, 6400, 1e-6);
  // While y waited, no GPU was free: no queued idle time.
  EXPECT_NEAR(r.causes[1].gpu_hours, 0, 1e-9);
}

// x holds half the cluster (16 GPUs) for 3200 s; y needs all 32 and
// waits; z (16 GPUs, 1000 s) arrives after y.
FleetSpec blocked_head(Policy p) {
  FleetSpec s = two_jobs(job::PlacementPolicy::kPacked);
  s.scheduler.policy = p;
  s.classes[0].all_reduce = core::Bytes(0);  // no traffic: only the queue matters
  s.jobs[1].gpus = 32;
  s.jobs[1].arrival = JobTime::sec(10);
  JobRequest z = s.jobs[0];
  z.id = "z";
  z.arrival = JobTime::sec(20);
  z.duration = JobTime::sec(1000);
  s.jobs.push_back(z);
  return s;
}

TEST(Fleet, FifoHoldsASmallJobBehindABlockedLargeOne) {
  // FIFO: z waits behind y, which waits for x (until 3200 s); y runs
  // 3200..6400, then z: queue 6400 - 20 = 6380 s.
  const FleetResult r = simulate_fleet(blocked_head(Policy::kFifo), four_hosts(), 700, kNoTraining);
  EXPECT_NEAR(r.jobs[1].queue_s, 3190, 1e-6);
  EXPECT_NEAR(r.jobs[2].queue_s, 6380, 1e-6);
}

TEST(Fleet, BackfillRunsTheSmallJobInTheHoleWithoutDelayingTheLargeOne) {
  // EASY: y's reservation is at 3200 s (x's end); z fits the free half now
  // and ends at 1020 s < 3200 s, so it starts at once and y still starts at 3200.
  const FleetResult r = simulate_fleet(blocked_head(Policy::kBackfill), four_hosts(), 700, kNoTraining);
  EXPECT_NEAR(r.jobs[2].queue_s, 0, 1e-9);
  EXPECT_NEAR(r.jobs[1].queue_s, 3190, 1e-6);
}

TEST(Fleet, GangStartsEveryJobThatFitsWhateverItsPlaceInTheQueue) {
  // Gang (all of a job's GPUs at once, first fit): z starts at once like
  // backfilling, but with no reservation for y.
  const FleetResult r = simulate_fleet(blocked_head(Policy::kGang), four_hosts(), 700, kNoTraining);
  EXPECT_NEAR(r.jobs[2].queue_s, 0, 1e-9);
  // While y waited for whole hosts, 16 GPUs stood idle from 10 s to 20 s
  // and from z's end (1020 s) to x's end (3200 s): queued, not idle.
  EXPECT_NEAR(r.causes[1].gpu_hours, 16.0 * (10 + 2180) / 3600, 1e-6);
}

TEST(Fleet, APreemptedJobPaysItsRestartAndTheWorkSinceItsCheckpoint) {
  // y (priority 1, whole cluster) arrives at 1000 s while x (priority 0,
  // whole cluster, 3200 s, no checkpoints) runs: x is preempted, loses its
  // 1000 s of work, restarts after y (3200 s) with a 300 s restart.
  // x ends at 1000 + 3200 + 300 + 3200 = 7700 s.
  const topo::Topology t = four_hosts();
  FleetSpec s = two_jobs(job::PlacementPolicy::kPacked);
  s.scheduler.policy = Policy::kPriority;
  s.scheduler.restart = JobTime::sec(300);
  for (JobRequest& j : s.jobs) j.gpus = 32;
  s.jobs[1].priority = 1;
  s.jobs[1].arrival = JobTime::sec(1000);
  const FleetResult r = simulate_fleet(s, t, 700, kNoTraining);
  EXPECT_EQ(r.jobs[0].preemptions, 1);
  EXPECT_NEAR(r.jobs[0].end_s, 7700, 1e-6);
  EXPECT_NEAR(r.jobs[1].queue_s, 0, 1e-9);
  // Preemption: 1000 s of work again plus 300 s of restart on 32 GPUs.
  const auto preemption = std::find_if(r.causes.begin(), r.causes.end(), [](const auto& c) { return std::string(c.name) == "preemption"; });
  ASSERT_NE(preemption, r.causes.end());
  EXPECT_NEAR(preemption->gpu_hours, 1300.0 * 32 / 3600, 1e-6);
}

TEST(Fleet, ACheckpointBurstSlowsAnotherJobsAllReduceOnTheSharedStoragePath) {
  // Storage servers on the compute fabric (their own leaf under the one
  // spine). y (hosts 1 and 3) checkpoints: each GPU one flow to storage,
  // up its leaf's uplink, which x's ring (hosts 0 and 2) crosses too.
  // While y writes, x's 8 greedy flows meet y's 8 greedy ones: 25 Gb/s
  // each, 200 Gb/s for x, so its 30 GB per step take 1.2 s instead of
  // 0.6: steps of (1.6 + 0.6) / 1.6 = 1.375x, and only then; without
  // y's checkpoints x runs alone.
  const topo::Topology t = four_hosts(2);
  FleetSpec s = two_jobs(job::PlacementPolicy::kSpread);
  s.classes.push_back(s.classes[0]);
  s.classes[1].name = "writer";
  s.classes[1].all_reduce = core::Bytes(0);
  s.classes[1].checkpoint_interval = JobTime::sec(200);
  s.classes[1].checkpoint_bytes = core::Bytes(int64_t{40'000'000'000});
  s.jobs[1].job_class = 1;
  const FleetResult with = simulate_fleet(s, t, 700, kNoTraining);
  EXPECT_GT(with.jobs[1].checkpoints, 0);
  EXPECT_GT(with.jobs[0].slowdown, 1.0);
  EXPECT_LT(with.jobs[0].slowdown, 1.375);
  EXPECT_NEAR(with.jobs[0].peak_slowdown, 1.375, 1e-9);
  EXPECT_GT(with.jobs[0].contention_s, 0);
  s.classes[1].checkpoint_interval = JobTime::zero();
  const FleetResult without = simulate_fleet(s, t, 700, kNoTraining);
  EXPECT_NEAR(without.jobs[0].slowdown, 1.0, 1e-9);
}

// Training jobs whose step is given rather than simulated: 1.6 s, 1 s of
// it compute, and the light jobs' traffic (3.75 GB per NIC per step over
// a ring per rail, TP 8 = a host). The iteration "re-simulated" under a
// cut stands for one that hides half of its extra communication behind
// compute: T = 1.6 + 0.5 x 0.6 x (1/k - 1) for the smallest share k kept.
StepProfile given_profile(const JobClass&, int) {
  StepProfile p;
  p.step_s = 1.6;
  p.compute = 1 / 1.6;
  p.communication = 0.6 / 1.6;
  p.traffic.tp = 8;
  p.traffic.dp_bytes_per_nic = 3.75e9;
  return p;
}

struct IterationLog {
  std::vector<std::vector<std::pair<topo::LinkId, double>>> calls;
  IterationFn fn() {
    return [this](const JobClass&, const std::vector<uint32_t>& rank_to_gpu,
                  const std::vector<std::pair<topo::LinkId, double>>& kept) {
      EXPECT_EQ(rank_to_gpu.size(), 16u);
      calls.push_back(kept);
      double k = 1;
      for (const auto& [l, share] : kept) k = std::min(k, share);
      return 1.6 + 0.5 * 0.6 * (1 / k - 1);
    };
  }
};

FleetSpec two_training_jobs() {
  FleetSpec s = two_jobs(job::PlacementPolicy::kSpread);
  s.classes[0].model = "given";
  s.classes[0].tp = 8;
  return s;
}

TEST(Fleet, ATrainingJobIsReSimulatedWithTheShareItsSharedLinksLeaveIt) {
  // As in TwoJobsSharingTheSpineUplink...: on each of the 4 leaf-spine
  // links the other job offers 30 GB / 1.6 s = 150 Gb/s, under the fair
  // level, so this job's 8 flows keep 250 of 400 Gb/s: share 0.625 on
  // every link the two rings share, and nowhere else (the NICs' cables
  // are the job's own). The iteration then takes 1.6 + 0.3 x (1/0.625 -
  // 1) = 1.78 s against 1.6 s alone: slowdown 1 + 0.18 / 1.6 = 1.1125,
  // below the footprint's fully exposed 1.225.
  const topo::Topology t = four_hosts();
  IterationLog log;
  const FleetResult r = simulate_fleet(two_training_jobs(), t, 700, given_profile, log.fn());
  for (const JobOutcome& j : r.jobs) EXPECT_NEAR(j.slowdown, 1.1125, 1e-6) << j.id;
  // Each job: once idle (the baseline), once cut.
  EXPECT_EQ(r.iterations_run, 4);
  ASSERT_EQ(log.calls.size(), 4u);
  int cut = 0;
  for (const auto& kept : log.calls) {
    if (kept.empty()) continue;
    ++cut;
    ASSERT_EQ(kept.size(), 4u);
    for (const auto& [l, share] : kept) {
      EXPECT_EQ(t.kind(t.link(l).from), topo::NodeKind::kSwitch);
      EXPECT_EQ(t.kind(t.link(l).to), topo::NodeKind::kSwitch);
      EXPECT_NEAR(share, 0.625, 1e-6);
    }
  }
  EXPECT_EQ(cut, 2);
}

TEST(Fleet, WithoutReSimulationATrainingJobTakesItsFootprintsFullyExposedFigure) {
  // fleet.scheduler.resimulate: false, or a cut the footprint prices under
  // resimulate_above: the footprint's 1.225 (as the light jobs), and no
  // iteration is run. The cut costs 0.36 / 1.6 = 22.5% of a step, fully
  // exposed: a threshold of 0.2 re-simulates it, 0.25 does not.
  const topo::Topology t = four_hosts();
  for (const auto& [resimulate, above, expect] :
       {std::tuple{false, 0.0, 1.225}, std::tuple{true, 0.25, 1.225}, std::tuple{true, 0.2, 1.1125}}) {
    FleetSpec s = two_training_jobs();
    s.scheduler.resimulate = resimulate;
    s.scheduler.resimulate_above = above;
    IterationLog log;
    const FleetResult r = simulate_fleet(s, t, 700, given_profile, log.fn());
    for (const JobOutcome& j : r.jobs) EXPECT_NEAR(j.slowdown, expect, 1e-6) << resimulate << " " << above;
    EXPECT_EQ(log.calls.empty(), expect == 1.225);
  }
}

TEST(Fleet, AnIterationIsRunOnlyWhenItsSharersChangeAndLookedUpWhenTheyRepeat) {
  // x trains (a given profile) beside w, which moves no data but every
  // 200 s writes 40 GB per GPU to storage, up the uplinks x's ring
  // crosses (ACheckpointBurst...). x's links see two sets of sharers in
  // turn: nobody (nothing to run), and w's greedy writes. The first write
  // runs x's iteration twice (idle and cut: its 8 greedy flows against
  // w's 8, share 0.5); every later write finds both in the cache.
  const topo::Topology t = four_hosts(2);
  FleetSpec s = two_training_jobs();
  s.classes.push_back(s.classes[0]);
  s.classes[1].name = "writer";
  s.classes[1].model.clear();
  s.classes[1].all_reduce = core::Bytes(0);
  s.classes[1].checkpoint_interval = JobTime::sec(200);
  s.classes[1].checkpoint_bytes = core::Bytes(int64_t{40'000'000'000});
  s.jobs[1].job_class = 1;
  IterationLog log;
  const FleetResult r = simulate_fleet(s, t, 700, given_profile, log.fn());
  ASSERT_GT(r.jobs[1].checkpoints, 5);
  EXPECT_EQ(r.iterations_run, 2);
  EXPECT_GE(r.iterations_cached, r.jobs[1].checkpoints - 1);
  for (const auto& kept : log.calls)
    for (const auto& [l, share] : kept) EXPECT_NEAR(share, 0.5, 1e-6);
  // While w writes: 1.6 + 0.3 x (1/0.5 - 1) = 1.9 s, 1 + 0.3 / 1.6.
  EXPECT_NEAR(r.jobs[0].peak_slowdown, 1 + 0.3 / 1.6, 1e-6);
}

TEST(Fleet, SameSpecSameResult) {
  const topo::Topology t = four_hosts();
  FleetSpec s = two_jobs(job::PlacementPolicy::kSpread);
  s.generator.jobs = 40;
  s.generator.sizes = {{8, 2}, {16, 1}};
  s.generator.duration_median = JobTime::sec(600);
  s.failures.per_gpu_day = 0.5;
  const FleetResult a = simulate_fleet(s, t, 700, kNoTraining), b = simulate_fleet(s, t, 700, kNoTraining);
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (size_t i = 0; i < a.jobs.size(); ++i) {
    EXPECT_EQ(a.jobs[i].end_s, b.jobs[i].end_s);
    EXPECT_EQ(a.jobs[i].failures, b.jobs[i].failures);
  }
  for (size_t c = 0; c < a.causes.size(); ++c) EXPECT_EQ(a.causes[c].gpu_hours, b.causes[c].gpu_hours);
}

}  // namespace
}  // namespace anatomy::fleet
