#include "sweep/run.h"

#include <chrono>
#include <mutex>

#include <fmt/format.h>

#include "app/run_json.h"
#include "core/workers.h"
#include "report/schema.h"

namespace anatomy::sweep {

void parse_shard(const std::string& text, int& shard, int& shards) {
  const size_t slash = text.find('/');
  try {
    size_t a = 0, b = 0;
    if (slash == std::string::npos) throw std::invalid_argument("no slash");
    shard = std::stoi(text.substr(0, slash), &a);
    shards = std::stoi(text.substr(slash + 1), &b);
    if (a != slash || b != text.size() - slash - 1) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    throw core::InputError({"", 0, "--shard"}, fmt::format("'{}' is not i/n (e.g. 0/4, as SLURM_ARRAY_TASK_ID/COUNT)", text));
  }
  if (shards < 1 || shard < 0 || shard >= shards)
    throw core::InputError({"", 0, "--shard"}, fmt::format("'{}': needs 0 <= i < n", text));
}

PointRow run_point(const Space& space, const Point& p) {
  PointRow row;
  row.index = p.index;
  row.key = p.key;
  row.version = anatomy_version();
  const auto start = std::chrono::steady_clock::now();
  try {
    const scenario::Scenario s = point_scenario(space, p);
    row.scenario_hash = scenario_hash(s);
    const nlohmann::ordered_json j = app::run_json(s);
    row.result = report::json_text(j, 2);
    row.metrics = point_metrics(space, p, j).dump();
    row.ok = true;
  } catch (const core::InputError& e) {
    row.ok = false;
    row.error = locate_in_space(space, e).what();
    row.metrics = "{}";
  }
  row.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return row;
}

std::vector<const Point*> shard_points(const Expansion& e, const RunOptions& o) {
  std::vector<const Point*> out;
  for (const Point& p : e.points)
    if (p.index % o.shards == o.shard) out.push_back(&p);
  return out;
}

Summary summary_of(const Expansion& e) {
  Summary sum;
  sum.considered = e.considered;
  sum.dropped = e.dropped;
  sum.points = static_cast<int64_t>(e.points.size());
  return sum;
}

Summary run_sweep(const Space& space, const RunOptions& o, const Callbacks& cb) {
  if (o.threads < 1 || o.threads > kMaxThreads)
    throw core::InputError({"", 0, "--threads"}, fmt::format("must be 1 to {} (got {})", kMaxThreads, o.threads));
  const auto start = std::chrono::steady_clock::now();
  const Expansion e = expand(space);
  Summary sum = summary_of(e);
  Store store = Store::open_for(o.store, space);
  const std::set<std::string> finished = store.finished_keys();
  std::vector<const Point*> todo;
  for (const Point* p : shard_points(e, o)) {
    ++sum.in_shard;
    if (finished.count(p->key)) ++sum.already;
    else todo.push_back(p);
  }
  if (o.limit > 0 && static_cast<int64_t>(todo.size()) > o.limit) todo.resize(o.limit);
  if (cb.on_start) cb.on_start(static_cast<int64_t>(todo.size()));

  std::mutex mu;  // the store and the callbacks, one point at a time
  core::for_each_index(todo.size(), o.threads, [&](size_t i) {
    const PointRow row = run_point(space, *todo[i]);
    std::lock_guard lock(mu);
    store.put(row);
    ++sum.ran;
    sum.failed += row.ok ? 0 : 1;
    if (cb.on_point) cb.on_point(row);
  });
  sum.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return sum;
}

}  // namespace anatomy::sweep
