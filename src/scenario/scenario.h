#pragma once
// Scenario: a training job described in YAML, turned into typed,
// validated configuration. Every field is declared once (name, unit,
// default, validator, help) and every error names the file, line and field:
//   scenario.yaml:14: parallelism.tp: 3 does not divide 64 attention heads
//
// Schema in short (every key with its type, unit, default and meaning:
// `anatomy schema`, docs/scenario.md; units are written in the values:
// "800Gbps", "2h", "80GB"):
//   name: llama3-70b-on-gb200          # optional
//   seed: 1
//   model: llama3-70b                   # a preset, or a mapping:
//   #   {preset: gpt3-175b, layers: 48} / {layers, hidden, heads, kv_heads, head_dim,
//   #    ffn_hidden, vocab, gated_mlp, experts, top_k, ...}
//   cluster:
//     system: gb200-nvl72               # a hw preset, or a mapping (scenario/hardware_fields.h):
//     #   {preset: dgx-b200, nic_speed: 1600Gbps, gpu_nic_link: pcie-gen6,
//     #    gpu: {preset: B200, ...}} / a whole definition {name, gpu: {...},
//     #    gpus_per_host, scaleup: {...}, nics_per_host, nic_speed,
//     #    gpu_nic_link, host_link, ...} as `anatomy list --format yaml` prints
//     gpus: 1024
//     fabric: {tiers, radix, oversubscription, spine_oversubscription,
//              rail_optimized, planes, nic_speed, link_speed, switch_latency,
//              mtu, packet_overhead,
//              switch: {name, radix, port_speed, buffer, latency}}
//     #   the switch's figures fill the fabric keys left out (and the
//     #   packet model's switch_buffer)
//     storage: {servers, nics_per_server, nic_speed, shared_with_compute}
//   parallelism: {tp, pp, dp, cp, ep, sequence_parallel, virtual_stages,
//                 pipeline_layout, first_stage_layers, last_stage_layers,
//                 embedding_in_split, loss_in_split,
//                 zero_stage, overlap_grad_reduce, overlap_param_gather,
//                 tp_comm_overlap, bucket_size, param_gather_size,
//                 framework: megatron|deepspeed, cp_all_gather, shard_group, ...}
//   training: {seq_len, global_batch, micro_batch, precision: bf16|fp8,
//              recompute: none|selective|full, recompute_layers,
//              recompute_modules, ...}
//   network: {model: flow|packet, transport, fabric, load_balancing, ...}
//   #   packet options (net/packet/packet_options.h), with model: packet only
//   compute: {calibration: path/to/table.json,   # default: the system's own, if shipped
//             memory_check: error|warn}          # warn: simulate a plan that does not fit, and say so
//   collective: {op: all_reduce, bytes: 8GiB, algorithm: auto}
//   fleet: {duration, scheduler, classes, jobs, generator, trace, failures}
//   #   many jobs on the cluster (scenario/fleet_fields.h)
//   #   a collective case instead of a training iteration: model and
//   #   parallelism are then not needed
//   expected:                          # validation cases only
//     {case: A1-175B, metric: tflops_per_gpu|megatron_tflops_per_gpu|mfu|
//      tokens_per_s|iteration_s|busbw_GBps|time_us,
//      value: 140, source: "Narayanan et al. SC'21, Table 1"}
// dp may be omitted (GPUs / (tp x pp x cp)). Unknown keys are errors.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "coll/ops.h"
#include "core/error.h"
#include "fleet/fleet_spec.h"
#include "job/edge/edge_spec.h"
#include "job/job_spec.h"
#include "job/placement.h"
#include "scenario/overrides.h"
#include "net/network_spec.h"
#include "topo/builders.h"
#include "workload/model.h"
#include "workload/training.h"

