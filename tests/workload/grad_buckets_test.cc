#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "workload/grad_buckets.h"
#include "workload/model.h"
#include "workload/params.h"

namespace anatomy::workload {
namespace {

int64_t sum(const std::vector<GradTensor>& tensors) {
  int64_t n = 0;
  for (const GradTensor& t : tensors) n += t.params;
  return n;
}

// Tensors with as much work as parameters (GEMM weights) or none.
GradTensor weight(int64_t params) { return {params, params, true, false}; }
GradTensor other(int64_t params) { return {params, 0, false, false}; }

// Each bucket's parameters and the work done when it is full, in order.
std::vector<std::pair<int64_t, int64_t>> params_ready(const std::vector<GradBucket>& buckets) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const GradBucket& b : buckets) out.emplace_back(b.params, b.ready);
  return out;
}

TEST(GradBuckets, AChunksTensorsAreTheParametersItHoldsItemized) {
  // Llama 3 8B on TP 2, one stage: the output layer and final norm, 32
  // layers of 6 tensors, the embedding: 195, adding up to what the GPU holds
  // (backward_tensors checks the sum; a tensor left out would fail it).
  // Mixtral on TP 2, EP 4: with its routed experts, which then move over
  // their own groups (work only, no parameters), the dense part; with them
  // the total. DeepSeek-V3's second stage of 16: MoE layers and MLA.
  ParallelPlan p;
  p.tp = 2;
  const ModelSpec& llama = find_model("llama3-8b");
  const std::vector<GradTensor> t = backward_tensors(llama, p, 0, 0, true);
  EXPECT_EQ(t.size(), 2u + 6 * 32 + 1);
  EXPECT_EQ(sum(t), chunk_params(llama, p, 0, 0).dense);
  const ModelSpec& mixtral = find_model("mixtral-8x7b");
  p.ep = 4;
  EXPECT_EQ(sum(backward_tensors(mixtral, p, 0, 0, false)), chunk_params(mixtral, p, 0, 0).dense);
  EXPECT_EQ(sum(backward_tensors(mixtral, p, 0, 0, true)), chunk_params(mixtral, p, 0, 0).total());
  const ModelSpec& deepseek = find_model("deepseek-v3");
  p.pp = 16;
  p.ep = 64;
  EXPECT_EQ(sum(backward_tensors(deepseek, p, 1, 0, true)), chunk_params(deepseek, p, 1, 0).total());
}

TEST(GradBuckets, TheWorkOfALayerIsItsGemmsAndTheEmbeddingHasNone) {
  // Llama 3 8B on one GPU: a layer's work is its four GEMM weights,
  // 218,103,808 multiply-adds a token, its norms none; the output layer's
  // is its 525,336,576 weights (the logits' GEMM); the embedding, a lookup,
  // none, though it holds as many parameters.
  const ModelSpec& m = find_model("llama3-8b");
  const std::vector<GradTensor> t = backward_tensors(m, ParallelPlan{}, 0, 0, true);
  EXPECT_EQ(t.front().work, 525'336'576);
  int64_t layer = 0;
  for (size_t i = 2; i < 8; ++i) layer += t[i].work;
  EXPECT_EQ(layer, 218'103'808);
  EXPECT_EQ(t.back().params, 525'336'576);
  EXPECT_EQ(t.back().work, 0);
}

TEST(GradBuckets, ABucketClosesAfterTheTensorThatFillsIt) {
  // Megatron: tensors of 10, 20, 5 and 30 parameters at 25 a bucket:
  // 10 + 20 = 30 reaches 25 and closes the first, full when 30 of the work
  // is done; 5 + 30 = 35 the second, full at 65. At 100 one bucket holds
  // all 65.
  const std::vector<GradTensor> t = {weight(10), weight(20), weight(5), weight(30)};
  using V = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(params_ready(form_buckets(t, 25, BucketRule::kCloseAfter, false)), (V{{30, 30}, {35, 65}}));
  EXPECT_EQ(params_ready(form_buckets(t, 100, BucketRule::kCloseAfter, false)), (V{{65, 65}}));
}

TEST(GradBuckets, DeepSpeedReducesBeforeTheTensorThatWouldOverflow) {
  // The same tensors at 25: 10 fits, 10 + 20 would not, so {10} is reduced
  // when the 20's gradient is ready (30 done); 20 + 5 = 25 fits, 25 + 30
  // would not: {20, 5} when the 30's is (65); {30} at the end (65).
  const std::vector<GradTensor> t = {weight(10), weight(20), weight(5), weight(30)};
  using V = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(params_ready(form_buckets(t, 25, BucketRule::kCloseBefore, false)), (V{{10, 30}, {25, 65}, {30, 65}}));
}

