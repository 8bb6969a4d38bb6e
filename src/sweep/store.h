#pragma once
// The sweep store: one SQLite file, one row per finished point, written so
// that a SIGKILL at any moment loses no finished point and corrupts
// nothing, and a re-run of the same sweep skips what is there.
//
//   points(id, point_key UNIQUE, idx, status 'ok' | 'failed', error,
//          result, metrics, scenario_hash, version, wall_s, finished_at,
//          and one text column per axis and derived field, named by its path)
//   meta(key PRIMARY KEY, value): the sweep's name, its hash, its axes,
//          metrics and Pareto choice, the sweep file's text
//
// `result` is exactly what `anatomy run --format json` prints for the
// point (app/run_json.h), `error` the one-line InputError of a point that
// failed (a plan that does not fit). Each point is written by one INSERT in
// its own transaction, ON CONFLICT(point_key) DO NOTHING, so no point is
// ever stored twice, whichever process or rank finishes it. The journal is
// WAL with synchronous=NORMAL: a committed point survives the process being
// killed (only a power loss may drop the last commits, never corrupt the
// file), readers (export, report) never block the writer, and processes
// sharing a store (Slurm shards on one host) wait for each other's commits
// (busy timeout 30 s). A store holds one sweep: opening it for a sweep of
// another base scenario, derived fields or metrics (Space::hash) is an
// error; adding axis values or changing constraints keeps the same store.
//
//   sweep::Store store = sweep::Store::open_for("s.sqlite", space);
//   if (!store.finished_keys().count(p.key)) store.put(row);

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sweep/space.h"

struct sqlite3;

namespace anatomy::sweep {

// The version anatomy stores beside each point.
const char* anatomy_version();

struct PointRow {
  int64_t index = 0;
  std::string key;  // the point's values as one-line JSON (Point::key)
  bool ok = false;
  std::string error;
  std::string result;   // JSON text
  std::string metrics;  // JSON object text
  std::string scenario_hash;
  std::string version;
  double wall_s = 0;
  std::string finished_at;  // UTC, ISO 8601
};

// What the store says about the sweep that filled it.
struct StoreInfo {
  std::string name, hash, base;
  std::vector<std::string> axes;     // axis and derived paths, in order
  std::vector<std::string> metrics;  // metric names
  Pareto pareto;
};

class Store {
 public:
  // Creates the store or opens it for `space`; throws InputError naming
  // --store when it cannot, or when it holds another sweep.
  static Store open_for(const std::string& path, const Space& space);
  // An existing store, read only (export, report); throws InputError.
  static Store open_existing(const std::string& path);

  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  std::set<std::string> finished_keys() const;
  // Stores a finished point; false when it was already there.
  bool put(const PointRow& row);
  // Every stored point, by index (then key).
  std::vector<PointRow> rows() const;
  StoreInfo info() const;
  const std::string& path() const { return path_; }

 private:
  Store(std::string path, sqlite3* db);
  std::string path_;
  sqlite3* db_ = nullptr;
  std::vector<std::string> axis_columns_;
};

}  // namespace anatomy::sweep