namespace anatomy::scenario {

struct Expected {
  std::string case_id;
  std::string metric;  // tflops_per_gpu, mfu, tokens_per_s, iteration_s, busbw_GBps, interruptions, ettr, tflops (a kernel), ...
  double value = 0;
  std::string source;
  // "equal" (error = relative difference), or a published bound: "at_least"
  // ("higher than 90%") or "at_most"; a bound that holds has no error.
  std::string bound = "equal";
  int seeds = 1;  // whole jobs: seeds whose mean is compared (seed, seed + 1, ...)
  // Training runs of one plan at several scales share a name ("" = none):
  // `anatomy validate` fits each series' steps to a fixed part plus a part
  // per micro-batch of a pipeline, published and simulated apart.
  std::string series;
};

// A single collective to time (validation cases against nccl-tests figures).
struct CollectiveCase {
  coll::Op op = coll::Op::kAllReduce;
  core::Bytes bytes;
  std::string algorithm = "auto";
  int min_ctas = 0, max_ctas = 0;  // NCCL_MIN_CTAS / NCCL_MAX_CTAS (coll::with_ctas); 0: NCCL's own
};

// One kernel timed alone on one GPU of the cluster's part, at the rates the
// compute model gives it (validation cases against published GEMM and
// attention benchmarks, and a user's question about one shape).
// Attention FLOPs follow FlashAttention's count: forward 4 x batch x heads
// x seq^2 x head_dim, halved when causal; backward 2.5 times forward.
struct KernelCase {
  std::string op = "gemm";                          // gemm, attention_forward, attention_backward or stream
  int64_t m = 0, n = 0, k = 0;                      // gemm: C[m,n] = A[m,k] B[k,n]
  hw::Precision precision = hw::Precision::kBf16;   // gemm
  bool block_scaled = false;                        // gemm, fp8: a scale per 128 of k (ComputeModel::gemm_fp8_blockwise)
  int64_t batch = 1, seq = 0, heads = 0, head_dim = 128;  // attention
  bool causal = true;                               // attention
  core::Bytes bytes;                                // stream: bytes read plus written
};

struct Scenario {
  std::string file;  // where it was read from ("" for built-in)
  // The 1-based line of every key the file gave, by dotted path
  // ("cluster.fabric.radix"), so errors found after loading can point there.
  std::map<std::string, int> lines;
  // Paths the command line set, with the text that set them (overrides.h).
  std::map<std::string, std::string> overridden;
  std::string name;
  uint64_t seed = 1;
  workload::ModelSpec model;
  topo::ClusterSpec cluster;
  workload::ParallelPlan parallelism;
  workload::TrainingSpec training;
  net::NetworkSpec network;  // the model and, for packet, every setting
  std::string calibration;  // path to a calibration table, "" = none
  bool memory_check_is_error = true;
  // A training job's tensor-core kernels at its slowest GPU's sustained rate
  // (hw/sync_pace.h); false: every GPU at the rate of one alone.
  bool gpu_rate_spread = true;
  std::optional<Expected> expected;
  std::optional<CollectiveCase> collective;
  std::optional<KernelCase> kernel;
  std::optional<job::JobSpec> job;  // a whole training run (the seed above drives its failures)
  // Placement in a larger cluster of placement_cluster_gpus GPUs (the seed
  // above drives which hosts are busy); none: the job is the whole cluster.
  std::optional<job::PlacementSpec> placement;
  int placement_cluster_gpus = 0;
  // An edge site (job/edge/edge_spec.h) instead of one training job: its
  // model is edge.model, so `model:` is not needed.
  std::optional<job::edge::EdgeSpec> edge;
  // Many jobs on the cluster under a scheduler (fleet/fleet_spec.h):
  // cluster: is then the whole cluster, and model: is not needed (each job
  // class names its own).
  std::optional<fleet::FleetSpec> fleet;
};

// Reads and validates a scenario (plan against model and GPU count; memory
// fit is checked by the caller once the hardware is known). Throws
// core::InputError with file, line and field.
// `overrides` (overrides.h: --set, --seed) change the file's text before it
// is read.
Scenario load_scenario(const std::string& path, const std::vector<Override>& overrides = {});
// Same, from text (for tests); `file` names it in errors.
Scenario parse_scenario(const std::string& yaml_text, const std::string& file,
                        const std::vector<Override>& overrides = {});

// An error found after loading (building the cluster, placing, simulating)
// that names a field but no file, attributed to the scenario: the field
// becomes its path in the file (the cluster builder's "fabric.radix" is
// "cluster.fabric.radix") and the line is that key's, or the nearest
// enclosing section's the file wrote. Errors that already name a file, and
// built-in scenarios, pass through unchanged.
core::InputError locate_in_scenario(const Scenario& s, const core::InputError& e);

// The schema itself, for help text and docs: every key with its kind,
// default and meaning, in the order they are read.
struct FieldDoc {
  std::string path;           // "parallelism.tp"
  std::string kind;           // "integer", "rate", "one of flow|packet", "section", ...
  std::string unit;           // B, bit/s or s (written with any prefix: 80MB, 800Gbps, 30min); "" for plain numbers
  std::string default_value;  // as it would be written, "required", or how it is derived
  std::string help;
};
std::vector<FieldDoc> scenario_fields();

// One input of a scenario as a report lists it, from the same tables: the
// top-level section ("cluster"; "scenario" for top-level keys), the key's
// path inside it ("fabric.nic_speed") and its value as it would be written.
// Every key of every section the scenario has appears, defaults included.
struct InputValue {
  std::string section;
  std::string field;
  std::string value;
  bool derived = false;  // left to be derived: the value says how (the default's text)
};
std::vector<InputValue> input_rows(const Scenario& s);

}  // namespace anatomy::scenario
