#include "scenario/scenario.h"

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"

namespace anatomy::scenario {
namespace {

using core::InputError;

// Every key the schema has, with units written the way users write them.
// Line numbers matter: the error tests below point at them.
const char* const kFull = R"(name: test-run
seed: 7
model:
  name: toy-70b
  layers: 80
  hidden: 8192
  heads: 64
  kv_heads: 8
  ffn_hidden: 28672
  vocab: 128256
  gated_mlp: true
  layernorm: false
cluster:
  system: gb200-nvl72
  gpus: 1024
  fabric:
    tiers: 3
    oversubscription: 2
    rail_optimized: false
    planes: 2
    nic_speed: 800Gbps
    switch_latency: 700ns
  storage: {servers: 16, nic_speed: 200Gbps, shared_with_compute: true}
parallelism:
  tp: 8
  pp: 4
  dp: 32
  zero_stage: 3
  bucket_size: 40MB
training:
  seq_len: 8192
  global_batch: 1024
  micro_batch: 2
  precision: fp8
  recompute: selective
network: {model: flow}
compute: {calibration: tables/gb200.json}
expected: {case: X1-70B, metric: mfu, value: 0.41, source: "a paper"}
)";

// The smallest scenario: everything else takes its default.
const char* const kMinimal = R"(model: {layers: 2, hidden: 64, heads: 8, vocab: 100}
cluster: {system: dgx-h100, gpus: 16}
)";

// what() of the InputError parsing `yaml` as "s.yaml" throws, or "no error".
std::string error_of(const std::string& yaml) {
  try {
    parse_scenario(yaml, "s.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// ---- A full scenario: typed values, units converted. ----

TEST(Scenario, FullScenarioConvertsUnits) {
  const Scenario s = parse_scenario(kFull, "s.yaml");
  EXPECT_DOUBLE_EQ(s.cluster.fabric.nic_speed.bps(), 8e11);              // 800Gbps
  EXPECT_EQ(s.cluster.fabric.switch_latency, core::SimTime::ns(700));
  EXPECT_DOUBLE_EQ(s.cluster.storage.nic_speed.bps(), 2e11);             // 200Gbps
  EXPECT_EQ(s.parallelism.bucket_bytes, 40'000'000);                     // 40MB, decimal
}

TEST(Scenario, FullScenarioReadsClusterAndFabric) {
  const Scenario s = parse_scenario(kFull, "s.yaml");
  EXPECT_EQ(s.cluster.system.name, "gb200-nvl72");
  EXPECT_EQ(s.cluster.gpus, 1024);
  EXPECT_EQ(s.cluster.fabric.tiers, 3);
  EXPECT_DOUBLE_EQ(s.cluster.fabric.oversubscription, 2.0);
  EXPECT_FALSE(s.cluster.fabric.rail_optimized);
  EXPECT_EQ(s.cluster.fabric.planes, 2);
  EXPECT_EQ(s.cluster.storage.servers, 16);
  EXPECT_TRUE(s.cluster.storage.shared_with_compute);
}

TEST(Scenario, FullScenarioReadsExplicitModelDimensions) {
  const Scenario s = parse_scenario(kFull, "s.yaml");
  EXPECT_EQ(s.model.name, "toy-70b");
  EXPECT_EQ(s.model.layers, 80);
  EXPECT_EQ(s.model.hidden, 8192);
  EXPECT_EQ(s.model.heads, 64);
  EXPECT_EQ(s.model.kv_heads, 8);
  EXPECT_EQ(s.model.ffn_hidden, 28672);
  EXPECT_EQ(s.model.vocab, 128256);
  EXPECT_TRUE(s.model.gated_mlp);
  EXPECT_FALSE(s.model.layernorm);
}

TEST(Scenario, FullScenarioReadsPlanAndTraining) {
  const Scenario s = parse_scenario(kFull, "s.yaml");
  EXPECT_EQ(s.parallelism.tp, 8);
  EXPECT_EQ(s.parallelism.pp, 4);
  EXPECT_EQ(s.parallelism.dp, 32);
  EXPECT_EQ(s.parallelism.zero_stage, 3);
  EXPECT_EQ(s.training.seq_len, 8192);
  EXPECT_EQ(s.training.global_batch, 1024);
  EXPECT_EQ(s.training.micro_batch, 2);
  EXPECT_EQ(s.training.precision, hw::Precision::kFp8);
  EXPECT_EQ(s.training.recompute, workload::Recompute::kSelective);
}

TEST(Scenario, FullScenarioReadsNameSeedNetworkAndExpected) {
  const Scenario s = parse_scenario(kFull, "s.yaml");
  EXPECT_EQ(s.file, "s.yaml");
  EXPECT_EQ(s.name, "test-run");
  EXPECT_EQ(s.seed, 7u);
  EXPECT_EQ(s.network.model, net::NetworkModel::kFlow);
  ASSERT_TRUE(s.expected.has_value());
  EXPECT_EQ(s.expected->case_id, "X1-70B");
  EXPECT_EQ(s.expected->metric, "mfu");
  EXPECT_DOUBLE_EQ(s.expected->value, 0.41);
  EXPECT_EQ(s.expected->source, "a paper");
}

TEST(Scenario, CalibrationPathIsRelativeToTheScenarioFolder) {
  EXPECT_EQ(parse_scenario(kFull, "cases/s.yaml").calibration, "cases/tables/gb200.json");
}

// ---- Defaults. ----

TEST(Scenario, DefaultsApplyToEveryOmittedKey) {
  const Scenario s = parse_scenario(kMinimal, "runs/small.yaml");
  EXPECT_EQ(s.name, "small");  // the file name
  EXPECT_EQ(s.seed, 1u);
  EXPECT_EQ(s.parallelism.tp, 1);
  EXPECT_EQ(s.parallelism.pp, 1);
  EXPECT_EQ(s.parallelism.cp, 1);
  EXPECT_EQ(s.parallelism.zero_stage, 1);
  EXPECT_TRUE(s.parallelism.sequence_parallel);
  EXPECT_EQ(s.parallelism.bucket_bytes, 0);  // the framework's default (gradient_bucket_bytes)
  EXPECT_EQ(s.parallelism.framework, workload::ShardingFramework::kMegatron);
  EXPECT_EQ(s.training.seq_len, 2048);
  EXPECT_EQ(s.training.global_batch, 512);
  EXPECT_EQ(s.training.precision, hw::Precision::kBf16);
  EXPECT_EQ(s.training.recompute, workload::Recompute::kNone);
  EXPECT_EQ(s.cluster.fabric.nic_speed.bps(), 0);  // 0: the system preset's
  EXPECT_EQ(s.cluster.fabric.switch_latency, core::SimTime::ns(600));
  EXPECT_TRUE(s.cluster.fabric.rail_optimized);
  EXPECT_EQ(s.cluster.storage.servers, 0);
  EXPECT_EQ(s.network.model, net::NetworkModel::kFlow);
  EXPECT_EQ(s.calibration, "");
  EXPECT_FALSE(s.expected.has_value());
}

TEST(Scenario, ExplicitModelDefaultsKvHeadsToHeadsAndFfnToFourHidden) {
  const Scenario s = parse_scenario(kMinimal, "s.yaml");
  EXPECT_EQ(s.model.kv_heads, 8);
  EXPECT_EQ(s.model.ffn_hidden, 256);
  EXPECT_EQ(s.model.experts, 1);
  EXPECT_EQ(s.model.name, "custom");
}

TEST(Scenario, FrameworkDeepSpeedIsRead) {
  const std::string yaml = std::string(kMinimal) + "parallelism: {framework: deepspeed}\n";
  EXPECT_EQ(parse_scenario(yaml, "s.yaml").parallelism.framework, workload::ShardingFramework::kDeepSpeed);
}

TEST(Scenario, DpIsDerivedFromTheGpuCount) {
  // 1024 GPUs / (tp 8 x pp 4 x cp 1) = 32.
  const Scenario s = parse_scenario(R"(model: {layers: 8, hidden: 1024, heads: 16, vocab: 1000}
cluster: {system: dgx-h100, gpus: 1024}
parallelism: {tp: 8, pp: 4}
training: {global_batch: 1024}
)",
                                    "s.yaml");
  EXPECT_EQ(s.parallelism.dp, 32);
}

TEST(Scenario, ModelPresetByName) {
  const Scenario s = parse_scenario(R"(model: llama3-70b
cluster: {system: dgx-h100, gpus: 8}
parallelism: {tp: 8}
)",
                                    "s.yaml");
  EXPECT_EQ(s.model.name, "llama3-70b");
  EXPECT_EQ(s.model.heads, 64);
  EXPECT_EQ(s.model.kv_heads, 8);
}

TEST(Scenario, ModelPresetWithOverrides) {
  const Scenario s = parse_scenario(R"(model: {preset: llama3-70b, layers: 40}
cluster: {system: dgx-h100, gpus: 8}
)",
                                    "s.yaml");
  EXPECT_EQ(s.model.layers, 40);
  EXPECT_EQ(s.model.hidden, 8192);  // from the preset
}

