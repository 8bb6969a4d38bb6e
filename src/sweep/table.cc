#include "sweep/table.h"

#include <cmath>
#include <set>

#include <fmt/format.h>

#include "report/csv.h"
#include "sweep/expression.h"

namespace anatomy::sweep {
namespace {

using Json = nlohmann::ordered_json;

void flatten(const Json& j, const std::string& prefix, std::vector<std::pair<std::string, Json>>& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string name = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (prefix.empty() && (it.key() == "schema" || it.key() == "schema_version")) continue;
    if (it->is_object()) flatten(*it, name, out);
    else if (it->is_primitive()) out.emplace_back(name, *it);
  }
}

Json input_value(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || !end || *end != '\0') return text;
  if (v == std::floor(v) && std::fabs(v) < 9e15) return static_cast<int64_t>(v);
  return v;
}

}  // namespace

Table make_table(const StoreInfo& info, const std::vector<PointRow>& points) {
  Table t;
  t.info = info;
  std::vector<std::vector<std::pair<std::string, Json>>> cells(points.size());
  std::vector<std::string> inputs = info.axes, metrics = info.metrics, results;
  std::set<std::string> seen_inputs(inputs.begin(), inputs.end()), seen_results;
  for (size_t i = 0; i < points.size(); ++i) {
    const PointRow& p = points[i];
    const Json key = Json::parse(p.key);
    for (auto it = key.begin(); it != key.end(); ++it)
      if (seen_inputs.insert(it.key()).second) inputs.push_back(it.key());
    if (p.ok) {
      std::vector<std::pair<std::string, Json>> flat;
      flatten(Json::parse(p.result), "", flat);
      for (const auto& [name, v] : flat)
        if (seen_results.insert(name).second) results.push_back(name);
      cells[i] = std::move(flat);
    }
  }
  t.columns = {"index", "status"};
  std::set<std::string> taken(t.columns.begin(), t.columns.end());
  auto add = [&](const std::vector<std::string>& names, std::vector<std::string>* group) {
    for (const std::string& n : names)
      if (taken.insert(n).second) {
        t.columns.push_back(n);
        if (group) group->push_back(n);
      }
  };
  add(inputs, &t.inputs);
  add(metrics, nullptr);
  add(results, &t.results);
  add({"error", "scenario_hash", "version", "wall_s"}, nullptr);
  for (size_t i = 0; i < points.size(); ++i) {
    const PointRow& p = points[i];
    Json row = Json::object();
    for (const std::string& c : t.columns) row[c] = nullptr;
    row["index"] = p.index;
    row["status"] = p.ok ? "ok" : "failed";
    const Json key = Json::parse(p.key);
    for (auto it = key.begin(); it != key.end(); ++it) row[it.key()] = input_value(it->get<std::string>());
    if (!p.metrics.empty()) {
      const Json metrics = Json::parse(p.metrics);
      for (auto it = metrics.begin(); it != metrics.end(); ++it)
        if (row.contains(it.key()) && row[it.key()].is_null()) row[it.key()] = *it;
    }
    for (const auto& [name, v] : cells[i])
      if (row[name].is_null()) row[name] = v;
    if (!p.ok) row["error"] = p.error;
    row["scenario_hash"] = p.scenario_hash.empty() ? Json() : Json(p.scenario_hash);
    row["version"] = p.version;
    row["wall_s"] = p.wall_s;
    t.rows.push_back(std::move(row));
    t.keys.push_back(p.key);
  }
  return t;
}

Table load_table(const std::vector<std::string>& stores) {
  std::vector<PointRow> all;
  std::set<std::string> seen;
  StoreInfo info;
  for (size_t i = 0; i < stores.size(); ++i) {
    const Store s = Store::open_existing(stores[i]);
    if (i == 0) info = s.info();
    else if (s.info().hash != info.hash)
      throw core::InputError({"", 0, "store"}, fmt::format("{} holds another sweep than {} (their sweep hashes differ)",
                                                           stores[i], stores[0]));
    for (const std::string& a : s.info().axes)
      if (std::find(info.axes.begin(), info.axes.end(), a) == info.axes.end()) info.axes.push_back(a);
    for (PointRow& r : s.rows())
      if (seen.insert(r.key).second) all.push_back(std::move(r));
  }
  std::stable_sort(all.begin(), all.end(), [](const PointRow& a, const PointRow& b) { return a.index < b.index; });
  Table t = make_table(info, all);
  t.stores = stores;
  return t;
}

std::string table_csv(const Table& t) {
  std::string out;
  for (size_t c = 0; c < t.columns.size(); ++c) {
    if (c) out += ",";
    out += report::csv_field(t.columns[c]);
  }
  out += "\n";
  for (const Json& row : t.rows) {
    for (size_t c = 0; c < t.columns.size(); ++c) {
      const Json& v = row[t.columns[c]];
      if (c) out += ",";
      if (v.is_null()) continue;
      out += report::csv_field(v.is_string() ? v.get<std::string>() : v.dump());
    }
    out += "\n";
  }
  return out;
}

std::string table_jsonl(const Table& t) {
  std::string out;
  for (const Json& row : t.rows) out += row.dump() + "\n";
  return out;
}

}  // namespace anatomy::sweep
