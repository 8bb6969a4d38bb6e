#include "sweep/store.h"

#include <sqlite3.h>

#include <ctime>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"

#ifndef ANATOMY_VERSION
#define ANATOMY_VERSION "unknown"
#endif

namespace anatomy::sweep {
namespace {

constexpr int kStoreSchema = 1;

[[noreturn]] void fail(const std::string& path, const std::string& why) {
  throw core::InputError({"", 0, "--store"}, fmt::format("{}: {}", path, why));
}

// One prepared statement, finalized on scope exit.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql, const std::string& path) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st_, nullptr) != SQLITE_OK) fail(path, sqlite3_errmsg(db));
  }
  ~Statement() { sqlite3_finalize(st_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  void text(int i, const std::string& v) { sqlite3_bind_text(st_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT); }
  void integer(int i, int64_t v) { sqlite3_bind_int64(st_, i, v); }
  void real(int i, double v) { sqlite3_bind_double(st_, i, v); }
  void null(int i) { sqlite3_bind_null(st_, i); }
  bool step() {  // true: a row
    const int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) throw core::InputError({"", 0, "--store"}, sqlite3_errmsg(db_));
    return false;
  }
  std::string column_text(int i) const {
    const unsigned char* t = sqlite3_column_text(st_, i);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  int64_t column_int(int i) const { return sqlite3_column_int64(st_, i); }
  double column_real(int i) const { return sqlite3_column_double(st_, i); }

 private:
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

void exec(sqlite3* db, const std::string& sql, const std::string& path) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string why = err ? err : "error";
    sqlite3_free(err);
    fail(path, why);
  }
}

std::string quoted(const std::string& name) {
  std::string q = "\"";
  for (char c : name) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string meta_value(sqlite3* db, const std::string& key, const std::string& path) {
  Statement st(db, "SELECT value FROM meta WHERE key = ?", path);
  st.text(1, key);
  return st.step() ? st.column_text(0) : "";
}

void set_meta(sqlite3* db, const std::string& key, const std::string& value, const std::string& path) {
  Statement st(db, "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", path);
  st.text(1, key);
  st.text(2, value);
  st.step();
}

sqlite3* open_db(const std::string& path, int flags) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    const std::string why = db ? sqlite3_errmsg(db) : "cannot open";
    sqlite3_close(db);
    fail(path, why);
  }
  sqlite3_busy_timeout(db, 30'000);
  return db;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

const char* anatomy_version() { return ANATOMY_VERSION; }

Store::Store(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}
Store::Store(Store&& o) noexcept : path_(std::move(o.path_)), db_(o.db_), axis_columns_(std::move(o.axis_columns_)) {
  o.db_ = nullptr;
}
Store& Store::operator=(Store&& o) noexcept {
  std::swap(path_, o.path_);
  std::swap(db_, o.db_);
  std::swap(axis_columns_, o.axis_columns_);
  return *this;
}
Store::~Store() { sqlite3_close(db_); }

Store Store::open_for(const std::string& path, const Space& space) {
  if (std::filesystem::is_directory(path)) fail(path, "is a folder, not a store file");
  Store s(path, open_db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX));
  exec(s.db_, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", path);
  exec(s.db_,
       "BEGIN IMMEDIATE;"
       "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
       "CREATE TABLE IF NOT EXISTS points("
       " id INTEGER PRIMARY KEY,"
       " point_key TEXT NOT NULL UNIQUE,"
       " idx INTEGER NOT NULL,"
       " status TEXT NOT NULL CHECK(status IN ('ok', 'failed')),"
       " error TEXT,"
       " result TEXT,"
       " metrics TEXT NOT NULL,"
       " scenario_hash TEXT,"
       " version TEXT NOT NULL,"
       " wall_s REAL NOT NULL,"
       " finished_at TEXT NOT NULL);",
       path);
  try {
    const std::string schema = meta_value(s.db_, "store_schema", path);
    const std::string hash = meta_value(s.db_, "sweep_hash", path);
    if (!schema.empty() && schema != std::to_string(kStoreSchema))
      fail(path, fmt::format("a store of schema {} (this anatomy writes {})", schema, kStoreSchema));
    if (!hash.empty() && hash != space.hash)
      fail(path, fmt::format("holds the points of another sweep ('{}': another base scenario, derived fields or "
                             "metrics); give a new --store",
                             meta_value(s.db_, "name", path)));
    nlohmann::ordered_json axes = nlohmann::ordered_json::array(), metrics = nlohmann::ordered_json::array();
    for (const Axis& a : space.axes) axes.push_back(a.path);
    for (const Derived& d : space.derived) axes.push_back(d.path);
    for (const Metric& m : space.metrics) metrics.push_back(m.name);
    // Columns: one per input path, added when a sweep first names it.
    std::set<std::string> have;
    {
      Statement st(s.db_, "PRAGMA table_info(points)", path);
      while (st.step()) have.insert(st.column_text(1));
    }
    for (const auto& a : axes) {
      const std::string name = a.get<std::string>();
      if (!have.count(name)) exec(s.db_, "ALTER TABLE points ADD COLUMN " + quoted(name) + " TEXT", path);
      s.axis_columns_.push_back(name);
    }
    set_meta(s.db_, "store_schema", std::to_string(kStoreSchema), path);
    set_meta(s.db_, "sweep_hash", space.hash, path);
    set_meta(s.db_, "name", space.name, path);
    set_meta(s.db_, "base", base_label(space), path);
    // The axes of every sweep into this store, in order of first appearance.
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    if (const std::string old = meta_value(s.db_, "axes", path); !old.empty()) all = nlohmann::ordered_json::parse(old);
    for (const auto& a : axes)
      if (std::find(all.begin(), all.end(), a) == all.end()) all.push_back(a);
    set_meta(s.db_, "axes", all.dump(), path);
    set_meta(s.db_, "metrics", metrics.dump(), path);
    set_meta(s.db_, "pareto",
             nlohmann::ordered_json{{"x", space.pareto.x}, {"y", space.pareto.y},
                                    {"x_goal", space.pareto.x_max ? "max" : "min"},
                                    {"y_goal", space.pareto.y_max ? "max" : "min"}}
                 .dump(),
             path);
    exec(s.db_, "COMMIT;", path);
  } catch (...) {
    sqlite3_exec(s.db_, "ROLLBACK;", nullptr, nullptr, nullptr);
    throw;
  }
  return s;
}

Store Store::open_existing(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) fail(path, "no such store");
  Store s(path, open_db(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX));
  char* err = nullptr;
  if (sqlite3_exec(s.db_, "SELECT 1 FROM points LIMIT 1; SELECT 1 FROM meta LIMIT 1;", nullptr, nullptr, &err) != SQLITE_OK) {
    sqlite3_free(err);
    fail(path, "not an anatomy sweep store (no points and meta tables)");
  }
  return s;
}

std::set<std::string> Store::finished_keys() const {
  std::set<std::string> keys;
  Statement st(db_, "SELECT point_key FROM points", path_);
  while (st.step()) keys.insert(st.column_text(0));
  return keys;
}

bool Store::put(const PointRow& r) {
  std::string cols = "point_key, idx, status, error, result, metrics, scenario_hash, version, wall_s, finished_at";
  std::string marks = "?, ?, ?, ?, ?, ?, ?, ?, ?, ?";
  for (const std::string& c : axis_columns_) {
    cols += ", " + quoted(c);
    marks += ", ?";
  }
  Statement st(db_, fmt::format("INSERT INTO points({}) VALUES({}) ON CONFLICT(point_key) DO NOTHING", cols, marks), path_);
  st.text(1, r.key);
  st.integer(2, r.index);
  st.text(3, r.ok ? "ok" : "failed");
  if (r.ok) st.null(4);
  else st.text(4, r.error);
  if (r.ok) st.text(5, r.result);
  else st.null(5);
  st.text(6, r.metrics.empty() ? "{}" : r.metrics);
  if (r.scenario_hash.empty()) st.null(7);
  else st.text(7, r.scenario_hash);
  st.text(8, r.version.empty() ? anatomy_version() : r.version);
  st.real(9, r.wall_s);
  st.text(10, r.finished_at.empty() ? utc_now() : r.finished_at);
  const nlohmann::ordered_json values = nlohmann::ordered_json::parse(r.key);
  for (size_t i = 0; i < axis_columns_.size(); ++i) {
    const int at = static_cast<int>(11 + i);
    if (values.contains(axis_columns_[i])) st.text(at, values[axis_columns_[i]].get<std::string>());
    else st.null(at);
  }
  st.step();
  return sqlite3_changes(db_) > 0;
}

std::vector<PointRow> Store::rows() const {
  std::vector<PointRow> out;
  Statement st(db_,
               "SELECT idx, point_key, status, error, result, metrics, scenario_hash, version, wall_s, finished_at "
               "FROM points ORDER BY idx, point_key",
               path_);
  while (st.step()) {
    PointRow r;
    r.index = st.column_int(0);
    r.key = st.column_text(1);
    r.ok = st.column_text(2) == "ok";
    r.error = st.column_text(3);
    r.result = st.column_text(4);
    r.metrics = st.column_text(5);
    r.scenario_hash = st.column_text(6);
    r.version = st.column_text(7);
    r.wall_s = st.column_real(8);
    r.finished_at = st.column_text(9);
    out.push_back(std::move(r));
  }
  return out;
}

StoreInfo Store::info() const {
  StoreInfo i;
  i.name = meta_value(db_, "name", path_);
  i.hash = meta_value(db_, "sweep_hash", path_);
  i.base = meta_value(db_, "base", path_);
  try {
    for (const auto& a : nlohmann::json::parse(meta_value(db_, "axes", path_))) i.axes.push_back(a.get<std::string>());
    for (const auto& m : nlohmann::json::parse(meta_value(db_, "metrics", path_))) i.metrics.push_back(m.get<std::string>());
    const auto p = nlohmann::json::parse(meta_value(db_, "pareto", path_));
    i.pareto.x = p.value("x", "");
    i.pareto.y = p.value("y", "iteration_s");
    i.pareto.x_max = p.value("x_goal", "min") == "max";
    i.pareto.y_max = p.value("y_goal", "min") == "max";
  } catch (const nlohmann::json::exception&) {
    fail(path_, "its meta table is not an anatomy sweep's");
  }
  return i;
}

}  // namespace anatomy::sweep