// ---- Errors: each names file, line and field. ----

TEST(ScenarioErrors, UnknownKeySuggestsTheNearestAndListsValidKeys) {
  const std::string e = error_of(std::string(kMinimal) + "parallelism:\n  tq: 2\n");
  EXPECT_TRUE(starts_with(e, "s.yaml:4: parallelism.tq: unknown key 'tq' in parallelism (did you mean 'tp'?); "
                             "valid keys: tp, pp, dp, cp, ep,"))
      << e;
}

TEST(ScenarioErrors, UnknownTopLevelKeyNamesIt) {
  const std::string e = error_of(std::string(kMinimal) + "trainig: {seq_len: 4096}\n");
  EXPECT_TRUE(starts_with(e, "s.yaml:3: trainig: unknown key 'trainig' at the top level (did you mean 'training'?)"))
      << e;
}

TEST(ScenarioErrors, BadRateUnit) {
  const std::string e = error_of(R"(model: {layers: 2, hidden: 64, heads: 8, vocab: 100}
cluster:
  system: dgx-h100
  gpus: 16
  fabric:
    nic_speed: 800Gbs
)");
  EXPECT_TRUE(starts_with(e, "s.yaml:6: cluster.fabric.nic_speed: '800Gbs' has an unknown rate unit")) << e;
}

TEST(ScenarioErrors, NegativeBandwidth) {
  const std::string e = error_of(R"(model: {layers: 2, hidden: 64, heads: 8, vocab: 100}
cluster:
  system: dgx-h100
  gpus: 16
  storage:
    servers: 2
    nic_speed: -400Gbps
)");
  EXPECT_EQ(e, "s.yaml:7: cluster.storage.nic_speed: '-400Gbps' must be greater than zero");
}

TEST(ScenarioErrors, PlanThatDoesNotMultiplyToTheGpuCount) {
  // 2 x 2 x 2 = 8 GPUs planned, 16 in the cluster: validate_plan's error,
  // at the line of the parallelism section.
  const std::string e = error_of(R"(model: {layers: 2, hidden: 64, heads: 8, vocab: 100}
cluster: {system: dgx-h100, gpus: 16}
parallelism:
  tp: 2
  pp: 2
  dp: 2
)");
  EXPECT_TRUE(starts_with(e, "s.yaml:3: parallelism: ")) << e;
  EXPECT_NE(e.find("16 GPUs"), std::string::npos) << e;
}

TEST(ScenarioErrors, DerivedDpThatDoesNotDivideIsThePlanError) {
  // 16 GPUs / tp 3 is not whole, so dp cannot be derived.
  const std::string e = error_of(R"(model: {layers: 2, hidden: 96, heads: 6, vocab: 100}
cluster: {system: dgx-h100, gpus: 16}
parallelism:
  tp: 3
)");
  EXPECT_TRUE(starts_with(e, "s.yaml:3: parallelism: ")) << e;
  EXPECT_NE(e.find("16 GPUs"), std::string::npos) << e;
}

TEST(ScenarioErrors, TpThatDoesNotDivideTheHeads) {
  const std::string e = error_of(R"(model: {layers: 2, hidden: 8192, heads: 64, vocab: 100}
cluster: {system: dgx-h100, gpus: 48}
parallelism:
  pp: 1
  tp: 3
)");
  EXPECT_EQ(e, "s.yaml:5: parallelism.tp: 3 does not divide 64 attention heads");
}

TEST(Scenario, CommunicatorCtaLimitsAreReadByCommunicator) {
  // Megatron-Core's per-communicator file of the MLPerf 5.1 NeMo launches
  // (conf/nccl/custom_communicator_cta.yaml): dp_cp and tp at most 8, cp 1.
  const Scenario s = parse_scenario(R"(model: {layers: 2, hidden: 64, heads: 8, vocab: 100}
cluster: {system: dgx-h100, gpus: 16}
parallelism:
  tp: 2
  nccl_max_ctas: {dp: 8, tp: 8, cp: 1}
  nccl_min_ctas:
    dp: 1
)",
                                    "s.yaml");
  EXPECT_EQ(s.parallelism.nccl_max_ctas.dp, 8);
  EXPECT_EQ(s.parallelism.nccl_max_ctas.tp, 8);
  EXPECT_EQ(s.parallelism.nccl_max_ctas.cp, 1);
  EXPECT_EQ(s.parallelism.nccl_max_ctas.ep, 0);
  EXPECT_EQ(s.parallelism.nccl_min_ctas.dp, 1);
  EXPECT_EQ(s.parallelism.nccl_min_ctas.tp, 0);
}

// The rank order is Megatron-LM's default unless a file names NeMo's
// TP_PP_DP_MAPPING order; anything else is refused with both choices.
TEST(Scenario, RankOrderIsReadAndChecked) {
  const std::string base = "model: {layers: 2, hidden: 64, heads: 8, vocab: 100}\n"
                           "cluster: {system: dgx-h100, gpus: 16}\n"
                           "parallelism:\n  tp: 2\n  pp: 2\n";
  EXPECT_EQ(parse_scenario(base, "s.yaml").parallelism.rank_order, workload::RankOrder::kTpCpDpPp);
  EXPECT_EQ(parse_scenario(base + "  rank_order: tp-cp-pp-dp\n", "s.yaml").parallelism.rank_order,
            workload::RankOrder::kTpCpPpDp);
  const std::string error = error_of(base + "  rank_order: pp-dp\n");
  EXPECT_NE(error.find("s.yaml:6: parallelism.rank_order"), std::string::npos) << error;
  EXPECT_NE(error.find("tp-cp-pp-dp"), std::string::npos) << error;
}

