#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "coll/collective.h"
#include "coll/group.h"
#include "core/error.h"
#include "hw/catalog.h"
#include "net/flow/flow_network.h"
#include "topo/builders.h"
#include "workload/trace/chakra.h"
#include "workload/trace/pytorch_reader.h"
#include "workload/trace/replay.h"
#include "workload/trace/trace_dir.h"

namespace anatomy::workload::trace {
namespace {

using core::SimTime;

Node compute(uint64_t id, SimTime d, Phase p, std::vector<uint64_t> deps = {}) {
  Node n;
  n.id = id;
  n.name = "op";
  n.duration = d;
  n.phase = p;
  n.deps = std::move(deps);
  return n;
}
Node allreduce(uint64_t id, int64_t bytes, SimTime recorded, std::vector<uint64_t> deps) {
  Node n;
  n.id = id;
  n.name = "all_reduce";
  n.kind = NodeKind::kCollective;
  n.op = coll::Op::kAllReduce;
  n.bytes = core::Bytes(bytes);
  n.duration = recorded;
  n.deps = std::move(deps);
  return n;
}

// Rank r: forward for fwd[r], an all-reduce of 64 MiB issued after it, then
// an optimizer step of 2 ms that needs the all-reduce.
TraceGraph two_ranks(SimTime fwd0, SimTime fwd1, SimTime recorded = SimTime::ms(4)) {
  TraceGraph g;
  g.source = "test";
  for (int r = 0; r < 2; ++r) {
    RankTrace t;
    t.rank = r;
    t.file = "rank" + std::to_string(r);
    t.nodes = {compute(1, r == 0 ? fwd0 : fwd1, Phase::kForward), allreduce(2, 64 << 20, recorded, {1}),
               compute(3, SimTime::ms(2), Phase::kOptimizer, {2})};
    g.ranks.push_back(t);
  }
  return g;
}

struct Machine {
  topo::Topology topology;
  coll::AlgorithmRegistry registry;
  ReplayInputs in;
  explicit Machine(int gpus, const char* system = "dgx-h100") {
    topo::ClusterSpec spec;
    spec.system = hw::find_system(system);
    spec.gpus = gpus;
    topology = topo::build_cluster(spec);
    coll::register_builtin_algorithms(registry);
    in.topology = &topology;
    in.algorithms = &registry;
    in.library = coll::nccl_library(spec.system);
    in.make_network = [](engine::Simulator& sim, const topo::Topology& t) -> std::unique_ptr<net::Network> {
      return std::make_unique<net::FlowNetwork>(sim, t);
    };
  }
  SimTime allreduce_time(int64_t bytes, std::vector<uint32_t> gpus) const {
    coll::CollectiveRunner run(topology, registry, in.library, in.make_network);
    coll::Request r;
    r.bytes = core::Bytes(bytes);
    return run.run(coll::make_group(topology, gpus), r, "auto").time;
  }
};

TEST(Replay, ACollectiveStartsWhenTheLastRankIssuesItAndTheLateRankWaits) {
  // Recorded communication: rank 0 computes 10 ms, rank 1 6 ms; the
  // all-reduce starts at 10 ms (both issued), takes its recorded 4 ms, the
  // optimizer 2 ms: step 16 ms. Rank 1 waits 10 - 6 = 4 ms with nothing in
  // flight (waiting), then 4 ms of exposed DP communication.
  const TraceGraph g = two_ranks(SimTime::ms(10), SimTime::ms(6));
  Machine m(2);
  m.in.trace = &g;
  m.in.recorded_comm = true;
  const ReplayResult r = replay_trace(m.in);
  EXPECT_EQ(r.result.iteration, SimTime::ms(16));
  EXPECT_EQ(r.result.stages[0].forward_compute, SimTime::ms(10));
  EXPECT_EQ(r.result.stages[0].dp_comm, SimTime::ms(4));
  EXPECT_EQ(r.result.stages[0].waiting, SimTime());
  EXPECT_EQ(r.result.stages[1].waiting, SimTime::ms(4));
  EXPECT_EQ(r.result.stages[1].dp_comm, SimTime::ms(4));
  EXPECT_EQ(r.result.stages[1].optimizer, SimTime::ms(2));
  for (const auto& b : r.result.stages) EXPECT_EQ(b.total(), r.result.iteration);
}

TEST(Replay, CollectivesAreRetimedByCollOnTheTopology) {
  // Step = 10 ms + the all-reduce coll gives for 64 MiB over GPUs {0, 1} of
  // a DGX H100 (NVLink) + 2 ms: the recorded 4 ms is not used.
  const TraceGraph g = two_ranks(SimTime::ms(10), SimTime::ms(10), SimTime::ms(400));
  Machine m(2);
  m.in.trace = &g;
  const ReplayResult r = replay_trace(m.in);
  const SimTime ar = m.allreduce_time(64 << 20, {0, 1});
  EXPECT_GT(ar, SimTime());
  EXPECT_EQ(r.result.iteration, SimTime::ms(12) + ar);
  EXPECT_EQ(r.result.mean.dp_comm, ar);
}

TEST(Replay, ComputeThatDoesNotWaitForACollectiveHidesIt) {
  // A 50 ms backward op after the issue that does not depend on the
  // all-reduce: the all-reduce (well under 50 ms on NVLink) runs behind it
  // and nothing of it is exposed; step = 10 + 50 + 2 ms.
  TraceGraph g = two_ranks(SimTime::ms(10), SimTime::ms(10));
  for (RankTrace& t : g.ranks) {
    t.nodes.push_back(compute(4, SimTime::ms(50), Phase::kBackward, {1}));
    t.nodes[2].deps = {2, 4};
  }
  Machine m(2);
  m.in.trace = &g;
  const ReplayResult r = replay_trace(m.in);
  EXPECT_EQ(r.result.iteration, SimTime::ms(62));
  EXPECT_EQ(r.result.mean.dp_comm, SimTime());
  EXPECT_EQ(r.result.mean.backward_compute, SimTime::ms(50));
}

TEST(Replay, MoreRanksReplicateTheTraceAndCollectivesSpanThemAll) {
  // 8 ranks from a 2-rank trace: the all-reduce runs over GPUs 0..7.
  const TraceGraph g = two_ranks(SimTime::ms(10), SimTime::ms(10));
  Machine m(8);
  m.in.trace = &g;
  m.in.ranks = 8;
  const ReplayResult r = replay_trace(m.in);
  ASSERT_EQ(r.result.stages.size(), 8u);
  EXPECT_EQ(r.result.iteration, SimTime::ms(12) + m.allreduce_time(64 << 20, {0, 1, 2, 3, 4, 5, 6, 7}));
  m.in.ranks = 3;
  EXPECT_THROW(replay_trace(m.in), core::InputError);
}

TEST(Replay, AnotherAcceleratorScalesComputeByItsModelsRatioForTheOpsShape) {
  // One 8192^3 bf16 GEMM measured at 3 ms on an H100, replayed on an H200:
  // 3 ms x H200.gemm / H100.gemm for that shape (both roofline models).
  TraceGraph g;
  RankTrace t;
  t.file = "rank0";
  Node n = compute(1, SimTime::ms(3), Phase::kForward);
  n.shapes.push_back({WorkShape::Kind::kGemm, 8192, 8192, 8192, 1, hw::Precision::kBf16, {}});
  t.nodes.push_back(n);
  g.ranks.push_back(t);
  const hw::ComputeModel h100 = hw::make_compute_model(hw::find_accelerator("H100"), nullptr);
  const hw::ComputeModel b200 = hw::make_compute_model(hw::find_accelerator("B200"), nullptr);
  Machine m(1);
  m.in.trace = &g;
  m.in.source = &h100;
  m.in.target = &b200;
  const ReplayResult r = replay_trace(m.in);
  const double ratio = b200.gemm(8192, 8192, 8192, hw::Precision::kBf16).seconds() /
                       h100.gemm(8192, 8192, 8192, hw::Precision::kBf16).seconds();
  EXPECT_LT(ratio, 1.0);
  EXPECT_NEAR(r.result.iteration.seconds(), 3e-3 * ratio, 1e-12);
  EXPECT_NEAR(r.compute_scale, ratio, 1e-9);
}

TEST(CheckTrace, RanksThatDisagreeOnACollectivesSizeAreNamedWithTheRecord) {
  TraceGraph g = two_ranks(SimTime::ms(1), SimTime::ms(1));
  g.ranks[1].nodes[1].bytes = core::Bytes(1 << 20);
  try {
    check_trace(g);
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "rank1: record 1: comm_size: collective 0 of every rank (all_reduce) moves 1048576 bytes here but "
              "67108864 on rank 0");
  }
}

TEST(CheckTrace, ACollectiveMissingOnOneRankAndASendWithoutItsReceiveAreErrors) {
  TraceGraph g = two_ranks(SimTime::ms(1), SimTime::ms(1));
  g.ranks[1].nodes.erase(g.ranks[1].nodes.begin() + 1);
  g.ranks[1].nodes[1].deps = {1};
  EXPECT_THROW(check_trace(g), core::InputError);
  TraceGraph p = two_ranks(SimTime::ms(1), SimTime::ms(1));
  Node send;
  send.id = 9;
  send.kind = NodeKind::kSend;
  send.peer = 1;
  p.ranks[0].nodes.push_back(send);
  try {
    check_trace(p);
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rank0: record 3: comm_dst: send to rank 1 (tag 0) has no matching receive"),
              std::string::npos)
        << e.what();
  }
}

