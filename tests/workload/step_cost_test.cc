// The step cost: what selective recomputation's modules replay, what
// sliding-window layers save, what the attention kernel changes and what
// the cross-entropy implementation streams.
#include "workload/step_cost.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "hw/catalog.h"
#include "hw/compute_model.h"
#include "hybrid_fixture.h"
#include "workload/cp_passes.h"

namespace anatomy::workload {
namespace {

using core::SimTime;

struct Step {
  SimTime recompute, tp_comm;
  int64_t all_to_alls = 0;
};

// Stage 0 of `m` on one GPU at `t`, its collectives free: what the compute
// costs alone.
StageCost compute_only(const ModelSpec& m, const TrainingSpec& t, const hw::ComputeModel& cm) {
  return StepCostModel(m, ParallelPlan{}, t, cm, [](Communicator, coll::Op, core::Bytes, const std::vector<uint32_t>&) {
           return SimTime::zero();
         }).stage(0);
}

// One sequence of 4,096 tokens a step.
TrainingSpec one_sequence() {
  TrainingSpec t;
  t.seq_len = 4096;
  t.global_batch = 1;
  return t;
}

// CP 4 exchanging by all-to-all (or else by all-gather); one sequence of
// 8,192 tokens.
ParallelPlan cp4(bool all_to_all) {
  ParallelPlan p;
  p.cp = 4;
  p.cp_all_to_all = all_to_all;
  p.cp_all_gather = !all_to_all;
  return p;
}
TrainingSpec one_long_sequence() {
  TrainingSpec t = one_sequence();
  t.seq_len = 8192;
  return t;
}

// Stage 0's first chunk, backward, of `m` under `p` and `t` on an H100,
// every collective taking `collective`.
StepCost backward_step(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t,
                       SimTime collective = SimTime::from_seconds(1e-6)) {
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  const StepCostModel cost(m, p, t, cm,
                           [collective](Communicator, coll::Op, core::Bytes, const std::vector<uint32_t>&) {
                             return collective;
                           });
  return cost.stage(0).backward[0];
}

// Stage 0's one chunk, backward, of `m` on TP `tp` (sequence-parallel) and
// EP `ep`, 4,096 tokens, selective with `modules`; every collective takes
// 1 us.
Step backward(const ModelSpec& m, int tp, int ep, uint32_t modules) {
  ParallelPlan p;
  p.tp = tp;
  p.dp = ep;
  p.ep = ep;
  TrainingSpec t;
  t.seq_len = 4096;
  t.global_batch = ep;
  t.recompute = Recompute::kSelective;
  t.recompute_modules = modules;
  const StepCost b = backward_step(m, p, t);
  return {b.recompute, b.tp_comm, b.ep_all_to_alls};
}

TEST(SelectiveRecompute, LayernormReplaysTheNormsThatAreModulesOfTheirOwn) {
  // Mixtral 8x7B on one GPU: Transformer Engine fuses each layer's input
  // norm into its QKV GEMM, but a MoE layer's pre-MLP norm is a module of
  // its own, reading and writing 4,096 x 4,096 bf16 values, 2 x 4096 x
  // 4096 x 2 bytes: one norm replayed in each of 32 layers.
  const ModelSpec& m = find_model("mixtral-8x7b");
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  const SimTime norm = cm.elementwise(hw::ComputeModel::Kernel::kNorm, core::Bytes(2 * 4096 * 4096 * 2));
  const Step attention = backward(m, 1, 1, kRecomputeCoreAttn);
  const Step both = backward(m, 1, 1, kRecomputeCoreAttn | kRecomputeLayernorm);
  EXPECT_EQ(both.recompute - attention.recompute, norm * 32);
  EXPECT_EQ(backward(m, 1, 1, kRecomputeLayernorm).recompute, norm * 32);
}

TEST(SelectiveRecompute, AWholeMlpReplaysItsTensorParallelCollectives) {
  // On TP 2 with sequence parallelism a dense MLP gathers its input and
  // reduce-scatters its output: replaying it runs both again, 2 us a layer
  // for 32 layers; the attention core runs none.
  const ModelSpec& m = find_model("llama3-8b");
  const Step attention = backward(m, 2, 1, kRecomputeCoreAttn);
  const Step mlp = backward(m, 2, 1, kRecomputeMlp);
  EXPECT_EQ(mlp.tp_comm - attention.tp_comm, SimTime::from_seconds(64e-6));
  EXPECT_GT(mlp.recompute, SimTime::zero());
}

TEST(SelectiveRecompute, AWholeMoeLayerReplaysItsAllToAlls) {
  // Mixtral 8x7B on EP 8: each of 32 MoE layers' backward runs its 2
  // gradient all-to-alls; replaying the MoE layer adds its forward's 2.
  // Replaying only the activation function costs less than the layer and
  // sends nothing.
  const ModelSpec& m = find_model("mixtral-8x7b");
  const Step act = backward(m, 1, 8, kRecomputeMoeAct);
  const Step layer = backward(m, 1, 8, kRecomputeMoe);
  EXPECT_EQ(act.all_to_alls, 2 * 32);
  EXPECT_EQ(layer.all_to_alls, 4 * 32);
  EXPECT_GT(act.recompute, SimTime::zero());
  EXPECT_LT(act.recompute, layer.recompute);
}

TrainingSpec recomputing(TrainingSpec t, Recompute r, uint32_t modules = 0, bool keeps_attention = false) {
  t.recompute = r;
  t.recompute_modules = modules;
  t.recompute_keeps_attention = keeps_attention;
  return t;
}

TEST(FullRecompute, KeepingTheAttentionOutputLeavesOutWhatReplayingTheCoreAloneTakes) {
  // A full replay that keeps the attention kernel's output runs every part
  // of the layer but the kernel: it takes off the full replay exactly what
  // selective core_attn replays, window and all on GPT-OSS's sliding
  // layers (Llama 3 8B has none).
  for (const char* name : {"llama3-8b", "gpt-oss-20b"}) {
    SCOPED_TRACE(name);
    const ModelSpec& m = find_model(name);
    const TrainingSpec t = one_sequence();
    const SimTime full = backward_step(m, ParallelPlan{}, recomputing(t, Recompute::kFull)).recompute;
    const SimTime kept = backward_step(m, ParallelPlan{}, recomputing(t, Recompute::kFull, 0, true)).recompute;
    const SimTime core =
        backward_step(m, ParallelPlan{}, recomputing(t, Recompute::kSelective, kRecomputeCoreAttn)).recompute;
    EXPECT_EQ(full - kept, core);
    EXPECT_GT(kept, SimTime::zero());
  }
}

TEST(FullRecompute, KeepingTheAttentionOutputSkipsTheRingsExchangeInTheReplay) {
  // Ring attention on CP 4, each exchange taking 10 ms, longer than the
  // kernel it hides behind: the replayed kernel needs the other ranks' K
  // and V again, so a full replay runs the forward's exchange once more;
  // keeping the kernel's output runs none of it, as much as selective
  // core_attn runs beyond selective mlp (whose replay exchanges nothing).
  const ModelSpec& m = find_model("llama3-8b");
  ParallelPlan p;
  p.cp = 4;
  p.cp_all_to_all = false;
  p.cp_all_gather = false;
  const TrainingSpec t = one_long_sequence();
  const SimTime x = SimTime::from_seconds(10e-3);
  const SimTime full = backward_step(m, p, recomputing(t, Recompute::kFull), x).cp_comm;
  const SimTime kept = backward_step(m, p, recomputing(t, Recompute::kFull, 0, true), x).cp_comm;
  const SimTime core = backward_step(m, p, recomputing(t, Recompute::kSelective, kRecomputeCoreAttn), x).cp_comm;
  const SimTime mlp = backward_step(m, p, recomputing(t, Recompute::kSelective, kRecomputeMlp), x).cp_comm;
  EXPECT_EQ(full - kept, core - mlp);
  EXPECT_GT(full - kept, SimTime::zero());
}

// Mixtral 8x7B on EP 4 (2 local experts), 4,096 tokens a GPU, on an H100,
// each collective 1 us.
struct MixtralOnEp4 {
  const ModelSpec& m = find_model("mixtral-8x7b");
  ParallelPlan p;
  TrainingSpec t;
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  MixtralOnEp4() {
    p.dp = 4;
    p.ep = 4;
    t.seq_len = 4096;
    t.global_batch = 4;
  }
  StepCostModel cost() const {
    return StepCostModel(m, p, t, cm, [](Communicator, coll::Op, core::Bytes, const std::vector<uint32_t>&) {
      return SimTime::from_seconds(1e-6);
    });
  }
  SimTime pass(int64_t rows) const { return cm.memory_bound(core::Bytes(rows * 4096 * 2)); }
};

TEST(MoeDispatch, EachDispatcherRearrangesTheRowsItReceives) {
  // Mixtral 8x7B on EP 4 (2 local experts), 4,096 tokens a GPU, top 2,
  // rows of 4,096 x 2 bytes. The alltoall dispatcher copies each token
  // once per expert it visits (reads 4,096 rows, writes 8,192), sorts the
  // 8,192 received rows by local expert and unsorts them after (a read and
  // a write of each), and sums the copies back (reads 8,192, writes
  // 4,096). The flex dispatcher receives a token once per rank holding any
  // of its experts, 1 - C(6,2)/C(8,2) = 13/28 of the 4 x 4,096 tokens,
  // 7,607 rows, and permutes them into the 8,192 copies and back, without
  // a sort. Backward moves the same rows, and the probabilities' gradient
  // reads the copies once more. In each of the 32 layers:
  MixtralOnEp4 x;
  const auto chunk = [&](MoeDispatcher d) {
    x.p.moe_dispatcher = d;
    const StageCost s = x.cost().stage(0);
    return std::make_pair(s.forward[0].compute, s.backward[0].compute);
  };
  const auto pass = [&](int64_t rows) { return x.pass(rows); };
  const SimTime a2a_fwd = pass(4096 + 8192) * 2 + pass(2 * 8192) * 2;
  const SimTime a2a_bwd = pass(8192 + 4096) + pass(4096 + 8192 + 8192) + pass(2 * 8192) * 2;
  const SimTime flex_fwd = pass(7607 + 8192) * 2;
  const SimTime flex_bwd = pass(8192 + 7607) + pass(7607 + 8192 + 8192);
  const auto [a2a_f, a2a_b] = chunk(MoeDispatcher::kAllToAll);
  const auto [flex_f, flex_b] = chunk(MoeDispatcher::kFlex);
  EXPECT_EQ(a2a_f - flex_f, (a2a_fwd - flex_fwd) * 32);
  EXPECT_EQ(a2a_b - flex_b, (a2a_bwd - flex_bwd) * 32);
}

TEST(MoeDispatch, TheBusiestRankSetsEachLayersPace) {
  // Mixtral 8x7B on EP 4 with the alltoall dispatcher, 4,096 tokens a GPU,
  // top 2, routing unbalanced so that the busiest rank receives 1.5 times
  // the mean's 8,192 copies: 12,288, 6,144 a local expert where balanced
  // routing gives 4,096. The all-to-all moves the busiest rank's bytes
  // (4,096 x 2 x 4,096 x 2 B = 67,108,864, x 1.5); each layer's forward
  // gains the two experts' GEMMs at 6,144 rows instead of 4,096, the sort
  // and unsort of 12,288 received rows instead of 8,192, and the SwiGLU over
  // 1.5 times the copies; the permutation of the rank's own 4,096 tokens
  // before it sends them does not change.
  MixtralOnEp4 x;
  const auto chunk = [&](double imbalance) {
    x.t.expert_load_imbalance = imbalance;
    const StepCostModel cost = x.cost();
    return std::make_pair(cost.stage(0).forward[0].compute, cost.ep_all_to_all_bytes());
  };
  const auto [balanced, balanced_bytes] = chunk(1.0);
  const auto [busiest, busiest_bytes] = chunk(1.5);
  EXPECT_EQ(balanced_bytes, core::Bytes(67'108'864));
  EXPECT_EQ(busiest_bytes, core::Bytes(100'663'296));
  const hw::Precision bf16 = hw::Precision::kBf16;
  const auto experts = [&](int64_t rows) {
    return (x.cm.gemm(rows, 2 * 14336, 4096, bf16) + x.cm.gemm(rows, 4096, 14336, bf16)) * 2;
  };
  using K = hw::ComputeModel::Kernel;
  const auto swiglu = [&](int64_t copies) {
    return x.cm.elementwise(K::kSiluMul, core::Bytes(copies * 14336 * 2 * 3));
  };
  const SimTime per_layer = (experts(6144) - experts(4096)) + (x.pass(2 * 12288) - x.pass(2 * 8192)) * 2 +
                            (swiglu(12288) - swiglu(8192));
  EXPECT_EQ(busiest - balanced, per_layer * 32);
}

TEST(SlidingWindow, EachSlidingLayerRunsTheWindowedKernel) {
  // GPT-OSS 120B on one GPU at 4,096 tokens: 18 of its 36 layers slide, so
  // forward is 18 x (full - windowed attention kernel) shorter than the same
  // model attending everywhere, backward likewise; its 64 heads of 64.
  const ModelSpec& m = find_model("gpt-oss-120b");
  ModelSpec full = m;
  full.sliding_window = 0;
  full.full_attention_step = 0;
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  const StageCost slides = compute_only(m, one_sequence(), cm), attends = compute_only(full, one_sequence(), cm);
  const SimTime fwd_saving = cm.attention_fwd(1, 4096, 64, 64, true) - cm.attention_fwd(1, 4096, 64, 64, true, 128);
  const SimTime bwd_saving = cm.attention_bwd(1, 4096, 64, 64, true) - cm.attention_bwd(1, 4096, 64, 64, true, 128);
  EXPECT_EQ(attends.forward[0].compute - slides.forward[0].compute, fwd_saving * 18);
  EXPECT_EQ(attends.backward[0].compute - slides.backward[0].compute, bwd_saving * 18);
  EXPECT_GT(fwd_saving, SimTime::zero());
}

TEST(AttentionKernel, FlashAttention2ChangesOnlyTheAttentionKernels) {
  // Llama 3 8B on one H100 at 4,096 tokens: with FlashAttention-2 each of
  // its 32 layers runs its attention kernel (32 heads of 128, causal) at
  // FlashAttention-2's H100 rate instead of the part's best; nothing else in
  // the step changes, so forward and backward move by 32 x the difference.
  const ModelSpec& m = find_model("llama3-8b");
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  const auto stage = [&](hw::AttentionKernel kernel) {
    TrainingSpec t = one_sequence();
    t.attention_kernel = kernel;
    return compute_only(m, t, cm);
  };
  const StageCost best = stage(hw::AttentionKernel::kFlash), fa2 = stage(hw::AttentionKernel::kFlash2);
  const auto k2 = hw::AttentionKernel::kFlash2;
  const SimTime fwd = cm.attention_fwd(1, 4096, 32, 128, true, 0, k2) - cm.attention_fwd(1, 4096, 32, 128, true);
  const SimTime bwd = cm.attention_bwd(1, 4096, 32, 128, true, 0, k2) - cm.attention_bwd(1, 4096, 32, 128, true);
  EXPECT_EQ(fa2.forward[0].compute - best.forward[0].compute, fwd * 32);
  EXPECT_EQ(fa2.backward[0].compute - best.backward[0].compute, bwd * 32);
  EXPECT_GT(fwd, SimTime::zero());
}

// Stage 0 of `m` in FP8 with delayed scaling, with FP8 attention and
// without.
std::pair<StageCost, StageCost> with_and_without_fp8_attention(const ModelSpec& m, const hw::ComputeModel& cm) {
  TrainingSpec t = one_sequence();
  t.precision = hw::Precision::kFp8;
  t.fp8_attention = true;
  const StageCost on = compute_only(m, t, cm);
  t.fp8_attention = false;
  return {on, compute_only(m, t, cm)};
}

TEST(AttentionKernel, Fp8AttentionRunsTheKernelsAtFp8AndCastsTheirInputs) {
  // Llama 3 8B on one B200 at 4,096 tokens in FP8 with delayed scaling: with
  // FP8 attention each of its 32 layers runs its flash kernels (32 heads of
  // 128, causal) at FP8 and casts their 16-bit inputs first, a read of 2 B
  // and a write of 1 B an element: forward Q (32 x 128 = 4,096 wide), K and
  // V (8 KV heads: 1,024 each), 6,144 x 4,096 tokens x 3 B = 75.5 MB;
  // backward the output gradient, 4,096 wide, 50.3 MB. Nothing else moves.
  const ModelSpec& m = find_model("llama3-8b");
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("B200"), nullptr);
  const auto [fp8, bf16] = with_and_without_fp8_attention(m, cm);
  const auto f8 = hw::AttentionKernel::kFlash;
  const auto kernel_f = [&](hw::Precision q) { return cm.attention_fwd(1, 4096, 32, 128, true, 0, f8, q); };
  const auto kernel_b = [&](hw::Precision q) { return cm.attention_bwd(1, 4096, 32, 128, true, 0, f8, q); };
  const SimTime fwd = kernel_f(hw::Precision::kFp8) - kernel_f(hw::Precision::kBf16) +
                      cm.memory_bound(core::Bytes(int64_t{6144} * 4096 * 3));
  const SimTime bwd = kernel_b(hw::Precision::kFp8) - kernel_b(hw::Precision::kBf16) +
                      cm.memory_bound(core::Bytes(int64_t{4096} * 4096 * 3));
  EXPECT_EQ(fp8.forward[0].compute - bf16.forward[0].compute, fwd * 32);
  EXPECT_EQ(fp8.backward[0].compute - bf16.backward[0].compute, bwd * 32);
  // On B200 the backward's kernel gains more than its cast costs.
  EXPECT_LT(fp8.backward[0].compute, bf16.backward[0].compute);
}

TEST(AttentionKernel, Fp8AttentionCastsOnSlidingLayersToo) {
  // GPT-OSS 120B on one B200 at 4,096 tokens in FP8 (delayed scaling): 18
  // of its 36 layers attend to a 128-token window, the other 18 to the
  // whole causal sequence. A window shortens the kernel, not the casts:
  // every layer casts Q (64 heads of 64 = 4,096 wide), K and V (8 KV heads:
  // 512 each) forward, 5,120 x 4,096 tokens x 3 B, and the output gradient
  // (4,096 wide) backward, 4,096 x 4,096 x 3 B; and every layer's kernel
  // moves from its BF16 to its FP8 time.
  const ModelSpec& m = find_model("gpt-oss-120b");
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("B200"), nullptr);
  const auto [fp8, bf16] = with_and_without_fp8_attention(m, cm);
  const auto k = hw::AttentionKernel::kFlash;
  const auto kernel_f = [&](int64_t w, hw::Precision q) { return cm.attention_fwd(1, 4096, 64, 64, true, w, k, q); };
  const auto kernel_b = [&](int64_t w, hw::Precision q) { return cm.attention_bwd(1, 4096, 64, 64, true, w, k, q); };
  const auto f8 = hw::Precision::kFp8, b16 = hw::Precision::kBf16;
  const SimTime cast_f = cm.memory_bound(core::Bytes(int64_t{5120} * 4096 * 3));
  const SimTime cast_b = cm.memory_bound(core::Bytes(int64_t{4096} * 4096 * 3));
  const SimTime fwd = (kernel_f(0, f8) - kernel_f(0, b16)) * 18 + (kernel_f(128, f8) - kernel_f(128, b16)) * 18 +
                      cast_f * 36;
  const SimTime bwd = (kernel_b(0, f8) - kernel_b(0, b16)) * 18 + (kernel_b(128, f8) - kernel_b(128, b16)) * 18 +
                      cast_b * 36;
  EXPECT_EQ(fp8.forward[0].compute - bf16.forward[0].compute, fwd);
  EXPECT_EQ(fp8.backward[0].compute - bf16.backward[0].compute, bwd);
}

