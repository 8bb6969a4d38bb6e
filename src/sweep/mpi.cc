// The Open MPI sweep (sweep/mpi.h), compiled when CMake finds MPI.
#include "sweep/mpi.h"

#ifdef ANATOMY_HAVE_MPI

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace anatomy::sweep {
namespace {

// Worker -> rank 0: a request for work, carrying the row of the point it
// just finished (empty on the first). Rank 0 -> worker: the position of the
// next point in the expansion, or -1: no more.
constexpr int kTagRequest = 1;
constexpr int kTagWork = 2;

std::string row_message(const PointRow& r) {
  return nlohmann::json{{"index", r.index},   {"key", r.key},         {"ok", r.ok},
                        {"error", r.error},   {"result", r.result},   {"metrics", r.metrics},
                        {"hash", r.scenario_hash}, {"version", r.version}, {"wall_s", r.wall_s}}
      .dump();
}

PointRow message_row(const std::string& text) {
  const auto j = nlohmann::json::parse(text);
  PointRow r;
  r.index = j["index"].get<int64_t>();
  r.key = j["key"].get<std::string>();
  r.ok = j["ok"].get<bool>();
  r.error = j["error"].get<std::string>();
  r.result = j["result"].get<std::string>();
  r.metrics = j["metrics"].get<std::string>();
  r.scenario_hash = j["hash"].get<std::string>();
  r.version = j["version"].get<std::string>();
  r.wall_s = j["wall_s"].get<double>();
  return r;
}

// A string from rank 0 to every rank.
std::string broadcast(std::string text) {
  int64_t n = static_cast<int64_t>(text.size());
  MPI_Bcast(&n, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  text.resize(static_cast<size_t>(n));
  MPI_Bcast(text.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD);
  return text;
}

}  // namespace

bool mpi_compiled() { return true; }

MpiSession::MpiSession() {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

Summary run_sweep_mpi(const MpiSession& mpi, const Space& space, const RunOptions& o, const Callbacks& cb) {
  if (o.threads < 0 || o.threads > kMaxThreads)
    throw core::InputError({"", 0, "--threads"}, fmt::format("must be 0 to {} under mpirun (got {})", kMaxThreads, o.threads));
  const auto start = std::chrono::steady_clock::now();
  const Expansion e = expand(space);
  Summary sum = summary_of(e);
  const std::vector<const Point*> mine = shard_points(e, o);
  sum.in_shard = static_cast<int64_t>(mine.size());

  // Rank 0 opens the store; every rank learns whether that worked, and
  // whether they all read the same space, before any point runs.
  std::optional<Store> store;
  std::string problem;
  if (mpi.rank() == 0) try {
      store.emplace(Store::open_for(o.store, space));
    } catch (const core::InputError& err) {
      problem = err.what();
    }
  problem = broadcast(problem);
  if (!problem.empty()) throw core::InputError({"", 0, "--store"}, problem.substr(problem.find(": ") + 2));
  const std::string identity = broadcast(fmt::format("{} {}", space.hash, e.points.size()));
  if (identity != fmt::format("{} {}", space.hash, e.points.size()))
    throw core::InputError({"", 0, "mpirun"}, "the ranks read different sweep files (their hashes differ)");

  std::vector<int64_t> position;  // of each point of `mine` in e.points
  for (const Point* p : mine) position.push_back(p - e.points.data());

  if (mpi.rank() != 0) {
    // A worker: one point at a time, asked for as the last one is sent.
    std::string payload;
    for (;;) {
      MPI_Send(payload.data(), static_cast<int>(payload.size()), MPI_CHAR, 0, kTagRequest, MPI_COMM_WORLD);
      int64_t at = -1;
      MPI_Recv(&at, 1, MPI_INT64_T, 0, kTagWork, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (at < 0) break;
      payload = row_message(run_point(space, e.points[static_cast<size_t>(at)]));
    }
    sum.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return sum;
  }

  // Rank 0: the queue, the store, and points of its own.
  const std::set<std::string> finished = store->finished_keys();
  std::vector<int64_t> todo;
  for (size_t i = 0; i < mine.size(); ++i) {
    if (finished.count(mine[i]->key)) ++sum.already;
    else todo.push_back(position[i]);
  }
  if (o.limit > 0 && static_cast<int64_t>(todo.size()) > o.limit) todo.resize(o.limit);
  if (cb.on_start) cb.on_start(static_cast<int64_t>(todo.size()));
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::exception_ptr failure;
  auto store_row = [&](const PointRow& row) {
    std::lock_guard lock(mu);
    store->put(row);
    ++sum.ran;
    sum.failed += row.ok ? 0 : 1;
    if (cb.on_point) cb.on_point(row);
  };
  auto local = [&] {
    for (;;) {
      const size_t i = next.fetch_add(1);
      if (i >= todo.size()) return;
      try {
        store_row(run_point(space, e.points[static_cast<size_t>(todo[i])]));
      } catch (...) {
        std::lock_guard lock(mu);
        if (!failure) failure = std::current_exception();
        next = todo.size();
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < o.threads; ++t) pool.emplace_back(local);
  int stopped = 0;
  std::string buffer;
  while (stopped < mpi.size() - 1) {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kTagRequest, MPI_COMM_WORLD, &flag, &status);
    if (!flag) {  // poll gently: a blocking receive would spin a core
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    int count = 0;
    MPI_Get_count(&status, MPI_CHAR, &count);
    buffer.resize(static_cast<size_t>(count));
    MPI_Recv(buffer.data(), count, MPI_CHAR, status.MPI_SOURCE, kTagRequest, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!buffer.empty()) store_row(message_row(buffer));
    const size_t i = next.fetch_add(1);
    const int64_t at = i < todo.size() ? todo[i] : -1;
    MPI_Send(&at, 1, MPI_INT64_T, status.MPI_SOURCE, kTagWork, MPI_COMM_WORLD);
    if (at < 0) ++stopped;
  }
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  sum.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return sum;
}

}  // namespace anatomy::sweep

#endif