std::string temp_dir(const std::string& name) {
  const std::string d = ::testing::TempDir() + "anatomy_trace_" + name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

TEST(Chakra, WhatIsWrittenReadsBackNodeForNode) {
  TraceGraph g = two_ranks(SimTime::ps(10'000'123), SimTime::ms(6));
  g.groups["dp"] = {0, 1};
  for (RankTrace& t : g.ranks) t.nodes[1].group = "dp";
  const std::string dir = temp_dir("roundtrip");
  const std::vector<std::string> files = write_chakra(g, dir, "t");
  ASSERT_EQ(files.size(), 2u);
  const TraceGraph back = read_chakra(files, dir);
  ASSERT_EQ(back.ranks.size(), 2u);
  EXPECT_EQ(back.groups.at("dp"), (std::vector<int>{0, 1}));
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(back.ranks[r].nodes.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
      const Node& a = g.ranks[r].nodes[i];
      const Node& b = back.ranks[r].nodes[i];
      EXPECT_EQ(a.id, b.id);
      EXPECT_EQ(a.kind, b.kind);
      EXPECT_EQ(a.duration, b.duration);  // exact to the picosecond (anatomy_duration_ps)
      EXPECT_EQ(a.bytes, b.bytes);
      EXPECT_EQ(a.deps, b.deps);
      EXPECT_EQ(a.phase, b.phase);
      EXPECT_EQ(a.group, b.group);
    }
  }
}