TEST(AttentionKernel, DropoutAddsItsRandomNumbersToEachFlashKernel) {
  // GPT 1.7B (Megatron-Core, dropout 0.1) on one H200 at 4,096 tokens: with
  // dropout each of its 24 layers' flash kernels also draws a number per
  // causal score element (16 heads x 4096^2 / 2), at the H200 table's
  // measured cost; nothing else changes, so forward and backward move by
  // 24 x attention_dropout. The dropout kernels on the layer outputs are
  // there either way (memory-bound passes).
  ModelSpec with = find_model("mcore-1.7b");
  ASSERT_TRUE(with.dropout);
  const hw::CalibrationTable table =
      hw::load_calibration(std::string(ANATOMY_SOURCE_DIR) + "/data/calibration/h200.json");
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H200"), &table);
  const auto stage = [&](bool drop) {
    ModelSpec m = with;
    m.dropout = drop;
    return compute_only(m, one_sequence(), cm);
  };
  const StageCost on = stage(true), off = stage(false);
  const SimTime fwd = cm.attention_dropout(1, 4096, 16, true, 0, false);
  const SimTime bwd = cm.attention_dropout(1, 4096, 16, true, 0, true);
  ASSERT_GT(fwd, SimTime::zero());
  const SimTime ew_f = (on.forward[0].compute - off.forward[0].compute) - fwd * 24;
  const SimTime ew_b = (on.backward[0].compute - off.backward[0].compute) - bwd * 24;
  // What is left is the output dropouts' memory-bound passes, twice over in the backward.
  EXPECT_GT(ew_f, SimTime::zero());
  EXPECT_EQ(ew_b, ew_f * 2);
}