// Interleaved gathers launch aligned (Megatron-LM's default) unless a file
// turns it off (--no-align-param-gather); a non-boolean is refused.
TEST(Scenario, AlignParamGatherIsReadAndChecked) {
  const std::string base = "model: {layers: 4, hidden: 64, heads: 8, vocab: 100}\n"
                           "cluster: {system: dgx-h100, gpus: 16}\n"
                           "parallelism:\n  pp: 2\n  virtual_stages: 2\n  zero_stage: 1\n";
  EXPECT_TRUE(parse_scenario(base, "s.yaml").parallelism.align_param_gather);
  EXPECT_FALSE(parse_scenario(base + "  align_param_gather: false\n", "s.yaml").parallelism.align_param_gather);
  const std::string error = error_of(base + "  align_param_gather: sometimes\n");
  EXPECT_NE(error.find("s.yaml:7: parallelism.align_param_gather"), std::string::npos) << error;
}

// Megatron-LM asserts an interleaved schedule and the distributed
// optimizer's overlapped gathers for the first chunk's gather beside the
// optimizer step; a plan without them is refused, naming the field.
TEST(ScenarioErrors, GatherWithTheOptimizerStepNeedsInterleavingAndOverlappedGathers) {
  const std::string base = "model: {layers: 4, hidden: 64, heads: 8, vocab: 100}\n"
                           "cluster: {system: dgx-h100, gpus: 16}\n"
                           "parallelism:\n  pp: 2\n  zero_stage: 1\n";
  EXPECT_TRUE(parse_scenario(base + "  virtual_stages: 2\n  overlap_param_gather_with_optimizer_step: true\n", "s.yaml")
                  .parallelism.overlap_param_gather_with_optimizer_step);
  const std::string error = error_of(base + "  overlap_param_gather_with_optimizer_step: true\n");
  EXPECT_NE(error.find("parallelism.overlap_param_gather_with_optimizer_step"), std::string::npos) << error;
  EXPECT_NE(error.find("virtual_stages 1"), std::string::npos) << error;
}

TEST(ScenarioErrors, CommunicatorCtaLimitsOutOfNcclsRangeOrCrossed) {
  // NCCL takes 1 to MAXCHANNELS (64) CTAs and a minimum no more than the
  // maximum; an unknown communicator is an unknown key.
  const std::string over = error_of(R"(model: {layers: 2, hidden: 64, heads: 8, vocab: 100}
cluster: {system: dgx-h100, gpus: 16}
parallelism:
  nccl_max_ctas: {dp: 65}
)");
  EXPECT_TRUE(starts_with(over, "s.yaml:4: parallelism.nccl_max_ctas.dp: ")) << over;
  const std::string crossed = error_of(R"(model: {layers: 2, hidden: 64, heads: 8, vocab: 100}
cluster: {system: dgx-h100, gpus: 16}
parallelism:
  nccl_max_ctas: {dp: 8}
  nccl_min_ctas:
    dp: 16
)");
  EXPECT_EQ(crossed, "s.yaml:6: parallelism.nccl_min_ctas.dp: 16 is above nccl_max_ctas.dp (8): NCCL needs min_ctas <= "
                     "max_ctas");
  const std::string unknown = error_of(R"(model: {layers: 2, hidden: 64, heads: 8, vocab: 100}
cluster: {system: dgx-h100, gpus: 16}
parallelism:
  nccl_max_ctas: {dp_cp: 8}
)");
  EXPECT_TRUE(starts_with(unknown, "s.yaml:4: parallelism.nccl_max_ctas")) << unknown;
  // A collective case's own limits, as NCCL_MIN_CTAS / NCCL_MAX_CTAS set them.
  const std::string collective = error_of(R"(cluster: {system: dgx-h100, gpus: 8}
collective:
  bytes: 1GiB
  max_ctas: 8
  min_ctas: 16
)");
  EXPECT_EQ(collective, "s.yaml:5: collective.min_ctas: 16 is above max_ctas (8): NCCL needs min_ctas <= max_ctas");
}

TEST(ScenarioErrors, UnknownSystem) {
  const std::string e = error_of(R"(model: {layers: 2, hidden: 64, heads: 8, vocab: 100}
cluster:
  gpus: 16
  system: dgx-h900
)");
  EXPECT_TRUE(starts_with(e, "s.yaml:4: cluster.system: unknown system 'dgx-h900' (known: ")) << e;
}

TEST(ScenarioErrors, UnknownModelPreset) {
  const std::string e = error_of(R"(cluster: {system: dgx-h100, gpus: 16}
model: llama9-70b
)");
  EXPECT_TRUE(starts_with(e, "s.yaml:2: model: ")) << e;
  EXPECT_NE(e.find("llama9-70b"), std::string::npos) << e;
}

TEST(ScenarioErrors, UnknownPresetInAModelMapping) {
  const std::string e = error_of(R"(cluster: {system: dgx-h100, gpus: 16}
model:
  preset: llama9-70b
)");
  EXPECT_TRUE(starts_with(e, "s.yaml:3: model.preset: ")) << e;
}