TEST(Chakra, ATruncatedOrForeignFileIsAnErrorNamingTheRecord) {
  const std::string dir = temp_dir("bad");
  const std::vector<std::string> files = write_chakra(two_ranks(SimTime::ms(1), SimTime::ms(1)), dir, "t");
  const auto size = std::filesystem::file_size(files[0]);
  std::filesystem::resize_file(files[0], size - 3);
  try {
    read_chakra(files, dir);
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(files[0] + ": record 3: length: truncated"), std::string::npos) << e.what();
  }
  const std::string foreign = dir + "/foreign.0.et";
  std::ofstream(foreign) << "{\"schema\": \"1.0.1\", \"nodes\": []}\n";
  try {
    read_chakra({foreign}, dir);
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(foreign + ": record 0:"), std::string::npos) << e.what();
  }
}

const std::string kShipped = std::string(ANATOMY_SOURCE_DIR) + "/tests/data/traces/gpt-gloo-2";

TEST(PytorchTraces, TheShippedSetImportsAsTwoRanksWithTheirGradientAllReduce) {
  // tools/trace_capture.py's job: DDP over 2 ranks, one gradient bucket of
  // every parameter in fp32 (4 bytes each), all-reduced once per step.
  const TraceGraph g = read_trace_dir(kShipped);
  ASSERT_EQ(g.size(), 2);
  int64_t params = 0;
  {
    std::ifstream f(kShipped + "/measured.json");
    std::string text((std::istreambuf_iterator<char>(f)), {});
    const auto at = text.find("\"parameters\":");
    ASSERT_NE(at, std::string::npos);
    params = std::stoll(text.substr(at + 13));
  }
  for (const RankTrace& r : g.ranks) {
    int64_t collectives = 0, bytes = 0, gemms = 0;
    for (const Node& n : r.nodes) {
      if (n.kind == NodeKind::kCollective) ++collectives, bytes += n.bytes.count();
      for (const WorkShape& s : n.shapes) gemms += s.kind == WorkShape::Kind::kGemm;
    }
    EXPECT_GE(collectives, 1);
    EXPECT_EQ(bytes, 4 * params);
    EXPECT_GT(gemms, 10);  // the projections' GEMMs, forward and backward, with their shapes
  }
}

TEST(PytorchTraces, AProfilerFileWithoutAStepSpanIsAnErrorNamingIt) {
  const std::string dir = temp_dir("nostep");
  std::ofstream(dir + "/kineto_rank0.json") << R"([{"name": "aten::mm", "ph": "X", "ts": 1, "dur": 5, "tid": 1}])";
  try {
    read_trace_dir(dir);
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(dir + "/kineto_rank0.json: ProfilerStep#: no \"ProfilerStep#N\" span"),
              std::string::npos)
        << e.what();
  }
  std::ofstream(dir + "/kineto_rank0.json") << R"([{"name": "ProfilerStep#0", "ph": "X", "ts": 1, "tid": 1}])";
  try {
    read_trace_dir(dir);
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("kineto_rank0.json: record 0: ts: a complete event"), std::string::npos) << e.what();
  }
}