TEST(CrossEntropy, EachImplementationStreamsItsCountedBytes) {
  // Megatron unfused: cast 2 + 4, max 4, subtract 4 + 4, exp 4 + 4, sum 4,
  // divide 4 + 4 = 38 B forward; multiply 4 + 4 and the cast back 4 + 2 =
  // 14 B backward. Its native fusion: one pass per compiled function, 6 + 8
  // + 8 = 22 B; backward 4 + 4 + 2 = 10 B. One online-softmax kernel on the
  // 16-bit logits: one read forward, a read and a write backward.
  EXPECT_EQ(cross_entropy_bytes(CrossEntropy::kMegatron).forward, 38);
  EXPECT_EQ(cross_entropy_bytes(CrossEntropy::kMegatron).backward, 14);
  EXPECT_EQ(cross_entropy_bytes(CrossEntropy::kMegatronFused).forward, 22);
  EXPECT_EQ(cross_entropy_bytes(CrossEntropy::kMegatronFused).backward, 10);
  EXPECT_EQ(cross_entropy_bytes(CrossEntropy::kFused).forward, 2);
  EXPECT_EQ(cross_entropy_bytes(CrossEntropy::kFused).backward, 4);
}

TEST(CrossEntropy, OnlyTheLastStagesLossMovesAndByItsBytes) {
  // Megatron-Core GPT 1.7B (vocabulary 131,072) on TP 2, 4,096 tokens, PP 2:
  // the last stage holds the output layer, 4096 x 65536 logits per GPU, and
  // its loss streams 38 + 14 B a logit unfused against 2 + 4 fused; the
  // first stage has no loss and does not move.
  const ModelSpec m = find_model("mcore-1.7b");
  ParallelPlan p;
  p.tp = 2;
  p.pp = 2;
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  const auto run = [&](CrossEntropy ce) {
    TrainingSpec t;
    t.seq_len = 4096;
    t.global_batch = 1;
    t.cross_entropy = ce;
    return StepCostModel(m, p, t, cm, [](Communicator, coll::Op, core::Bytes, const std::vector<uint32_t>&) {
      return SimTime::zero();
    });
  };
  const StepCostModel unfused = run(CrossEntropy::kMegatron), fused = run(CrossEntropy::kFused);
  const int64_t logits = 4096LL * (131072 / 2);
  EXPECT_EQ(unfused.stage(1).forward[0].compute - fused.stage(1).forward[0].compute,
            cm.memory_bound(core::Bytes(logits * 38)) - cm.memory_bound(core::Bytes(logits * 2)));
  EXPECT_EQ(unfused.stage(1).backward[0].compute - fused.stage(1).backward[0].compute,
            cm.memory_bound(core::Bytes(logits * 14)) - cm.memory_bound(core::Bytes(logits * 4)));
  EXPECT_GT(unfused.stage(1).forward[0].compute, fused.stage(1).forward[0].compute);
  EXPECT_EQ(unfused.stage(0).forward[0].compute, fused.stage(0).forward[0].compute);
  EXPECT_EQ(unfused.stage(0).backward[0].compute, fused.stage(0).backward[0].compute);
}