TEST(ScenarioErrors, YamlSyntaxErrorHasItsLine) {
  const std::string e = error_of(R"(model: {layers: 2, hidden: 64, heads: 8, vocab: 100}
cluster: {system: dgx-h100, gpus: 16}
parallelism:
  tp: [2, 4
training: {}
)");
  // yaml-cpp notices at line 5; the key open before it is parallelism.tp.
  EXPECT_TRUE(starts_with(e, "s.yaml:5: parallelism.tp: YAML syntax error: ")) << e;
}

TEST(ScenarioErrors, EveryErrorInAFileNamesALineAndAField) {
  // Found by the fuzz target: a list at the top level, a key that is not a
  // plain name, and a syntax error named no field.
  EXPECT_EQ(error_of("- a\n- b\n").rfind("s.yaml:1: (top level): expects a mapping", 0), 0u) << error_of("- a\n");
  EXPECT_EQ(error_of("cluster:\n  system: dgx-h100\n  fabric: {radix: [1, 2}\n").rfind("s.yaml:3: cluster.fabric: YAML syntax error", 0),
            0u)
      << error_of("cluster:\n  system: dgx-h100\n  fabric: {radix: [1, 2}\n");
}

TEST(ScenarioErrors, RepeatedKeyNamesTheFirstLine) {
  const std::string e = error_of(std::string(kMinimal) + "parallelism:\n  tp: 2\n  tp: 4\n");
  EXPECT_EQ(e, "s.yaml:5: parallelism.tp: is given twice (first on line 4)");
}

TEST(ScenarioErrors, OutOfRangeIntegerGivesTheRange) {
  const std::string e = error_of(std::string(kMinimal) + "parallelism: {tp: 0}\n");
  EXPECT_EQ(e, "s.yaml:3: parallelism.tp: must be at least 1 (got 0)");
}

TEST(ScenarioErrors, NotANumber) {
  const std::string e = error_of(std::string(kMinimal) + "training: {seq_len: 4k}\n");
  EXPECT_EQ(e, "s.yaml:3: training.seq_len: '4k' is not a whole number");
}

TEST(ScenarioErrors, AListWhereAValueBelongs) {
  const std::string e = error_of(std::string(kMinimal) + "parallelism:\n  tp: [2, 4]\n");
  EXPECT_EQ(e, "s.yaml:4: parallelism.tp: expects a single value (integer), not a list");
}

TEST(ScenarioErrors, AKeyWithNoValue) {
  const std::string e = error_of(std::string(kMinimal) + "training:\n  recompute:\n");
  EXPECT_EQ(e, "s.yaml:4: training.recompute: has no value (expected one of none, selective, full)");
}

TEST(ScenarioErrors, UnknownNetworkModelListsTheValidOnes) {
  const std::string e = error_of(std::string(kMinimal) + "network:\n  model: cells\n");
  EXPECT_EQ(e, "s.yaml:4: network.model: 'cells' is not one of: flow, packet");
}

TEST(ScenarioErrors, UnknownExpectedMetricListsTheValidOnes) {
  const std::string e = error_of(std::string(kMinimal) + "expected: {case: A1, metric: tflops_per_node, value: 140}\n");
  EXPECT_EQ(e, "s.yaml:3: expected.metric: 'tflops_per_node' is not one of: tflops_per_gpu, megatron_tflops_per_gpu, "
               "mfu, tokens_per_s, tokens_per_s_per_gpu, iteration_s, busbw_GBps, algbw_GBps, time_us, interruptions, ettr, "
               "samples_per_s, tflops, GBps");
}

TEST(Scenario, ACollectiveCaseNeedsNoModel) {
  const Scenario s = parse_scenario(
      "cluster: {system: dgx-h100, gpus: 8}\ncollective: {op: all_reduce, bytes: 8GiB}\n"
      "expected: {case: B2, metric: busbw_GBps, value: 480}\n",
      "s.yaml");
  ASSERT_TRUE(s.collective.has_value());
  EXPECT_EQ(s.collective->bytes, core::Bytes::GiB(8));
  EXPECT_EQ(s.collective->algorithm, "auto");
}

TEST(ScenarioErrors, NoModelAndNoCollectiveIsAnError) {
  const std::string e = error_of("cluster: {system: dgx-h100, gpus: 8}\n");
  EXPECT_TRUE(starts_with(e, "s.yaml:1: model: is required")) << e;
}

TEST(ScenarioErrors, MissingRequiredKeyPointsAtItsSection) {
  const std::string e = error_of("model: {layers: 2, hidden: 64, heads: 8, vocab: 100}\ncluster:\n  gpus: 16\n");
  EXPECT_TRUE(starts_with(e, "s.yaml:2: cluster.system: is required")) << e;
}

TEST(ScenarioErrors, HeadsThatDoNotDivideTheHiddenSize) {
  const std::string e = error_of("model:\n  layers: 2\n  hidden: 100\n  heads: 8\n  vocab: 10\n"
                                 "cluster: {system: dgx-h100, gpus: 8}\n");
  EXPECT_EQ(e, "s.yaml:4: model.heads: 8 heads do not divide hidden size 100; give model.head_dim");
}

TEST(ScenarioErrors, HeadDimLetsHeadsNotDivideTheHiddenSize) {
  // GPT-OSS-style: 64 heads of 64 on a 2,880-wide residual stream.
  const std::string e = error_of("model:\n  layers: 2\n  hidden: 2880\n  heads: 64\n  head_dim: 64\n  vocab: 10\n"
                                 "cluster: {system: dgx-h100, gpus: 8}\n");
  EXPECT_EQ(e, "no error");
}

TEST(ScenarioErrors, MoeLayoutOnADenseModelNamesItsLine) {
  const std::string e = error_of("model:\n  preset: llama3-8b\n  dense_layers: 2\n"
                                 "cluster: {system: dgx-h100, gpus: 8}\n");
  EXPECT_EQ(e, "s.yaml:3: model.dense_layers: 2 describes a mixture of experts; this model is dense (experts: 1)");
}

TEST(ScenarioErrors, LatentAttentionFromTheScenario) {
  // A DeepSeek-V2-Lite-like model: MLA without a Q latent, 2 layers, the first dense.
  const std::string ok = error_of("model:\n  layers: 2\n  hidden: 2048\n  heads: 16\n  vocab: 100\n"
                                  "  ffn_hidden: 1408\n  gated_mlp: true\n  experts: 64\n  top_k: 6\n"
                                  "  shared_experts: 2\n  dense_layers: 1\n  dense_ffn_hidden: 10944\n"
                                  "  kv_lora_rank: 512\n  qk_nope_head_dim: 128\n  qk_rope_head_dim: 64\n"
                                  "  v_head_dim: 128\ncluster: {system: dgx-h100, gpus: 8}\n");
  EXPECT_EQ(ok, "no error");
  const std::string e = error_of("model:\n  preset: llama3-8b\n  v_head_dim: 128\n"
                                 "cluster: {system: dgx-h100, gpus: 8}\n");
  EXPECT_EQ(e, "s.yaml:3: model.v_head_dim: 128 is a multi-head latent attention width; set model.kv_lora_rank too");
}

TEST(ScenarioErrors, AParallelBlockIsADenseAttentionLayersOnly) {
  // GPT-J-style blocks on a dense model parse; with experts, latent
  // attention, a hybrid pattern or LoRA the error names the field and why.
  EXPECT_EQ(error_of("model: {preset: llama3-8b, parallel_block: true}\ncluster: {system: dgx-h100, gpus: 8}\n"),
            "no error");
  const std::string moe =
      error_of("model:\n  preset: mixtral-8x7b\n  parallel_block: true\ncluster: {system: dgx-h100, gpus: 8}\n");
  EXPECT_EQ(moe, "s.yaml:3: model.parallel_block: a parallel block with experts (model.experts) is not modelled "
                 "(dense attention layers only)");
  EXPECT_TRUE(starts_with(error_of("model: {preset: deepseek-v3, parallel_block: true}\n"
                                   "cluster: {system: dgx-h100, gpus: 8}\n"),
                          "s.yaml:1: model.parallel_block: a parallel block with experts"));
  EXPECT_TRUE(starts_with(error_of("model: {preset: nemotronh-8b, parallel_block: true}\n"
                                   "cluster: {system: dgx-h100, gpus: 8}\n"),
                          "s.yaml:1: model.parallel_block: a parallel block with a hybrid model's blocks"));
  const std::string lora = error_of("model: {preset: llama3-8b, parallel_block: true}\n"
                                    "cluster: {system: dgx-h100, gpus: 8}\ntraining: {lora_rank: 16}\n");
  EXPECT_EQ(lora, "s.yaml:1: model.parallel_block: a parallel block with LoRA (training.lora_rank) is not modelled");
  // A dense model with latent attention (DeepSeek-V2-Lite's attention, no experts).
  EXPECT_TRUE(starts_with(error_of("model:\n  layers: 2\n  hidden: 2048\n  heads: 16\n  vocab: 100\n"
                                   "  kv_lora_rank: 512\n  qk_nope_head_dim: 128\n  qk_rope_head_dim: 64\n"
                                   "  v_head_dim: 128\n  parallel_block: true\ncluster: {system: dgx-h100, gpus: 8}\n"),
                          "s.yaml:10: model.parallel_block: a parallel block with multi-head latent attention"));
  // Replaying its MLP alone would gather the norm's output the block shares.
  const std::string mlp = error_of("model: {preset: llama3-8b, parallel_block: true}\n"
                                   "cluster: {system: dgx-h100, gpus: 8}\n"
                                   "training: {recompute: selective, recompute_modules: mlp}\n");
  EXPECT_TRUE(starts_with(mlp, "s.yaml:3: training.recompute_modules: mlp alone in a parallel block")) << mlp;
}

TEST(ScenarioErrors, PipelineLayoutFromTheScenario) {
  // Llama 3 8B's 32 layers on PP 2 as 14 + 18, Megatron's syntax; a typo
  // is a parse error at its line, a layout for other stages validate_plan's.
  const std::string head = "model: llama3-8b\ncluster: {system: dgx-h100, gpus: 16}\nparallelism:\n  pp: 2\n";
  EXPECT_EQ(error_of(head + "  pipeline_layout: \"Et*14|t*18L\"\n"), "no error");
  EXPECT_EQ(error_of(head + "  pipeline_layout: \"Et*14|T*18L\"\n"),
            "s.yaml:5: parallelism.pipeline_layout: unknown symbol 'T' at 7 (known: E embedding, t layer, m MTP "
            "module, L output and loss, | next stage, (...)*N repeat)");
  EXPECT_EQ(error_of(head + "  pipeline_layout: \"Et*14|t*17L\"\n"),
            "s.yaml:5: parallelism.pipeline_layout: holds 31 transformer layers (t), but llama3-8b has 32");
}

TEST(ScenarioErrors, RecomputeModulesFromTheScenario) {
  const std::string head = "model: llama3-8b\ncluster: {system: dgx-h100, gpus: 8}\ntraining:\n  recompute: selective\n";
  EXPECT_EQ(error_of(head + "  recompute_modules: \"core_attn, mlp\"\n"), "no error");
  EXPECT_EQ(error_of(head + "  recompute_modules: \"layernorms\"\n"),
            "s.yaml:5: training.recompute_modules: unknown module 'layernorms' (known: core_attn, layernorm, moe_act, "
            "mla_up_proj, mlp, moe, shared_experts)");
  EXPECT_EQ(error_of(head + "  recompute_modules: moe_act\n"),
            "s.yaml:5: training.recompute_modules: moe_act needs experts; llama3-8b has none");
}

TEST(ScenarioErrors, ASectionThatIsNotAMapping) {
  const std::string e = error_of(std::string(kMinimal) + "training: 4096\n");
  EXPECT_TRUE(starts_with(e, "s.yaml:3: training: expects a mapping with keys seq_len,")) << e;
}

TEST(ScenarioErrors, EmptyText) {
  // Found by the fuzz target: the error named no line or field.
  EXPECT_EQ(error_of(""), "s.yaml:1: model: is required: the scenario is empty (it needs at least model and cluster)");
}

TEST(ScenarioErrors, MissingFileNamesIt) {
  try {
    load_scenario("/nonexistent/x.yaml");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "/nonexistent/x.yaml");
  }
}

