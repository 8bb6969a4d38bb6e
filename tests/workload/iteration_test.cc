#include "workload/iteration.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>

#include "core/error.h"
#include "hw/catalog.h"
#include "net/flow/flow_network.h"
#include "topo/builders.h"
#include "workload/cp_passes.h"
#include "workload/grad_buckets.h"
#include "workload/params.h"
#include "workload/pipeline_schedule.h"
#include "workload/step_cost.h"

namespace anatomy::workload {
namespace {

// A small GPT-like model whose output layer is negligible, so pipeline
// stages are uniform and the textbook formulas apply.
ModelSpec small_model() {
  ModelSpec m = find_model("gpt-1.7b");
  m.vocab = 256;
  m.layers = 16;
  return m;
}

struct Harness {
  ModelSpec model = small_model();
  ParallelPlan plan;
  TrainingSpec training;
  hw::ComputeModel compute = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  coll::AlgorithmRegistry registry;
  std::vector<double> bandwidth_bps;  // of the last run's busiest links
  std::vector<double> stage_compute_scale;  // IterationInputs::stage_compute_scale
  IterationTelemetry* telemetry = nullptr;
  const hw::ComputeModel* compute_mean = nullptr;  // IterationInputs::compute_mean
  int collective_ctas = -1;  // the library's CTAs a collective holds; -1: NCCL's
  double p2p_channel_GBps = -1;  // one NCCL p2p channel's rate; -1: the GPU's
  bool nvls = true;  // the NVLink switches reduce (NVLS); false: rings and trees only

  Harness() {
    coll::register_builtin_algorithms(registry);
    training.seq_len = 2048;
    training.micro_batch = 1;
    training.global_batch = 8;
    plan.sequence_parallel = false;
    plan.zero_stage = 0;
  }

  IterationResult run(int link_samples = 0) {
    topo::ClusterSpec spec;
    spec.system = hw::find_system("dgx-h100");
    spec.system.scaleup.in_network_reduction = nvls;
    spec.gpus = plan.gpus();
    const topo::Topology t = topo::build_cluster(spec);
    IterationInputs in;
    in.model = &model;
    in.plan = &plan;
    in.training = &training;
    in.topology = &t;
    in.compute = &compute;
    in.library = coll::nccl_library(spec.system);
    if (collective_ctas >= 0) in.library.collective_ctas = collective_ctas;
    if (p2p_channel_GBps >= 0) in.library.p2p_channel_GBps = p2p_channel_GBps;
    in.make_network = [](engine::Simulator& sim, const topo::Topology& topo) -> std::unique_ptr<net::Network> {
      return std::make_unique<net::FlowNetwork>(sim, topo);
    };
    in.algorithms = &registry;
    in.link_samples = link_samples;
    in.stage_compute_scale = stage_compute_scale;
    in.telemetry = telemetry;
    in.compute_mean = compute_mean;
    IterationResult r = simulate_iteration(in);
    for (auto& l : r.busiest_links) bandwidth_bps.push_back(t.link(l.link).bandwidth.bps());
    return r;
  }