// What `anatomy replay` says of a folder: the error's text, or "" when it reads.
std::string read_error(const std::string& dir) {
  try {
    read_trace_dir(dir);
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(PytorchTraces, AFieldOfTheWrongJsonTypeIsAnErrorNamingItNotACrash) {
  // Found by fuzz/trace_fuzzer: "ph": 1 threw nlohmann's type_error out of
  // the reader, and anatomy aborted.
  const std::string dir = temp_dir("wrongtype");
  std::ofstream(dir + "/kineto_rank0.json") << R"([{"name": "ProfilerStep#0", "ph": 1, "ts": 1, "dur": 5}])";
  EXPECT_NE(read_error(dir).find("kineto_rank0.json: record 0: ph: must be a string, not number"), std::string::npos)
      << read_error(dir);
  std::ofstream(dir + "/kineto_rank0.json") << R"([{"name": "ProfilerStep#0", "ph": "X", "cat": [], "ts": 1, "dur": 5}])";
  EXPECT_NE(read_error(dir).find("record 0: cat: must be a string, not array"), std::string::npos) << read_error(dir);
  std::ofstream(dir + "/kineto_rank0.json")
      << R"([{"name": "ProfilerStep#0", "ph": "X", "ts": 1, "dur": 50, "tid": 1},)"
         R"( {"name": "aten::mm", "ph": "X", "ts": 2, "dur": 5, "tid": 1}])";
  std::ofstream(dir + "/et_rank0.json") << R"({"schema": "1.0.1", "nodes": [{"name": "aten::mm", "id": "seven"}]})";
  EXPECT_NE(read_error(dir).find("et_rank0.json: record 0: id: must be a whole number, not string"), std::string::npos)
      << read_error(dir);
}

TEST(PytorchTraces, ShapesAndTimesNoRealTraceHoldsAreErrorsNotOverflows) {
  const std::string dir = temp_dir("huge");
  const std::string step = R"([{"name": "ProfilerStep#0", "ph": "X", "ts": 1, "dur": 50, "tid": 1},)"
                           R"( {"name": "aten::mm", "ph": "X", "ts": 2, "dur": 5, "tid": 1}])";
  std::ofstream(dir + "/kineto_rank0.json") << step;
  // 2^30 x 2^30 elements is 2^60 > 2^48: its bytes would overflow int64 once
  // multiplied by the element size and summed.
  std::ofstream(dir + "/et_rank0.json")
      << R"({"schema": "1.0.1", "nodes": [{"name": "aten::mm", "id": 1, "input_shapes": [[1073741824, 1073741824]]}]})";
  EXPECT_NE(read_error(dir).find("et_rank0.json: record 0: input_shapes: a tensor of more than 2^48 elements"),
            std::string::npos)
      << read_error(dir);
  // A span of 1e13 us (116 days) would overflow the replay's picoseconds.
  std::ofstream(dir + "/kineto_rank0.json") << R"([{"name": "ProfilerStep#0", "ph": "X", "ts": 1, "dur": 1e13}])";
  std::filesystem::remove(dir + "/et_rank0.json");
  EXPECT_NE(read_error(dir).find("kineto_rank0.json: record 0: dur: 10000000000000 us is not a duration"), std::string::npos)
      << read_error(dir);
}

TEST(Chakra, ANodeLongerThanTheClockCanHoldIsAnErrorNamingIt) {
  // 1e12 us (11.6 days) is the most one node may last; 2e12 us in
  // picoseconds (2e18) still fits int64 but two such nodes would not: the
  // reader refuses the node, and check_trace a rank whose sum passes 10 days.
  const std::string dir = temp_dir("long");
  TraceGraph g = two_ranks(SimTime::ms(1), SimTime::ms(1));
  g.ranks[0].nodes[0].duration = SimTime::sec(6 * 86400);  // 6 days, twice: 12 > 10
  g.ranks[0].nodes[1].duration = SimTime::sec(6 * 86400);
  const std::vector<std::string> files = write_chakra(g, dir, "t");
  const TraceGraph back = read_chakra(files, dir);
  try {
    check_trace(back);
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("duration: the rank's recorded durations add up to more than 10 days"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace anatomy::workload::trace