// ---- The shipped examples and the schema. ----

// An error the cluster builder finds after loading names its field relative
// to the cluster ("fabric.radix"); against the scenario it becomes the key's
// path in the file, at that key's line or its nearest written section's.
TEST(ScenarioErrors, LaterErrorsPointAtTheFieldsLineInTheFile) {
  const Scenario s = parse_scenario(
      "model: llama3-8b\n"
      "cluster:\n"
      "  system: dgx-h100\n"
      "  gpus: 16\n"
      "  fabric:\n"
      "    radix: 8\n",
      "s.yaml");
  const auto where = [&](const std::string& field) {
    return locate_in_scenario(s, InputError({"", 0, field}, "x")).where();
  };
  EXPECT_EQ(where("fabric.radix").field, "cluster.fabric.radix");
  EXPECT_EQ(where("fabric.radix").line, 6);
  EXPECT_EQ(where("fabric.radix").file, "s.yaml");
  EXPECT_EQ(where("gpus").line, 4);
  EXPECT_EQ(where("fabric.nic_speed").line, 5) << "not written: its section's line";
  EXPECT_EQ(where("transport").field, "network.transport");
  EXPECT_EQ(where("transport").line, 1) << "no network section in the file: the top";
  // Already attributed, or a built-in scenario: unchanged.
  EXPECT_EQ(locate_in_scenario(s, InputError({"other.yaml", 3, "gpus"}, "x")).where().line, 3);
  Scenario builtin = s;
  builtin.file.clear();
  EXPECT_EQ(locate_in_scenario(builtin, InputError({"", 0, "gpus"}, "x")).where().field, "gpus");
}

// An FP8 recipe says how FP8 GEMM inputs are scaled: a bf16 plan asking for
// one is refused at the recipe's line rather than silently ignored.
TEST(ScenarioErrors, Fp8RecipeNeedsFp8Training) {
  const std::string bf16 =
      "model: llama3-8b\n"
      "cluster: {system: dgx-b200, gpus: 8}\n"
      "training:\n"
      "  fp8_recipe: tensorwise\n";
  EXPECT_EQ(error_of(bf16),
            "s.yaml:4: training.fp8_recipe: tensorwise scales FP8 GEMM inputs; training.precision is bf16 (use fp8, or "
            "leave fp8_recipe out)");
  EXPECT_EQ(error_of("model: llama3-8b\ncluster: {system: dgx-b200, gpus: 8}\ntraining: {fp8_recipe: current}\n"),
            "s.yaml:3: training.fp8_recipe: 'current' is not one of: delayed, tensorwise, mxfp8, blockwise");
  EXPECT_EQ(error_of("model: llama3-8b\ncluster: {system: dgx-b200, gpus: 8}\n"
                     "training: {precision: fp8, fp8_recipe: mxfp8}\n"),
            "no error");
  // MXFP8 needs block-scaling tensor cores: Blackwell's or CDNA 4's.
  EXPECT_EQ(error_of("model: llama3-8b\ncluster: {system: dgx-h100, gpus: 8}\n"
                     "training: {precision: fp8, fp8_recipe: mxfp8}\n"),
            "s.yaml:3: training.fp8_recipe: mxfp8 needs tensor cores that scale by blocks, which the H100 does not "
            "have (use delayed or tensorwise)");
  // Block scaling runs where Transformer Engine has Float8BlockScaling:
  // Hopper, and Blackwell as MXFP8; not on AMD's parts, whose FP8 it cannot
  // name, nor on a part without FP8.
  EXPECT_EQ(error_of("model: llama3-8b\ncluster: {system: dgx-h100, gpus: 8}\n"
                     "training: {precision: fp8, fp8_recipe: blockwise}\n"),
            "no error");
  EXPECT_EQ(error_of("model: llama3-8b\ncluster: {system: dgx-b200, gpus: 8}\n"
                     "training: {precision: fp8, fp8_recipe: blockwise}\n"),
            "no error");
  EXPECT_EQ(error_of("model: llama3-8b\ncluster: {system: mi355x-8, gpus: 8}\n"
                     "training: {precision: fp8, fp8_recipe: blockwise}\n"),
            "s.yaml:3: training.fp8_recipe: blockwise needs Hopper's or Blackwell's FP8 tensor cores (Transformer "
            "Engine's Float8BlockScaling), which the MI355X does not have (use delayed or tensorwise)");
}