  // Stage s's costs with every collective free, on this harness's GPU or another's.
  StageCost stage_cost(int s) { return stage_cost(s, compute); }
  StageCost stage_cost(int s, const hw::ComputeModel& cm) {
    StepCostModel costs(model, plan, training, cm,
                        [](Communicator, coll::Op, core::Bytes, const std::vector<uint32_t>&) { return SimTime::zero(); });
    return costs.stage(s);
  }
};

TEST(Iteration, OneGpuIsMicroBatchesTimesForwardAndBackwardPlusTheOptimizer) {
  // No parallelism: the GPU runs M forwards and backwards back to back, then
  // the optimizer; nothing waits, nothing communicates.
  Harness h;
  const IterationResult r = h.run();
  const StageCost c = h.stage_cost(0);
  const SimTime opt = h.compute.optimizer_step(c.params());
  const SimTime expect = (c.forward[0].compute + c.backward[0].compute) * 8 + opt;
  EXPECT_EQ(r.iteration, expect);
  EXPECT_EQ(r.stages[0].forward_compute, c.forward[0].compute * 8);
  EXPECT_EQ(r.stages[0].optimizer, opt);
  EXPECT_EQ(r.stages[0].bubble + r.stages[0].pp_comm + r.stages[0].dp_comm + r.stages[0].tp_comm, SimTime::zero());
}

TEST(Iteration, TheMeanGpuWaitsForTheSlowestWhatItDoesNotCompute) {
  // One GPU timed at the slowest GPU's pace 0.9, the mean GPU at 0.95: the
  // iteration is the slowest one's, unchanged; of each step's compute the
  // mean GPU computes the share its own model gives (forward: the mean
  // model's forward over the slowest's) and waits the rest.
  Harness h;
  const hw::ComputeModel base = h.compute;
  h.compute = base.paced(0.9, "");
  const IterationResult alone = h.run();
  const hw::ComputeModel mean = base.paced(0.95, "");
  h.compute_mean = &mean;
  const IterationResult r = h.run();
  EXPECT_EQ(r.iteration, alone.iteration);
  EXPECT_EQ(r.stages[0].total(), r.iteration);
  const SimTime slow_f = h.stage_cost(0).forward[0].compute, mean_f = h.stage_cost(0, mean).forward[0].compute;
  EXPECT_NEAR(r.stages[0].forward_compute.seconds(), 8 * slow_f.seconds() * (mean_f.seconds() / slow_f.seconds()),
              1e-9);
  EXPECT_GT(r.stages[0].waiting, SimTime::zero());
  EXPECT_EQ(r.stages[0].on_slowest, r.stages[0].waiting);  // one stage: no other waiting
  EXPECT_EQ(r.stages[0].forward_compute + r.stages[0].backward_compute + r.stages[0].waiting,
            alone.stages[0].forward_compute + alone.stages[0].backward_compute + alone.stages[0].waiting);
  // The GEMMs and attention are the paced part: the waiting is less than
  // the whole compute's (1 - 0.9 / 0.95) = 5.3%.
  EXPECT_LT(r.stages[0].waiting.seconds(),
            (alone.stages[0].forward_compute + alone.stages[0].backward_compute).seconds() * (1 - 0.9 / 0.95));
}

TEST(Iteration, AnUnfusedOptimizerStepsAtItsOwnCost) {
  // training.optimizer_impl: for-loop changes only the optimizer bucket, to
  // the unfused step over the same parameters.
  Harness h;
  const IterationResult fused = h.run();
  h.training.optimizer_impl = hw::OptimizerImpl::kForLoop;
  const IterationResult unfused = h.run();
  const StageCost c = h.stage_cost(0);
  const SimTime opt =
      h.compute.optimizer_step(c.params(), hw::ComputeModel::OptimizerState::kFp32, hw::OptimizerImpl::kForLoop);
  EXPECT_EQ(unfused.stages[0].optimizer, opt);
  EXPECT_EQ(unfused.iteration - fused.iteration, opt - fused.stages[0].optimizer);
  EXPECT_GT(opt, fused.stages[0].optimizer * 2);
}

TEST(Iteration, BucketsAddUpToTheIterationOnEveryGpu) {
  Harness h;
  h.plan.tp = 2;
  h.plan.pp = 4;
  h.plan.dp = 2;
  h.training.global_batch = 16;
  const IterationResult r = h.run();
  ASSERT_EQ(r.stages.size(), 4u);
  for (const auto& b : r.stages) EXPECT_EQ(b.total(), r.iteration);
  EXPECT_GT(r.mean.tp_comm, SimTime::zero());
  EXPECT_GT(r.mean.dp_comm + r.mean.bubble, SimTime::zero());
}

TEST(Iteration, ContextParallelCommunicationIsItsOwnBucket) {
  // CP 2 on one node without TP: the all-gather of K and V before attention
  // (and, backward, again with its gradients' reduce-scatter) is exposed,
  // and the breakdown files it as CP's, not TP's; TP 2 without CP the other
  // way round. The buckets add up on every GPU either way.
  Harness h;
  h.plan.cp = 2;
  h.plan.cp_all_gather = true;
  h.training.seq_len = 4096;
  h.training.global_batch = 4;
  const IterationResult cp = h.run();
  for (const auto& b : cp.stages) EXPECT_EQ(b.total(), cp.iteration);
  EXPECT_EQ(cp.mean.tp_comm, SimTime::zero());
  EXPECT_GT(cp.mean.cp_comm, SimTime::zero());
  h.plan.cp = 1;
  h.plan.cp_all_gather = false;
  h.plan.tp = 2;
  const IterationResult tp = h.run();
  for (const auto& b : tp.stages) EXPECT_EQ(b.total(), tp.iteration);
  EXPECT_EQ(tp.mean.cp_comm, SimTime::zero());
  EXPECT_GT(tp.mean.tp_comm, SimTime::zero());
}

TEST(Iteration, ACommunicatorsCtaCapSlowsItsOwnCollectivesOnly) {
  // TP 2 without sequence parallelism on one DGX H100 with NVLS off: each
  // layer's TP all-reduces are rings on NCCL's TP communicator. Capped at 1
  // CTA (maxCTAs) a ring moves at most one CTA's 19.0 GB/s of busbw, a
  // twentieth of NVLink 4's 370.8 once realized, so the exposed TP time
  // grows by up to that much (latencies, which the cap leaves, aside); the
  // cap on other communicators moves nothing.
  Harness h;
  h.nvls = false;
  h.plan.tp = 2;
  h.training.global_batch = 1;
  const IterationResult free = h.run();
  h.plan.nccl_max_ctas.dp = 1;
  h.plan.nccl_max_ctas.cp = 1;
  EXPECT_EQ(h.run().iteration, free.iteration);
  h.plan.nccl_max_ctas.tp = 1;
  const IterationResult capped = h.run();
  EXPECT_GT(capped.mean.tp_comm.seconds(), 5 * free.mean.tp_comm.seconds());
  EXPECT_LT(capped.mean.tp_comm.seconds(), 370.8 / 19.0 * free.mean.tp_comm.seconds());
  EXPECT_EQ(capped.mean.forward_compute, free.mean.forward_compute);
}

TEST(Iteration, TensorParallelUserbuffersAreNotNcclsToCap) {
  // With tp_comm_overlap under sequence parallelism, Transformer Engine's
  // userbuffers pipeline the layers' gathers and reduce-scatters with their
  // GEMMs: NCCL's TP CTA cap does not reach them. It reaches the gathers
  // left to NCCL (here the QKV one, tp_comm_overlap_disable_qkv) and the
  // embedding's and output layer's collectives, so the capped run is slower
  // with the QKV gather disabled than with it pipelined.
  Harness h;
  h.plan.tp = 2;
  h.plan.sequence_parallel = true;
  h.plan.tp_comm_overlap = true;
  h.training.global_batch = 1;
  h.plan.nccl_max_ctas.tp = 1;
  const IterationResult pipelined = h.run();
  h.plan.tp_comm_overlap_disable_qkv = true;
  const IterationResult plain_qkv = h.run();
  h.plan.nccl_max_ctas.tp = 0;
  const IterationResult plain_qkv_free = h.run();
  // The disabled gather is NCCL's: it pays for the cap.
  EXPECT_GT(plain_qkv.mean.tp_comm - plain_qkv_free.mean.tp_comm, SimTime::zero());
  EXPECT_GT(plain_qkv.mean.tp_comm, pipelined.mean.tp_comm);
}

TEST(Iteration, OneFOneBTakesMPlusPMinusOneSteps) {
  // P uniform stages, M micro-batches: (M + P - 1)(F + B) plus the optimizer
  // and the (small) pipeline sends; the bubble is (P - 1)(F + B) per stage.
  Harness h;
  h.plan.pp = 4;
  h.training.global_batch = 8;
  h.plan.overlap_p2p_comm = true;
  h.p2p_channel_GBps = 0;  // sends at the link's pace: the schedule alone is tested
  const IterationResult r = h.run();
  const StageCost c = h.stage_cost(1);
  const SimTime step = c.forward[0].compute + c.backward[0].compute;
  const SimTime opt = h.compute.optimizer_step(h.stage_cost(0).params());
  const double expect = ((8 + 4 - 1) * step + opt).seconds();
  EXPECT_NEAR(r.iteration.seconds() / expect, 1.0, 0.02);
  EXPECT_NEAR(r.stages[0].bubble.seconds() / (3 * step).seconds(), 1.0, 0.05);
}

// A pipeline send between two GPUs of one NVLink node rides NCCL's p2p
// channels, not the whole link (coll/p2p_bound.h). With 2 stages on a DGX
// H100 the pipeline group has 2 ranks, so NCCL cuts an activation of
// 2048 x 2304 x 2 B = 9.0 MiB into 16 parts of 576 KiB, one a channel, and
// a channel moves 19.0 GB/s: (576 + 512) KiB / 19.0 GB/s = 58.6 us, where
// the link (370.8 GB/s) would take 25.5 us. With one micro-batch both sends
// (the activation forward, its gradient back) sit on the critical path, so
// the step is 2 x (58.6 - 25.5) = 66 us longer.
TEST(Iteration, APipelineSendInsideANodeRidesNcclsP2pChannels) {
  Harness h;
  h.plan.pp = 2;
  h.training.global_batch = 1;
  h.p2p_channel_GBps = 0;
  const SimTime link_paced = h.run().iteration;
  h.p2p_channel_GBps = -1;
  const SimTime channel_paced = h.run().iteration;
  const Bytes act = h.stage_cost(0).activation_bytes;
  EXPECT_EQ(act, Bytes(2048 * 2304 * 2));
  const double bound = (act.as_double() / 16 + 512 * 1024) / 19.0e9, link = act.as_double() / (450e9 * 20.6 / 25);
  EXPECT_NEAR((channel_paced - link_paced).seconds() / (2 * (bound - link)), 1.0, 0.05);
}

TEST(Iteration, AStragglerSlowsAComputeBoundStepByItsOwnSlowdown) {
  // One GPU, no communication: the step is M (F + B) + the optimizer, all
  // of it compute but the optimizer (not scaled: it is not a step's kernel
  // work). A GPU 20% slower stretches exactly the M (F + B) part:
  //   T' - opt = 1.2 (T - opt).
  Harness h;
  const IterationResult base = h.run();
  const StageCost c = h.stage_cost(0);
  const SimTime opt = h.compute.optimizer_step(c.params());
  h.stage_compute_scale = {1.2};
  const IterationResult slow = h.run();
  EXPECT_NEAR((slow.iteration - opt).seconds() / (base.iteration - opt).seconds(), 1.2, 1e-6);
}

TEST(Iteration, AStragglerInOnePipelineStagePacesTheWholePipeline) {
  // 1F1B over P = 4 uniform stages of S = F + B per micro-batch, M = 8:
  // T = (M + P - 1) S. With stage 2's GPU (and so its TP and DP peers, who
  // wait for it at every collective) 20% slower, the slow stage is the
  // bottleneck of the pipeline: every micro-batch passes it (M x 1.2 S) and
  // the other three stages add their fill and drain once (3 S):
  //   T' = (P - 1) S + 1.2 M S = 3 S + 9.6 S = 12.6 S against 11 S,
  // a 14.5% slower step for a 20% slower GPU: not 20%, because the fill and
  // drain of the other stages do not slow. (1F1B's alternation of forward
  // and backward on the slow stage adds a little more: within 3%.)
  Harness h;
  h.plan.pp = 4;
  h.training.global_batch = 8;
  h.plan.overlap_p2p_comm = true;
  h.p2p_channel_GBps = 0;  // sends at the link's pace: the schedule alone is tested
  const IterationResult base = h.run();
  h.stage_compute_scale = {1, 1, 1.2, 1};
  const IterationResult slow = h.run();
  const StageCost c = h.stage_cost(1);
  const SimTime step = c.forward[0].compute + c.backward[0].compute;
  const SimTime opt = h.compute.optimizer_step(h.stage_cost(0).params());
  EXPECT_NEAR(base.iteration.seconds() / (11 * step + opt).seconds(), 1.0, 0.02);
  EXPECT_NEAR(slow.iteration.seconds() / (12.6 * step.seconds() + opt.seconds()), 1.0, 0.03);
  // The other stages wait for it: their waiting and bubble grow, stage 2's compute by 1.2.
  EXPECT_NEAR((slow.stages[2].forward_compute + slow.stages[2].backward_compute).seconds() /
                  (base.stages[2].forward_compute + base.stages[2].backward_compute).seconds(),
              1.2, 1e-6);
}

TEST(Iteration, InterleavingShrinksTheBubble) {
  Harness h;
  h.plan.pp = 4;
  h.plan.overlap_p2p_comm = true;
  h.training.global_batch = 8;
  const SimTime plain = h.run().mean.bubble;
  h.plan.virtual_stages = 2;
  const SimTime interleaved = h.run().mean.bubble;
  // Narayanan et al.: the bubble shrinks by the number of model chunks.
  EXPECT_NEAR(interleaved.seconds() / plain.seconds(), 0.5, 0.1);
}

TEST(Iteration, MicroBatchGroupsRunEveryStepAndAGroupOfPpChangesNothing) {
  // PP 4 x 2 chunks, 8 micro-batches: groups of 4 (PP) are the plain
  // interleaved schedule, to the picosecond. 10 micro-batches are no
  // multiple of PP 4 but run in groups of 5 (Megatron-Core's
  // microbatch_group_size_per_vp_stage): every stage computes 10 micro-
  // batches' forwards, 10 / 8 of the 8's.
  Harness h;
  h.plan.pp = 4;
  h.plan.virtual_stages = 2;
  h.plan.overlap_p2p_comm = true;
  h.training.global_batch = 8;
  const IterationResult plain = h.run();
  h.plan.microbatch_group = 4;
  const IterationResult grouped = h.run();
  EXPECT_EQ(grouped.iteration, plain.iteration);
  EXPECT_EQ(grouped.mean.bubble, plain.mean.bubble);
  h.training.global_batch = 10;
  h.plan.microbatch_group = 5;
  const IterationResult ten = h.run();
  for (size_t s = 0; s < ten.stages.size(); ++s)
    EXPECT_NEAR(ten.stages[s].forward_compute.seconds() / plain.stages[s].forward_compute.seconds(), 10.0 / 8, 1e-6)
        << "stage " << s;
  EXPECT_GT(ten.iteration, plain.iteration);
}

TEST(Iteration, ALayoutOfTheEvenSplitChangesNothingAndAnUnevenOneWidensTheBubble) {
  // 16 layers on PP 4 x 2 chunks split evenly are 2 a chunk; the layout
  // saying so gives the same iteration to the picosecond. Moving a layer
  // from the last chunk to the first leaves one chunk of 3 (and one of 1):
  // the pipeline runs at its slowest chunk's pace, so it is slower.
  Harness h;
  h.plan.pp = 4;
  h.plan.virtual_stages = 2;
  h.plan.overlap_p2p_comm = true;
  const IterationResult even = h.run();
  ASSERT_EQ(parse_pipeline_layout("Et*2|(tt|)*6,ttL", h.plan.layout), "");
  const IterationResult same = h.run();
  EXPECT_EQ(same.iteration, even.iteration);
  EXPECT_EQ(same.mean.bubble, even.mean.bubble);
  ASSERT_EQ(parse_pipeline_layout("Et*3|(tt|)*6,tL", h.plan.layout), "");
  EXPECT_GT(h.run().iteration, even.iteration);
}

TEST(Iteration, AnEmptyChunkHoldsNothingToGatherOrReduce) {
  // "Et*8||t*8|L" on PP 2 x 2 chunks leaves rank 1's first chunk without a
  // layer or a parameter: under every ZeRO stage it gathers and reduces
  // nothing (no division by its zero bytes), and the iteration still runs
  // both ranks' work.
  for (int zero : {1, 2, 3}) {
    Harness h;
    h.plan.pp = 2;
    h.plan.dp = 2;
    h.plan.virtual_stages = 2;
    h.plan.zero_stage = zero;
    h.training.global_batch = 8;
    ASSERT_EQ(parse_pipeline_layout("Et*8||t*8|L", h.plan.layout), "");
    EXPECT_EQ(h.stage_cost(1).chunk_params[0], 0);
    const IterationResult r = h.run();
    EXPECT_GT(r.iteration, SimTime::zero()) << "zero_stage " << zero;
    EXPECT_GT(r.stages[1].forward_compute, SimTime::zero()) << "zero_stage " << zero;
  }
}

TEST(Iteration, BlockingPipelineSendsCostMoreThanOverlappedOnes) {
  Harness h;
  h.plan.pp = 2;
  h.training.global_batch = 8;
  h.plan.overlap_p2p_comm = true;
  const IterationResult async = h.run();
  h.plan.overlap_p2p_comm = false;
  const IterationResult sync = h.run();
  EXPECT_GT(sync.mean.pp_comm, async.mean.pp_comm);
  EXPECT_GT(sync.iteration, async.iteration);
}

TEST(Iteration, OverlappingTheGradientReductionHidesIt) {
  Harness h;
  h.plan.dp = 16;  // two DGX nodes
  h.training.global_batch = 32;
  h.plan.overlap_grad_reduce = false;
  const IterationResult after = h.run();
  h.plan.overlap_grad_reduce = true;
  const IterationResult overlapped = h.run();
  EXPECT_GT(after.mean.dp_comm, SimTime::zero());
  EXPECT_LT(overlapped.mean.dp_comm, after.mean.dp_comm);
}

TEST(Iteration, WithoutOverlapEveryChunksGradientsAreReducedAfterTheFlush) {
  // Megatron without grad-reduce overlap reduces every model chunk's
  // gradients after forward_backward returns (the 2021 train_step loops
  // over the chunks' allreduce_gradients; Megatron-Core's
  // finalize_model_grads), so with 2 chunks per stage the whole stage's
  // gradients are reduced after its last step, as with 1 chunk: the same
  // bytes, one collective a chunk (two of half the bytes), so the exposed
  // reduction is about that of 1 chunk. Reducing a chunk at
  // its own last backward hid the first chunk's behind the second's
  // backward: about half.
  Harness h;
  h.plan.pp = 2;
  h.plan.dp = 16;  // two DGX nodes per stage
  h.plan.overlap_p2p_comm = true;
  h.training.global_batch = 64;
  h.plan.overlap_grad_reduce = false;
  const SimTime one_chunk = h.run().mean.dp_comm;
  h.plan.virtual_stages = 2;
  const SimTime two_chunks = h.run().mean.dp_comm;
  ASSERT_GT(one_chunk, SimTime::zero());
  EXPECT_GT(two_chunks.seconds() / one_chunk.seconds(), 0.85);
}

// PP 2 x 2 chunks of gpt-1.7b cut to 16 layers (4 a chunk), DP 16 with
// ZeRO-1, 4 micro-batches a pipeline.
void pp2_by_2_chunks_over_dp16(Harness& h) {
  h.plan.pp = 2;
  h.plan.virtual_stages = 2;
  h.plan.dp = 16;
  h.plan.zero_stage = 1;
  h.training.global_batch = 64;
}

// The data-parallel collectives stages 0 and 1 run in one iteration.
std::pair<int, int> dp_collectives_by_stage(Harness& h) {
  IterationTelemetry tel;
  std::map<std::string, int> count;
  tel.collective.subscribe([&](const std::string& communicator, SimTime, SimTime) { ++count[communicator]; });
  h.telemetry = &tel;
  h.run();
  h.telemetry = nullptr;
  return {count["dp stage 0"], count["dp stage 1"]};
}

TEST(Iteration, MegatronBucketsOnlyTheFirstStagesFirstChunk) {
  // Megatron-Core's DDP reduces gradients in buckets only where the
  // reduction ends the iteration: on pipeline stage 0, chunk 0; every other
  // chunk's gradients go in one collective after its last backward. Without
  // overlapped gathers, its distributed optimizer then all-gathers each
  // chunk's parameters bucket by bucket, in the same buckets. PP 2 x 2
  // chunks of gpt-1.7b cut to 16 layers, 4 a chunk, DP 16, 40M parameters a
  // bucket. In backward order a layer is down and up projections of 21.2M,
  // a norm, output 5.3M and QKV 15.9M, a norm. Megatron closes a bucket at
  // the tensor that reaches 40M: the last layer's MLP (42.4M), then each
  // layer's attention with the next layer's down projection, each up
  // projection with its attention: 6 for 4 layers; the first layer's norm
  // alone, as the tied embedding (shared with the last stage) takes a
  // bucket of its own: 8. Stage 0 runs 8 + 1 reduce-scatters and as many
  // all-gathers (18 DP collectives), stage 1 runs 1 + 1 of each (4).
  // DeepSpeed buckets every chunk and reduces before the tensor that would
  // pass 40M: the last layer's down projection alone, then up projection
  // with attention (26.5M), then QKV with the next down projection (37.1M),
  // up projection with attention, ...: 8 for 4 layers and the rest, 9 a
  // chunk, 9 + 9 of each on both stages (36). Without overlap, one of each
  // a chunk everywhere (4).
  Harness h;
  pp2_by_2_chunks_over_dp16(h);
  h.plan.overlap_param_gather = false;
  h.plan.bucket_bytes = 80'000'000;  // set, so that DeepSpeed's buckets below are the same
  ASSERT_EQ(h.run().dp_buckets, 8);
  EXPECT_EQ(dp_collectives_by_stage(h), std::make_pair(18, 4));
  h.plan.framework = ShardingFramework::kDeepSpeed;
  EXPECT_EQ(h.run().dp_buckets, 9);
  EXPECT_EQ(dp_collectives_by_stage(h), std::make_pair(36, 36));
  h.plan.framework = ShardingFramework::kMegatron;
  h.plan.overlap_grad_reduce = false;
  EXPECT_EQ(dp_collectives_by_stage(h), std::make_pair(4, 4));
}

// PP 2 x 4 chunks of gpt-1.7b cut to 16 layers (2 a chunk), DP 16 with
// ZeRO-1: stage 0's parameter gathers (one a chunk: Megatron buckets only
// the first chunk, and with the gradients reduced after the flush nothing
// else runs on its DP stream before the last backward), by when each
// started, and each chunk's first forward.
struct GatherTimes {
  std::vector<SimTime> gather_start, gather_end, first_forward;
  SimTime dp_comm;
};
GatherTimes stage0_gathers(Harness& h) {
  h.plan.pp = 2;
  h.plan.virtual_stages = 4;
  h.plan.dp = 16;
  h.plan.zero_stage = 1;
  h.plan.overlap_grad_reduce = false;
  h.plan.overlap_p2p_comm = true;
  h.training.global_batch = 64;  // 4 micro-batches a pipeline
  IterationTelemetry tel;
  GatherTimes g;
  tel.collective.subscribe([&](const std::string& communicator, SimTime start, SimTime end) {
    if (communicator != "dp stage 0" || g.gather_start.size() == 4) return;
    g.gather_start.push_back(start);
    g.gather_end.push_back(end);
  });
  h.telemetry = &tel;
  const IterationResult r = h.run();
  h.telemetry = nullptr;
  g.first_forward.assign(4, SimTime::max());
  for (const Interval& i : r.timeline[0])
    if (i.kind == IntervalKind::kForward && i.chunk >= 0)
      g.first_forward[i.chunk] = std::min(g.first_forward[i.chunk], i.start);
  g.dp_comm = r.stages[0].dp_comm;
  return g;
}

TEST(Iteration, MegatronLaunchesAnInterleavedChunksGatherAPipelinesDepthOfForwardsBeforeItsFirstUse) {
  // Megatron-LM's interleaved schedule (align_param_gather, its default)
  // launches the first two chunks' gathers at the step's start and chunk
  // c's in the forward step j with j + stage = (c - 1) x PP. Stage 0's
  // forwards take the chunks PP = 2 micro-batches at a time (0 0 1 1 2 2
  // 3 3 0 0 ...), so chunk c's first forward is its forward 2c: chunk 2's
  // gather is launched when the stage reaches chunk 1's first forward
  // (j = 2), chunk 3's when it reaches chunk 2's (j = 4), a chunk's worth
  // of forwards ahead of their own, and both end before they are needed.
  // Without alignment each chunk's gather is launched when the stage
  // reaches the chunk's first forward (its DDP pre-hook), which starts
  // when the gather ends: more of stage 0's time is exposed DP time.
  Harness h;
  const GatherTimes aligned = stage0_gathers(h);
  ASSERT_EQ(aligned.gather_start.size(), 4u);
  EXPECT_EQ(aligned.gather_start[0], SimTime::zero());
  EXPECT_EQ(aligned.gather_start[1], aligned.gather_end[0]);  // queued at the start, behind chunk 0's
  EXPECT_EQ(aligned.first_forward[0], aligned.gather_end[0]);
  EXPECT_GT(aligned.gather_start[2], aligned.gather_end[1]);  // not at the start: the stream idled
  EXPECT_GT(aligned.gather_start[2], aligned.first_forward[0]);
  EXPECT_LE(aligned.gather_start[2], aligned.first_forward[1]);
  EXPECT_GT(aligned.gather_start[3], aligned.first_forward[1]);
  EXPECT_LE(aligned.gather_start[3], aligned.first_forward[2]);
  for (int c = 1; c < 4; ++c) EXPECT_LT(aligned.gather_end[c], aligned.first_forward[c]) << "chunk " << c;

  h.plan.align_param_gather = false;
  const GatherTimes unaligned = stage0_gathers(h);
  ASSERT_EQ(unaligned.gather_start.size(), 4u);
  for (int c = 1; c < 4; ++c) {
    EXPECT_GT(unaligned.gather_start[c], unaligned.first_forward[c - 1]) << "chunk " << c;
    EXPECT_EQ(unaligned.first_forward[c], unaligned.gather_end[c]) << "chunk " << c;
  }
  EXPECT_GT(unaligned.dp_comm, aligned.dp_comm);
}

TEST(Iteration, OverlappingTheFirstGatherWithTheOptimizerStepBucketsNoChunk) {
  // Megatron-LM's training.py turns bucketing off for every chunk when the
  // first chunk's gather overlaps the optimizer step ("disable_bucketing =
  // (model_chunk_idx > 0) or args.overlap_param_gather_with_optimizer_step").
  // The plan of MegatronBucketsOnlyTheFirstStagesFirstChunk with overlapped
  // gathers: stage 0's first chunk has 8 buckets, so stage 0 runs 8 + 1
  // gathers and 8 + 1 reduce-scatters (18); with the option, one of each a
  // chunk (4), as stage 1 runs either way.
  Harness h;
  pp2_by_2_chunks_over_dp16(h);
  h.plan.overlap_param_gather = true;
  h.plan.bucket_bytes = 80'000'000;
  EXPECT_EQ(dp_collectives_by_stage(h), std::make_pair(18, 4));
  h.plan.overlap_param_gather_with_optimizer_step = true;
  EXPECT_EQ(h.run().dp_buckets, 1);
  EXPECT_EQ(dp_collectives_by_stage(h), std::make_pair(4, 4));
}

TEST(Iteration, Fp32GradientReductionMovesTwiceTheBytes) {
  // 16 layers of gpt-1.7b reduced after the backward over 16 GPUs on two
  // DGX H100 nodes: over 1 GB of bf16 gradients, twice that in fp32
  // (Megatron-LM's bf16 default). Without overlap the chunk's gradients go
  // in one collective, which carries twice the bytes while its fixed
  // latency stays: the exposed reduction takes between 1.5 and 2 times as
  // long.
  Harness h;
  h.plan.dp = 16;
  h.training.global_batch = 32;
  h.plan.overlap_grad_reduce = false;
  const IterationResult bf16 = h.run();
  h.plan.grad_reduce_in_fp32 = true;
  const IterationResult fp32 = h.run();
  const double ratio = fp32.mean.dp_comm.seconds() / bf16.mean.dp_comm.seconds();
  EXPECT_GT(ratio, 1.5);
  EXPECT_LT(ratio, 2.0);
}

TEST(Iteration, Zero3GathersNotOverlappedAddToTheComputeInsteadOfHidingBehindIt) {
  // Serialized, a step's gathers run before its compute, which then has
  // the SMs to itself: the compute buckets are the steps' own compute
  // (micro-batches x forward / backward), the gathers all exposed DP comm,
  // and the iteration longer than with the gathers overlapped.
  Harness h;
  h.plan.dp = 16;  // two DGX nodes
  h.plan.zero_stage = 3;
  h.training.global_batch = 32;  // 2 micro-batches per replica
  h.plan.overlap_param_gather = true;
  const IterationResult overlapped = h.run();
  h.plan.overlap_param_gather = false;
  const IterationResult serial = h.run();
  const StageCost c = h.stage_cost(0);
  EXPECT_EQ(serial.mean.forward_compute, c.forward[0].compute * 2);
  EXPECT_EQ(serial.mean.backward_compute, c.backward[0].compute * 2);
  EXPECT_GT(serial.mean.dp_comm, SimTime::zero());
  EXPECT_GT(serial.iteration, overlapped.iteration);
}

// ZeRO-1 over two DGX H100 nodes (DP 16), one micro-batch a replica, the
// parameters gathered ahead of the forward and the gradients reduced
// after the backward.
void zero1_one_sample_over_two_nodes(Harness& h) {
  h.plan.dp = 16;
  h.plan.zero_stage = 1;
  h.training.global_batch = 16;
  h.plan.overlap_param_gather = true;
  h.plan.overlap_grad_reduce = false;
}

TEST(Iteration, AForwardIsNotSlowedByTheGatherItWaitedFor) {
  // ZeRO-1 over two DGX H100 nodes, one micro-batch a replica: the
  // forward starts when its parameters' gather has ended, and the
  // gradients are reduced after the backward (no overlap), so no
  // collective runs beside either step: each takes its own compute,
  // however busy the DP stream was just before, and the SMs a collective
  // holds change nothing (the same iteration as with collectives that
  // hold none).
  Harness h;
  zero1_one_sample_over_two_nodes(h);
  const IterationResult r = h.run();
  h.collective_ctas = 0;
  const IterationResult free_sms = h.run();
  const StageCost c = h.stage_cost(0);
  EXPECT_GT(r.mean.dp_comm, SimTime::zero());
  EXPECT_EQ(r.mean.forward_compute, c.forward[0].compute);
  EXPECT_EQ(r.mean.backward_compute, c.backward[0].compute);
  EXPECT_EQ(r.iteration, free_sms.iteration);
}

TEST(Iteration, ABucketedChunksForwardWaitsForEachBucketOnlyWhereItNeedsIt) {
  // Megatron's DDP gathers the first stage's first chunk bucket by bucket,
  // in its gradient buckets, the forward's first layers' bucket first, and
  // each layer's forward pre-hook waits for its own bucket only. ZeRO-1
  // over two DGX H100 nodes (DP 16), one micro-batch: with 40 MB buckets
  // the forward starts when the first bucket's gather ends (its first
  // collective's end) and computes while the others arrive, each in time
  // or nearly, so less of the step waits on DP than with one bucket,
  // whose gather the forward waits for whole.
  Harness h;
  zero1_one_sample_over_two_nodes(h);
  h.plan.overlap_grad_reduce = true;  // Megatron buckets only with overlap
  std::vector<std::pair<SimTime, SimTime>> gathers;
  IterationTelemetry tel;
  tel.collective.subscribe([&](const std::string& communicator, SimTime start, SimTime end) {
    if (communicator == "dp stage 0") gathers.emplace_back(start, end);
  });
  h.telemetry = &tel;
  h.plan.bucket_bytes = 40'000'000;
  const IterationResult bucketed = h.run();
  ASSERT_GT(bucketed.dp_buckets, 1);
  const size_t n = static_cast<size_t>(bucketed.dp_buckets_simulated);
  ASSERT_GE(gathers.size(), 2 * n);  // the gathers, then the reduce-scatters
  SimTime forward_start = SimTime::max();
  for (const Interval& i : bucketed.timeline[0])
    if (i.kind == IntervalKind::kForward) forward_start = std::min(forward_start, i.start);
  EXPECT_EQ(forward_start, gathers[0].second);
  EXPECT_LT(forward_start, gathers[n - 1].second);  // it computed while the rest arrived
  gathers.clear();
  h.plan.bucket_bytes = 1'000'000'000'000;
  const IterationResult whole = h.run();
  ASSERT_EQ(whole.dp_buckets, 1);
  EXPECT_LT(bucketed.mean.dp_comm, whole.mean.dp_comm);
  EXPECT_LT(bucketed.iteration, whole.iteration);
}

TEST(Iteration, AReduceScatterBesideTheBackwardCostsTheSmsItHoldsAsDpTime) {
  // The same step with the gradients reduced as their buckets fill: the
  // reduce-scatters run beside the backward, their CTAs holding 16 of the
  // H100's 132 SMs, so the backward computes at 1 - 16/132 of its rate
  // while they run. That time is the collectives' doing, booked as DP
  // communication: the compute buckets stay the compute model's, and
  // against a library whose collectives hold no SMs the iteration and the
  // DP bucket grow by the same amount. Overlapping still hides more than it
  // costs.
  Harness h;
  zero1_one_sample_over_two_nodes(h);
  const IterationResult after = h.run();
  h.plan.overlap_grad_reduce = true;
  const IterationResult beside = h.run();
  h.collective_ctas = 0;
  const IterationResult free_sms = h.run();
  const StageCost c = h.stage_cost(0);
  EXPECT_EQ(beside.mean.forward_compute, c.forward[0].compute);
  EXPECT_EQ(beside.mean.backward_compute, c.backward[0].compute);
  const SimTime stretch = beside.iteration - free_sms.iteration;
  EXPECT_GT(stretch, SimTime::zero());
  EXPECT_EQ(beside.mean.dp_comm - free_sms.mean.dp_comm, stretch);
  // The run says how much of its DP bucket that is: at least the growth
  // (part of the lost time would have been spent waiting on the tail anyway).
  EXPECT_GE(beside.mean.on_collective_sms, stretch);
  EXPECT_LE(beside.mean.on_collective_sms, beside.mean.dp_comm);
  EXPECT_EQ(free_sms.mean.on_collective_sms, SimTime::zero());
  EXPECT_LT(beside.iteration, after.iteration);
}

// Short sequences (256 tokens) make the backward B short beside the
// gradients' reduce-scatter across two nodes; two buckets, the first full
// about halfway through B (at the tensor that reaches half the gradients:
// `rest` of B is then still to run), and its reduce-scatter outlasts the
// step. Returns the stage's cost.
StageCost backward_beside_two_buckets(Harness& h, double* rest) {
  zero1_one_sample_over_two_nodes(h);
  h.training.seq_len = 256;
  h.plan.overlap_grad_reduce = true;
  // The parameters gathered after the optimizer step, bucket by bucket: no
  // gather runs beside the forward (ABucketedChunksForward... prices that).
  h.plan.overlap_param_gather = false;
  const StageCost c = h.stage_cost(0);
  h.plan.bucket_bytes = (c.params() * 2 + 1) / 2;  // bf16 gradients in two buckets
  const std::vector<GradBucket> b =
      form_buckets(backward_tensors(h.model, h.plan, 0, 0, true), h.plan.bucket_bytes / 2, BucketRule::kCloseAfter, false);
  EXPECT_EQ(b.size(), 2u);
  *rest = 1.0 - static_cast<double>(b[0].ready) / static_cast<double>(b[1].ready);
  EXPECT_NEAR(*rest, 0.5, 0.05);
  return c;
}

size_t backward_at(const std::vector<Interval>& line) {
  size_t b = 0;
  while (b < line.size() && line[b].kind != IntervalKind::kBackward) ++b;
  return b;
}

TEST(Iteration, ADataParallelCollectiveHoldsTheCtasItsCommunicatorAllows) {
  // The reduce-scatters beside the backward hold their CTAs' SMs: NCCL's 16
  // of the H100's 132 by default, 32 with the DP communicator held to at
  // least 32 (minCTAs), which runs its collectives no faster across the
  // nodes' NICs. The step's loss to them grows with the share: 16/132 of
  // the backward's rate while they run, then 32/132.
  Harness h;
  zero1_one_sample_over_two_nodes(h);
  h.plan.overlap_grad_reduce = true;
  h.collective_ctas = 0;
  const IterationResult free = h.run();
  h.collective_ctas = -1;
  const IterationResult sixteen = h.run();
  h.plan.nccl_min_ctas.dp = 32;
  const IterationResult thirty_two = h.run();
  EXPECT_GT(sixteen.iteration, free.iteration);
  EXPECT_GT(thirty_two.iteration, sixteen.iteration);
  EXPECT_GT(thirty_two.mean.on_collective_sms, sixteen.mean.on_collective_sms);
  EXPECT_EQ(free.mean.on_collective_sms, SimTime::zero());
}

TEST(Iteration, ABackwardBesideAReduceScatterToItsEndComputesAtTheRestOfTheGpu) {
  // From the first bucket to the backward's end the DP stream is busy (a DP
  // tail follows the step), so the rest of the work, R = rest x B, runs at
  // 1 - 16/132 of the rate:
  //   step = (B - R) + R / (1 - taken), i.e. a stretch of R taken / (1 - taken),
  // booked as DP time of micro-batch 0 right after the backward, to within
  // the settlement's 1 ns cut-off.
  Harness h;
  double rest = 0;
  const StageCost c = backward_beside_two_buckets(h, &rest);
  const IterationResult r = h.run();
  const std::vector<Interval>& line = r.timeline[0];
  const size_t b = backward_at(line);
  ASSERT_LT(b + 2, line.size());
  const Interval& stretch = line[b + 1];
  ASSERT_EQ(stretch.kind, IntervalKind::kDpComm);
  EXPECT_EQ(stretch.micro_batch, 0);
  EXPECT_EQ(line[b + 2].kind, IntervalKind::kDpComm);  // the tail: still busy at the step's end
  const double taken = 16.0 / 132, R = c.backward[0].compute.seconds() * rest;
  EXPECT_NEAR((stretch.end - stretch.start).seconds(), R * taken / (1 - taken), 2e-9);
  EXPECT_EQ(r.mean.on_collective_sms, stretch.end - stretch.start);
}

TEST(Iteration, ItSaysHowManyGradientBucketsThePlanHasAndHowManyItSimulates) {
  // Gradients reduced with overlap over two nodes, at a bucket_size of one
  // byte: a bucket holds whole tensors, so each is its own. The small GPT's
  // 16 layers have 6 each (MLP down and up, norm, attention output and
  // QKV, norm), plus the final norm and the tied embedding with its
  // positions: 98, all simulated. With 64 layers, 386, of which 256 are
  // simulated (their bytes merged). With half the chunk a bucket: 2 and 2.
  // Without overlap: 0 and 0.
  Harness h;
  zero1_one_sample_over_two_nodes(h);
  h.training.seq_len = 256;
  h.plan.overlap_grad_reduce = true;
  h.plan.bucket_bytes = 1;
  IterationResult r = h.run();
  EXPECT_EQ(r.dp_buckets, 98);
  EXPECT_EQ(r.dp_buckets_simulated, 98);
  EXPECT_EQ(r.dp_bucket_bytes, 1);
  h.model.layers = 64;
  r = h.run();
  EXPECT_EQ(r.dp_buckets, 386);
  EXPECT_EQ(r.dp_buckets_simulated, 256);
  h.model.layers = 16;
  const StageCost c = h.stage_cost(0);
  h.plan.bucket_bytes = (c.params() * 2 + 1) / 2;
  r = h.run();
  EXPECT_EQ(r.dp_buckets, 2);
  EXPECT_EQ(r.dp_buckets_simulated, 2);
  h.plan.overlap_grad_reduce = false;
  r = h.run();
  EXPECT_EQ(r.dp_buckets, 0);
  EXPECT_EQ(r.dp_buckets_simulated, 0);
}

TEST(Iteration, UnsetBucketSizeIsMegatronsRuleOfAMillionParametersARank) {
  // bucket_size 0: Megatron-Core's max(40M, 1M x DP) parameters in the
  // gradients' dtype, bf16 here: 80 MB at DP 16, 256 MB at DP 128; an
  // fp32 reduce doubles it; DeepSpeed's 5e8 parameters are 1 GB in 16 bits.
  Harness h;
  zero1_one_sample_over_two_nodes(h);
  h.training.seq_len = 256;
  h.plan.overlap_grad_reduce = true;
  h.plan.bucket_bytes = 0;
  EXPECT_EQ(h.run().dp_bucket_bytes, 80'000'000);
  EXPECT_EQ(gradient_bucket_bytes(h.training, h.plan), 80'000'000);
  h.plan.dp = 128;
  EXPECT_EQ(gradient_bucket_bytes(h.training, h.plan), 256'000'000);
  h.plan.grad_reduce_in_fp32 = true;
  EXPECT_EQ(gradient_bucket_bytes(h.training, h.plan), 512'000'000);
  h.plan.grad_reduce_in_fp32 = false;
  h.plan.framework = ShardingFramework::kDeepSpeed;
  EXPECT_EQ(gradient_bucket_bytes(h.training, h.plan), 1'000'000'000);
}

TEST(Iteration, WithOneHardwareQueueTheComputeWaitsForTheCollectivesBesideIt) {
  // The case above with one hardware queue (CUDA_DEVICE_MAX_CONNECTIONS=1):
  // from the first bucket on, the reduce-scatters hold back the rest of the
  // backward until the DP stream is idle, and only then does the rest of it,
  // R, run. The DP stream itself runs as before (its buckets are queued at
  // the same instants), so where the stage used to end with the stream's
  // tail, it now ends R later: iteration(1) - iteration(8) = R, and no DP
  // tail follows the step.
  Harness h;
  double rest = 0;
  const StageCost c = backward_beside_two_buckets(h, &rest);
  const IterationResult shared = h.run();
  h.plan.device_max_connections = 1;
  const IterationResult one = h.run();
  EXPECT_NEAR((one.iteration - shared.iteration).seconds(), c.backward[0].compute.seconds() * rest, 2e-9);
  const std::vector<Interval>& line = one.timeline[0];
  const size_t b = backward_at(line);
  ASSERT_LT(b + 2, line.size());
  EXPECT_EQ(line[b + 1].kind, IntervalKind::kDpComm);  // the compute held back, booked as DP time
  EXPECT_EQ(line[b + 1].micro_batch, 0);
  EXPECT_NE(line[b + 2].kind, IntervalKind::kDpComm);  // the stream was idle before the step could end
  EXPECT_EQ(one.mean.on_collective_sms, line[b + 1].end - line[b + 1].start);
}

TEST(Iteration, WithOneHardwareQueueACollectiveQueuedAtTheComputesEndHoldsNothingBack) {
  // Two pipeline stages over two DGX H100 nodes (DP 8), gradients reduced
  // with overlap: Megatron buckets only the first stage's chunk, so the
  // last stage reduces its gradients in one collective queued as its last
  // backward's compute ends, after every kernel of it. With one queue that
  // collective holds back no compute of that step: the last stage loses
  // none to collectives, and its exposed DP time is the same as with eight
  // queues.
  Harness h;
  h.plan.pp = 2;
  h.plan.dp = 8;
  h.plan.zero_stage = 1;
  h.plan.overlap_grad_reduce = true;
  h.plan.overlap_param_gather = false;
  h.training.global_batch = 32;  // 4 micro-batches a pipeline
  const IterationResult shared = h.run();
  h.plan.device_max_connections = 1;
  const IterationResult one = h.run();
  EXPECT_EQ(one.stages[1].on_collective_sms, SimTime::zero());
  EXPECT_EQ(one.stages[1].dp_comm, shared.stages[1].dp_comm);
  EXPECT_GT(one.stages[1].dp_comm, SimTime::zero());
}

TEST(Iteration, WithOneHardwareQueueZero3sOverlappedGathersCostWhatSerializedOnesDo) {
  // ZeRO-3 overlapped, one queue: a step's gathers and reduce-scatters hold
  // its compute back for as long as they run, so a step takes its
  // collectives M plus its compute C, as when they run before it
  // (overlap_param_gather false): the same iteration and DP time.
  Harness h;
  h.plan.dp = 16;
  h.plan.zero_stage = 3;
  h.training.global_batch = 32;
  h.plan.device_max_connections = 1;
  h.plan.overlap_param_gather = false;
  const IterationResult serial = h.run();
  h.plan.overlap_param_gather = true;
  const IterationResult held = h.run();
  EXPECT_EQ(held.iteration, serial.iteration);
  EXPECT_EQ(held.mean.dp_comm, serial.mean.dp_comm);
  EXPECT_GT(held.mean.dp_comm, SimTime::zero());
  // Nothing ran beside the compute: no compute was lost to collectives.
  EXPECT_EQ(held.mean.on_collective_sms, SimTime::zero());
}

TEST(Iteration, Zero3CollectivesShorterThanTheStepTakeTheirSmsOnlyWhileTheyRun) {
  // ZeRO-3 over two DGX H100 nodes, micro-batches of 8 sequences: each step
  // computes far longer than its gathers (and the backward's
  // reduce-scatters) run. They hold 16 of the H100's 132 SMs while they
  // run, so a step loses 16/132 of their time, not of its own: the compute
  // lost to them is 16/132 of the collectives' time, which the serialized
  // run books whole as DP time, and far under the share of the whole steps.
  Harness h;
  h.plan.dp = 16;
  h.plan.zero_stage = 3;
  h.training.micro_batch = 8;
  h.training.global_batch = 128;  // one micro-batch a replica
  h.plan.overlap_param_gather = false;
  const IterationResult serial = h.run();
  h.plan.overlap_param_gather = true;
  const IterationResult overlapped = h.run();
  const double taken = 16.0 / 132;
  EXPECT_NEAR(overlapped.mean.on_collective_sms.seconds(), serial.mean.dp_comm.seconds() * taken, 1e-6);
  const StageCost c = h.stage_cost(0);
  const double whole = (c.forward[0].compute + c.backward[0].compute).seconds() * taken / (1 - taken);
  EXPECT_LT(overlapped.mean.on_collective_sms.seconds(), whole / 2);
}

TEST(Iteration, Fp8WeightsGatherInHalfTheTime) {
  // ZeRO-1 over two DGX H100 nodes without gradient-reduce overlap: the DP
  // stream gathers the updated parameters before the forward (the first
  // interval) and reduces the gradients after the backward. Kept in FP8
  // (fp8_param_gather), the parameters are gathered as 1 byte each instead
  // of 2: a ring all-gather of that size across two nodes is bandwidth-bound,
  // so the gather takes about half as long (its fixed latency aside), and
  // the gradients' reduce-scatter, in bf16 either way, does not change.
  Harness h;
  zero1_one_sample_over_two_nodes(h);
  h.training.precision = hw::Precision::kFp8;
  const IterationResult bf16 = h.run();
  h.plan.fp8_param_gather = true;
  const IterationResult fp8 = h.run();
  const Interval& g16 = bf16.timeline[0].front();
  const Interval& g8 = fp8.timeline[0].front();
  ASSERT_EQ(g16.kind, IntervalKind::kDpComm);
  ASSERT_EQ(g8.kind, IntervalKind::kDpComm);
  EXPECT_NEAR((g8.end - g8.start).seconds() / (g16.end - g16.start).seconds(), 0.5, 0.05);
  const SimTime reduce16 = bf16.mean.dp_comm - (g16.end - g16.start);
  const SimTime reduce8 = fp8.mean.dp_comm - (g8.end - g8.start);
  EXPECT_NEAR(reduce8.seconds(), reduce16.seconds(), 1e-9);
}

TEST(Iteration, SerializedZero3CollectivesCostAStepTheSameAtEveryMicroBatchSize) {
  // The signature MosaicML's micro-batch sweep on A100 shows
  // (scenarios/mpt-a100-microbatch): run before each step's compute, a
  // step's gathers and reduce-scatters move the same bytes whatever the
  // step carries, so the exposed DP time is the same at micro-batch 1 and
  // 2, a fixed cost a step. Hidden behind the compute, less of them shows
  // as the compute grows.
  Harness h;
  h.plan.dp = 16;  // two DGX nodes
  h.plan.zero_stage = 3;
  h.plan.overlap_param_gather = false;
  h.training.micro_batch = 1;
  h.training.global_batch = 32;  // 2 steps per replica
  const IterationResult one = h.run();
  h.training.micro_batch = 2;
  h.training.global_batch = 64;  // 2 steps of twice the sequences
  const IterationResult two = h.run();
  EXPECT_GT(one.mean.dp_comm, SimTime::zero());
  EXPECT_EQ(two.mean.dp_comm, one.mean.dp_comm);
  EXPECT_GT(two.mean.forward_compute, one.mean.forward_compute);
  // Overlapped, the gathers outlast every step of one or two sequences and
  // hold 16 of the H100's 132 SMs: each forward and backward computes at 1 - 16/132 of
  // its rate, the difference booked as DP time beside what the collectives
  // leave exposed. That exposed part is what shrinks as the compute grows.
  h.plan.overlap_param_gather = true;
  const auto exposed = [&h] {
    const StageCost c = h.stage_cost(0);
    const double taken = 16.0 / 132;
    const double steps = static_cast<double>(h.training.global_batch / h.training.micro_batch / h.plan.dp);
    const double stretch = steps * (c.forward[0].compute + c.backward[0].compute).seconds() * taken / (1 - taken);
    return h.run().mean.dp_comm.seconds() - stretch;
  };
  const double hidden_two = exposed();
  h.training.micro_batch = 1;
  h.training.global_batch = 32;
  const double hidden_one = exposed();
  EXPECT_LT(hidden_two, two.mean.dp_comm.seconds());
  EXPECT_LE(hidden_two, hidden_one + 1e-9);
}

TEST(Iteration, Fp32TrainingGathersAndReducesFourBytesAParameter) {
  // Trained in fp32, ZeRO-3 gathers fp32 weights and reduce-scatters fp32
  // gradients: twice the bf16 bytes through the same collectives. With the
  // gathers serialized before the compute, the exposed DP time grows by
  // less than 2x (each collective's latency does not double) but by more
  // than 1.5x (at 2 nodes these gathers are bandwidth-bound).
  Harness h;
  h.plan.dp = 16;
  h.plan.zero_stage = 3;
  h.plan.overlap_param_gather = false;
  h.training.global_batch = 32;
  const SimTime bf16 = h.run().mean.dp_comm;
  h.training.precision = hw::Precision::kFp32;
  const SimTime fp32 = h.run().mean.dp_comm;
  const double ratio = fp32.seconds() / bf16.seconds();
  EXPECT_GT(ratio, 1.5);
  EXPECT_LT(ratio, 2.0);
}

TEST(Iteration, HybridShardGathersInsideANodeAndAllReducesAcrossNodes) {
  // HYBRID_SHARD with a shard group of one DGX node (8 GPUs) on DP 16
  // gathers and reduce-scatters over NVLink only; what crosses the nodes is
  // each gradient shard's all-reduce between the two replicas, 1/8 of a
  // bucket. Serialized before the compute, its exposed DP time is below
  // FULL_SHARD's, whose every gather crosses the 400G NICs. A shard group of
  // all 16 ranks is FULL_SHARD, to the picosecond.
  Harness h;
  h.plan.dp = 16;
  h.plan.zero_stage = 3;
  h.plan.overlap_param_gather = false;
  h.training.global_batch = 32;
  const IterationResult full = h.run();
  h.plan.shard_group = 16;
  EXPECT_EQ(h.run().iteration, full.iteration);
  h.plan.shard_group = 8;
  const IterationResult hybrid = h.run();
  EXPECT_GT(hybrid.mean.dp_comm, SimTime::zero());
  EXPECT_LT(hybrid.mean.dp_comm, full.mean.dp_comm);
}

TEST(Iteration, RecomputingSomeLayersOfAChunkRerunsOnlyTheirForward) {
  // 16 layers on PP 2 x 2 chunks: chunks of 4 layers. Recomputing the
  // first 1 of each re-runs a quarter of each chunk's forward inside its
  // backward, where full recomputation re-runs all of it.
  Harness h;
  h.plan.pp = 2;
  h.plan.virtual_stages = 2;
  h.training.recompute = Recompute::kFull;
  const StageCost full = h.stage_cost(0);
  h.training.recompute_layers = 1;
  const StageCost one = h.stage_cost(0);
  for (int c = 0; c < 2; ++c) {
    EXPECT_GT(one.backward[c].recompute, SimTime::zero());
    EXPECT_EQ(one.backward[c].recompute * 4, full.backward[c].recompute);
    EXPECT_EQ(full.backward[c].compute - one.backward[c].compute, one.backward[c].recompute * 3);
  }
  // The whole iteration's recomputation: a quarter of full's.
  h.training.global_batch = 8;
  const SimTime quarter = h.run().mean.recompute;
  h.training.recompute_layers = 0;
  EXPECT_EQ(quarter * 4, h.run().mean.recompute);
}

TEST(Iteration, DeepSpeedRecomputationGathersTheParametersAgain) {
  // Full recomputation re-runs a block's forward inside its backward; under
  // DeepSpeed each sub-module gathers its parameters for that forward and
  // again for its backward, so its exposed gathers exceed FSDP-style
  // (one gather per unit per backward) by one gather per backward. Without
  // recomputation the two frameworks gather alike.
  Harness h;
  h.plan.dp = 16;
  h.plan.zero_stage = 3;
  h.plan.overlap_param_gather = false;
  h.training.global_batch = 32;
  h.training.recompute = Recompute::kFull;
  h.plan.framework = ShardingFramework::kMegatron;
  const SimTime fsdp_full = h.run().mean.dp_comm;
  h.plan.framework = ShardingFramework::kDeepSpeed;
  const SimTime deepspeed_full = h.run().mean.dp_comm;
  h.training.recompute = Recompute::kNone;
  const SimTime deepspeed_none = h.run().mean.dp_comm;
  h.plan.framework = ShardingFramework::kMegatron;
  const SimTime fsdp_none = h.run().mean.dp_comm;
  EXPECT_GT(deepspeed_full, fsdp_full);
  EXPECT_EQ(deepspeed_none, fsdp_none);
}

TEST(Iteration, SampledLinkLoadsAddUpToTheBytesEachLinkCarried) {
  Harness h;
  h.plan.dp = 16;
  h.training.global_batch = 32;
  const IterationResult plain = h.run();
  const IterationResult sampled = h.run(50);
  // Sampling only reads the network: the iteration is the same.
  EXPECT_EQ(sampled.iteration, plain.iteration);
  EXPECT_EQ(sampled.mean.dp_comm, plain.mean.dp_comm);
  ASSERT_FALSE(sampled.busiest_links.empty());
  const double interval_s = sampled.iteration.seconds() / 50;
  for (size_t i = 0; i < sampled.busiest_links.size(); ++i) {
    const LinkLoad& l = sampled.busiest_links[i];
    ASSERT_EQ(l.utilization_series.size(), 50u);
    EXPECT_TRUE(plain.busiest_links[i].utilization_series.empty());
    double bytes = 0;
    for (double u : l.utilization_series) {
      EXPECT_GE(u, 0);
      EXPECT_LE(u, 1 + 1e-9);  // no interval carries more than the link's bandwidth
      bytes += u * h.bandwidth_bps[i] / 8 * interval_s;
    }
    EXPECT_NEAR(bytes, l.bytes.as_double(), 1e-6 * l.bytes.as_double() + 64) << l.name;
  }
}

// "Busiest" is one ranking for every writer: mean utilization over the
// iteration, highest first (a slower link with fewer bytes can be fuller),
// at most 8 links of each kind, each named by its ends and switch port.
TEST(Iteration, BusiestLinksAreRankedByUtilizationAndNamedForPeople) {
  Harness h;
  h.plan.dp = 16;
  h.training.global_batch = 32;
  const IterationResult r = h.run();
  ASSERT_GT(r.busiest_links.size(), 1u);
  std::map<std::string, int> per_kind;
  for (size_t i = 0; i < r.busiest_links.size(); ++i) {
    const LinkLoad& l = r.busiest_links[i];
    if (i > 0) {
      EXPECT_GE(r.busiest_links[i - 1].utilization, l.utilization) << i;
    }
    EXPECT_LE(++per_kind[l.kind], 8) << l.kind;
    EXPECT_NE(l.name.find(" -> "), std::string::npos) << l.name;
    EXPECT_EQ(l.name.find("node"), std::string::npos) << l.name;
    EXPECT_EQ(l.name.rfind("host ", 0) == 0 || l.name.rfind("leaf ", 0) == 0 || l.name.rfind("spine ", 0) == 0 ||
                  l.name.rfind("scale-up switch", 0) == 0,
              true)
        << l.name;
  }
}

TEST(Iteration, APlanThatDoesNotFitIsAnErrorUnlessAskedToWarn) {
  Harness h;
  h.model = find_model("gpt3-175b");
  h.training.global_batch = 1;
  EXPECT_THROW(h.run(), core::InputError);
}

// Bytes on the run's busiest link of a kind ("pcie": a GPU's link to its NIC).
double busiest(const IterationResult& r, const char* kind) {
  for (const auto& l : r.busiest_links)
    if (l.kind == kind) return l.bytes.as_double();
  return 0.0;
}

// A mixture of experts over the two hosts of 16 H100s: data parallelism 16
// with every rank in one expert-parallel group, so half of each GPU's
// all-to-all peers are on the other host.
void moe_over_two_hosts(Harness& h, int64_t top_k) {
  h.model.experts = 16;
  h.model.top_k = top_k;
  h.plan.dp = 16;
  h.plan.ep = 16;
  h.training.global_batch = 16;  // one micro-batch per rank
}

TEST(Iteration, ExpertAllToAllIsItsOwnBucketNotTensorParallelComm) {
  // Without tensor or context parallelism nothing is TP communication; the
  // MoE dispatch and combine all-to-alls are exposed EP communication.
  Harness h;
  moe_over_two_hosts(h, 2);
  const IterationResult r = h.run();
  EXPECT_EQ(r.mean.tp_comm, SimTime::zero());
  EXPECT_GT(r.mean.ep_comm, SimTime::zero());
  for (const auto& b : r.stages) EXPECT_EQ(b.total(), r.iteration);
  bool ep_interval = false;
  for (const auto& iv : r.timeline[0]) ep_interval = ep_interval || iv.kind == IntervalKind::kEpComm;
  EXPECT_TRUE(ep_interval);
}

TEST(Iteration, CombinedOneFOneBFilesContextParallelTimeAsCps) {
  // The paired steps of combined 1F1B book their exposed CP communication
  // (all-gather CP 2, no TP) as CP's, after both steps' compute, and the
  // buckets still add up on every GPU.
  Harness h;
  moe_over_two_hosts(h, 1);
  h.plan.dp = 8;
  h.plan.cp = 2;
  h.plan.cp_all_gather = true;
  h.plan.zero_stage = 1;
  h.plan.ep_comm_overlap = true;
  h.training.seq_len = 4096;
  h.training.global_batch = 32;  // 4 micro-batches per rank
  const IterationResult r = h.run();
  for (const auto& b : r.stages) EXPECT_EQ(b.total(), r.iteration);
  EXPECT_EQ(r.mean.tp_comm, SimTime::zero());
  EXPECT_GT(r.mean.cp_comm, SimTime::zero());
  bool cp_interval = false;
  for (const auto& iv : r.timeline[0]) cp_interval = cp_interval || iv.kind == IntervalKind::kCpComm;
  EXPECT_TRUE(cp_interval);
}

TEST(Iteration, CombinedOneFOneBHidesAllButTheFirstForwardsAndLastBackwardsAllToAlls) {
  // Without pipelining, combined 1F1B runs F0 alone, then (B0, F1), (B1, F2),
  // (B2, F3) with each step's all-to-alls beside the pair's compute, then
  // B3 alone. When a pair's compute covers its all-to-alls, only F0's and
  // B3's are exposed: 1 of the 4 micro-batches' worth, a quarter of what
  // the plain schedule exposes (every step's, after its compute).
  Harness plain, paired;
  for (Harness* h : {&plain, &paired}) {
    moe_over_two_hosts(*h, 1);
    h->training.global_batch = 64;  // 4 micro-batches per rank
    h->plan.zero_stage = 1;
    // The DP collectives before and after the steps, not beside them: the
    // SMs the steps lose are the all-to-alls' alone.
    h->plan.overlap_grad_reduce = false;
    h->plan.overlap_param_gather = false;
  }
  paired.plan.ep_comm_overlap = true;
  const IterationResult a = plain.run(), b = paired.run();
  // Each pair's all-to-alls take 16 of the H100's 132 SMs while they run,
  // beside a compute that outlasts them, which loses 16/132 of their time
  // (booked as EP time; the compute buckets stay the compute model's). A
  // pair's are one micro-batch's worth (B_i's and F_i+1's), a quarter of
  // the plain schedule's EP time, so the three pairs lose 3/4 of it x 16/132.
  const double taken = 16.0 / 132;
  EXPECT_NEAR(b.mean.on_collective_sms.seconds() / (a.mean.ep_comm.seconds() * taken), 0.75, 0.02);
  EXPECT_NEAR((b.mean.ep_comm - b.mean.on_collective_sms).seconds() / a.mean.ep_comm.seconds(), 0.25, 0.01);
  // Far less than the pairs' compute at 1 - 16/132 of its rate throughout.
  const StageCost c = paired.stage_cost(0);
  const double whole = 3 * (c.forward[0].compute + c.backward[0].compute).seconds() * taken / (1 - taken);
  EXPECT_LT(b.mean.on_collective_sms.seconds(), whole / 2);
  EXPECT_LT(b.iteration, a.iteration);
  EXPECT_EQ(b.mean.forward_compute + b.mean.backward_compute, a.mean.forward_compute + a.mean.backward_compute);
}

TEST(Iteration, WithOneHardwareQueueCombinedOneFOneBHidesNothing) {
  // The case above with one hardware queue: a pair's all-to-alls hold its
  // compute back until they end (Megatron-LM asks for more connections for
  // this overlap), so the pairs expose every micro-batch's all-to-alls as the
  // plain schedule does. The pair's are one launch of both steps' bytes and
  // latencies, the plain schedule's one a step, so the two EP times agree to
  // within a percent, and the pairing no longer shortens the iteration.
  Harness plain, paired;
  for (Harness* h : {&plain, &paired}) {
    moe_over_two_hosts(*h, 1);
    h->training.global_batch = 64;
    h->plan.zero_stage = 1;
    h->plan.device_max_connections = 1;
  }
  paired.plan.ep_comm_overlap = true;
  const IterationResult a = plain.run(), b = paired.run();
  EXPECT_NEAR(b.mean.ep_comm.seconds() / a.mean.ep_comm.seconds(), 1.0, 0.01);
  EXPECT_NEAR(b.iteration.seconds() / a.iteration.seconds(), 1.0, 0.01);
  EXPECT_EQ(b.mean.forward_compute + b.mean.backward_compute, a.mean.forward_compute + a.mean.backward_compute);
  for (const auto& st : b.stages) EXPECT_EQ(st.total(), b.iteration);
}

TEST(Iteration, ExpertAllToAllBytesAreOnTheLinksBesideTheGradients) {
  // The all-to-alls run on the iteration's network, so each GPU's link to
  // its NIC carries them on top of the gradient all-reduce. Going from
  // top-1 to top-2 routing changes only the all-to-alls (the parameters,
  // hence the gradients, are the same), and it adds the same bytes to every
  // GPU's NIC link, so the busiest such link gains exactly:
  //   per all-to-all, a GPU's send buffer is T top_k h x 2 bytes =
  //     2048 x 1 x 2304 x 2 = 9,437,184 bytes more for the second expert;
  //   1/16 of it goes to each rank, 8 of the 16 on the other host: 4,718,592
  //   all-to-alls: 16 layers x (dispatch + combine, forward and backward) = 64
  //   64 x 4,718,592 = 301,989,888 payload bytes, / the protocol's
  //   efficiency on the wire.
  Harness one, two;
  moe_over_two_hosts(one, 1);
  moe_over_two_hosts(two, 2);
  const IterationResult a = one.run(), b = two.run();
  const coll::LibraryModel lib = coll::nccl_library(hw::find_system("dgx-h100"));
  const double payload = 64.0 * 4'718'592;
  const double gained = busiest(b, "pcie") - busiest(a, "pcie");
  EXPECT_GT(gained, 0);
  EXPECT_NEAR(gained / (payload / lib.efficiency(coll::Protocol::kSimple)), 1.0, 1e-6);
  // The top-1 run's busiest NIC link also carries the gradients.
  EXPECT_GT(busiest(a, "pcie"), payload);
}

TEST(Iteration, FlexDispatchSendsATokenOnceToTheOtherHostAndForwardsItThere) {
  // 16 experts, top-2, one per rank of two hosts of 8. The all-to-all sends
  // a token's two copies straight to their ranks: per all-to-all a GPU's
  // NIC link carries T top_k h x 2 x 8/16 = 2048 x 2 x 2304 x 2 / 2 =
  // 9,437,184 payload bytes. The flex dispatcher sends it to the other
  // host once, when either expert is there, 1 - (8/16)(7/15) = 0.7667 of
  // tokens: 2048 x 2304 x 2 x 0.7667 = 7,235,174.4 bytes, and forwards it
  // over NVLink. Over the 64 all-to-alls (16 layers x dispatch and
  // combine x forward and backward) the busiest NIC link carries
  // 64 x 2,202,009.6 payload bytes fewer (the gradients on it are the
  // same), and less EP time is exposed.
  Harness plain, flex;
  moe_over_two_hosts(plain, 2);
  moe_over_two_hosts(flex, 2);
  flex.plan.moe_dispatcher = MoeDispatcher::kFlex;
  const IterationResult a = plain.run(), b = flex.run();
  const coll::LibraryModel lib = coll::nccl_library(hw::find_system("dgx-h100"));
  const double saved = busiest(a, "pcie") - busiest(b, "pcie");
  EXPECT_NEAR(saved * lib.efficiency(coll::Protocol::kSimple) / (64 * (9'437'184 - 7'235'174.4)), 1.0, 1e-6);
  EXPECT_LT(b.mean.ep_comm, a.mean.ep_comm);
}

TEST(StepCost, OnlyTheMoeLayersRunExpertsAndAllToAlls) {
  // 4 layers with experts in every second one (1 and 3): the chunk's forward
  // is two dense layers and two MoE layers, the mean of the all-dense and
  // the all-MoE models (the embedding and logits are in all three), and it
  // runs 2 x 2 all-to-alls, not 4 x 2. Recomputing the first layer (dense)
  // replays no all-to-all; the first two, one MoE layer's 2.
  Harness h;
  h.model.layers = 4;
  h.model.experts = 4;
  h.model.top_k = 1;
  h.plan.dp = 2;
  h.plan.ep = 2;
  h.model.moe_layer_step = 2;
  const StageCost mixed = h.stage_cost(0);
  h.model.moe_layer_step = 1;
  const StageCost all_moe = h.stage_cost(0);
  h.model.experts = 1;
  const StageCost dense = h.stage_cost(0);
  EXPECT_EQ(mixed.forward[0].compute * 2, dense.forward[0].compute + all_moe.forward[0].compute);
  EXPECT_EQ(mixed.forward[0].ep_all_to_alls, 4);
  EXPECT_EQ(all_moe.forward[0].ep_all_to_alls, 8);
  h.model.experts = 4;
  h.model.moe_layer_step = 2;
  h.training.recompute = Recompute::kFull;
  h.training.recompute_layers = 1;
  EXPECT_EQ(h.stage_cost(0).backward[0].ep_all_to_alls, 4);
  h.training.recompute_layers = 2;
  EXPECT_EQ(h.stage_cost(0).backward[0].ep_all_to_alls, 6);
}

TEST(StepCost, FoldedExpertsTakeEachRanksOwnTokensAndGatherNothing) {
  // TP 2 with sequence parallelism, 4 MoE layers. Experts split over TP,
  // each layer forward all-gathers and reduce-scatters twice (attention and
  // MLP), and each GPU dispatches all T = 2048 tokens of its TP group:
  // 2048 x 1 x 2304 x 2 = 9,437,184 bytes per all-to-all. With expert TP 1
  // the MoE MLP takes the rank's own 1024 tokens (half the bytes) and
  // gathers nothing: one all-gather and one reduce-scatter per layer.
  Harness h;
  h.model.layers = 4;
  h.model.experts = 4;
  h.plan.tp = 2;
  h.plan.sequence_parallel = true;
  h.plan.dp = 2;
  h.plan.ep = 4;
  const SimTime ag = SimTime::us(10), rs = SimTime::us(7);
  auto stage = [&] {
    StepCostModel costs(h.model, h.plan, h.training, h.compute,
                        [&](Communicator, coll::Op op, core::Bytes, const std::vector<uint32_t>&) {
                          return op == coll::Op::kAllGather ? ag : op == coll::Op::kReduceScatter ? rs : SimTime::zero();
                        });
    return std::pair{costs.stage(0), costs.ep_all_to_all_bytes()};
  };
  // Stage 0 (PP 1) also holds the embedding's reduce-scatter and the output
  // layer's all-gather.
  const auto [split, split_bytes] = stage();
  EXPECT_EQ(split.forward[0].tp_comm, (ag + rs) * 2 * 4 + rs + ag);
  EXPECT_EQ(split_bytes, core::Bytes(9'437'184));
  h.plan.expert_tp = 1;
  const auto [folded, folded_bytes] = stage();
  EXPECT_EQ(folded.forward[0].tp_comm, (ag + rs) * 4 + rs + ag);
  EXPECT_EQ(folded_bytes, core::Bytes(4'718'592));
}

TEST(Iteration, FoldedExpertGroupsRunWithMoreExpertRanksThanDataParallelRanks) {
  // TP 2 x DP 8 = 16 GPUs on two hosts, EP 16 > DP 8 with expert TP 1: the
  // all-to-alls run over both TP ranks of every DP rank, and the iteration
  // accounts for every GPU-second.
  Harness h;
  moe_over_two_hosts(h, 2);
  h.plan.tp = 2;
  h.plan.sequence_parallel = true;
  h.plan.dp = 8;
  h.plan.expert_tp = 1;
  h.training.global_batch = 16;
  const IterationResult r = h.run();
  EXPECT_GT(r.mean.ep_comm, SimTime::zero());
  for (const auto& b : r.stages) EXPECT_EQ(b.total(), r.iteration);
}

TEST(Iteration, TheOptimizerShardsExpertsOverTheirOwnDataParallelRanks) {
  // ZeRO-1 over DP 16 with EP 16: the dense parameters' optimizer state is
  // split 16 ways, but each expert lives on one GPU of the 16 (expert-DP 1),
  // so the step updates dense / 16 + all of the GPU's experts.
  Harness h;
  moe_over_two_hosts(h, 1);
  h.plan.zero_stage = 1;
  const IterationResult r = h.run();
  const StageCost c = h.stage_cost(0);
  const int64_t experts = c.expert_params();
  ASSERT_GT(experts, 0);
  const int64_t updated = (c.params() - experts) / 16 + experts;
  EXPECT_EQ(r.mean.optimizer, h.compute.optimizer_step(updated, optimizer_state(h.training)));
}

TEST(Iteration, ExpertGradientsAreReducedOverTheirOwnRanksEvenWithoutDataParallelism) {
  // TP 4 with DP 1, EP 2 and expert TP 1: nothing is data-parallel for the
  // dense layers, but each expert lives on 2 of the 4 GPUs (expert-DP 2),
  // so its gradients are reduced over them after the last backward. With
  // EP 4 every expert is on one GPU and nothing is reduced.
  auto run = [](int ep) {
    Harness h;
    h.model.experts = 16;
    h.model.top_k = 2;
    h.plan.tp = 4;
    h.plan.sequence_parallel = true;
    h.plan.dp = 1;
    h.plan.ep = ep;
    h.plan.expert_tp = 1;
    h.plan.zero_stage = 1;
    h.plan.overlap_grad_reduce = false;  // reduced after the flush: all exposed
    h.training.global_batch = 4;
    return h.run();
  };
  EXPECT_GT(run(2).mean.dp_comm, SimTime::zero());
  EXPECT_EQ(run(4).mean.dp_comm, SimTime::zero());
}

TEST(StepCost, AllGatherContextParallelismExposesTheKvExchange) {
  // Llama 3 (arXiv 2407.21783 Section 3.3.2) all-gathers K and V before
  // attention, on the critical path: forward pays one all-gather per layer,
  // backward an all-gather and a reduce-scatter of the K/V gradients. Ring
  // attention hides a 1 ns exchange behind the attention kernels entirely.
  Harness h;
  h.plan.cp = 2;
  h.training.seq_len = 4096;
  const SimTime ag = SimTime::us(100), rs = SimTime::us(70);
  auto step = [&](bool all_gather, SimTime a, SimTime r) {
    h.plan.cp_all_gather = all_gather;
    StepCostModel costs(h.model, h.plan, h.training, h.compute,
                        [&](Communicator, coll::Op op, core::Bytes, const std::vector<uint32_t>&) {
                          return op == coll::Op::kAllGather ? a : op == coll::Op::kReduceScatter ? r : SimTime::zero();
                        });
    return costs.stage(0);
  };
  const int64_t layers = h.model.layers;
  const StageCost gathered = step(true, ag, rs);
  EXPECT_EQ(gathered.forward[0].cp_comm, ag * layers);
  EXPECT_EQ(gathered.backward[0].cp_comm, (ag + rs) * layers);
  // It is CP's time, not TP's: the plan has no TP.
  EXPECT_EQ(gathered.forward[0].tp_comm + gathered.backward[0].tp_comm, SimTime::zero());
  const StageCost ring = step(false, SimTime::ns(1), SimTime::ns(1));
  EXPECT_EQ(ring.forward[0].cp_comm, SimTime::zero());
  EXPECT_EQ(ring.backward[0].cp_comm, SimTime::zero());
}

TEST(StepCost, RingAttentionRunsOneKernelPerRingStep) {
  // Transformer Engine's ring attention on CP 4 over 8,192 tokens: each
  // rank's attention is a causal kernel over its own 2,048 tokens, then 3
  // unmasked rectangles of 2,048 x 1,024, each timed as half an unmasked
  // 2,048 square; all-gather CP runs 1/4 of one causal kernel over the
  // whole 8,192 instead. Same FLOPs, but the short kernels fill fewer
  // waves, so the ring's forward costs more by that difference in each
  // layer, and so does its backward, with the backward kernels. (The H100
  // without a table prices no attention dropout, so no random numbers
  // enter either side.)
  Harness h;
  h.plan.cp = 4;
  h.training.seq_len = 8192;
  const auto& m = h.model;
  const int64_t heads = m.heads, hd = m.head_dim(), layers = m.layers;
  auto stage = [&](bool all_gather) {
    h.plan.cp_all_gather = all_gather;
    return h.stage_cost(0);
  };
  const StageCost ring = stage(false), gathered = stage(true);
  auto extra = [&](bool backward) {
    auto flash = [&](int64_t s, bool causal) {
      return backward ? h.compute.attention_bwd(1, s, heads, hd, causal) : h.compute.attention_fwd(1, s, heads, hd, causal);
    };
    // The ring also merges its steps (cp_passes_test); all-gather CP's
    // copies of its two chunks' outputs and gradients are not modelled.
    const CpPasses merges = ring_merges(h.compute, {.out_elems = 2048 * heads * hd,
                                                      .q_elems = 2048 * heads * hd,
                                                      .k_elems = 2048 * m.kv_heads * hd,
                                                      .v_elems = 2048 * m.kv_heads * hd,
                                                      .cp = 4});
    const SimTime merge = backward ? merges.backward : merges.forward;
    return (flash(2048, true) + flash(2048, false) * 3 / 2 - flash(8192, true) / 4 + merge) * layers;
  };
  EXPECT_GT(extra(false), SimTime::zero());
  EXPECT_GT(extra(true), SimTime::zero());
  EXPECT_EQ(ring.forward[0].compute - gathered.forward[0].compute, extra(false));
  EXPECT_EQ(ring.backward[0].compute - gathered.backward[0].compute, extra(true));
}

TEST(StepCost, UnfusedGradientAccumulationAddsAPassOverTheGradientsEveryMicroBatch) {
  // Without fusion, a separate kernel adds each micro-batch's weight
  // gradients to the ones before: read the new bf16 gradient (2 B) and the
  // accumulated one (2 B), write the sum (2 B), over every parameter, after
  // every backward but the first (autograd keeps the first as it comes):
  // m - 1 = 7 additions in 8 micro-batches, spread over the 8 backward steps.
  // gpt-1.7b cut to 16 layers of h = 2304 holds about 16 x 12 h^2 = 1.02 G
  // parameters: 1.02 G x 6 B x 7/8 = 5.3 GB a step, 1.8 ms at 90% of the
  // H100's 3.35 TB/s. An fp32 main_grad buffer (Megatron's
  // grad_reduce_in_fp32) reads and writes 4 bytes and takes all 8.
  Harness h;  // one GPU, global batch 8 of micro-batch 1
  auto backward = [&](bool fused) {
    h.training.fused_grad_accumulation = fused;
    return h.stage_cost(0).backward[0].compute;
  };
  const int64_t params = h.stage_cost(0).chunk_params[0];
  const auto add = [&](double bytes) {
    return h.compute.elementwise(hw::ComputeModel::Kernel::kResidualAdd, core::Bytes(static_cast<int64_t>(bytes)));
  };
  const SimTime bf16 = backward(false) - backward(true);
  EXPECT_EQ(bf16, add(static_cast<double>(params) * 6 * 7 / 8));
  EXPECT_NEAR(bf16.seconds(), 1.8e-3, 0.1e-3);
  h.plan.grad_reduce_in_fp32 = true;
  EXPECT_EQ(backward(false) - backward(true), add(static_cast<double>(params) * 10));
  // ZeRO-3 accumulates only its gradient shard: left out.
  h.plan.zero_stage = 3;
  EXPECT_EQ(backward(false), backward(true));
}

TEST(StepCost, Fp8GemmsPayForQuantizingTheirInputs) {
  // An FP8 layer runs its four GEMMs at the FP8 rate but first writes each
  // GEMM's input in FP8 in both orientations (2 x 1 byte per element),
  // reading it in bf16 (2 bytes) only where no norm produced it: QKV and
  // the MLP's up projection read the norm's output; the attention output
  // and Megatron-Core's activation output have their own casts. So, per
  // layer and micro-batch of T tokens, forward adds memory-bound kernels of
  // T h 2, T (heads hd) 4, T h 2 and T f 4 bytes, and the
  // forward time moves by exactly those plus the GEMMs' own change (and the
  // output layer's, which also runs in FP8).
  Harness h;
  const int64_t T = h.training.seq_len, hid = h.model.hidden, f = h.model.ffn_hidden;
  const int64_t attn = h.model.heads * h.model.head_dim(), qkv = (h.model.heads + 2 * h.model.kv_heads) * h.model.head_dim();
  auto forward = [&](hw::Precision p) {
    h.training.precision = p;
    return h.stage_cost(0).forward[0].compute;
  };
  auto gemms = [&](hw::Precision p) {
    return h.compute.gemm(T, qkv, hid, p) + h.compute.gemm(T, hid, attn, p) + h.compute.gemm(T, f, hid, p) +
           h.compute.gemm(T, hid, f, p);
  };
  const auto mb = [&](int64_t bytes) { return h.compute.memory_bound(core::Bytes(bytes)); };
  const SimTime casts = mb(T * hid * 2) + mb(T * attn * 4) + mb(T * hid * 2) + mb(T * f * 4);
  const hw::Precision bf16 = hw::Precision::kBf16, fp8 = hw::Precision::kFp8;
  const SimTime logits = h.compute.gemm(T, h.model.vocab, hid, fp8) - h.compute.gemm(T, h.model.vocab, hid, bf16);
  EXPECT_EQ(forward(fp8) - forward(bf16), (gemms(fp8) - gemms(bf16) + casts) * h.model.layers + logits);
  EXPECT_GT(casts, SimTime::zero());
}

TEST(StepCost, CurrentScalingReadsEachQuantizedTensorAgain) {
  // Transformer Engine's current scaling (--fp8-recipe tensorwise) needs a
  // tensor's own amax before it can cast it. With TE's activation, forward:
  // after the norm or the activation (QKV's and the up projection's inputs,
  // the down projection's) the kernel writes bf16 and its amax, and the cast
  // reads the bf16 back: T h 4, T h 4 and T f 4 bytes where delayed
  // scaling's cast wrote T h 2, T h 2 and T f 2 (an H100 writes each FP8
  // tensor twice, once transposed); the attention output takes an amax
  // kernel of its own first (T attn 2). Backward: every dY but the up
  // projection's (written by TE's activation backward with its amax) takes
  // an amax kernel: T qkv 2, T h 2 and T h 2. Each of the 4 casts a pass
  // also runs a scale kernel, a launch with 8 bytes to move.
  Harness h;
  h.training.precision = hw::Precision::kFp8;
  h.training.te_activation = true;
  const int64_t T = h.training.seq_len, hid = h.model.hidden, f = h.model.ffn_hidden;
  const int64_t attn = h.model.heads * h.model.head_dim(), qkv = (h.model.heads + 2 * h.model.kv_heads) * h.model.head_dim();
  auto stage = [&](Fp8Recipe r) {
    h.training.fp8_recipe = r;
    return h.stage_cost(0);
  };
  const auto mb = [&](int64_t bytes) { return h.compute.memory_bound(core::Bytes(bytes)); };
  const SimTime scale = mb(8);
  const SimTime fwd = mb(T * hid * 4) - mb(T * hid * 2) + mb(T * attn * 2) + mb(T * hid * 4) - mb(T * hid * 2) +
                      mb(T * f * 4) - mb(T * f * 2) + scale * 4;
  const SimTime bwd = mb(T * qkv * 2) + mb(T * hid * 2) * 2 + scale * 4;
  const StageCost delayed = stage(Fp8Recipe::kDelayed), current = stage(Fp8Recipe::kTensorwise);
  const int64_t layers = h.model.layers;
  EXPECT_GT(fwd, SimTime::zero());
  EXPECT_EQ(current.forward[0].compute - delayed.forward[0].compute, fwd * layers);
  EXPECT_EQ(current.backward[0].compute - delayed.backward[0].compute, bwd * layers);
}

TEST(StepCost, MegatronsActivationLeavesItsOutputToACastOfItsOwn) {
  // Megatron-Core's own activation kernel writes bf16: the down
  // projection's input is cast by a kernel that reads it (T f 4 bytes
  // instead of T f 2 under delayed scaling), and under current scaling it
  // takes an amax kernel first (T f 2) and so does the up projection's
  // output gradient (T x 2f x 2 for a gated MLP), which TE's activation
  // backward would have written with its amax.
  Harness h;
  h.training.precision = hw::Precision::kFp8;
  const int64_t T = h.training.seq_len, f = h.model.ffn_hidden, up = (h.model.gated_mlp ? 2 : 1) * f;
  auto stage = [&](Fp8Recipe r, bool te) {
    h.training.fp8_recipe = r;
    h.training.te_activation = te;
    return h.stage_cost(0);
  };
  const auto mb = [&](int64_t bytes) { return h.compute.memory_bound(core::Bytes(bytes)); };
  const int64_t layers = h.model.layers;
  const StageCost d_te = stage(Fp8Recipe::kDelayed, true), d_mc = stage(Fp8Recipe::kDelayed, false);
  EXPECT_EQ(d_mc.forward[0].compute - d_te.forward[0].compute, (mb(T * f * 4) - mb(T * f * 2)) * layers);
  EXPECT_EQ(d_mc.backward[0].compute, d_te.backward[0].compute);
  const StageCost c_te = stage(Fp8Recipe::kTensorwise, true), c_mc = stage(Fp8Recipe::kTensorwise, false);
  EXPECT_EQ(c_mc.forward[0].compute - c_te.forward[0].compute, mb(T * f * 2) * layers);
  EXPECT_EQ(c_mc.backward[0].compute - c_te.backward[0].compute, mb(T * up * 2) * layers);
}

TEST(StepCost, BlackwellCastsPerTensorFp8OnceAndMxfp8BothWaysAfterANorm) {
  // Blackwell's FP8 GEMMs take either layout, so a per-tensor cast writes
  // one FP8 copy (x 1 byte); MXFP8 scales by blocks along one dimension and
  // writes both (x 2), and its cast after a norm reads the norm's bf16
  // output again. Per layer on a B200, forward: QKV T h (2 + 2) against
  // T h 1, the attention output T attn (2 + 2) against T attn (2 + 1), the
  // up projection T h 4 against T h 1, the down projection (Megatron's
  // activation) T f 4 against T f 3; backward every dY (2 + 2) against
  // (2 + 1).
  Harness h;
  const hw::ComputeModel b200 = hw::make_compute_model(hw::find_accelerator("B200"), nullptr);
  h.training.precision = hw::Precision::kFp8;
  const int64_t T = h.training.seq_len, hid = h.model.hidden, f = h.model.ffn_hidden;
  const int64_t attn = h.model.heads * h.model.head_dim(), qkv = (h.model.heads + 2 * h.model.kv_heads) * h.model.head_dim();
  const int64_t up = (h.model.gated_mlp ? 2 : 1) * f;
  auto stage = [&](Fp8Recipe r) {
    h.training.fp8_recipe = r;
    return h.stage_cost(0, b200);
  };
  const auto mb = [&](int64_t bytes) { return b200.memory_bound(core::Bytes(bytes)); };
  const SimTime fwd = mb(T * hid * 4) - mb(T * hid * 1) + mb(T * attn * 4) - mb(T * attn * 3) + mb(T * hid * 4) -
                      mb(T * hid * 1) + mb(T * f * 4) - mb(T * f * 3);
  SimTime bwd;
  for (int64_t n : {qkv, hid, up, hid}) bwd += mb(T * n * 4) - mb(T * n * 3);
  const StageCost delayed = stage(Fp8Recipe::kDelayed), mx = stage(Fp8Recipe::kMxfp8);
  const int64_t layers = h.model.layers;
  EXPECT_EQ(mx.forward[0].compute - delayed.forward[0].compute, fwd * layers);
  EXPECT_EQ(mx.backward[0].compute - delayed.backward[0].compute, bwd * layers);
}

TEST(StepCost, BlackwellRunsBlockScalingAsMxfp8ButNoActivationWritesIt) {
  // On Blackwell Transformer Engine runs Float8BlockScaling as MXFP8: two
  // copies of every cast, the GEMMs at the FP8 rate. The one difference is
  // where a kernel before the cast writes it: TE's activation writes MXFP8
  // itself but runs unfused for block scales (activation.cpp), so the down
  // projection's cast reads the activation's bf16 output again: T f 2 bytes
  // a layer, forward; the backward casts read dY under both.
  Harness h;
  const hw::ComputeModel b200 = hw::make_compute_model(hw::find_accelerator("B200"), nullptr);
  h.training.precision = hw::Precision::kFp8;
  h.training.te_activation = true;
  auto stage = [&](Fp8Recipe r) {
    h.training.fp8_recipe = r;
    return h.stage_cost(0, b200);
  };
  const StageCost mx = stage(Fp8Recipe::kMxfp8), block = stage(Fp8Recipe::kBlockwise);
  const int64_t T = h.training.seq_len, f = h.model.ffn_hidden, layers = h.model.layers;
  const auto mb = [&](int64_t bytes) { return b200.memory_bound(core::Bytes(bytes)); };
  EXPECT_EQ(block.forward[0].compute - mx.forward[0].compute, (mb(T * f * 4) - mb(T * f * 2)) * layers);
  EXPECT_EQ(block.backward[0].compute, mx.backward[0].compute);
}

TEST(StepCost, HopperBlockScalingCastsEveryInputAndPromotesEvery128OfK) {
  // On an H100 each FP8 linear's three GEMMs (forward, data and weight
  // gradient) run as block-scaled GEMMs, and each forward cast reads its
  // input where delayed scaling's norm wrote FP8 itself: QKV's and the up
  // projection's inputs, T h 2 bytes each a layer (both write two copies
  // on Hopper, so the writes match). Everything else is the same: the
  // attention output and Megatron's activation take casts of their own
  // under both, and every backward cast reads dY.
  Harness h;
  const hw::ComputeModel h100 = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  h.training.precision = hw::Precision::kFp8;
  auto stage = [&](Fp8Recipe r) {
    h.training.fp8_recipe = r;
    return h.stage_cost(0, h100);
  };
  const StageCost delayed = stage(Fp8Recipe::kDelayed), block = stage(Fp8Recipe::kBlockwise);
  const int64_t T = h.training.seq_len, hid = h.model.hidden, f = h.model.ffn_hidden, layers = h.model.layers;
  const int64_t qkv = (h.model.heads + 2 * h.model.kv_heads) * h.model.head_dim(), attn = h.model.heads * h.model.head_dim();
  const int64_t up = (h.model.gated_mlp ? 2 : 1) * f;
  const auto mb = [&](int64_t bytes) { return h100.memory_bound(core::Bytes(bytes)); };
  // What block scales add to a linear's GEMMs: forward [T, n] from k,
  // backward the data gradient [T, k] from n and the weight's [k, n] from T.
  const auto promo = [&](int64_t m, int64_t n, int64_t k) {
    return h100.gemm_fp8_blockwise(m, n, k) - h100.gemm(m, n, k, hw::Precision::kFp8);
  };
  SimTime fwd = (mb(T * hid * 4) - mb(T * hid * 2)) * 2, bwd;
  for (const auto& [n, k] : {std::pair{qkv, hid}, std::pair{hid, attn}, std::pair{up, hid}, std::pair{hid, f}}) {
    fwd += promo(T, n, k);
    bwd += promo(T, k, n) + promo(k, n, T);
  }
  EXPECT_EQ(block.forward[0].compute - delayed.forward[0].compute, fwd * layers);
  EXPECT_EQ(block.backward[0].compute - delayed.backward[0].compute, bwd * layers);
}

TEST(StepCost, Nvfp4ReadsEachCastTensorThreeTimes) {
  // NVFP4 scales each tensor by its amax, and its random Hadamard transform
  // of the weight gradient's inputs needs the amax after the transform,
  // found in a pass of its own (a bf16 read, 2 bytes an element); then the
  // rowwise cast and the transformed columnwise cast each read the tensor
  // and write half a byte. So every cast, forward and backward, is three
  // kernels of 2, 2.5 and 2.5 bytes an element, where the same part taken
  // as MXFP4 (no amax) casts in one pass: 2 + 1 bytes, or 1 after a norm
  // (which wrote it). Per layer on a B200: forward QKV and the up
  // projection (norm-fed), the attention output and the down projection
  // (Megatron's activation); backward every dY.
  Harness h;
  h.training.precision = hw::Precision::kFp4;
  hw::Accelerator mx = hw::find_accelerator("B200");
  mx.arch.nvfp4 = false;
  const hw::ComputeModel nv_cm = hw::make_compute_model(hw::find_accelerator("B200"), nullptr);
  const hw::ComputeModel mx_cm = hw::make_compute_model(mx, nullptr);
  const int64_t T = h.training.seq_len, hid = h.model.hidden, f = h.model.ffn_hidden;
  const int64_t attn = h.model.heads * h.model.head_dim(), qkv = (h.model.heads + 2 * h.model.kv_heads) * h.model.head_dim();
  const int64_t up = (h.model.gated_mlp ? 2 : 1) * f;
  auto stage = [&](const hw::ComputeModel& cm) { return h.stage_cost(0, cm); };
  const auto mb = [&](double bytes) { return nv_cm.memory_bound(core::Bytes(static_cast<int64_t>(bytes))); };
  const auto nvfp4 = [&](int64_t elems) { return mb(elems * 2.0) + mb(elems * 2.5) * 2; };
  const SimTime fwd = nvfp4(T * hid) - mb(T * hid * 1.0) + nvfp4(T * attn) - mb(T * attn * 3.0) + nvfp4(T * hid) -
                      mb(T * hid * 1.0) + nvfp4(T * f) - mb(T * f * 3.0);
  SimTime bwd;
  for (int64_t n : {qkv, hid, up, hid}) bwd += nvfp4(T * n) - mb(T * n * 3.0);
  const StageCost nv = stage(nv_cm), mxs = stage(mx_cm);
  const int64_t layers = h.model.layers;
  EXPECT_EQ(nv.forward[0].compute - mxs.forward[0].compute, fwd * layers);
  EXPECT_EQ(nv.backward[0].compute - mxs.backward[0].compute, bwd * layers);
}

TEST(StepCost, SequenceParallelismCastsWhatItGathersOnTheShard) {
  // Under sequence parallelism TE casts a column-parallel GEMM's input and a
  // row-parallel GEMM's output gradient on the rank's T / tp tokens, then
  // gathers them in FP8. At TP 2 on an H100 (delayed scaling): QKV's and the
  // up projection's input casts write T/2 h 2 bytes instead of T h 2, the
  // output and down projections' dY casts T/2 h 4 instead of T h 4; the
  // GEMMs are the same either way, so FP8's extra time over bf16 falls by
  // exactly that.
  Harness h;
  h.plan.tp = 2;
  const int64_t T = h.training.seq_len, hid = h.model.hidden;
  auto extra = [&](bool sp) {
    h.plan.sequence_parallel = sp;
    h.training.precision = hw::Precision::kFp8;
    const StageCost fp8 = h.stage_cost(0);
    h.training.precision = hw::Precision::kBf16;
    const StageCost bf16 = h.stage_cost(0);
    return std::pair{fp8.forward[0].compute - bf16.forward[0].compute,
                     fp8.backward[0].compute - bf16.backward[0].compute};
  };
  const auto mb = [&](int64_t bytes) { return h.compute.memory_bound(core::Bytes(bytes)); };
  const int64_t layers = h.model.layers;
  const auto [f_whole, b_whole] = extra(false);
  const auto [f_shard, b_shard] = extra(true);
  EXPECT_EQ(f_whole - f_shard, (mb(T * hid * 2) - mb(T / 2 * hid * 2)) * 2 * layers);
  EXPECT_EQ(b_whole - b_shard, (mb(T * hid * 4) - mb(T / 2 * hid * 4)) * 2 * layers);
}

TEST(StepCost, SequenceParallelBackwardHidesAColumnGemmsGatherAndReduceScatter) {
  // Without TE's userbuffers, a column-parallel GEMM's backward still
  // gathers its input again (for the weight gradient) behind the data-
  // gradient GEMM and reduce-scatters the data gradient behind the weight-
  // gradient GEMM, each about the forward GEMM's time g; a row-parallel
  // GEMM's output gradient is gathered before it can start. With every
  // all-gather taking a = 1 s and every reduce-scatter r = 2 s (longer than
  // any GEMM here), a layer's backward exposes (a - g_qkv) + (r - g_qkv) + a
  // for attention and (a - g_up) + (r - g_up) + a for the MLP (counting
  // each reduce-scatter whole and no second gather, 2 a + 2 r, fails). The
  // embedding reduce-scatters its output (r) both ways; the output layer
  // gathers its input forward (a), and backward gathers it again behind its
  // data-gradient GEMM and reduce-scatters behind its weight-gradient GEMM.
  Harness h;
  h.plan.tp = 2;
  h.plan.sequence_parallel = true;
  h.plan.tp_comm_overlap = false;
  const SimTime a = SimTime::from_seconds(1), r = SimTime::from_seconds(2);
  const StageCost st = StepCostModel(h.model, h.plan, h.training, h.compute,
                                     [&](Communicator, coll::Op op, core::Bytes, const std::vector<uint32_t>&) {
                                       return op == coll::Op::kAllGather       ? a
                                              : op == coll::Op::kReduceScatter ? r
                                                                               : SimTime::zero();
                                     })
                           .stage(0);
  const hw::Precision p = h.training.precision;
  const int64_t T = h.training.seq_len, hid = h.model.hidden, f = h.model.ffn_hidden, V = h.model.vocab / 2;
  const int64_t qkv = (h.model.heads + 2 * h.model.kv_heads) * h.model.head_dim() / 2;
  const int64_t up = (h.model.gated_mlp ? 2 : 1) * f / 2;
  const SimTime g_qkv = h.compute.gemm(T, qkv, hid, p), g_up = h.compute.gemm(T, up, hid, p);
  const SimTime layer = (a - g_qkv) + (r - g_qkv) + a + (a - g_up) + (r - g_up) + a;
  const SimTime output_bwd = (a - h.compute.gemm(T, hid, V, p)) + (r - h.compute.gemm(hid, V, T, p));
  const int64_t layers = h.model.layers;
  EXPECT_EQ(st.forward[0].tp_comm, (a * 2 + r * 2) * layers + r + a);
  EXPECT_EQ(st.backward[0].tp_comm, layer * layers + r + output_bwd);
}

TEST(StepCost, CurrentScalingAllReducesTheAmaxOfWhatSequenceParallelismGathers) {
  // Under sequence parallelism TE all-reduces over TP the amax of the
  // inputs it all-gathers (QKV's, the up projection's) and, backward, of
  // the gradients it all-gathers (the output projection's, the down
  // projection's): four 4-byte all-reduces a layer, two each way, which the
  // compute stream waits for. Nothing else is timed on the network here.
  Harness h;
  h.plan.tp = 2;
  h.plan.sequence_parallel = true;
  h.training.precision = hw::Precision::kFp8;
  const SimTime ar = SimTime::us(9);
  auto stage = [&](Fp8Recipe r) {
    h.training.fp8_recipe = r;
    return StepCostModel(h.model, h.plan, h.training, h.compute,
                         [&](Communicator, coll::Op op, core::Bytes b, const std::vector<uint32_t>& g) {
                           return op == coll::Op::kAllReduce && b == core::Bytes(4) && g.size() == 2 ? ar
                                                                                                   : SimTime::zero();
                         })
        .stage(0);
  };
  const int64_t layers = h.model.layers;
  const StageCost delayed = stage(Fp8Recipe::kDelayed), current = stage(Fp8Recipe::kTensorwise);
  EXPECT_EQ(delayed.forward[0].tp_comm, SimTime::zero());
  EXPECT_EQ(delayed.backward[0].tp_comm, SimTime::zero());
  EXPECT_EQ(current.forward[0].tp_comm, ar * 2 * layers);
  EXPECT_EQ(current.backward[0].tp_comm, ar * 2 * layers);
}

TEST(PipelineOrder, OneFOneBWarmsUpThenAlternates) {
  // Stage 0 of 4, 6 micro-batches: 3 warm-up forwards, then F3 B0 F4 B1 F5 B2, then B3 B4 B5.
  auto o = pipeline_order(0, 4, 6, 1);
  ASSERT_EQ(o.size(), 12u);
  std::string seq;
  for (const auto& s : o) seq += fmt::format("{}{} ", s.forward ? "F" : "B", s.micro_batch);
  EXPECT_EQ(seq, "F0 F1 F2 F3 B0 F4 B1 F5 B2 B3 B4 B5 ");
  // The last stage has no warm-up: it alternates from the start.
  auto last = pipeline_order(3, 4, 6, 1);
  EXPECT_TRUE(last[0].forward);
  EXPECT_FALSE(last[1].forward);
}

TEST(PipelineOrder, InterleavedRunsEveryChunkOfEveryMicroBatchOnce) {
  auto o = pipeline_order(1, 4, 8, 2);
  ASSERT_EQ(o.size(), 32u);
  std::vector<int> fwd(16, 0), bwd(16, 0);
  for (const auto& s : o) (s.forward ? fwd : bwd)[s.micro_batch * 2 + s.chunk]++;
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(fwd[i], 1);
    EXPECT_EQ(bwd[i], 1);
  }
  // Stage 1 of 4 with 2 chunks warms up with (4 - 1 - 1) x 2 + (2 - 1) x 4 = 8 forwards.
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(o[i].forward);
  EXPECT_TRUE(o[8].forward);
  EXPECT_FALSE(o[9].forward);
}

TEST(PipelineOrder, MegatronCoreGroupsTakeNMicroBatchesAChunkAndTheRestLast) {
  // PP 2, 2 chunks, 5 micro-batches in groups of 3 (Megatron-Core's
  // get_schedule_table): forwards run chunk 0 then chunk 1 of micro-batches
  // 0-2, then of the last group's 3-4; backwards the same table with the
  // chunks reversed. Stage 0 warms up with (2 - 0 - 1) x 2 + (2 - 1) x 3 = 5
  // forwards, stage 1 with 3.
  const auto o = pipeline_order(0, 2, 5, 2, 0, 3);
  ASSERT_EQ(o.size(), 20u);
  std::string seq;
  for (const auto& s : o) seq += fmt::format("{}{}.{} ", s.forward ? "F" : "B", s.micro_batch, s.chunk);
  EXPECT_EQ(seq,
            "F0.0 F1.0 F2.0 F0.1 F1.1 F2.1 B0.1 F3.0 B1.1 F4.0 B2.1 F3.1 B0.0 F4.1 B1.0 B2.0 B3.1 B4.1 B3.0 B4.0 ");
  EXPECT_EQ(warmup_steps(1, 2, 5, 2, 0, 3), 3);
  // A group of PP is the plain interleaved order.
  const auto plain = pipeline_order(1, 4, 8, 2), grouped = pipeline_order(1, 4, 8, 2, 0, 4);
  ASSERT_EQ(plain.size(), grouped.size());
  for (size_t i = 0; i < plain.size(); ++i) {
    EXPECT_EQ(plain[i].micro_batch, grouped[i].micro_batch);
    EXPECT_EQ(plain[i].chunk, grouped[i].chunk);
    EXPECT_EQ(plain[i].forward, grouped[i].forward);
  }
}

TEST(PipelineOrder, CombinedPairsAreTheSteadyStatesIndependentForwardBackwardSteps) {
  // Without pipelining, 4 micro-batches: F0 B0 F1 B1 F2 B2 F3 B3 pairs as
  // (B0, F1), (B1, F2), (B2, F3), at indices 1, 3, 5.
  EXPECT_EQ(combined_pairs(0, 1, 4, 1), (std::vector<size_t>{1, 3, 5}));
  // Stage 0 of 4 with 2 chunks and 8 micro-batches warms up with one more
  // forward, (4 - 0 - 1) x 2 + (2 - 1) x 4 + 1 = 11, leaving 16 - 11 = 5
  // steady (forward, backward) pairs at 11, 13, ..., 19, each on two
  // different (micro-batch, chunk)s.
  const auto o = pipeline_order(0, 4, 8, 2, 1);
  const auto pairs = combined_pairs(0, 4, 8, 2);
  EXPECT_EQ(pairs, (std::vector<size_t>{11, 13, 15, 17, 19}));
  for (const size_t i : pairs) {
    EXPECT_TRUE(o[i].forward);
    EXPECT_FALSE(o[i + 1].forward);
    EXPECT_FALSE(o[i].micro_batch == o[i + 1].micro_batch && o[i].chunk == o[i + 1].chunk) << i;
  }
  // With 4 micro-batches the warm-up takes all 8 forwards: no pair at all
  // (the last forward and the first backward are not independent across stages).
  EXPECT_TRUE(combined_pairs(0, 4, 4, 2).empty());
  // Pipelining without interleaving has none.
  EXPECT_TRUE(combined_pairs(0, 4, 8, 1).empty());
}

TEST(Iteration, CombinedOneFOneBUnderInterleavedPipeliningHidesAllToAlls) {
  // PP 2 with 2 chunks, 8 micro-batches: the paired steady-state steps hide
  // their all-to-alls; the warm-up forwards and drained backwards do not.
  Harness plain, paired;
  for (Harness* h : {&plain, &paired}) {
    moe_over_two_hosts(*h, 1);
    h->plan.pp = 2;
    h->plan.virtual_stages = 2;
    h->training.global_batch = 128;  // 8 micro-batches per pipeline
  }
  paired.plan.ep_comm_overlap = true;
  const IterationResult a = plain.run(), b = paired.run();
  EXPECT_LT(b.mean.ep_comm, a.mean.ep_comm * 3 / 4);
  EXPECT_GT(b.mean.ep_comm, SimTime::zero());
  EXPECT_LT(b.iteration, a.iteration);
  for (const auto& st : b.stages) EXPECT_EQ(st.total(), b.iteration);
}

// Under LoRA data parallelism reduces the adapters' gradients alone and the
// optimizer updates the adapters alone: gpt-1.7b (16 layers here, h 2304)
// at rank 8 has 16 x 8 x (4 x 2304 + 2 x 2304) = 1,769,472 adapter
// parameters (q = k = v = o = h), against about 1.1 billion weights.
TEST(Iteration, LoraReducesAndUpdatesTheAdaptersAlone) {
  Harness h;
  h.plan.dp = 8;
  h.plan.overlap_grad_reduce = false;  // the whole reduction exposed
  const IterationResult full = h.run();
  h.training.lora_rank = 8;
  const IterationResult lora = h.run();
  const int64_t adapters = 16 * 8 * (4 * 2304 + 2 * 2304);
  EXPECT_EQ(h.stage_cost(0).chunk_params[0], adapters);
  EXPECT_EQ(lora.mean.optimizer, h.compute.optimizer_step(adapters));
  // The all-reduce of 3.5 MB of bf16 gradients against 2.2 GB: a latency
  // bound collective, at least a hundred times shorter.
  EXPECT_GT(full.mean.dp_comm, lora.mean.dp_comm * 100);
  EXPECT_GT(lora.mean.dp_comm, SimTime::zero());
}

// An FP8 iteration with 16-bit weights casts each chunk's weights in its
// first micro-batch's forward only: on one GPU the forward compute grows by
// exactly the stage's weight_casts against the same plan with FP8 weights,
// whatever the number of micro-batches.
TEST(Iteration, Fp8WeightsAreCastInTheFirstMicroBatchOnly) {
  Harness h;
  h.training.precision = hw::Precision::kFp8;
  h.training.global_batch = 4;  // four micro-batches
  const SimTime casts = h.stage_cost(0).weight_casts[0];
  EXPECT_GT(casts, SimTime::zero());
  const IterationResult cast = h.run();
  h.plan.fp8_param_gather = true;
  const IterationResult kept = h.run();
  EXPECT_EQ(cast.stages[0].forward_compute - kept.stages[0].forward_compute, casts);
}

}  // namespace
}  // namespace anatomy::workload
