// End-to-end checks of `anatomy sweep`: the store it fills, the same
// results on one thread or two (and across MPI ranks), a sweep killed with
// SIGKILL and resumed, export, and the one-line errors of a bad sweep file.

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "../cli/shell.h"
#include "sweep/store.h"

extern char** environ;

namespace anatomy::sweep {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("anatomy_sweep_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void spit(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

testing::ShellResult anatomy(const std::string& args) {
  return testing::run_shell(std::string(ANATOMY_BINARY) + " " + args);
}

// 4 NIC speeds x 4 TP sizes x 4 batches = 64 points of a 4-layer Llama 3
// 8B on two DGX H100 hosts; TP 3 leaves 16 GPUs without a whole DP size,
// so 16 points fail and are stored with their error.
const char* kSpace64 =
    "name: sixty-four\n"
    "scenario:\n"
    "  model: {preset: llama3-8b, layers: 4}\n"
    "  cluster: {system: dgx-h100, gpus: 16}\n"
    "  training: {seq_len: 2048, global_batch: 32}\n"
    "axes:\n"
    "  cluster.fabric.nic_speed: [100Gbps, 200Gbps, 400Gbps, 800Gbps]\n"
    "  parallelism.tp: [1, 2, 3, 4]\n"
    "  training.global_batch: [16, 32, 64, 128]\n"
    "metrics:\n"
    "  dollars_per_iteration: 'result.gpus * result.iteration_s / 3600 * (cluster.fabric.nic_speed >= 400Gbps ? 3 : 2.5)'\n";

// What must not depend on threads, ranks or restarts: everything but the wall time.
std::map<std::string, std::string> stored(const fs::path& store) {
  std::map<std::string, std::string> out;
  for (const PointRow& r : Store::open_existing(store.string()).rows())
    out[r.key] = std::to_string(r.index) + (r.ok ? " ok " : " failed ") + r.error + "|" + r.result + "|" + r.metrics +
                 "|" + r.scenario_hash;
  return out;
}

TEST(SweepCli, SixtyFourPointsOnTwoThreadsAreTheSameAsOnOne) {
  const fs::path dir = scratch("threads");
  spit(dir / "space.yaml", kSpace64);
  const auto one = anatomy("sweep " + (dir / "space.yaml").string() + " --store " + (dir / "one.sqlite").string() + " --threads 1");
  ASSERT_EQ(one.code, 0) << one.err;
  const auto two = anatomy("sweep " + (dir / "space.yaml").string() + " --store " + (dir / "two.sqlite").string() + " --threads 2");
  ASSERT_EQ(two.code, 0) << two.err;
  EXPECT_NE(two.out.find("ran             64 (16 failed)"), std::string::npos) << two.out;
  const auto a = stored(dir / "one.sqlite"), b = stored(dir / "two.sqlite");
  ASSERT_EQ(a.size(), 64u);
  EXPECT_EQ(a, b);
  // A point's stored result is `anatomy run --format json`'s output for it.
  const auto rows = Store::open_existing((dir / "one.sqlite").string()).rows();
  const PointRow& p = rows.at(5);  // 100Gbps, TP 2, batch 32
  ASSERT_TRUE(p.ok) << p.error;
  // The same scenario as a file of the same stem (its name in the JSON).
  fs::create_directories(dir / "base");
  spit(dir / "base" / "space.yaml", "model: {preset: llama3-8b, layers: 4}\ncluster: {system: dgx-h100, gpus: 16}\n"
                          "training: {seq_len: 2048, global_batch: 32}\n");
  const auto run = anatomy("run " + (dir / "base" / "space.yaml").string() +
                           " --format json --set cluster.fabric.nic_speed=100Gbps --set parallelism.tp=2 "
                           "--set training.global_batch=32");
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(p.result + "\n", run.out);
  // The failed ones name the point's override.
  for (const PointRow& r : rows) {
    if (!r.ok) {
      EXPECT_NE(r.error.find("parallelism"), std::string::npos) << r.error;
    }
  }
  // A re-run finds every point there and runs none.
  const auto again = anatomy("sweep " + (dir / "space.yaml").string() + " --store " + (dir / "one.sqlite").string());
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.out.find("already stored  64"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("ran             0 "), std::string::npos) << again.out;
}

TEST(SweepCli, KilledMidwayAndResumedStoresEveryPointOnceAndKeepsTheFinishedOnes) {
  const fs::path dir = scratch("kill");
  spit(dir / "space.yaml", kSpace64);
  const std::string store = (dir / "s.sqlite").string();
  const std::string space = (dir / "space.yaml").string();
  pid_t pid = 0;
  std::vector<std::string> args = {ANATOMY_BINARY, "sweep", space, "--store", store, "--threads", "1", "--quiet"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ASSERT_EQ(posix_spawn(&pid, ANATOMY_BINARY, nullptr, nullptr, argv.data(), environ), 0);
  // Kill it once a few points are stored, with more still to run.
  size_t before = 0;
  for (int i = 0; i < 3000 && before < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (fs::exists(store)) try {
        before = Store::open_existing(store).rows().size();
      } catch (const core::InputError&) {}
  }
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the sweep finished before it was killed";
  const auto killed = Store::open_existing(store).rows();
  ASSERT_GE(killed.size(), 5u);
  ASSERT_LT(killed.size(), 64u);
  std::map<std::string, std::pair<double, std::string>> first;
  for (const PointRow& r : killed) first[r.key] = {r.wall_s, r.finished_at};

  const auto resumed = anatomy("sweep " + space + " --store " + store + " --threads 2");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("already stored  " + std::to_string(killed.size())), std::string::npos) << resumed.out;
  const auto rows = Store::open_existing(store).rows();
  EXPECT_EQ(rows.size(), 64u);
  std::set<std::string> keys;
  for (const PointRow& r : rows) {
    EXPECT_TRUE(keys.insert(r.key).second) << "stored twice: " << r.key;
    if (const auto it = first.find(r.key); it != first.end()) {
      EXPECT_EQ(r.wall_s, it->second.first) << "recomputed: " << r.key;
      EXPECT_EQ(r.finished_at, it->second.second) << r.key;
    }
  }
  // The same results as a sweep never interrupted.
  const auto clean = anatomy("sweep " + space + " --store " + (dir / "clean.sqlite").string() + " --threads 2");
  ASSERT_EQ(clean.code, 0) << clean.err;
  EXPECT_EQ(stored(store), stored(dir / "clean.sqlite"));
}

TEST(SweepCli, MpirunOnTwoRanksStoresEveryPointOnce) {
  const std::string mpirun = ANATOMY_MPIRUN;
  if (mpirun.empty()) GTEST_SKIP() << "built without MPI (libopenmpi-dev not found)";
  const fs::path dir = scratch("mpi");
  spit(dir / "space.yaml", kSpace64);
  const auto r = testing::run_shell(mpirun + " -n 2 --oversubscribe --allow-run-as-root " + ANATOMY_BINARY +
                                    " sweep " + (dir / "space.yaml").string() + " --store " +
                                    (dir / "mpi.sqlite").string());
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("2 MPI ranks"), std::string::npos) << r.out;
  const auto rows = Store::open_existing((dir / "mpi.sqlite").string()).rows();
  EXPECT_EQ(rows.size(), 64u);
  std::set<std::string> keys;
  for (const PointRow& p : rows) EXPECT_TRUE(keys.insert(p.key).second) << p.key;
  const auto one = anatomy("sweep " + (dir / "space.yaml").string() + " --store " + (dir / "one.sqlite").string() + " --threads 2");
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_EQ(stored(dir / "mpi.sqlite"), stored(dir / "one.sqlite"));
}

TEST(SweepCli, ShardsSplitThePointsAndExportMergesThem) {
  const fs::path dir = scratch("shards");
  spit(dir / "space.yaml", kSpace64);
  for (int i = 0; i < 3; ++i) {
    const auto r = anatomy("sweep " + (dir / "space.yaml").string() + " --shard " + std::to_string(i) + "/3 --store " +
                           (dir / ("s" + std::to_string(i) + ".sqlite")).string() + " --threads 2");
    ASSERT_EQ(r.code, 0) << r.err;
  }
  // Indices 0..63 split by index % 3: 22, 21, 21 points.
  EXPECT_EQ(Store::open_existing((dir / "s0.sqlite").string()).rows().size(), 22u);
  EXPECT_EQ(Store::open_existing((dir / "s1.sqlite").string()).rows().size(), 21u);
  const auto csv = anatomy("sweep export " + (dir / "s0.sqlite").string() + " " + (dir / "s1.sqlite").string() + " " +
                           (dir / "s2.sqlite").string() + " --format csv");
  ASSERT_EQ(csv.code, 0) << csv.err;
  int lines = 0;
  for (char c : csv.out) lines += c == '\n';
  EXPECT_EQ(lines, 65);  // header + 64 points
  EXPECT_EQ(csv.out.rfind("index,status,cluster.fabric.nic_speed,parallelism.tp,training.global_batch,"
                          "dollars_per_iteration,",
                          0),
            0u)
      << csv.out.substr(0, 200);
  const auto jsonl = anatomy("sweep export " + (dir / "s1.sqlite").string() + " --format jsonl");
  ASSERT_EQ(jsonl.code, 0) << jsonl.err;
  const auto first = nlohmann::json::parse(jsonl.out.substr(0, jsonl.out.find('\n')));
  EXPECT_EQ(first["index"], 1);
  EXPECT_EQ(first["parallelism.tp"], 1);
  EXPECT_EQ(first["cluster.fabric.nic_speed"], "100Gbps");
  EXPECT_TRUE(first["iteration_s"].is_number());
}

TEST(SweepCli, BadSweepFileIsOneLineWithFileLineAndFieldAndExitTwo) {
  const fs::path dir = scratch("bad");
  spit(dir / "bad.yaml", "scenario:\n  model: llama3-8b\naxes:\n  parallelism.tpp: [1, 2]\n");
  const auto r = anatomy("sweep " + (dir / "bad.yaml").string() + " --store " + (dir / "s.sqlite").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(r.err, "anatomy: " + (dir / "bad.yaml").string() +
                       ":4: axes.parallelism.tpp: not a scenario field; did you mean parallelism.tp? (anatomy schema "
                       "lists them)\n");
  EXPECT_FALSE(fs::exists(dir / "s.sqlite")) << "nothing is written for a bad sweep file";
  const auto shard = anatomy("sweep " + (dir / "bad.yaml").string() + " --shard 3/2");
  EXPECT_EQ(shard.code, 2);
  EXPECT_NE(shard.err.find("--shard"), std::string::npos) << shard.err;
  // Another sweep into the same store is refused.
  spit(dir / "a.yaml", std::string(kSpace64));
  spit(dir / "b.yaml", std::string(kSpace64) + "  tokens: result.tokens_per_s\n");
  ASSERT_EQ(anatomy("sweep " + (dir / "a.yaml").string() + " --store " + (dir / "ab.sqlite").string() + " --limit 1").code, 0);
  const auto other = anatomy("sweep " + (dir / "b.yaml").string() + " --store " + (dir / "ab.sqlite").string());
  EXPECT_EQ(other.code, 2);
  EXPECT_NE(other.err.find("--store: "), std::string::npos) << other.err;
  EXPECT_NE(other.err.find("another sweep"), std::string::npos) << other.err;
}

}  // namespace
}  // namespace anatomy::sweep