// A GEMM kernel case scales FP8 inputs by blocks only: block scales on a
// 16-bit GEMM would say nothing.
TEST(ScenarioErrors, BlockScalingIsAnFp8GemmsAlone) {
  EXPECT_EQ(error_of("cluster: {system: dgx-h100, gpus: 8}\n"
                     "kernel: {op: gemm, m: 128, n: 128, k: 128, precision: fp8, scaling: block}\n"),
            "no error");
  EXPECT_EQ(error_of("cluster: {system: dgx-h100, gpus: 8}\n"
                     "kernel:\n"
                     "  op: gemm\n  m: 128\n  n: 128\n  k: 128\n"
                     "  scaling: block\n"),
            "s.yaml:7: kernel.scaling: block scales FP8 inputs; kernel.precision is bf16 (use fp8, or leave scaling "
            "out)");
  EXPECT_EQ(error_of("cluster: {system: dgx-h100, gpus: 8}\n"
                     "kernel:\n"
                     "  op: attention_forward\n  seq: 128\n  heads: 8\n"
                     "  scaling: block\n"),
            "s.yaml:6: kernel.scaling: is not a field of attention_forward (it belongs to gemm)");
}

// A GPU's spread of sustained rates is a share of its mean: 1 or more (or
// a negative one) is no measurement, refused at its line.
TEST(ScenarioErrors, ARateSpreadIsAShareBelowOne) {
  EXPECT_EQ(error_of("model: llama3-8b\n"
                     "cluster:\n"
                     "  system: {preset: dgx-b200, gpu: {preset: B200, sustained_rate_range: 1.5}}\n"
                     "  gpus: 8\n"),
            "s.yaml:3: cluster.system.gpu.sustained_rate_range: must be at least 0 and less than 1 (got 1.5)");
  EXPECT_EQ(error_of("model: llama3-8b\n"
                     "cluster:\n"
                     "  system: {preset: dgx-b200, gpu: {preset: B200, busy_node_rate_loss: -0.1}}\n"
                     "  gpus: 8\n"),
            "s.yaml:3: cluster.system.gpu.busy_node_rate_loss: must be at least 0 and less than 1 (got -0.1)");
  EXPECT_EQ(error_of("model: llama3-8b\ncluster: {system: dgx-b200, gpus: 8}\ncompute: {gpu_rate_spread: false}\n"),
            "no error");
}

// FlashAttention-2's rates are measured on Hopper (and the kernel is
// Ampere's own): a Blackwell plan asking for it is refused at its line, and
// so is asking for a flash kernel with flash attention off.
TEST(ScenarioErrors, Flash2OnlyOnHopperOrAmpereAndWithFlashAttention) {
  const std::string on_b200 =
      "model: llama3-8b\n"
      "cluster: {system: dgx-b200, gpus: 8}\n"
      "training:\n"
      "  attention_kernel: flash2\n";
  EXPECT_EQ(error_of(on_b200),
            "s.yaml:4: training.attention_kernel: flash2 is measured on Hopper and native on Ampere; the B200 is "
            "blackwell: use flash");
  const std::string unfused =
      "model: llama3-8b\n"
      "cluster: {system: dgx-h100, gpus: 8}\n"
      "training:\n"
      "  flash_attention: false\n"
      "  attention_kernel: flash2\n";
  EXPECT_EQ(error_of(unfused),
            "s.yaml:5: training.attention_kernel: flash2 is a flash attention kernel; flash_attention is false");
  const std::string fine =
      "model: llama3-8b\n"
      "cluster: {system: dgx-a100, gpus: 8}\n"
      "training:\n"
      "  attention_kernel: flash2\n";
  EXPECT_EQ(error_of(fine), "no error");
}

// A LoRA edge site on 8 DGX H100 GPUs training Llama 2 70B at 8,192
// tokens, with `training` as its training section; `retrain_line`, when
// given, is the retrain section's first key (line 8).
std::string edge_lora_site(const std::string& training, const std::string& retrain_line = "") {
  return "cluster: {system: dgx-h100, gpus: 8}\n"
         "training: " + training + "\n"
         "edge:\n"
         "  duration: 1h\n"
         "  model: llama2-70b\n"
         "  serving: {nodes: 1, shared: true, lines: 1}\n"
         "  retrain:\n" +
         (retrain_line.empty() ? "" : "    " + retrain_line + "\n") +
         "    samples: 64\n"
         "    batch_per_gpu: 1\n"
         "    seq_len: 8192\n"
         "    validate_samples: 0\n";
}

// FP8 attention runs inside Transformer Engine's FP8 autocast, on FP8
// tensor cores, as the part's own flash kernel: a bf16 plan (an A100's
// too, whose training cannot be FP8 at all), FP4 training on a part
// without FP8 tensor cores, an unfused or FlashAttention-2 plan and an
// edge site's fine-tuning are each refused at the field's line; FP8 and
// FP4 plans on Hopper or Blackwell pass.
TEST(ScenarioErrors, Fp8AttentionNeedsFp8TrainingTensorCoresAndTheFlashKernel) {
  const auto plan = [](const std::string& system, const std::string& training) {
    return "model: llama3-8b\ncluster: {system: " + system + ", gpus: 8}\ntraining:\n" + training +
           "  fp8_attention: true\n";
  };
  EXPECT_EQ(error_of(plan("dgx-h100", "  precision: bf16\n")),
            "s.yaml:5: training.fp8_attention: true needs FP8 or FP4 training (Transformer Engine's FP8 attention "
            "runs inside its FP8 autocast); training.precision is bf16");
  EXPECT_EQ(error_of(plan("dgx-h100", "  precision: fp8\n  flash_attention: false\n")),
            "s.yaml:6: training.fp8_attention: true is a flash attention kernel's; flash_attention is false");
  EXPECT_EQ(error_of(plan("dgx-h100", "  precision: fp8\n  attention_kernel: flash2\n")),
            "s.yaml:6: training.fp8_attention: true is the part's own flash kernel (cuDNN's); attention_kernel is "
            "flash2");
  EXPECT_EQ(error_of(plan("dgx-h100", "  precision: fp8\n")), "no error");
  EXPECT_EQ(error_of(plan("dgx-b200", "  precision: fp4\n")), "no error");
  const std::string a100 = "model: llama3-8b\ncluster: {system: dgx-a100, gpus: 8}\ntraining:\n  fp8_attention: true\n";
  EXPECT_NE(error_of(a100).find("training.fp8_attention"), std::string::npos) << error_of(a100);
  // A custom part with FP4 tensor cores and no FP8 ones trains in FP4, but
  // FP8 attention has nothing to run on.
  const std::string fp4_only =
      "model: llama3-8b\n"
      "cluster:\n"
      "  system:\n"
      "    preset: dgx-b200\n"
      "    gpu: {preset: B200, name: fp4-only, fp8_tflops: 0}\n"
      "  gpus: 8\n"
      "training:\n"
      "  precision: fp4\n"
      "  fp8_attention: true\n";
  EXPECT_EQ(error_of(fp4_only),
            "s.yaml:9: training.fp8_attention: true needs FP8 tensor cores, which the fp4-only does not have");
  // An edge site's retraining runs it too, under the same conditions.
  EXPECT_EQ(error_of(edge_lora_site("{precision: fp8, fp8_attention: true}")), "no error");
  EXPECT_EQ(error_of(edge_lora_site("{precision: bf16, fp8_attention: true}")),
            "s.yaml:2: training.fp8_attention: true needs FP8 or FP4 training (Transformer Engine's FP8 attention "
            "runs inside its FP8 autocast); training.precision is bf16");
}