TEST(GradBuckets, WithFp8WeightsTheOtherTensorsGoWithTheLastBucket) {
  // Backward order: an output layer of 8 (16-bit, 8 of work), weights of 10
  // and 20, a norm of 1, a weight of 30, an embedding of 5 (no work), at 15
  // a bucket. Split: the weights 10 + 20 close the first bucket, full when
  // 8 + 10 + 20 = 38 of the work is done; 30 the second, which also takes
  // the 8 + 1 + 5 others and is full at the end, 68: {30, 38}, {44, 68}.
  // One buffer: 8 + 10 = 18, then 20, then 1 + 30 = 31, then 5 alone.
  const std::vector<GradTensor> t = {{8, 8, false, false}, weight(10), weight(20), other(1), weight(30), other(5)};
  const std::vector<GradBucket> split = form_buckets(t, 15, BucketRule::kCloseAfter, true);
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(split[0].params, 30);
  EXPECT_EQ(split[0].ready, 38);
  EXPECT_EQ(split[1].params, 44);
  EXPECT_EQ(split[1].ready, 68);
  const std::vector<GradBucket> one = form_buckets(t, 15, BucketRule::kCloseAfter, false);
  ASSERT_EQ(one.size(), 4u);
  EXPECT_EQ(one[0].params, 18);
  EXPECT_EQ(one[1].params, 20);
  EXPECT_EQ(one[2].params, 31);
  EXPECT_EQ(one[3].params, 5);
  EXPECT_EQ(one[3].ready, 68);
}

TEST(GradBuckets, ATiedEmbeddingSharedAcrossStagesHasABucketOfItsOwn) {
  // At 100 a bucket, weights of 10 and 20 then an embedding of 50 that
  // Megatron's distributed optimizer keeps apart: {10, 20} full before the
  // embedding (30), the embedding alone at the end (30: a lookup's work).
  const std::vector<GradTensor> t = {weight(10), weight(20), {50, 0, false, true}};
  const std::vector<GradBucket> b = form_buckets(t, 100, BucketRule::kCloseAfter, false);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].params, 30);
  EXPECT_EQ(b[0].ready, 30);
  EXPECT_EQ(b[1].params, 50);
}

TEST(GradBuckets, Llama3_8BInMegatronsBucketsWithFp8Weights) {
  // TP 1, one stage, FP8 weights. A layer's GEMM weights, in backward
  // order: down 4096 x 14336 = 58,720,256, gate and up 117,440,512, output
  // 16,777,216, QKV 4096 x (4096 + 2 x 1024) = 25,165,824: 218,103,808 (its
  // two norms of 4,096 are 16-bit and go with the last bucket).
  // At 134,217,728 parameters (the MLPerf v5.1 configs' bucket_size) the
  // first bucket is layer 31's down and up projections, 176,160,768; then
  // each bucket closes on the next layer's up projection, 218,103,808 each,
  // 31 of them; the last is layer 0's output and QKV with every norm and
  // both embeddings: 33 buckets. At 64 parameters every weight is a
  // bucket: 4 x 32 = 128.
  const ModelSpec& m = find_model("llama3-8b");
  ParallelPlan p;
  const std::vector<GradTensor> t = backward_tensors(m, p, 0, 0, true);
  const std::vector<GradBucket> b = form_buckets(t, 134'217'728, BucketRule::kCloseAfter, true);
  ASSERT_EQ(b.size(), 33u);
  EXPECT_EQ(b[0].params, 176'160'768);
  for (size_t i = 1; i < 32; ++i) EXPECT_EQ(b[i].params, 218'103'808) << i;
  EXPECT_EQ(b[32].params, sum(t) - 176'160'768 - 31 * int64_t{218'103'808});
  EXPECT_EQ(form_buckets(t, 64, BucketRule::kCloseAfter, true).size(), 128u);
}

TEST(GradBuckets, MergingKeepsEveryParameter) {
  // Five buckets of 1 .. 5 into two: the first three (6, full at 6), the
  // last two (9, full when the last is, at 15).
  const std::vector<GradBucket> b = {{1, 1}, {2, 3}, {3, 6}, {4, 10}, {5, 15}};
  const std::vector<GradBucket> m = merge_buckets(b, 2);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].params, 6);
  EXPECT_EQ(m[0].ready, 6);
  EXPECT_EQ(m[1].params, 9);
  EXPECT_EQ(m[1].ready, 15);
  EXPECT_EQ(merge_buckets(b, 8).size(), 5u);
}

}  // namespace
}  // namespace anatomy::workload
