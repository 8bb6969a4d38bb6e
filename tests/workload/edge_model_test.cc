#include "workload/edge_model.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/error.h"
#include "hw/catalog.h"
#include "hw/compute_model.h"
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
  const auto step = [&](int64_t n) { return train_step_time(m, FineTune::kLora, 16, 64, c, hw::Precision::kBf16, n); };
  EdgeModel layers = m;
  std::erase_if(layers.ops, [](const ModelOp& op) { return op.repeat == 1; });
  const double per_layer = inference_time(layers, 64, c, hw::Precision::kBf16).seconds() / 12;
  EXPECT_NEAR((step(3) - step(0)).seconds(), 3 * per_layer, 1e-9);
  EXPECT_NEAR((step(12) - step(0)).seconds(), 12 * per_layer, 1e-9);
  EXPECT_EQ(step(40), step(12));  // no more layers than the model has
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

}  // namespace
}  // namespace anatomy::workload