// An edge site's LoRA dropout drops adapters' inputs: asked of another
// fine-tuning mode it is refused at its line.
TEST(ScenarioErrors, EdgeLoraDropoutNeedsLora) {
  EXPECT_EQ(error_of(edge_lora_site("{precision: bf16}", "lora_dropout: 0.1")), "no error");
  EXPECT_EQ(error_of(edge_lora_site("{precision: bf16}", "mode: full\n    lora_dropout: 0.1")),
            "s.yaml:9: edge.retrain.lora_dropout: drops LoRA adapters' inputs; edge.retrain.mode is full");
  // All-to-all context parallelism needs a sequence split to exchange.
  EXPECT_EQ(error_of(edge_lora_site("{precision: bf16}", "context_parallel_comm: all_to_all")),
            "s.yaml:8: edge.retrain.context_parallel_comm: exchanges a sequence split over accelerators; set "
            "edge.retrain.context_parallel above 1");
}

// An edge site keeps its weights at the products' precision only when
// they are FP8 or FP4; asked of a 16-bit run, the field's line says why.
TEST(ScenarioErrors, EdgeQuantizedWeightsNeedFp8OrFp4Training) {
  EXPECT_EQ(error_of(edge_lora_site("{precision: fp8}", "quantized_weights: true")), "no error");
  EXPECT_EQ(error_of(edge_lora_site("{precision: bf16}", "quantized_weights: true")),
            "s.yaml:8: edge.retrain.quantized_weights: true needs precision fp8 or fp4 (the weights kept at the "
            "products' precision); training.precision is bf16");
}

// The MLP activation's input kept in FP8 is an FP8 recipe's option: with
// bf16 training it is refused at its line.
TEST(ScenarioErrors, Fp8ActivationInputNeedsFp8Training) {
  const auto with = [](const std::string& precision) {
    return "model: llama3-8b\n"
           "cluster: {system: dgx-h100, gpus: 8}\n"
           "training:\n"
           "  precision: " +
           precision +
           "\n"
           "  fp8_activation_input: true\n";
  };
  EXPECT_EQ(error_of(with("fp8")), "no error");
  EXPECT_EQ(error_of(with("bf16")),
            "s.yaml:5: training.fp8_activation_input: true needs FP8 or FP4 training; training.precision is bf16");
}

// LoRA adapters are modelled beside plain attention projections, over
// frozen weights held whole: MLA models and ZeRO-3 plans are refused at the
// field's line.
TEST(ScenarioErrors, LoraNeedsPlainAttentionAndWholeFrozenWeights) {
  const auto with = [](const std::string& model, const std::string& zero) {
    return "model: " + model +
           "\n"
           "cluster: {system: dgx-h100, gpus: 8}\n"
           "parallelism: {zero_stage: " +
           zero +
           "}\n"
           "training:\n"
           "  global_batch: 8\n"
           "  lora_rank: 16\n";
  };
  EXPECT_EQ(error_of(with("llama3-8b", "1")), "no error");
  EXPECT_EQ(error_of("model: llama3-8b\ncluster: {system: dgx-h100, gpus: 8}\ntraining:\n  lora_dropout: 0.1\n"),
            "s.yaml:4: training.lora_dropout: drops LoRA adapters' inputs; set training.lora_rank too");
  // The all-to-all moves an adapter's output into the sequence-parallel layout: no SP, nothing to move.
  EXPECT_EQ(error_of(with("llama3-8b", "1, sequence_parallel: false") + "  lora_all_to_all: true\n"),
            "s.yaml:7: training.lora_all_to_all: moves a LoRA adapter's output between TP layouts; it needs "
            "training.lora_rank, tp above 1 and parallelism.sequence_parallel");
  EXPECT_EQ(error_of("model: llama3-8b\ncluster: {system: dgx-h100, gpus: 8}\nparallelism: {tp: 2, sequence_parallel: "
                     "true}\ntraining: {global_batch: 4, lora_rank: 16, lora_all_to_all: true}\n"),
            "no error");
  EXPECT_EQ(error_of(with("llama3-8b", "3")),
            "s.yaml:6: training.lora_rank: LoRA with zero_stage 3 (sharded frozen weights) is not modelled; use 0 to 2");
  const std::string e = error_of(with("deepseek-v3", "1"));
  EXPECT_NE(e.find("s.yaml:6: training.lora_rank: deepseek-v3 uses multi-head latent attention"), std::string::npos)
      << e;
}