// Stage 0's one chunk of `m` on TP 2 with sequence parallelism (and EP
// `ep` over as many data-parallel ranks), 4,096 tokens, no recomputation;
// every collective takes 1 us.
StageCost tp2_stage(const ModelSpec& m, int ep = 1) {
  ParallelPlan p;
  p.tp = 2;
  p.dp = ep;
  p.ep = ep;
  TrainingSpec t;
  t.seq_len = 4096;
  t.global_batch = ep;
  static const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  const StepCostModel cost(m, p, t, cm, [](Communicator, coll::Op, core::Bytes, const std::vector<uint32_t>&) {
    return SimTime::from_seconds(1e-6);
  });
  return cost.stage(0);
}

TEST(HybridBlocks, AnAttentionBlockAndAnMlpBlockCostOneTransformerLayer) {
  // Llama 3 8B's 32 layers spelled as 64 blocks, "*-" each, and Mixtral
  // 8x7B's on EP 2 as "*E": the same kernels (a norm and a residual add in
  // each block, two in each layer), the same four TP collectives per
  // layer, split two and two, and the same all-to-alls.
  for (const auto& [name, mlp, ep] : {std::tuple{"llama3-8b", '-', 1}, std::tuple{"mixtral-8x7b", 'E', 2}}) {
    const ModelSpec& model = find_model(name);
    const StageCost layers = tp2_stage(model, ep), blocks = tp2_stage(testing::spelled_as_blocks(model, mlp), ep);
    EXPECT_EQ(blocks.forward[0].compute, layers.forward[0].compute) << name;
    EXPECT_EQ(blocks.backward[0].compute, layers.backward[0].compute) << name;
    EXPECT_EQ(blocks.forward[0].tp_comm, layers.forward[0].tp_comm) << name;
    EXPECT_EQ(blocks.backward[0].tp_comm, layers.backward[0].tp_comm) << name;
    EXPECT_EQ(blocks.forward[0].ep_all_to_alls, layers.forward[0].ep_all_to_alls) << name;
    EXPECT_EQ(blocks.chunk_params, layers.chunk_params) << name;
    EXPECT_EQ(blocks.chunk_expert_params, layers.chunk_expert_params) << name;
  }
}

TEST(ParallelBlock, OneGatherAndOneReduceScatterALayerEachWay) {
  // Llama 3 8B on TP 2 with sequence parallelism, every collective 1 us.
  // Forward, a layer gathers before QKV and before the MLP and
  // reduce-scatters after each: 4 us; stage 0's embedding reduce-scatter
  // and the output layer's gather add 2: 32 x 4 + 2 = 130 us. A parallel
  // block gathers once for both branches and reduce-scatters their sum
  // once: 32 x 2 + 2 = 66 us. Backward, the output gradient is gathered
  // before the row-parallel GEMMs (the attention output's and the MLP's
  // down projection's), the rest hides behind the GEMMs, and the
  // embedding's gradient is reduce-scattered: 32 x 2 + 1 = 65 us, and
  // 32 x 1 + 1 = 33 us with one gather for both.
  ModelSpec m = find_model("llama3-8b");
  const StageCost sequential = tp2_stage(m);
  m.parallel_block = true;
  const StageCost parallel = tp2_stage(m);
  EXPECT_EQ(sequential.forward[0].tp_comm, SimTime::from_seconds(130e-6));
  EXPECT_EQ(parallel.forward[0].tp_comm, SimTime::from_seconds(66e-6));
  EXPECT_EQ(sequential.backward[0].tp_comm, SimTime::from_seconds(65e-6));
  EXPECT_EQ(parallel.backward[0].tp_comm, SimTime::from_seconds(33e-6));
}

TEST(ParallelBlock, SavesOneNormAndOneResidualAddALayerAndNoGemm) {
  // The same GEMMs and attention; a parallel block runs one norm, not two,
  // and one residual add (two reads and a write), its branches summed in
  // the GEMMs for the single reduce-scatter. On 2,048 sequence-parallel
  // tokens of h = 4,096 in bf16 a layer's forward saves norm(2 x T_sp h x
  // 2 B) + add(3 x T_sp h x 2 B); its backward twice that (each elementwise
  // kernel's backward is priced at twice its forward).
  ModelSpec m = find_model("llama3-8b");
  const StageCost sequential = tp2_stage(m);
  m.parallel_block = true;
  const StageCost parallel = tp2_stage(m);
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  using K = hw::ComputeModel::Kernel;
  const int64_t x = 2048 * 4096 * 2;  // one T_sp x h tensor in bf16
  const SimTime per_layer =
      cm.elementwise(K::kNorm, core::Bytes(2 * x)) + cm.elementwise(K::kResidualAdd, core::Bytes(3 * x));
  EXPECT_EQ(sequential.forward[0].compute - parallel.forward[0].compute, per_layer * 32);
  EXPECT_EQ(sequential.backward[0].compute - parallel.backward[0].compute, per_layer * 2 * 32);
  // One norm fewer a layer: RMSNorm's h weights, counted on a TP rank as
  // the rest of the layer is (params.cc: layer parameters / tp), 4,096 / 2.
  EXPECT_EQ(sequential.params() - parallel.params(), 32 * 4096 / 2);
}

TEST(ParallelBlock, UnderFp8TheMlpReadsTheNormOutputQkvsCastAlreadyQuantized) {
  // Delayed-scaling FP8 on an H100 (its FP8 GEMMs take one layout, so a
  // cast writes two copies): a sequential layer's MLP casts its norm's
  // output for itself, T_sp x h elements written twice at 1 B; a parallel
  // block's MLP reads the QKV GEMM's. So FP8 saves that cast, 2 x 2,048 x
  // 4,096 B a layer, forward, on top of what bf16 saves. Backward, the two
  // branches' output projections take one output gradient, cast once for
  // the attention's: the MLP's cast (read in bf16, two FP8 copies written,
  // 2 + 2 x 1 B an element of T_sp x h) is saved.
  auto stage = [](bool parallel, hw::Precision prec) {
    ModelSpec m = find_model("llama3-8b");
    m.parallel_block = parallel;
    ParallelPlan p;
    p.tp = 2;
    TrainingSpec t;
    t.seq_len = 4096;
    t.global_batch = 1;
    t.precision = prec;
    static const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
    return StepCostModel(m, p, t, cm, [](Communicator, coll::Op, core::Bytes, const std::vector<uint32_t>&) {
             return SimTime::zero();
           }).stage(0);
  };
  const auto saved = [&](hw::Precision prec) {
    return stage(false, prec).forward[0].compute - stage(true, prec).forward[0].compute;
  };
  const auto backward_saved = [&](hw::Precision prec) {
    return stage(false, prec).backward[0].compute - stage(true, prec).backward[0].compute;
  };
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  const SimTime cast = cm.memory_bound(core::Bytes(2 * 2048 * 4096));
  EXPECT_EQ(saved(hw::Precision::kFp8) - saved(hw::Precision::kBf16), cast * 32);
  const SimTime gradient_cast = cm.memory_bound(core::Bytes(4 * 2048 * 4096));
  EXPECT_EQ(backward_saved(hw::Precision::kFp8) - backward_saved(hw::Precision::kBf16), gradient_cast * 32);
}

