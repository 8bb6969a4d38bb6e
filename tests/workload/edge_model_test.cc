#include "workload/edge_model.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/error.h"
#include "hw/catalog.h"
#include "hw/compute_model.h"
#include "workload/cp_passes.h"
#include "workload/model.h"

namespace anatomy::workload {
namespace {

TEST(EdgeModel, ResNet50ParametersAndMacsComeFromItsLayers) {
  // torchvision's resnet50 has 25,557,032 parameters (conv weights, batch
  // norm scale and shift, the 2048 x 1000 classifier and its bias) and
  // 4.089 GMACs at 224x224: stem 118.0M, the 16 bottlenecks, fc 2.048M.
  const EdgeModel m = find_edge_model("resnet-50", 0);
  EXPECT_EQ(m.params(), 25'557'032);
  EXPECT_DOUBLE_EQ(m.forward_flops(), 2.0 * 4'089'184'256);
}

TEST(EdgeModel, VitB16ParametersAndMacsComeFromItsLayers) {
  // timm's vit_base_patch16_224: 86,567,656 parameters = patch embedding
  // 768 x 768 + 768, class token 768, positions 197 x 768, 12 x (12 h^2 + 13 h),
  // final norm 2 x 768, head 768 x 1000 + 1000. MACs per image: patches
  // 196 x 768 x 768, per layer 197 x 12 h^2 + 2 x 197^2 x h, head 768 x 1000:
  // 17,563,828,224.
  const EdgeModel m = find_edge_model("vit-b16", 0);
  EXPECT_EQ(m.params(), 86'567'656);
  EXPECT_DOUBLE_EQ(m.forward_flops(), 2.0 * 17'563'828'224);
}

TEST(EdgeModel, FineTuningModesCostWhatTheyCompute) {
  // Full: forward + 2 x forward backward = 3 F. Frozen backbone: F + the
  // head's weight gradient (2 x 2048 x 1000 FLOPs for ResNet-50).
  const EdgeModel m = find_edge_model("resnet-50", 0);
  const double f = m.forward_flops();
  EXPECT_DOUBLE_EQ(m.train_flops(FineTune::kFull, 16), 3 * f);
  EXPECT_DOUBLE_EQ(m.train_flops(FineTune::kFrozenBackbone, 16), f + 2.0 * 2048 * 1000);
  EXPECT_EQ(m.trainable_params(FineTune::kFrozenBackbone, 16), 2048 * 1000 + 1000);
}

TEST(EdgeModel, LoraTrainsRankTimesInPlusOutPerAdaptedProduct) {
  // ViT-B/16, rank 8 on qkv (768 -> 2304) and the attention output (768 ->
  // 768) in 12 layers: 12 x 8 x ((768 + 2304) + (768 + 768)) = 442,368.
  const EdgeModel m = find_edge_model("vit-b16", 0);
  EXPECT_EQ(m.trainable_params(FineTune::kLora, 8), 442'368);
  // Backward through every product (1 F) plus the adapters: between 2 F and 3 F.
  EXPECT_GT(m.train_flops(FineTune::kLora, 8), 2 * m.forward_flops());
  EXPECT_LT(m.train_flops(FineTune::kLora, 8), 3 * m.forward_flops());
  // Exactly: the products 2 x, attention 3 x (its backward is dQ, dK and dV,
  // twice its forward), each adapter 3 x 2 x rows x 8 x (k + n).
  double expected = 0;
  for (const ModelOp& op : m.ops) {
    const double fwd = op.kind == ModelOp::kAttention
                           ? 4.0 * op.m * op.m * op.heads * op.head_dim * op.repeat
                           : 2.0 * op.m * op.n * op.k * op.repeat;
    expected += (op.kind == ModelOp::kAttention ? 3 : 2) * fwd;
    if (op.adaptable) expected += 3.0 * 2.0 * op.m * 8 * (op.k + op.n) * op.repeat;
  }
  EXPECT_NEAR(m.train_flops(FineTune::kLora, 8), expected, 1e-9 * expected);
}

TEST(EdgeModel, Nvfp4CastsFindTheirAmaxInAPassOfTheirOwn) {
  // One product of 64 x 1024 over 1024 on a B200 in FP4: its input's cast
  // reads 64 x 1024 bf16 values and writes half a byte each; NVFP4 first
  // reads them once more for the amax (2 bytes an element), which the same
  // part taken as MXFP4 does not.
  EdgeModel m;
  m.name = "one-product";
  ModelOp op;
  op.m = 64;
  op.n = 1024;
  op.k = 1024;
  m.ops.push_back(op);
  hw::Accelerator mx = hw::find_accelerator("B200");
  mx.arch.nvfp4 = false;
  const hw::ComputeModel nv = hw::make_compute_model(hw::find_accelerator("B200"), nullptr);
  const hw::ComputeModel mxc = hw::make_compute_model(mx, nullptr);
  const core::SimTime extra = inference_time(m, 1, nv, hw::Precision::kFp4) - inference_time(m, 1, mxc, hw::Precision::kFp4);
  EXPECT_EQ(extra, nv.memory_bound(core::Bytes(64 * 1024 * 2)));
}

TEST(EdgeModel, SlidingLayersRunAWindowedAttentionOfTheirOwn) {
  // GPT-OSS 20B at 4,096 tokens: 12 of its 24 layers slide. Their attention
  // core is an op of its own with the 128-token window, counted at twice
  // the keys a query sees on average, 252.03125 instead of 4,096, so the
  // forward is 12 x 4 x 4096 x (4096 - 252.03125) x 64 heads x 64 smaller
  // than with every layer attending to the whole sequence.
  const EdgeModel m = find_edge_model("gpt-oss-20b", 4096);
  ModelSpec full = find_model("gpt-oss-20b");
  full.sliding_window = 0;
  full.full_attention_step = 0;
  const EdgeModel whole = from_transformer(full, 4096);
  int windowed = 0;
  for (const ModelOp& op : m.ops)
    if (op.window == 128) windowed += static_cast<int>(op.repeat);
  EXPECT_EQ(windowed, 12);
  EXPECT_NEAR(whole.forward_flops() - m.forward_flops(), 12 * 4.0 * 4096 * (4096 - 252.03125) * 64 * 64, 1e3);
  EXPECT_EQ(m.params(), whole.params());
}

TEST(EdgeModel, TransformerPresetsKeepTheirParameterCount) {
  const EdgeModel m = find_edge_model("llama3-8b", 4096);
  EXPECT_EQ(m.params(), find_model("llama3-8b").params());
  EXPECT_EQ(m.sample, "4096 tokens");
  EXPECT_THROW(find_edge_model("resnet-51", 0), core::InputError);
}

TEST(EdgeModel, StepTimesOrderByWhatEachModeComputes) {
  const hw::ComputeModel c = hw::make_compute_model(hw::find_accelerator("MI325X"), nullptr);
  const EdgeModel m = find_edge_model("vit-b16", 0);
  const auto step = [&](FineTune f) { return train_step_time(m, f, 16, 64, c, hw::Precision::kBf16); };
  const core::SimTime forward = inference_time(m, 64, c, hw::Precision::kBf16);
  EXPECT_GT(step(FineTune::kFrozenBackbone), forward);
  EXPECT_GT(step(FineTune::kLora), step(FineTune::kFrozenBackbone));
  EXPECT_GT(step(FineTune::kFull), step(FineTune::kLora));
  // Full fine-tuning is about 3 forwards (GEMM efficiency differs by shape).
  EXPECT_NEAR(step(FineTune::kFull).seconds() / forward.seconds(), 3.0, 0.6);
}


TEST(EdgeModel, RecomputedLayersAddTheirForwardToTheStep) {
  // Megatron's block recompute of n layers runs those layers' forward again
  // in the backward: n of ViT-B/16's 12 identical layers add n / 12 of the
  // 12 layers' forward (the patch embedding and head, not repeated, add none).
  const hw::ComputeModel c = hw::make_compute_model(hw::find_accelerator("MI300X"), nullptr);
  const EdgeModel m = find_edge_model("vit-b16", 0);
  const auto step = [&](int64_t n) {
    return train_step_time(m, FineTune::kLora, 16, 64, c, hw::Precision::kBf16, {.recompute_layers = n});
  };
  EdgeModel layers = m;
  std::erase_if(layers.ops, [](const ModelOp& op) { return op.repeat == 1; });
  const double per_layer = inference_time(layers, 64, c, hw::Precision::kBf16).seconds() / 12;
  EXPECT_NEAR((step(3) - step(0)).seconds(), 3 * per_layer, 1e-9);
  EXPECT_NEAR((step(12) - step(0)).seconds(), 12 * per_layer, 1e-9);
  EXPECT_EQ(step(40), step(12));  // no more layers than the model has
}

TEST(EdgeModel, ContextParallelismSplitsEveryProductAndRunsTheAttentionRing) {
  // Llama 2 70B at 8,192 tokens split over CP 2: each accelerator runs every
  // product on 4,096 tokens, and its attention as Transformer Engine's ring
  // does: a causal kernel over its 4,096 tokens, then one step of 4,096
  // queries against 2,048 keys without a mask, half an unmasked 4,096
  // kernel. Its FLOPs are half the whole sequence's. At CP 4: 2,048 tokens,
  // a causal kernel over them and 3 half kernels.
  const hw::ComputeModel c = hw::make_compute_model(hw::find_accelerator("MI300X"), nullptr);
  const EdgeModel m = find_edge_model("llama2-70b", 8192);
  const EdgeModel half = split_sequence(m, 2);
  ASSERT_EQ(half.ops.size(), m.ops.size());
  for (size_t i = 0; i < m.ops.size(); ++i) {
    if (m.ops[i].kind == ModelOp::kGemm) EXPECT_EQ(half.ops[i].m, 4096) << m.ops[i].name;
  }
  EXPECT_NEAR(half.forward_flops() / m.forward_flops(), 0.5, 1e-12);
  const auto attention = [](const EdgeModel& e) {
    for (const ModelOp& op : e.ops)
      if (op.kind == ModelOp::kAttention) return op;
    return ModelOp{};
  };
  const ModelOp a = attention(m);
  const auto ring = [&](int cp, bool backward) {
    const int64_t block = 8192 / cp;
    const auto k = [&](bool causal) {
      return backward ? c.attention_bwd(1, block, a.heads, a.head_dim, causal)
                      : c.attention_fwd(1, block, a.heads, a.head_dim, causal);
    };
    // The steps merged after (cp_passes_test): output and dQ as wide as
    // Q (8,192), K and V 1,024 each.
    const CpPasses merges = ring_merges(
        c,
        {.out_elems = block * 8192, .q_elems = block * 8192, .k_elems = block * 1024, .v_elems = block * 1024, .cp = cp});
    return (k(true) + k(false) * (cp - 1) / 2 + (backward ? merges.backward : merges.forward)) * a.repeat;
  };
  const auto only_attention = [](EdgeModel e) {
    std::erase_if(e.ops, [](const ModelOp& op) { return op.kind != ModelOp::kAttention; });
    return e;
  };
  EXPECT_EQ(inference_time(only_attention(half), 1, c, hw::Precision::kBf16), ring(2, false));
  EXPECT_EQ(inference_time(only_attention(split_sequence(m, 4)), 1, c, hw::Precision::kBf16), ring(4, false));
  // The LoRA step's backward runs the ring's backward kernels too.
  EXPECT_EQ(train_step_time(only_attention(half), FineTune::kLora, 16, 1, c, hw::Precision::kBf16) -
                inference_time(only_attention(half), 1, c, hw::Precision::kBf16) -
                c.optimizer_step(only_attention(half).trainable_params(FineTune::kLora, 16)),
            ring(2, true));
  // Without a causal mask each of the cp ring steps is a whole unmasked
  // block: cp kernels of 4,096, (8192 / 2)^2 x 2 = 8192^2 / 2 score
  // elements, half the whole sequence's, as the FLOPs split.
  ModelOp bidirectional = a;
  bidirectional.causal = false;
  bidirectional.ring = 2;
  EdgeModel e;
  e.ops = {bidirectional};
  EXPECT_EQ(inference_time(e, 1, c, hw::Precision::kBf16),
            (c.attention_fwd(1, 4096, a.heads, a.head_dim, false) * 2 +
             ring_merges(c, {.out_elems = 4096 * 8192,
                             .q_elems = 4096 * 8192,
                             .k_elems = 4096 * 1024,
                             .v_elems = 4096 * 1024,
                             .cp = 2,
                             .causal = false})
                 .forward) *
                a.repeat);
}

TEST(EdgeModel, AllToAllContextParallelismRunsAShareOfTheHeadsOverTheWholeSequence) {
  // Llama 2 70B at 8,192 tokens over CP 4 by all-to-all: every product on
  // 2,048 tokens; attention one causal kernel over all 8,192 tokens on 16
  // of the 64 heads, after laying out and reordering Q, K, V and the output
  // around the exchanges: two 16-bit passes (a read and a write each) over
  // 8,192 x (2,048 + 2 x 256 + 2,048) elements. Its exchanges send, per
  // accelerator, 8,192 x 2,048 x 2 B of Q and of the output and 8,192 x 256
  // x 2 B of K and of V. The FLOPs are those of the ring's split.
  const hw::ComputeModel c = hw::make_compute_model(hw::find_accelerator("B200"), nullptr);
  const EdgeModel m = find_edge_model("llama2-70b", 8192);
  const EdgeModel a2a = split_sequence(m, 4, CpComm::kAllToAll);
  EXPECT_NEAR(a2a.forward_flops() / split_sequence(m, 4).forward_flops(), 1.0, 1e-12);
  ModelOp attention;
  for (const ModelOp& op : a2a.ops) {
    if (op.kind == ModelOp::kGemm) EXPECT_EQ(op.m, 2048) << op.name;
    if (op.kind == ModelOp::kAttention) attention = op;
  }
  EXPECT_EQ(attention.heads, 16);
  EXPECT_EQ(attention.m, 8192);
  EdgeModel only;
  only.ops = {attention};
  const core::SimTime passes = c.memory_bound(core::Bytes(int64_t{8192} * (2048 + 512 + 2048) * 2 * 2 * 2));
  EXPECT_EQ(inference_time(only, 1, c, hw::Precision::kBf16),
            (passes + c.attention_fwd(1, 8192, 16, 128, true)) * attention.repeat);
  const std::vector<core::Bytes> sent = cp_all_to_all_bytes(attention, 1);
  ASSERT_EQ(sent.size(), 4u);
  EXPECT_EQ(sent[0], core::Bytes(int64_t{8192} * 2048 * 2));
  EXPECT_EQ(sent[1], core::Bytes(int64_t{8192} * 256 * 2));
  EXPECT_EQ(sent[2], sent[1]);
  EXPECT_EQ(sent[3], sent[0]);
  // Under FP8 attention TE exchanges the FP8 data: a byte an element.
  EXPECT_EQ(cp_all_to_all_bytes(attention, 1, 1)[0], core::Bytes(int64_t{8192} * 2048));
  // The ring exchanges nothing this way.
  for (const ModelOp& op : split_sequence(m, 4).ops) EXPECT_TRUE(cp_all_to_all_bytes(op, 1).empty()) << op.name;
  // An MLA model's Q and K are wider than its V and output: Kimi K2's 64
  // heads split over CP 8, 8 a GPU, each exchanged at its own width.
  const ModelSpec& kimi = find_model("kimi-k2");
  ModelOp mla;
  for (const ModelOp& op : split_sequence(find_edge_model("kimi-k2", 8192), 8, CpComm::kAllToAll).ops)
    if (op.kind == ModelOp::kAttention) mla = op;
  EXPECT_EQ(mla.heads, kimi.heads / 8);
  const std::vector<core::Bytes> mla_sent = cp_all_to_all_bytes(mla, 1);
  ASSERT_EQ(mla_sent.size(), 4u);
  EXPECT_EQ(mla_sent[0], core::Bytes(int64_t{8192} * kimi.q_width() / 8 * 2));
  EXPECT_EQ(mla_sent[1], core::Bytes(int64_t{8192} * kimi.k_width() / 8 * 2));
  EXPECT_EQ(mla_sent[2], core::Bytes(int64_t{8192} * kimi.v_width() / 8 * 2));
  EXPECT_EQ(mla_sent[3], core::Bytes(int64_t{8192} * kimi.out_width() / 8 * 2));
  // Its 8 KV heads do not split over 16.
  try {
    split_sequence(m, 16, CpComm::kAllToAll);
    FAIL() << "8 KV heads split over 16";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().field, "edge.retrain.context_parallel");
    EXPECT_NE(e.message().find("do not divide"), std::string::npos) << e.message();
  }
}

TEST(EdgeModel, ContextParallelismNeedsATransformerWhoseSequenceSplits) {
  const auto error = [](const EdgeModel& m, int cp) {
    try {
      split_sequence(m, cp);
    } catch (const core::InputError& e) {
      return e.where().field + ": " + e.message();
    }
    return std::string("no error");
  };
  EXPECT_EQ(error(find_edge_model("resnet-50", 0), 2),
            "edge.retrain.context_parallel: resnet-50 is not a sequence model; context parallelism splits a "
            "transformer's tokens");
  EXPECT_EQ(error(find_edge_model("llama2-70b", 8190), 2),
            "edge.retrain.context_parallel: 2 splits the 8190 tokens of a sample into 4 chunks (two an "
            "accelerator); they do not divide");
  EXPECT_NE(error(find_edge_model("gpt-oss-20b", 8192), 2).find("sliding-window"), std::string::npos);
  EXPECT_EQ(error(find_edge_model("llama2-70b", 8192), 8), "no error");
}

TEST(EdgeModel, Fp8ProductsPayTheCastOfTheirInputs) {
  // One 4096 x 8192 x 8192 product: its FP8 forward reads the bf16 input
  // X[4096, 8192] (2 bytes an element) and writes it in FP8 (1 byte) before
  // the GEMM: 4096 x 8192 x 3 bytes at HBM speed. BF16 pays no cast.
  const hw::ComputeModel c = hw::make_compute_model(hw::find_accelerator("MI300X"), nullptr);
  EdgeModel m;
  ModelOp op;
  op.name = "one product";
  op.m = 4096, op.n = 8192, op.k = 8192;
  m.ops = {op};
  EXPECT_EQ(inference_time(m, 1, c, hw::Precision::kFp8),
            c.gemm(4096, 8192, 8192, hw::Precision::kFp8) + c.memory_bound(core::Bytes(int64_t{4096} * 8192 * 3)));
  EXPECT_EQ(inference_time(m, 1, c, hw::Precision::kBf16), c.gemm(4096, 8192, 8192, hw::Precision::kBf16));
}

TEST(EdgeModel, AnFp8StepCastsEveryWeightOnce) {
  // One 4096 x 8192 x 8192 product, fully fine-tuned in FP8: besides its
  // inputs' casts (X forward, dY backward: 4096 x 8192 x 3 B each) the step
  // casts its weight W[8192, 8192] once, a bf16 read and an FP8 write. On
  // MI300X, whose FP8 GEMMs take one layout, the write is twice (W and its
  // transpose for dX): 8192^2 x 4 B; on B200 once: 8192^2 x 3 B.
  EdgeModel m;
  ModelOp op;
  op.name = "one product";
  op.m = 4096, op.n = 8192, op.k = 8192;
  m.ops = {op};
  const auto f8 = hw::Precision::kFp8;
  for (const auto& [part, weight_bytes] : {std::pair{"MI300X", 4}, std::pair{"B200", 3}}) {
    const hw::ComputeModel c = hw::make_compute_model(hw::find_accelerator(part), nullptr);
    const core::SimTime cast = c.memory_bound(core::Bytes(int64_t{4096} * 8192 * 3));
    const core::SimTime products =
        c.gemm(4096, 8192, 8192, f8) + c.gemm(4096, 8192, 8192, f8) + c.gemm(8192, 8192, 4096, f8);
    EXPECT_EQ(train_step_time(m, FineTune::kFull, 16, 1, c, f8),
              c.memory_bound(core::Bytes(int64_t{8192} * 8192 * weight_bytes)) + cast * 2 + products +
                  c.optimizer_step(0))
        << part;
    // Weights kept in FP8 (FP8 parameters) are not cast.
    EXPECT_EQ(train_step_time(m, FineTune::kFull, 16, 1, c, f8, {.quantized_weights = true}),
              cast * 2 + products + c.optimizer_step(0))
        << part;
  }
  // NVFP4 writes both layouts on any part (its scales run along k, so the
  // transpose is quantized on its own) at half a byte, after an amax pass:
  // W 8192^2 x (2 + 2 x 0.5) B and 8192^2 x 2 B; X and dY 4096 x 8192 x
  // (2 + 0.5) B and x 2 B each.
  const hw::ComputeModel b200 = hw::make_compute_model(hw::find_accelerator("B200"), nullptr);
  const auto f4 = hw::Precision::kFp4;
  const auto pass = [&](int64_t elems, double bytes) {
    return b200.memory_bound(core::Bytes(static_cast<int64_t>(static_cast<double>(elems) * bytes)));
  };
  const int64_t w = int64_t{8192} * 8192, x = int64_t{4096} * 8192;
  EXPECT_EQ(train_step_time(m, FineTune::kFull, 16, 1, b200, f4),
            pass(w, 3) + pass(w, 2) + (pass(x, 2.5) + pass(x, 2)) * 2 + b200.gemm(4096, 8192, 8192, f4) * 2 +
                b200.gemm(8192, 8192, 4096, f4) + b200.optimizer_step(0));
}

TEST(EdgeModel, Fp8AttentionRunsTheFlashKernelsAtFp8AfterCastingTheirInputs) {
  // Llama 2 70B's attention at 8,192 tokens on one B200, CP 2, in a LoRA
  // step: with FP8 attention each of the 80 layers runs the ring's kernels
  // (a causal one over 4,096 tokens, half an unmasked one) at FP8, and
  // first casts its 4,096 tokens' Q (64 heads x 128 = 8,192 wide), K and V
  // (8 KV heads: 1,024 each), 10,240 x 4,096 x 3 B = 126 MB, forward, and
  // the output gradient (8,192 wide), 8,192 x 4,096 x 3 B = 101 MB,
  // backward. The products keep their precision; a step without it is
  // unchanged.
  const hw::ComputeModel c = hw::make_compute_model(hw::find_accelerator("B200"), nullptr);
  EdgeModel m = split_sequence(find_edge_model("llama2-70b", 8192), 2);
  std::erase_if(m.ops, [](const ModelOp& op) { return op.kind != ModelOp::kAttention; });
  ASSERT_EQ(m.ops.size(), 1u);
  const auto f8 = hw::Precision::kFp8, b16 = hw::Precision::kBf16;
  const auto ring = [&](hw::Precision q, bool backward) {
    const auto k = [&](bool causal) {
      return backward ? c.attention_bwd(1, 4096, 64, 128, causal, 0, hw::AttentionKernel::kFlash, q)
                      : c.attention_fwd(1, 4096, 64, 128, causal, 0, hw::AttentionKernel::kFlash, q);
    };
    // The merges (cp_passes_test), the forward's in fp32 and the backward's
    // gradients in FP8 slots (delayed scaling) under FP8 attention.
    const CpPasses merges = ring_merges(c, {.out_elems = 4096 * 8192,
                                              .q_elems = 4096 * 8192,
                                              .k_elems = 4096 * 1024,
                                              .v_elems = 4096 * 1024,
                                              .cp = 2,
                                              .out_bytes = q == f8 ? 4 : 2,
                                              .grads = q == f8 ? GradMerge::kFp8Slots : GradMerge::k16Bit});
    return k(true) + k(false) / 2 + (backward ? merges.backward : merges.forward);
  };
  const core::SimTime adam = c.optimizer_step(m.trainable_params(FineTune::kLora, 16));
  const core::SimTime cast_f = c.memory_bound(core::Bytes(int64_t{10240} * 4096 * 3));
  const core::SimTime cast_b = c.memory_bound(core::Bytes(int64_t{8192} * 4096 * 3));
  EXPECT_EQ(train_step_time(m, FineTune::kLora, 16, 1, c, f8, {.fp8_attention = true}),
            (cast_f + ring(f8, false) + cast_b + ring(f8, true)) * 80 + adam);
  EXPECT_EQ(train_step_time(m, FineTune::kLora, 16, 1, c, f8),
            (ring(b16, false) + ring(b16, true)) * 80 + adam);
  // On B200 the backward's FP8 kernels gain more than all the casts cost.
  EXPECT_LT(train_step_time(m, FineTune::kLora, 16, 1, c, f8, {.fp8_attention = true}),
            train_step_time(m, FineTune::kLora, 16, 1, c, f8));
}

TEST(EdgeModel, Fp8AttentionCastsAgainInARecomputedForward) {
  // Llama 2 70B's attention at 4,096 tokens on one B200, no CP, every layer
  // recomputed: each of the 80 layers runs its causal kernel at FP8 twice
  // forward (once more in the backward's recompute), casting its Q, K and V
  // (10,240 wide) each time, 10,240 x 4,096 x 3 B, and once backward after
  // casting dO (8,192 wide), 8,192 x 4,096 x 3 B.
  const hw::ComputeModel c = hw::make_compute_model(hw::find_accelerator("B200"), nullptr);
  EdgeModel m = find_edge_model("llama2-70b", 4096);
  std::erase_if(m.ops, [](const ModelOp& op) { return op.kind != ModelOp::kAttention; });
  const auto f8 = hw::Precision::kFp8;
  const auto k = hw::AttentionKernel::kFlash;
  const core::SimTime fwd = c.memory_bound(core::Bytes(int64_t{10240} * 4096 * 3)) +
                            c.attention_fwd(1, 4096, 64, 128, true, 0, k, f8);
  const core::SimTime bwd = c.memory_bound(core::Bytes(int64_t{8192} * 4096 * 3)) +
                            c.attention_bwd(1, 4096, 64, 128, true, 0, k, f8);
  EXPECT_EQ(train_step_time(m, FineTune::kLora, 16, 1, c, f8, {.recompute_layers = 80, .fp8_attention = true}),
            (fwd * 2 + bwd) * 80 + c.optimizer_step(m.trainable_params(FineTune::kLora, 16)));
}

TEST(EdgeModel, AStepCastsEveryExpertsWeightsAndNoTransposeWithoutDx) {
  // Mixtral 8x7B's expert products at 4,096 tokens in FP8 on MI300X: a
  // token's rows visit 2 of the 8 experts, but a step casts all 8: the up
  // projection's 4,096 x (2 x 14,336) x 8 weights and the down projection's
  // 14,336 x 8 x 4,096, 939,524,096 and 469,762,048 elements a layer, at a
  // 2-byte read and, with dX through them (LoRA), two 1-byte writes (MI300X's
  // FP8 GEMMs take one layout); a frozen backbone takes no dX, one write.
  const hw::ComputeModel c = hw::make_compute_model(hw::find_accelerator("MI300X"), nullptr);
  EdgeModel m = find_edge_model("mixtral-8x7b", 4096);
  std::erase_if(m.ops, [](const ModelOp& op) { return op.name != "experts up" && op.name != "experts down"; });
  ASSERT_EQ(m.ops.size(), 2u);
  const auto f8 = hw::Precision::kFp8;
  const auto casts = [&](FineTune f) {
    return train_step_time(m, f, 16, 1, c, f8) - train_step_time(m, f, 16, 1, c, f8, {.quantized_weights = true});
  };
  const auto cast = [&](int64_t elems, int64_t bytes) { return c.memory_bound(core::Bytes(elems * bytes)); };
  EXPECT_EQ(casts(FineTune::kLora), (cast(939'524'096, 4) + cast(469'762'048, 4)) * 32);
  EXPECT_EQ(casts(FineTune::kFrozenBackbone), (cast(939'524'096, 3) + cast(469'762'048, 3)) * 32);
}

TEST(EdgeModel, EachMemoryBoundPassRunsAtItsKernelsRate) {
  // A 4096 x 8192 product followed by a norm (2 passes) and a residual add
  // (3 passes) over its bf16 output: 4096 x 8192 x 2 bytes x 2 through the
  // norm and x 3 through the add, each at its own kernel's rate. With the
  // H200 table a norm streams at ~2,226 GB/s and an add at ~3,757, so the
  // same bytes cost more in the norm.
  const hw::CalibrationTable t =
      hw::load_calibration(std::string(ANATOMY_SOURCE_DIR) + "/data/calibration/h200.json");
  const hw::ComputeModel c = hw::make_compute_model(hw::find_accelerator("H200"), &t);
  EdgeModel m;
  ModelOp op;
  op.name = "one product";
  op.m = 4096, op.n = 8192, op.k = 8192;
  using K = hw::ComputeModel::Kernel;
  op.passes = {{K::kNorm, 2}, {K::kResidualAdd, 3}};
  m.ops = {op};
  const core::Bytes pass(int64_t{4096} * 8192 * 2);
  EXPECT_EQ(inference_time(m, 1, c, hw::Precision::kBf16),
            c.gemm(4096, 8192, 8192, hw::Precision::kBf16) + c.elementwise(K::kNorm, pass * 2) +
                c.elementwise(K::kResidualAdd, pass * 3));
  EXPECT_GT(c.elementwise(K::kNorm, pass * 3), c.elementwise(K::kResidualAdd, pass * 3));
}

TEST(EdgeModel, AHybridModelIsNotTakenForATransformer) {
  // Nemotron-H's Mamba-2 blocks are not attention and an MLP: an edge
  // site refuses it rather than costing it as a transformer.
  try {
    find_edge_model("nemotronh-8b", 1024);
    FAIL() << "expected InputError";
  } catch (const core::InputError& e) {
    EXPECT_EQ(e.where().field, "model");
    EXPECT_NE(e.message().find("hybrid Mamba-2/attention model"), std::string::npos);
  }
}

TEST(EdgeModel, LoraDropoutPassesOverEachAdaptersInputEachWay) {
  // With LoRA dropout each adapted product's input (rows x k) is read and
  // written with a 1-byte mask forward, its gradient likewise backward:
  // 5 B an element, twice, per repeat, at the dropout kernel's rate.
  const hw::ComputeModel c = hw::make_compute_model(hw::find_accelerator("MI300X"), nullptr);
  const EdgeModel m = find_edge_model("vit-b16", 0);
  const auto step = [&](bool dropout) {
    return train_step_time(m, FineTune::kLora, 16, 64, c, hw::Precision::kBf16, {.lora_dropout = dropout});
  };
  core::SimTime expected;
  for (const ModelOp& op : m.ops)
    if (op.adaptable)
      expected += c.elementwise(hw::ComputeModel::Kernel::kDropout, core::Bytes(op.m * 64 * op.k * 5)) * (2 * op.repeat);
  EXPECT_GT(expected, core::SimTime::zero());
  EXPECT_EQ(step(true) - step(false), expected);
}

TEST(EdgeModel, LoraAdaptersRunInSixteenBitsUnderFp8) {
  // NeMo's adapters are not FP8 modules: under FP8 training their thin
  // products still run in BF16. Between rank 16 and rank 8 a step differs by
  // the adapters' products (forward, and backward twice it: 3 x, per repeat)
  // at BF16 and by AdamW over the trainable parameters.
  const hw::ComputeModel c = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  const EdgeModel m = find_edge_model("llama3-8b", 4096);
  constexpr auto bf16 = hw::Precision::kBf16;
  const auto step = [&](int rank) { return train_step_time(m, FineTune::kLora, rank, 1, c, hw::Precision::kFp8); };
  core::SimTime expected = c.optimizer_step(m.trainable_params(FineTune::kLora, 16)) -
                           c.optimizer_step(m.trainable_params(FineTune::kLora, 8));
  for (const ModelOp& op : m.ops)
    if (op.adaptable)
      expected += ((c.gemm(op.m, 16, op.k, bf16) + c.gemm(op.m, op.n, 16, bf16)) -
                   (c.gemm(op.m, 8, op.k, bf16) + c.gemm(op.m, op.n, 8, bf16))) *
                  (3 * op.repeat);
  EXPECT_EQ(step(16) - step(8), expected);
}

}  // namespace
}  // namespace anatomy::workload