// A choice of how TP or CP exchange their data is refused where there is
// nothing for it to change: all-to-all CP needs the heads to split, and a
// layer's gather overlap can be disabled only where it is on.
TEST(ScenarioErrors, ExchangeChoicesNeedSomethingToExchange) {
  // All-to-all CP splits each TP rank's heads: Llama 3 8B at TP 2 holds 16
  // query and 4 KV heads a rank, which CP 8 cannot split.
  EXPECT_EQ(error_of("model: llama3-8b\ncluster: {system: dgx-h100, gpus: 16}\nparallelism:\n  tp: 2\n  cp: 8\n"
                     "  cp_all_to_all: true\n"),
            "s.yaml:6: parallelism.cp_all_to_all: splits the 16 query and 4 KV heads a TP rank holds over cp 8; they "
            "do not divide");
  EXPECT_EQ(error_of("model: llama3-8b\ncluster: {system: dgx-h100, gpus: 16}\nparallelism:\n  tp: 2\n  cp: 4\n"
                     "  cp_all_to_all: true\n"),
            "no error");
  // Transformer Engine reorders the sequence in 2 cp chunks around the exchanges.
  EXPECT_EQ(error_of("model: llama3-8b\ncluster: {system: dgx-h100, gpus: 16}\nparallelism:\n  tp: 2\n  cp: 4\n"
                     "  cp_all_to_all: true\ntraining: {seq_len: 4100}\n"),
            "s.yaml:6: parallelism.cp_all_to_all: reorders each sequence in 8 chunks (2 x cp); seq_len 4100 does not "
            "split into them");
  // Hierarchical CP: its all-to-all groups divide cp and are smaller than
  // it, take a TP rank's heads as all-to-all CP does, and run a ring behind
  // them that neither other exchange has.
  const std::string h = "model: llama3-8b\ncluster: {system: dgx-h100, gpus: 16}\nparallelism:\n  tp: 2\n  cp: 8\n";
  EXPECT_EQ(error_of(h + "  cp_a2a_size: 4\n"), "no error");
  EXPECT_EQ(error_of(h + "  cp_a2a_size: 3\n"),
            "s.yaml:6: parallelism.cp_a2a_size: 3 must divide cp 8 and be smaller (all-to-all over every CP rank is "
            "cp_all_to_all)");
  EXPECT_EQ(error_of(h + "  cp_a2a_size: 8\n"),
            "s.yaml:6: parallelism.cp_a2a_size: 8 must divide cp 8 and be smaller (all-to-all over every CP rank is "
            "cp_all_to_all)");
  EXPECT_EQ(error_of(h + "  cp_a2a_size: 2\n  cp_all_gather: true\n"),
            "s.yaml:6: parallelism.cp_a2a_size: runs a ring behind the all-to-all; it does not combine with "
            "cp_all_gather");
  EXPECT_EQ(error_of("model: llama3-8b\ncluster: {system: dgx-h100, gpus: 8}\nparallelism:\n  cp_a2a_size: 2\n"),
            "s.yaml:4: parallelism.cp_a2a_size: groups CP ranks for its all-to-alls; set parallelism.cp above 1");
  // TE's ring, the default exchange and behind the all-to-alls, refuses
  // sliding-window attention; all-to-all CP takes it.
  EXPECT_EQ(error_of("model: gpt-oss-20b\ncluster: {system: dgx-h100, gpus: 8}\nparallelism:\n  cp: 8\n"),
            "s.yaml:4: parallelism.cp: gpt-oss-20b has sliding-window attention, which Transformer Engine's ring (the "
            "default CP exchange) refuses; set parallelism.cp_all_to_all or cp_all_gather");
  EXPECT_EQ(error_of("model: gpt-oss-20b\ncluster: {system: dgx-h100, gpus: 8}\nparallelism:\n  cp: 8\n"
                     "  cp_all_to_all: true\n"),
            "no error");
  EXPECT_EQ(error_of("model: gpt-oss-20b\ncluster: {system: dgx-h100, gpus: 8}\nparallelism:\n  cp: 8\n"
                     "  cp_a2a_size: 2\n"),
            "s.yaml:5: parallelism.cp_a2a_size: gpt-oss-20b has sliding-window attention, which Transformer Engine's "
            "ring (behind these all-to-alls) refuses; set parallelism.cp_all_to_all or cp_all_gather");
  EXPECT_EQ(error_of("model: llama3-8b\ncluster: {system: dgx-h100, gpus: 32}\nparallelism:\n  tp: 2\n  cp: 16\n"
                     "  cp_a2a_size: 8\n"),
            "s.yaml:6: parallelism.cp_a2a_size: splits the 16 query and 4 KV heads a TP rank holds over cp_a2a_size 8; "
            "they do not divide");
  // Disabling one layer's gather overlap needs the overlap on.
  EXPECT_EQ(error_of("model: llama3-8b\ncluster: {system: dgx-h100, gpus: 8}\nparallelism:\n  tp: 2\n"
                     "  tp_comm_overlap_disable_qkv: true\n"),
            "s.yaml:5: parallelism.tp_comm_overlap_disable_qkv: turns off one layer's all-gather overlap; it needs tp "
            "above 1, parallelism.tp_comm_overlap and parallelism.sequence_parallel");
  EXPECT_EQ(error_of("model: llama3-8b\ncluster: {system: dgx-h100, gpus: 8}\nparallelism:\n  cp_all_to_all: true\n"),
            "s.yaml:4: parallelism.cp_all_to_all: exchanges a sequence split over CP ranks; set parallelism.cp above 1");
}

// A straggler's slowdown is bounded: a GPU a thousand times slower has
// stopped, and a slowdown near 2^63 overflowed the step's time (a fuzzed
// scenario aborted on an event scheduled in the past).
TEST(ScenarioErrors, AStragglersSlowdownIsBounded) {
  const auto with = [](const std::string& slowdown) {
    return "model: llama3-8b\ncluster: {system: dgx-h100, gpus: 8}\njob:\n  duration: 1h\n"
           "  checkpoint: {enabled: false}\n  conditions:\n"
           "    - {kind: straggler, slowdown: " +
           slowdown + ", at: 10min, duration: 10min}\n";
  };
  EXPECT_EQ(error_of(with("0.3")), "no error");
  EXPECT_EQ(error_of(with("9223372036854775807")),
            "s.yaml:7: job.conditions[0].slowdown: must be at least 0 and less than 1000 (got 9223372036854775807)");
}

// The cross-entropy implementation is one of the three counted: another
// name is refused at its line with the choices.
TEST(ScenarioErrors, CrossEntropyIsOneOfTheCountedImplementations) {
  const std::string text =
      "model: llama3-8b\n"
      "cluster: {system: dgx-h100, gpus: 8}\n"
      "training:\n"
      "  cross_entropy: liger\n";
  const std::string e = error_of(text);
  EXPECT_NE(e.find("s.yaml:4: training.cross_entropy"), std::string::npos) << e;
  EXPECT_NE(e.find("megatron_fused"), std::string::npos) << e;
  EXPECT_EQ(error_of("model: llama3-8b\ncluster: {system: dgx-h100, gpus: 8}\ntraining:\n  cross_entropy: "
                     "megatron_fused\n"),
            "no error");
}

// The A100 has no FP8 tensor cores: an fp8 plan on it is refused at the
// precision's line instead of run at the BF16 peak.
TEST(ScenarioErrors, Fp8OnAGpuWithoutFp8) {
  const std::string text =
      "model: llama3-8b\n"
      "cluster: {system: dgx-a100, gpus: 8}\n"
      "training:\n"
      "  precision: fp8\n";
  EXPECT_TRUE(starts_with(error_of(text), "s.yaml:4: training.precision: fp8 needs FP8 tensor cores")) << error_of(text);
  EXPECT_NO_THROW(parse_scenario("model: llama3-8b\ncluster: {system: dgx-h100, gpus: 8}\ntraining: {precision: fp8}\n",
                                 "s.yaml"));
}

TEST(Scenario, ShippedLlama70bOnGb200Parses) {
  const Scenario s = load_scenario(std::string(ANATOMY_SOURCE_DIR) + "/scenarios/llama3-70b-gb200.yaml");
  EXPECT_EQ(s.cluster.gpus, 1024);
  EXPECT_EQ(s.parallelism.dp, 32);  // 1024 / (8 x 4)
  EXPECT_DOUBLE_EQ(s.cluster.fabric.nic_speed.bps(), 8e11);
}

TEST(Scenario, SchemaDocumentsEveryKeyWithItsDefault) {
  bool found = false;
  for (const FieldDoc& d : scenario_fields()) {
    EXPECT_FALSE(d.help.empty()) << d.path;
    if (d.path == "parallelism.bucket_size") {
      found = true;
      EXPECT_EQ(d.kind, "size");
      EXPECT_EQ(d.default_value, "0");
    }
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace anatomy::scenario
