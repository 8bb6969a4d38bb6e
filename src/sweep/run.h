#pragma once
// Use case: run a sweep's points into its store, on a pool of threads, as
// one shard of a Slurm job array (--shard i/n), or across Open MPI ranks
// (sweep/mpi.h). Each point is simulated on its own (no state is shared
// between points), so its stored result is the same whichever thread,
// rank or shard ran it, and whatever ran beside it. Finished points (in
// the store, ok or failed) are skipped, so a killed sweep resumes where it
// stopped.
//
//   const sweep::Space space = sweep::load_space("examples/sweep-nic-plan.yaml");
//   sweep::RunOptions o;
//   o.store = "s.sqlite";
//   o.threads = 2;
//   const sweep::Summary sum = sweep::run_sweep(space, o);

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sweep/space.h"
#include "sweep/store.h"

namespace anatomy::sweep {

struct RunOptions {
  std::string store;  // the SQLite file
  int threads = 1;    // points simulated at once on this process
  int shard = 0, shards = 1;  // run only the points whose index % shards == shard
  int64_t limit = 0;  // stop after this many new points (0: all; tests and benchmarks)
};

// "i/n" (0 <= i < n); throws InputError naming --shard.
void parse_shard(const std::string& text, int& shard, int& shards);

struct Summary {
  int64_t considered = 0;  // the grid or sample
  std::map<std::string, int64_t> dropped;  // by constraint reason
  int64_t points = 0;      // kept, in all shards
  int64_t in_shard = 0;
  int64_t already = 0;     // stored before this run
  int64_t ran = 0, failed = 0;  // this run
  double wall_s = 0;
};

// The maximum --threads: more threads than this are a typo.
inline constexpr int kMaxThreads = 1024;

struct Callbacks {
  std::function<void(int64_t to_run)> on_start;      // once, before the first point
  std::function<void(const PointRow&)> on_point;     // after each stored point (serialised)
};

// Simulates one point: its row, ok with the run's JSON or failed with the
// error's one line. Throws only for what is not the point's input.
PointRow run_point(const Space& space, const Point& p);

// Threads and shards; throws InputError for bad options or store.
Summary run_sweep(const Space& space, const RunOptions& o, const Callbacks& cb = {});

// The points of `e` in shard o.shard of o.shards.
std::vector<const Point*> shard_points(const Expansion& e, const RunOptions& o);
// A summary's counts of the expansion (considered, dropped, points), the
// same for the thread and the MPI runners.
Summary summary_of(const Expansion& e);

}  // namespace anatomy::sweep