// Stage 0 of Llama 3 8B on TP 2, sequential or parallel blocks, every
// collective taking `collective`, under `p` (TP 2 by default).
StageCost llama_tp2(bool parallel, SimTime collective, ParallelPlan p) {
  ModelSpec m = find_model("llama3-8b");
  m.parallel_block = parallel;
  p.tp = 2;
  TrainingSpec t;
  t.seq_len = 4096;
  t.global_batch = 1;
  static const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  return StepCostModel(m, p, t, cm, [collective](Communicator, coll::Op, core::Bytes, const std::vector<uint32_t>&) {
           return collective;
         }).stage(0);
}

TEST(ParallelBlock, UnderTpOverlapItsGatherHidesBehindBothBranchesFirstGemms) {
  // With tp_comm_overlap a gather is exposed only beyond the GEMMs it is
  // pipelined with. Every collective takes c = QKV's GEMM + the MLP's up
  // projection's (4,096 tokens, Llama 3 8B's shards on TP 2): a parallel
  // block's one gather feeds both and hides whole; its reduce-scatter
  // shows c - (output projection + down projection). A sequential layer
  // shows c beyond each of its four GEMMs. Both add the embedding's
  // reduce-scatter and the output layer's gather, c each.
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  const auto gemm = [&](int64_t n, int64_t k) { return cm.gemm(4096, n, k, hw::Precision::kBf16); };
  const SimTime qkv = gemm((16 + 2 * 4) * 128, 4096), up = gemm(2 * 14336 / 2, 4096);
  const SimTime proj = gemm(4096, 2048), down = gemm(4096, 14336 / 2);
  const SimTime c = qkv + up;
  ASSERT_GT(c, proj + down);
  ParallelPlan p;
  p.tp_comm_overlap = true;
  EXPECT_EQ(llama_tp2(true, c, p).forward[0].tp_comm, (c - proj - down) * 32 + c * 2);
  EXPECT_EQ(llama_tp2(false, c, p).forward[0].tp_comm, (c * 4 - qkv - up - proj - down) * 32 + c * 2);
}

TEST(ParallelBlock, WithoutSequenceParallelismOneAllReduceALayerEachWay) {
  // Without SP a sequential layer all-reduces attention's output and the
  // MLP's, forward and backward; a parallel block all-reduces their sum
  // once: 32 collectives of 1 us fewer each way on the stage.
  ParallelPlan p;
  p.sequence_parallel = false;
  const SimTime us = SimTime::from_seconds(1e-6);
  const StageCost sequential = llama_tp2(false, us, p), parallel = llama_tp2(true, us, p);
  EXPECT_EQ(sequential.forward[0].tp_comm - parallel.forward[0].tp_comm, us * 32);
  EXPECT_EQ(sequential.backward[0].tp_comm - parallel.backward[0].tp_comm, us * 32);
}

TEST(HybridBlocks, AMambaMixerGathersAndScattersAsAttentionDoes) {
  // Under sequence parallelism a Mamba-2 block gathers the sequence before
  // in_proj and reduce-scatters after out_proj: 2 us forward for each of 4
  // blocks, as 4 attention or 4 MLP blocks run, plus the embedding's
  // reduce-scatter and the output layer's gather on this one stage, 1 us
  // each: 10 us. Backward, in_proj's second gather and its data gradient's
  // reduce-scatter hide behind its GEMMs, and the output layer's behind
  // its own; out_proj's output gradient is gathered before its GEMMs: 1 us
  // a block and the embedding's 1 us, 5 us.
  const ModelSpec& nh = find_model("nemotronh-8b");
  for (const char* pattern : {"MMMM", "****", "----"}) {
    const StageCost s = tp2_stage(testing::with_pattern(nh, pattern));
    EXPECT_EQ(s.forward[0].tp_comm, SimTime::from_seconds(10e-6)) << pattern;
    EXPECT_EQ(s.backward[0].tp_comm, SimTime::from_seconds(5e-6)) << pattern;
  }
  // Its kernels take time of their own: 4 mixers cost more than 2.
  EXPECT_GT(tp2_stage(testing::with_pattern(nh, "MMMM")).forward[0].compute,
            tp2_stage(testing::with_pattern(nh, "MM")).forward[0].compute);
}

TEST(Lora, AFrozenGemmComputesOnlyItsInputGradientAndTheAdaptersTheirOwn) {
  // Llama 3 8B on one H100, one 4,096-token sequence, bf16. Under LoRA the
  // backward drops every weight gradient dW = X^T dY (shape k x n over the
  // T tokens) of QKV, the output projection, the MLP's up (gate and up
  // together) and down GEMMs and the output layer, and the embedding's
  // gradient (a read and a write of T x h); it adds, for the QKV and output
  // projections' rank-16 adapters, the gradients of their two thin GEMMs
  // (4 each); the forward adds the adapters' 2 GEMMs each.
  const ModelSpec& m = find_model("llama3-8b");
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  TrainingSpec t = one_sequence();
  const StageCost full = compute_only(m, t, cm);
  t.lora_rank = 16;
  const StageCost lora = compute_only(m, t, cm);
  constexpr auto bf16 = hw::Precision::kBf16;
  const int64_t T = 4096, h = 4096, qkv = 4096 + 2 * 1024, f = 14336, V = m.vocab, r = 16, L = 32;
  const SimTime wgrads = (cm.gemm(h, qkv, T, bf16) + cm.gemm(h, h, T, bf16) + cm.gemm(h, 2 * f, T, bf16) +
                          cm.gemm(f, h, T, bf16)) * L +
                         cm.gemm(h, V, T, bf16) + cm.memory_bound(core::Bytes(2 * T * h * 2)) * 2;
  auto adapter_fwd = [&](int64_t n, int64_t k) { return cm.gemm(T, r, k, bf16) + cm.gemm(T, n, r, bf16); };
  auto adapter_bwd = [&](int64_t n, int64_t k) {
    return cm.gemm(T, r, n, bf16) + cm.gemm(r, n, T, bf16) + cm.gemm(T, k, r, bf16) + cm.gemm(k, r, T, bf16);
  };
  const SimTime fwd_added = (adapter_fwd(qkv, h) + adapter_fwd(h, h)) * L;
  const SimTime bwd_added = (adapter_bwd(qkv, h) + adapter_bwd(h, h)) * L;
  EXPECT_EQ(lora.forward[0].compute - full.forward[0].compute, fwd_added);
  EXPECT_EQ(full.backward[0].compute - lora.backward[0].compute, wgrads - bwd_added);
  // What the stage trains: the adapters, 294,912 a layer (params_test).
  EXPECT_EQ(lora.chunk_params[0], 294'912 * L);
}

TEST(Fp8ActivationInput, TheActivationsInputIsCastEachWay) {
  // Llama 3 8B on one H100, 4,096 tokens, FP8: keeping the SwiGLU's input
  // (4,096 x 2 x 14,336 elements a layer) in FP8 costs a cast forward (2 B
  // read, 1 B written an element) and one back in the backward: 32 layers
  // of a memory-bound pass over 3 B an element, each way.
  const ModelSpec& m = find_model("llama3-8b");
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  TrainingSpec t = one_sequence();
  t.precision = hw::Precision::kFp8;
  const StageCost plain = compute_only(m, t, cm);
  t.fp8_activation_input = true;
  const StageCost stored = compute_only(m, t, cm);
  const SimTime cast = cm.memory_bound(core::Bytes(int64_t{4096} * 2 * 14336 * 3)) * 32;
  EXPECT_EQ(stored.forward[0].compute - plain.forward[0].compute, cast);
  EXPECT_EQ(stored.backward[0].compute - plain.backward[0].compute, cast);
}

TEST(Lora, TheAdaptersDropoutPassesOverTheirInputsEachWay) {
  // With lora_dropout each adapter's input is read and written with a
  // 1-byte mask (5 B an element) forward, and its gradient likewise
  // backward: Llama 3 8B on one GPU, the QKV adapter's 4,096 x 4,096
  // elements and the output projection's 4,096 x 4,096, 32 layers.
  const ModelSpec& m = find_model("llama3-8b");
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  TrainingSpec t = one_sequence();
  t.lora_rank = 16;
  const StageCost plain = compute_only(m, t, cm);
  t.lora_dropout = 0.1;
  const StageCost dropped = compute_only(m, t, cm);
  const SimTime pass = cm.elementwise(hw::ComputeModel::Kernel::kDropout, core::Bytes(int64_t{4096} * 4096 * 5));
  EXPECT_EQ(dropped.forward[0].compute - plain.forward[0].compute, pass * 2 * 32);
  EXPECT_EQ(dropped.backward[0].compute - plain.backward[0].compute, pass * 2 * 32);
}

TEST(Lora, AColumnParallelGemmHasNoWeightGradientToHideItsReduceScatterBehind) {
  // Llama 3 8B, TP 2 with sequence parallelism and TP overlap, every
  // collective 1 s (longer than any GEMM). In full training the backward of
  // QKV and of the MLP's up projection hides its reduce-scatter behind the
  // weight-gradient GEMM, about the forward GEMM's time; under LoRA there is
  // none, so each layer exposes those two GEMMs' forward times more:
  // g_qkv = 4,096 x 3,072 over 4,096 and g_up = 4,096 x 14,336 over 4,096.
  const ModelSpec& m = find_model("llama3-8b");
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  ParallelPlan p;
  p.tp = 2;
  p.sequence_parallel = true;
  p.tp_comm_overlap = true;
  TrainingSpec t = one_sequence();
  const auto tp_comm = [&](const TrainingSpec& tt) {
    return StepCostModel(m, p, tt, cm, [](Communicator, coll::Op, core::Bytes, const std::vector<uint32_t>&) {
             return SimTime::from_seconds(1);
           }).stage(0).backward[0].tp_comm;
  };
  const SimTime full = tp_comm(t);
  t.lora_rank = 16;
  const SimTime lora = tp_comm(t);
  constexpr auto bf16 = hw::Precision::kBf16;
  const SimTime g_qkv = cm.gemm(4096, (4096 + 2 * 1024) / 2, 4096, bf16), g_up = cm.gemm(4096, 2 * 14336 / 2, 4096, bf16);
  // The output layer, column-parallel too, loses its weight gradient's cover
  // (h x V / 2 over the 4,096 tokens); a frozen embedding's backward skips
  // its reduce-scatter (1 s). The adapters' own collectives come on top,
  // four a layer backward (next tests): two all-reduces, the output's
  // gather, and the gradient of the QKV adapter's own gather of the norm
  // output, which TE's pipelined QKV gather leaves it to do.
  const SimTime output_wgrad = cm.gemm(4096, m.vocab / 2, 4096, bf16);
  EXPECT_EQ(lora - full, (g_qkv + g_up) * 32 + output_wgrad - SimTime::from_seconds(1) + SimTime::from_seconds(4) * 32);
}

// Stage 0 with each all-to-all taking 1 ns a byte and no other collective
// any time: what a plan's all-to-alls send, in nanoseconds.
StageCost all_to_all_bytes_stage(const ModelSpec& m, const ParallelPlan& p, const TrainingSpec& t,
                                 const hw::ComputeModel& cm) {
  return StepCostModel(m, p, t, cm, [](Communicator, coll::Op op, core::Bytes b, const std::vector<uint32_t>&) {
           return op == coll::Op::kAllToAll ? SimTime::ns(b.count()) : SimTime::zero();
         }).stage(0);
}

TEST(ContextParallel, AllToAllRunsOneKernelOnAShareOfTheHeadsAndExchangesFourTensorsEachWay) {
  // Llama 3 8B (32 heads, 8 KV heads of 128) at 8,192 tokens over CP 4,
  // all-to-all: each rank's attention is one causal kernel over all 8,192
  // tokens on 8 heads, where all-gather CP prices a quarter of the 32-head
  // kernel, plus two 16-bit passes (read and write) over its 2,048 tokens of
  // Q, K, V and the output, 2,048 x (32 + 8) x 256 elements, each way. Its
  // exchanges, 1 ns a byte here: Q and the output 2,048 x 4,096 x 2 B, K and
  // V 2,048 x 1,024 x 2 B, forward and again backward, in each of 32 layers.
  const ModelSpec& m = find_model("llama3-8b");
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  const auto stage = [&](bool a2a) { return all_to_all_bytes_stage(m, cp4(a2a), one_long_sequence(), cm); };
  const StageCost a2a = stage(true), gathered = stage(false);
  const SimTime passes = cm.memory_bound(core::Bytes(int64_t{2048} * 40 * 256 * 2 * 2 * 2));
  const auto kernel = [&](int64_t heads, bool backward) {
    return backward ? cm.attention_bwd(1, 8192, heads, 128, true) : cm.attention_fwd(1, 8192, heads, 128, true);
  };
  EXPECT_EQ(a2a.forward[0].compute - gathered.forward[0].compute,
            (kernel(8, false) + passes - kernel(32, false) / 4) * 32);
  EXPECT_EQ(a2a.backward[0].compute - gathered.backward[0].compute,
            (kernel(8, true) + passes - kernel(32, true) / 4) * 32);
  const SimTime exchanges = SimTime::ns((2 * 2048 * 4096 * 2 + 2 * 2048 * 1024 * 2) * int64_t{32});
  EXPECT_EQ(a2a.forward[0].cp_comm, exchanges);
  EXPECT_EQ(a2a.backward[0].cp_comm, exchanges);
  // Under FP8 attention (delayed scaling) TE exchanges FP8 data, the
  // gradients too: half the bytes each way.
  const ParallelPlan p = cp4(true);
  TrainingSpec t = one_long_sequence();
  t.precision = hw::Precision::kFp8;
  t.fp8_attention = true;
  const StageCost fp8 = all_to_all_bytes_stage(m, p, t, cm);
  EXPECT_EQ(fp8.forward[0].cp_comm, exchanges / 2);
  EXPECT_EQ(fp8.backward[0].cp_comm, exchanges / 2);
  // Current scaling exchanges Q, K, V and the output gradient in FP8 but the
  // output and dQ, dK, dV in 16 bits; MXFP8 quantizes after the exchange.
  const auto with_recipe = [&](Fp8Recipe recipe) {
    t.fp8_recipe = recipe;
    return all_to_all_bytes_stage(m, p, t, cm);
  };
  const int64_t q = 2048 * 4096, kv = 2 * 2048 * 1024;
  const StageCost tensorwise = with_recipe(Fp8Recipe::kTensorwise);
  EXPECT_EQ(tensorwise.forward[0].cp_comm, SimTime::ns((q + kv + q * 2) * 32));
  EXPECT_EQ(tensorwise.backward[0].cp_comm, SimTime::ns((q + (q + kv) * 2) * 32));
  EXPECT_EQ(with_recipe(Fp8Recipe::kMxfp8).forward[0].cp_comm, exchanges);
}

TEST(ContextParallel, AMambaMixerExchangesItsFiveInputsAndItsOutputEachWay) {
  // Nemotron-H 8B's mixer (d = 128 heads x 64 = 8,192; 8 groups of state
  // 128) in 4 blocks at 8,192 tokens over CP 4 (MambaContextParallel): each
  // rank's 2,048 tokens of z and x (8,192 wide), B and C (8 x 128) and dt
  // (128) go out before the conv and the SSD, and its output (8,192) comes
  // back: 2,048 x 26,752 x 2 B a block, forward and again backward (1 ns a
  // byte here). Over CP 16 a rank holds half a group, so B and C go out
  // twice over: 512 x (3 x 8,192 + 2 x 2,048 + 128) x 2 B.
  const ModelSpec m = testing::with_pattern(find_model("nemotronh-8b"), "MMMM");
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  ParallelPlan p = cp4(true);
  const StageCost four = all_to_all_bytes_stage(m, p, one_long_sequence(), cm);
  EXPECT_EQ(four.forward[0].cp_comm, SimTime::ns(int64_t{2048} * 26752 * 2 * 4));
  EXPECT_EQ(four.backward[0].cp_comm, four.forward[0].cp_comm);
  p.cp = 16;
  const StageCost sixteen = all_to_all_bytes_stage(m, p, one_long_sequence(), cm);
  EXPECT_EQ(sixteen.forward[0].cp_comm, SimTime::ns(int64_t{512} * 28800 * 2 * 4));
  // Without CP a mixer exchanges nothing.
  EXPECT_EQ(all_to_all_bytes_stage(m, ParallelPlan{}, one_long_sequence(), cm).forward[0].cp_comm, SimTime::zero());
}

TEST(ContextParallel, HierarchicalExchangesInsideEachGroupAndRingsAcrossThem) {
  // Llama 3 8B (32 heads, 8 KV heads of 128) at 8,192 tokens over CP 8 as
  // Transformer Engine's a2a+p2p with groups of 4: each rank's 1,024 tokens
  // of all 32 heads become its group's 4,096 tokens of 8 heads, and a ring
  // of 2 runs over those: step 0 a causal kernel over 4,096 tokens, then
  // half an unmasked one. Its all-to-alls span 4 ranks and move what 1,024
  // tokens hold: Q and the output 1,024 x 4,096 x 2 B, K and V
  // 1,024 x 1,024 x 2 B each. The ring's all-gather spans 2 ranks and holds
  // the sequence's K and V of 8 / 4 = 2 KV heads, 8,192 x 2 x 256 x 2 B.
  const ModelSpec& m = find_model("llama3-8b");
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  // The CP group is ranks 0-7 (no TP): the all-to-all's is its first four,
  // the ring's every fourth.
  std::map<coll::Op, std::set<std::pair<std::vector<uint32_t>, int64_t>>> seen;  // (ranks, bytes) of each op
  SimTime gather_time;  // what the ring's all-gather takes
  TrainingSpec t = one_long_sequence();
  const auto stage = [&](bool hierarchical) {
    ParallelPlan p;
    p.cp = 8;
    p.cp_a2a_size = hierarchical ? 4 : 1;
    p.cp_all_gather = !hierarchical;
    seen.clear();
    return StepCostModel(m, p, t, cm, [&](Communicator, coll::Op op, core::Bytes b, const std::vector<uint32_t>& ranks) {
             seen[op].insert({ranks, b.count()});
             return op == coll::Op::kAllGather ? gather_time : SimTime::zero();
           }).stage(0);
  };
  const StageCost gathered = stage(false);
  const StageCost hier = stage(true);
  using Seen = std::set<std::pair<std::vector<uint32_t>, int64_t>>;
  const std::vector<uint32_t> group{0, 1, 2, 3}, ring_group{0, 4};
  const int64_t q = int64_t{1024} * 4096 * 2, kv = int64_t{1024} * 1024 * 2;
  EXPECT_EQ(seen[coll::Op::kAllToAll], (Seen{{group, q}, {group, kv}}));
  EXPECT_EQ(seen[coll::Op::kAllGather], (Seen{{ring_group, int64_t{8192} * 2 * 256 * 2}}));
  // The attention of the 32 layers, against all-gather CP's 1 / 8 of the
  // whole kernel: the ring's two steps on 8 heads, the all-to-all's layout
  // passes and the ring's merges.
  const auto kernel = [&](int64_t tokens, bool causal, int64_t heads, bool backward) {
    return backward ? cm.attention_bwd(1, tokens, heads, 128, causal) : cm.attention_fwd(1, tokens, heads, 128, causal);
  };
  const CpPasses passes = a2a_layout_passes(cm, 1024 * (32 * 128 + 8 * 256), 1024 * 32 * 128, {2, 2, 2, 2});
  const CpPasses merges = ring_merges(cm, {.out_elems = 1024 * 32 * 128,
                                           .q_elems = 1024 * 32 * 128,
                                           .k_elems = 1024 * 8 * 128,
                                           .v_elems = 1024 * 8 * 128,
                                           .cp = 2});
  for (bool backward : {false, true}) {
    const SimTime ring = kernel(4096, true, 8, backward) + kernel(4096, false, 8, backward) * 1 / 2;
    const SimTime outside = backward ? passes.backward + merges.backward : passes.forward + merges.forward;
    const SimTime diff = backward ? hier.backward[0].compute - gathered.backward[0].compute
                                  : hier.forward[0].compute - gathered.forward[0].compute;
    EXPECT_EQ(diff, (ring + outside - kernel(8192, true, 32, backward) / 8) * 32) << backward;
  }
  // The ring's K/V passes hide behind its kernels alone, not behind the
  // all-to-all's passes or the merges: a 1 s gather leaves 1 s less the
  // ring's forward kernels exposed in each layer.
  gather_time = SimTime::from_seconds(1);
  const SimTime ring_f = kernel(4096, true, 8, false) + kernel(4096, false, 8, false) * 1 / 2;
  EXPECT_EQ(stage(true).forward[0].cp_comm, (SimTime::from_seconds(1) - ring_f) * 32);
  // Under FP8 attention with delayed scaling TE exchanges Q, K and V before
  // it quantizes them (16 bits), the merged output as the merges leave it
  // (fp32) and the quantized output gradient (1 B); dQ, dK, dV in 16 bits.
  gather_time = SimTime::zero();
  t.precision = hw::Precision::kFp8;
  t.fp8_attention = true;
  stage(true);
  // The ring, behind the quantization, passes K and V in FP8, and sends the
  // peers' dK and dV back in one FP8 all-to-all over the ring's ranks.
  const int64_t ring_kv = int64_t{8192} * 2 * 256;
  EXPECT_EQ(seen[coll::Op::kAllToAll],
            (Seen{{group, q}, {group, kv}, {group, q * 2}, {group, q / 2}, {ring_group, ring_kv}}));
  EXPECT_EQ(seen[coll::Op::kAllGather], (Seen{{ring_group, ring_kv}}));
  EXPECT_TRUE(seen[coll::Op::kReduceScatter].empty());
}

TEST(ContextParallel, UnderFp8AttentionTheRingsGradientsGoBackInOneAllToAllAtTheLastStep) {
  // Llama 3 8B at 8,192 tokens on a ring of CP 2 with FP8 attention: TE
  // passes only K and V around the ring backward and returns the peer's dK
  // and dV in one FP8 all-to-all at the last step, which hides behind that
  // step's kernel alone (half an unmasked 4,096-token FP8 backward). With
  // the all-to-all taking 1 s and nothing else any time, each of the 32
  // layers exposes 1 s less that kernel.
  const ModelSpec& m = find_model("llama3-8b");
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  ParallelPlan p;
  p.cp = 2;
  TrainingSpec t = one_long_sequence();
  t.precision = hw::Precision::kFp8;
  t.fp8_attention = true;
  const StageCost c = StepCostModel(m, p, t, cm, [](Communicator, coll::Op op, core::Bytes, const std::vector<uint32_t>&) {
                        return op == coll::Op::kAllToAll ? SimTime::from_seconds(1) : SimTime::zero();
                      }).stage(0);
  const SimTime last = cm.attention_bwd(1, 4096, 32, 128, false, 0, hw::AttentionKernel::kFlash,
                                        hw::Precision::kFp8) / 2;
  EXPECT_EQ(c.backward[0].cp_comm, (SimTime::from_seconds(1) - last) * 32);
  EXPECT_EQ(c.forward[0].cp_comm, SimTime::zero());
}

TEST(ContextParallel, ReplayingTheAttentionModuleRunsItsExchangesAgain) {
  // Transformer Engine's context parallelism lives inside the attention
  // module, so recomputing the core attention replays its forward exchanges:
  // all-gather CP's gather of K and V (one collective), all-to-all CP's four
  // exchanges. Llama 3 8B at CP 4, every collective 1 s: 32 layers of 1 s
  // more backward, or 4 s.
  const ModelSpec& m = find_model("llama3-8b");
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  const auto backward = [&](bool a2a, bool replay) {
    const ParallelPlan p = cp4(a2a);
    TrainingSpec t = one_long_sequence();
    t.recompute = Recompute::kSelective;
    t.recompute_modules = replay ? kRecomputeCoreAttn : kRecomputeLayernorm;
    return StepCostModel(m, p, t, cm, [](Communicator, coll::Op, core::Bytes, const std::vector<uint32_t>&) {
             return SimTime::from_seconds(1);
           }).stage(0).backward[0].cp_comm;
  };
  EXPECT_EQ(backward(false, true) - backward(false, false), SimTime::from_seconds(1) * 32);
  EXPECT_EQ(backward(true, true) - backward(true, false), SimTime::from_seconds(4) * 32);
}

TEST(TpCommOverlap, ADisabledLayerWaitsForItsWholeGatherAndLoraThenSkipsItsAdaptersOwn) {
  // Llama 3 8B, TP 2 with sequence parallelism and TP overlap, every
  // collective 1 s (longer than any GEMM). Pipelined, a gather leaves
  // 1 s less its GEMM exposed; with its layer's overlap disabled, the whole
  // 1 s: each of the 32 layers exposes g_qkv (4,096 x 3,072 over 4,096) more
  // with disable_qkv and g_up (4,096 x 14,336 over 4,096) with disable_fc1.
  // Under LoRA, a QKV gather pipelined into the GEMM makes the QKV adapter
  // gather the norm output itself (1 s forward) and reduce-scatter its
  // gradient (1 s backward); disable_qkv spares both.
  const ModelSpec& m = find_model("llama3-8b");
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  const auto stage = [&](bool qkv, bool fc1, int64_t rank) {
    ParallelPlan p;
    p.tp = 2;
    p.sequence_parallel = true;
    p.tp_comm_overlap = true;
    p.tp_comm_overlap_disable_qkv = qkv;
    p.tp_comm_overlap_disable_fc1 = fc1;
    TrainingSpec t = one_sequence();
    t.lora_rank = rank;
    return StepCostModel(m, p, t, cm, [](Communicator, coll::Op, core::Bytes, const std::vector<uint32_t>&) {
             return SimTime::from_seconds(1);
           }).stage(0);
  };
  constexpr auto bf16 = hw::Precision::kBf16;
  const SimTime g_qkv = cm.gemm(4096, (4096 + 2 * 1024) / 2, 4096, bf16);
  const SimTime g_up = cm.gemm(4096, 2 * 14336 / 2, 4096, bf16);
  const StageCost both = stage(false, false, 0);
  EXPECT_EQ(stage(true, false, 0).forward[0].tp_comm - both.forward[0].tp_comm, g_qkv * 32);
  EXPECT_EQ(stage(false, true, 0).forward[0].tp_comm - both.forward[0].tp_comm, g_up * 32);
  EXPECT_EQ(stage(true, false, 0).backward[0].tp_comm, both.backward[0].tp_comm);
  const StageCost regathers = stage(false, false, 16), reads = stage(true, false, 16);
  // Forward: 1 s less g_qkv pipelined plus its own 1 s, against the 1 s exposed.
  EXPECT_EQ(regathers.forward[0].tp_comm - reads.forward[0].tp_comm, (SimTime::from_seconds(1) - g_qkv) * 32);
  EXPECT_EQ(regathers.backward[0].tp_comm - reads.backward[0].tp_comm, SimTime::from_seconds(1) * 32);
}

TEST(Lora, TheAdaptersRunTheirOwnTensorParallelCollectives) {
  // Llama 3 8B at TP 2, 4,096 tokens, rank 16, nothing overlapped; each
  // collective takes 1 ns a byte times 1 (all-reduce), 2 (all-gather), 3
  // (reduce-scatter) or 5 (all-to-all), so each shows apart. NeMo's
  // adapters add, a layer: forward, the gather of the QKV adapter's X A and
  // the all-reduce of the output adapter's (R = 4,096 x 16 x 2 B), and the
  // output adapter's T x h / 2 back to the base output's layout: under
  // sequence parallelism a gather of S = 4,096 x 4,096 x 2 B, or with
  // lora_all_to_all an all-to-all of S / 2 a rank; backward, two
  // all-reduces of R and the same move of the output's gradient. Without
  // sequence parallelism the forward gathers S and the backward, instead of
  // moving the gradient, all-reduces the QKV adapter's input gradient (S);
  // the frozen embedding then drops its all-reduce of S.
  const ModelSpec& m = find_model("llama3-8b");
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  const auto run = [&](bool sp, int64_t rank, bool a2a) {
    ParallelPlan p;
    p.tp = 2;
    p.sequence_parallel = sp;
    TrainingSpec t = one_sequence();
    t.lora_rank = rank;
    t.lora_all_to_all = a2a;
    return StepCostModel(m, p, t, cm, [](Communicator, coll::Op op, core::Bytes b, const std::vector<uint32_t>&) {
             const int64_t weight = op == coll::Op::kAllReduce    ? 1
                                    : op == coll::Op::kAllGather  ? 2
                                    : op == coll::Op::kReduceScatter ? 3
                                                                   : 5;
             return SimTime::ns(b.count() * weight);
           }).stage(0);
  };
  const auto ns = [](int64_t n) { return SimTime::ns(n); };
  constexpr int64_t R = 4096 * 16 * 2, S = int64_t{4096} * 4096 * 2, L = 32;
  const StageCost full = run(true, 0, false), gather = run(true, 16, false), a2a = run(true, 16, true);
  EXPECT_EQ(gather.forward[0].tp_comm - full.forward[0].tp_comm, ns((2 * R + R + 2 * S) * L));
  EXPECT_EQ(a2a.forward[0].tp_comm - full.forward[0].tp_comm, ns((2 * R + R + 5 * S / 2) * L));
  EXPECT_EQ(gather.backward[0].tp_comm - a2a.backward[0].tp_comm, ns((2 * S - 5 * S / 2) * L));
  // Twice the rank doubles R alone: 3 R more a layer forward, 2 R backward.
  const StageCost rank32 = run(true, 32, false);
  EXPECT_EQ(rank32.forward[0].tp_comm - gather.forward[0].tp_comm, ns(3 * R * L));
  EXPECT_EQ(rank32.backward[0].tp_comm - gather.backward[0].tp_comm, ns(2 * R * L));
  const StageCost plain = run(false, 0, false), lora = run(false, 16, false);
  EXPECT_EQ(lora.forward[0].tp_comm - plain.forward[0].tp_comm, ns((2 * R + R + 2 * S) * L));
  EXPECT_EQ(lora.backward[0].tp_comm - plain.backward[0].tp_comm, ns((2 * R + S) * L - S));
}

TEST(WeightCasts, AnFp8ChunkCastsItsLayersWeightsOnceAnIteration) {
  // Llama 3 8B on one H100 at FP8 with 16-bit weights: every weight of the
  // 32 layers is cast once an iteration, a 2-byte read and two 1-byte
  // writes (the H100's FP8 GEMMs take one layout, and the input gradient
  // reads W transposed); none in bf16 or with the weights kept in FP8.
  const ModelSpec& m = find_model("llama3-8b");
  const hw::ComputeModel cm = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  TrainingSpec t = one_sequence();
  EXPECT_EQ(compute_only(m, t, cm).weight_casts[0], SimTime::zero());
  t.precision = hw::Precision::kFp8;
  const double elems =
      static_cast<double>(chunk_params(m, ParallelPlan{}, LayerRange{0, 32}, false, false, false).total());
  EXPECT_EQ(compute_only(m, t, cm).weight_casts[0], cm.memory_bound(core::Bytes(static_cast<int64_t>(elems * 4))));
  ParallelPlan kept;
  kept.fp8_param_gather = true;
  const StageCost fp8_weights = StepCostModel(m, kept, t, cm, [](Communicator, coll::Op, core::Bytes, const std::vector<uint32_t>&) {
                                  return SimTime::zero();
                                }).stage(0);
  EXPECT_EQ(fp8_weights.weight_casts[0], SimTime::zero());
}

}  // namespace
}  // namespace anatomy::workload
