#include "sweep/space.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "app/iteration.h"
#include "core/input_file.h"
#include "core/rng.h"

namespace anatomy::sweep {
namespace {

struct Reader {
  std::string file;

  [[noreturn]] void fail(const YAML::Node& at, const std::string& field, const std::string& why) const {
    throw core::InputError({file, line(at), field}, why);
  }
  static int line(const YAML::Node& n) { return n.IsDefined() && !n.Mark().is_null() ? n.Mark().line + 1 : 0; }

  std::string scalar(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar()) fail(n, field, "must be a single value");
    return n.Scalar();
  }
  double number(const YAML::Node& n, const std::string& field) const {
    const std::string t = scalar(n, field);
    const ExprValue v = scalar_value(t);
    if (v.is_text || t.empty() || !(std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '-' || t[0] == '.'))
      fail(n, field, fmt::format("must be a number (got '{}')", t));
    return v.number;
  }
  void keys(const YAML::Node& map, const std::string& field, const std::vector<std::string>& allowed) const {
    for (const auto& kv : map) {
      const std::string k = kv.first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
        fail(kv.first, field.empty() ? k : field + "." + k,
             fmt::format("unknown key (known: {})", fmt::join(allowed, ", ")));
    }
  }
};

std::string yaml_text(const YAML::Node& n) {
  if (n.IsScalar()) return n.Scalar();
  YAML::Emitter out;
  out << YAML::Flow << n;
  return out.c_str();
}

// A number as a scenario would be written: integers without a point.
std::string number_text(double v) {
  if (std::fabs(v) < 1e15 && v == std::floor(v)) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{}", v);
}

std::string nearest_path(const std::string& path, const std::vector<std::string>& paths) {
  // Edit distance, for "did you mean" on an axis that is not a field.
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    std::iota(row.begin(), row.end(), 0);
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t prev = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        const size_t cur = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1)});
        prev = cur;
      }
    }
    return row[b.size()];
  };
  std::string best;
  size_t best_d = 4;
  for (const std::string& p : paths)
    if (const size_t d = distance(path, p); d < best_d) best_d = d, best = p;
  return best;
}

Axis read_axis(const Reader& r, const std::string& path, const YAML::Node& n) {
  const std::string field = "axes." + path;
  Axis a;
  a.path = path;
  a.line = Reader::line(n);
  YAML::Node list;
  if (n.IsSequence()) {
    list = n;
  } else if (n.IsMap()) {
    r.keys(n, field, {"values", "from", "to", "step", "factor", "count", "scale", "unit", "integer"});
    if (n["values"]) {
      if (n.size() != 1) r.fail(n, field, "values is a list by itself: give no from, to, step or factor with it");
      list = n["values"];
      if (!list.IsSequence()) r.fail(list, field + ".values", "must be a list of values");
    } else {
      if (!n["from"] || !n["to"]) r.fail(n, field, "a range needs from and to");
      a.from = r.number(n["from"], field + ".from");
      a.to = r.number(n["to"], field + ".to");
      if (a.to < a.from) r.fail(n["to"], field + ".to", "must be at least from");
      if (n["unit"]) a.unit = r.scalar(n["unit"], field + ".unit");
      if (n["scale"]) {
        const std::string scale = r.scalar(n["scale"], field + ".scale");
        if (scale != "linear" && scale != "log") r.fail(n["scale"], field + ".scale", "must be linear or log");
        a.log = scale == "log";
        if (a.log && a.from <= 0) r.fail(n["from"], field + ".from", "a log scale needs from > 0");
      }
      a.integer = a.from == std::floor(a.from) && a.to == std::floor(a.to);
      if (n["integer"]) a.integer = n["integer"].as<bool>(false);
      const int given = (n["step"] ? 1 : 0) + (n["factor"] ? 1 : 0) + (n["count"] ? 1 : 0);
      if (given > 1) r.fail(n, field, "give one of step, factor and count");
      std::vector<double> values;
      if (n["step"]) {
        const double step = r.number(n["step"], field + ".step");
        if (step <= 0) r.fail(n["step"], field + ".step", "must be > 0");
        if ((a.to - a.from) / step > static_cast<double>(kMaxPoints))
          r.fail(n["step"], field + ".step", "gives too many values");
        for (int64_t i = 0;; ++i) {
          const double v = a.from + static_cast<double>(i) * step;
          if (v > a.to * (1 + 1e-12) + 1e-12) break;
          values.push_back(v);
        }
        a.integer = a.integer && step == std::floor(step);
      } else if (n["factor"]) {
        const double f = r.number(n["factor"], field + ".factor");
        if (f <= 1) r.fail(n["factor"], field + ".factor", "must be > 1");
        if (a.from <= 0) r.fail(n["from"], field + ".from", "a geometric range needs from > 0");
        for (double v = a.from; v <= a.to * (1 + 1e-12); v *= f) values.push_back(v);
        a.integer = a.integer && f == std::floor(f);
      } else if (n["count"]) {
        const double c = r.number(n["count"], field + ".count");
        if (c < 1 || c != std::floor(c) || c > static_cast<double>(kMaxPoints))
          r.fail(n["count"], field + ".count", "must be a whole number of values, at least 1");
        const auto count = static_cast<int64_t>(c);
        for (int64_t i = 0; i < count; ++i) {
          const double u = count == 1 ? 0 : static_cast<double>(i) / static_cast<double>(count - 1);
          values.push_back(a.log ? std::exp(std::log(a.from) + u * (std::log(a.to) - std::log(a.from)))
                                 : a.from + u * (a.to - a.from));
        }
      } else {
        // Continuous: whole numbers only when asked (integer: true), even between whole endpoints.
        a.continuous = true;
        a.integer = n["integer"] && n["integer"].as<bool>(false);
        return a;
      }
      for (double v : values) a.values.push_back(number_text(a.integer ? std::round(v) : v) + a.unit);
      a.values.erase(std::unique(a.values.begin(), a.values.end()), a.values.end());
      return a;
    }
  } else {
    a.values.push_back(yaml_text(n));  // one value: a field held fixed, shown as an axis
    return a;
  }
  for (const auto& v : list) a.values.push_back(yaml_text(v));
  if (a.values.empty()) r.fail(n, field, "has no values");
  return a;
}

// The lines under `key:` (a block mapping at the top level), dedented, and
// the line the block starts after; nullopt when the value is on the key's line.
std::optional<std::pair<std::string, int>> block_under(const std::string& text, int key_line) {
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  if (key_line < 1 || key_line > static_cast<int>(lines.size())) return std::nullopt;
  const std::string& head = lines[key_line - 1];
  const size_t colon = head.find(':');
  if (colon == std::string::npos) return std::nullopt;
  const std::string rest = head.substr(colon + 1);
  if (rest.find_first_not_of(" \t") != std::string::npos && rest[rest.find_first_not_of(" \t")] != '#')
    return std::nullopt;
  std::vector<std::string> block;
  size_t indent = std::string::npos;
  for (size_t i = key_line; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const size_t first = l.find_first_not_of(' ');
    if (first == std::string::npos || l[first] == '#') {
      block.push_back("");
      continue;
    }
    if (first == 0) break;
    indent = std::min(indent, first);
    block.push_back(l);
  }
  std::string out;
  for (const std::string& l : block) out += (l.size() > indent && indent != std::string::npos ? l.substr(indent) : "") + "\n";
  return std::make_pair(out, key_line);
}

const std::vector<std::string>& field_paths() {
  static const std::vector<std::string> paths = [] {
    std::vector<std::string> p;
    for (const scenario::FieldDoc& d : scenario::scenario_fields()) p.push_back(d.path);
    return p;
  }();
  return paths;
}

Expression read_expression(const Reader& r, const YAML::Node& n, const std::string& field) {
  return Expression::parse(r.scalar(n, field), {r.file, Reader::line(n), field});
}

}  // namespace

Space parse_space(const std::string& text, const std::string& file) {
  Reader r{file};
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw core::InputError({file, e.mark.is_null() ? 1 : e.mark.line + 1, ""}, "YAML syntax error: " + e.msg);
  }
  if (!root.IsMap()) throw core::InputError({file, 1, "axes"}, "a sweep file is a mapping with at least axes:");
  r.keys(root, "", {"name", "base", "scenario", "axes", "sample", "derived", "constraints", "metrics", "pareto"});
  Space s;
  s.file = file;
  s.name = root["name"] ? r.scalar(root["name"], "name") : std::filesystem::path(file).stem().string();

  // The base scenario.
  if (root["base"] && root["scenario"]) r.fail(root["scenario"], "scenario", "give base (a file) or scenario (inline), not both");
  if (root["base"]) {
    const std::string base = r.scalar(root["base"], "base");
    const std::filesystem::path p = std::filesystem::path(file).parent_path() / base;
    s.base_file = std::filesystem::path(base).is_absolute() ? base : p.lexically_normal().string();
    try {
      s.base_text = core::read_input_file(s.base_file, core::kMaxScenarioBytes, "scenario file");
    } catch (const core::InputError& e) {
      r.fail(root["base"], "base", e.message());
    }
    s.base_name = s.base_file;
  } else if (root["scenario"]) {
    const YAML::Node inline_base = root["scenario"];
    if (!inline_base.IsMap()) r.fail(inline_base, "scenario", "must be a scenario's mapping");
    s.base_name = file;
    const int key_line = Reader::line(inline_base);
    // The key's own line: the mark of a block mapping is its first key's.
    int scenario_key_line = 0;
    for (const auto& kv : root)
      if (kv.first.Scalar() == "scenario") scenario_key_line = Reader::line(kv.first);
    if (auto block = block_under(text, scenario_key_line); block && key_line > scenario_key_line) {
      s.base_text = block->first;
      s.base_line_offset = block->second;
    } else {
      s.base_text = yaml_text(inline_base);
      s.base_line_offset = scenario_key_line - 1;
    }
  } else {
    s.base_text = app::default_scenario_yaml();
    s.base_name = "<built-in default>";
  }

  // Axes.
  const YAML::Node axes = root["axes"];
  if (!axes || !axes.IsMap() || axes.size() == 0)
    r.fail(axes ? axes : root, "axes", "a sweep needs axes: a mapping of scenario field paths to their values");
  for (const auto& kv : axes) {
    const std::string path = kv.first.Scalar();
    const auto& paths = field_paths();
    if (std::find(paths.begin(), paths.end(), path) == paths.end()) {
      const std::string near = nearest_path(path, paths);
      r.fail(kv.first, "axes." + path,
             near.empty() ? "not a scenario field (anatomy schema lists them)"
                          : fmt::format("not a scenario field; did you mean {}? (anatomy schema lists them)", near));
    }
    for (const Axis& a : s.axes)
      if (a.path == path) r.fail(kv.first, "axes." + path, "is given twice");
    s.axes.push_back(read_axis(r, path, kv.second));
  }

  // How points are drawn.
  if (const YAML::Node n = root["sample"]) {
    std::string method;
    if (n.IsScalar()) {
      method = n.Scalar();
    } else if (n.IsMap()) {
      r.keys(n, "sample", {"method", "points", "seed"});
      method = n["method"] ? r.scalar(n["method"], "sample.method") : "random";
      if (n["points"]) {
        const double p = r.number(n["points"], "sample.points");
        if (p < 1 || p != std::floor(p) || p > static_cast<double>(kMaxPoints))
          r.fail(n["points"], "sample.points", fmt::format("must be a whole number from 1 to {}", kMaxPoints));
        s.sample.points = static_cast<int64_t>(p);
      }
      if (n["seed"]) {
        const double seed = r.number(n["seed"], "sample.seed");
        if (seed < 0 || seed != std::floor(seed)) r.fail(n["seed"], "sample.seed", "must be a whole number >= 0");
        s.sample.seed = static_cast<uint64_t>(seed);
      }
    } else {
      r.fail(n, "sample", "must be grid, or {method: random | latin_hypercube, points: N, seed: S}");
    }
    if (method == "grid") s.sample.method = Sample::kGrid;
    else if (method == "random") s.sample.method = Sample::kRandom;
    else if (method == "latin_hypercube" || method == "lhs") s.sample.method = Sample::kLatinHypercube;
    else r.fail(n, "sample.method", fmt::format("unknown method '{}' (known: grid, random, latin_hypercube)", method));
    if (s.sample.method != Sample::kGrid && s.sample.points == 0)
      r.fail(n, "sample.points", "a random or Latin-hypercube sample needs points: N");
  }
  for (const Axis& a : s.axes)
    if (a.continuous && s.sample.method == Sample::kGrid)
      throw core::InputError({file, a.line, "axes." + a.path},
                             "a continuous range (from, to) needs sample: random or latin_hypercube; "
                             "on a grid give step, factor or count");

  if (const YAML::Node n = root["derived"]) {
    if (!n.IsMap()) r.fail(n, "derived", "must be a mapping of field paths to expressions");
    for (const auto& kv : n) {
      const std::string path = kv.first.Scalar();
      const auto& paths = field_paths();
      if (std::find(paths.begin(), paths.end(), path) == paths.end())
        r.fail(kv.first, "derived." + path, "not a scenario field (anatomy schema lists them)");
      for (const Axis& a : s.axes)
        if (a.path == path) r.fail(kv.first, "derived." + path, "is an axis already");
      s.derived.push_back({path, read_expression(r, kv.second, "derived." + path)});
    }
  }
  if (const YAML::Node n = root["constraints"]) {
    if (!n.IsSequence()) r.fail(n, "constraints", "must be a list of {require: expression, reason: text}");
    for (size_t i = 0; i < n.size(); ++i) {
      const std::string field = fmt::format("constraints[{}]", i);
      const YAML::Node c = n[i];
      if (c.IsScalar()) {
        s.constraints.push_back({read_expression(r, c, field), c.Scalar()});
        continue;
      }
      if (!c.IsMap() || !c["require"]) r.fail(c, field, "must be {require: expression, reason: text}");
      r.keys(c, field, {"require", "reason"});
      Expression e = read_expression(r, c["require"], field + ".require");
      const std::string reason = c["reason"] ? r.scalar(c["reason"], field + ".reason") : e.text();
      s.constraints.push_back({std::move(e), reason});
    }
  }
  if (const YAML::Node n = root["metrics"]) {
    if (!n.IsMap()) r.fail(n, "metrics", "must be a mapping of names to expressions");
    for (const auto& kv : n) s.metrics.push_back({kv.first.Scalar(), read_expression(r, kv.second, "metrics." + kv.first.Scalar())});
  }
  if (s.metrics.empty())
    s.metrics.push_back({"gpu_hours_per_iteration",
                         Expression::parse("result.gpus * result.iteration_s / 3600", {file, 0, "metrics"})});
  s.pareto.x = s.metrics.front().name;
  s.pareto.y = "iteration_s";
  try {  // whole jobs: the share of time spent training
    const YAML::Node base = YAML::Load(s.base_text);
    if (base.IsMap() && base["job"]) s.pareto.y = "ettr", s.pareto.y_max = true;
  } catch (const YAML::Exception&) {}
  if (const YAML::Node n = root["pareto"]) {
    if (!n.IsMap()) r.fail(n, "pareto", "must be {x: name, y: name} (a metric or a result key)");
    r.keys(n, "pareto", {"x", "y", "x_goal", "y_goal"});
    if (n["x"]) s.pareto.x = r.scalar(n["x"], "pareto.x");
    if (n["y"]) s.pareto.y = r.scalar(n["y"], "pareto.y");
    for (const char* k : {"x_goal", "y_goal"})
      if (n[k]) {
        const std::string g = r.scalar(n[k], std::string("pareto.") + k);
        if (g != "min" && g != "max") r.fail(n[k], std::string("pareto.") + k, "must be min or max");
        (k[0] == 'x' ? s.pareto.x_max : s.pareto.y_max) = g == "max";
      }
    if (!n["y_goal"]) s.pareto.y_max = s.pareto.y == "ettr" || s.pareto.y == "tokens_per_s" || s.pareto.y == "mfu";
  }

  // What the stored results depend on besides the points' own values.
  std::string identity = s.base_text + "\n";
  for (const Derived& d : s.derived) identity += d.path + "=" + d.value.text() + "\n";
  for (const Metric& m : s.metrics) identity += m.name + "=" + m.value.text() + "\n";
  s.hash = fmt::format("{:016x}", core::stable_hash(identity));
  return s;
}

std::string base_label(const Space& s) {
  if (!s.base_file.empty()) return s.base_file;
  if (s.base_name == s.file) return "inline in " + s.file;
  return s.base_name;
}

Space load_space(const std::string& path) {
  return parse_space(core::read_input_file(path, core::kMaxScenarioBytes, "sweep file"), path);
}

namespace {

// The base scenario's own values, by dotted path: what it writes, then its
// defaults (input_rows), for expressions that read a field no axis sets.
struct BaseValues {
  YAML::Node root;
  std::map<std::string, std::string> resolved;

  explicit BaseValues(const Space& s) {
    try {
      root = YAML::Load(s.base_text);
    } catch (const YAML::Exception&) {}
    try {
      const scenario::Scenario base = s.base_file.empty() ? scenario::parse_scenario(s.base_text, s.base_name)
                                                          : scenario::load_scenario(s.base_file);
      for (const scenario::InputValue& v : scenario::input_rows(base))
        if (!v.derived) resolved[v.section == "scenario" ? v.field : v.section + "." + v.field] = v.value;
    } catch (const core::InputError&) {
      // A base valid only with the axes' values: its written values still count.
    }
  }
  std::optional<std::string> get(const std::string& path) const {
    YAML::Node n = YAML::Clone(root);
    bool found = n.IsMap();
    for (size_t pos = 0; found;) {
      const size_t dot = path.find('.', pos);
      const std::string key = path.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
      if (!n.IsMap() || !n[key]) {
        found = false;
        break;
      }
      n = n[key];
      if (dot == std::string::npos) break;
      pos = dot + 1;
    }
    if (found && n.IsScalar()) return n.Scalar();
    if (const auto it = resolved.find(path); it != resolved.end()) return it->second;
    return std::nullopt;
  }
};

using Values = std::vector<std::pair<std::string, std::string>>;

Lookup lookup_in(const Values& values, const BaseValues& base) {
  return [&values, &base](const std::string& name) -> std::optional<ExprValue> {
    for (const auto& [path, text] : values)
      if (path == name) return scalar_value(text);
    if (auto t = base.get(name)) return scalar_value(*t);
    return std::nullopt;
  };
}

std::string continuous_value(const Axis& a, double u) {
  double v = a.log ? std::exp(std::log(a.from) + u * (std::log(a.to) - std::log(a.from))) : a.from + u * (a.to - a.from);
  v = std::min(std::max(v, a.from), a.to);
  if (a.integer) return number_text(std::round(v)) + a.unit;
  return fmt::format("{:.6g}", v) + a.unit;
}

}  // namespace

Expansion expand(const Space& space) {
  Expansion out;
  const BaseValues base(space);
  std::vector<Values> raw;  // the axes' values of every point, by index
  const size_t n_axes = space.axes.size();
  if (space.sample.method == Sample::kGrid) {
    int64_t total = 1;
    for (const Axis& a : space.axes) {
      total *= static_cast<int64_t>(a.values.size());
      if (total > kMaxPoints)
        throw core::InputError({space.file, a.line, "axes." + a.path},
                               fmt::format("the grid passes {} points: sample it (sample: random or latin_hypercube)",
                                           kMaxPoints));
    }
    std::vector<size_t> at(n_axes, 0);
    for (int64_t i = 0; i < total; ++i) {
      Values v;
      for (size_t k = 0; k < n_axes; ++k) v.emplace_back(space.axes[k].path, space.axes[k].values[at[k]]);
      raw.push_back(std::move(v));
      for (size_t k = n_axes; k-- > 0;) {  // the last axis varies fastest
        if (++at[k] < space.axes[k].values.size()) break;
        at[k] = 0;
      }
    }
  } else {
    const int64_t n = space.sample.points;
    const core::RngStreams streams(space.sample.seed);
    // Latin hypercube: each axis's [0, 1) cut into n strata, one point per
    // stratum, the strata of different axes paired by independent shuffles.
    std::vector<std::vector<int64_t>> strata(n_axes);
    if (space.sample.method == Sample::kLatinHypercube)
      for (size_t k = 0; k < n_axes; ++k) {
        strata[k].resize(n);
        std::iota(strata[k].begin(), strata[k].end(), 0);
        core::Rng shuffle = streams.stream("sweep.lhs.strata", k);
        for (int64_t i = n - 1; i > 0; --i)
          std::swap(strata[k][i], strata[k][shuffle.uniform_index(static_cast<uint64_t>(i + 1))]);
      }
    for (int64_t i = 0; i < n; ++i) {
      core::Rng rng = streams.stream("sweep.sample", static_cast<uint64_t>(i));
      Values v;
      for (size_t k = 0; k < n_axes; ++k) {
        const Axis& a = space.axes[k];
        double u = rng.uniform01();
        if (space.sample.method == Sample::kLatinHypercube) u = (static_cast<double>(strata[k][i]) + u) / static_cast<double>(n);
        if (a.continuous) {
          v.emplace_back(a.path, continuous_value(a, u));
        } else {
          const size_t idx = std::min(a.values.size() - 1, static_cast<size_t>(u * static_cast<double>(a.values.size())));
          v.emplace_back(a.path, a.values[idx]);
        }
      }
      raw.push_back(std::move(v));
    }
  }
  out.considered = static_cast<int64_t>(raw.size());
  std::set<std::string> seen;
  for (size_t i = 0; i < raw.size(); ++i) {
    Values values = std::move(raw[i]);
    const Lookup lookup = lookup_in(values, base);
    for (const Derived& d : space.derived) {
      const ExprValue v = d.value.eval(lookup);
      values.emplace_back(d.path, v.is_text ? v.text : number_text(v.number));
    }
    std::string dropped_by;
    for (const Constraint& c : space.constraints)
      if (c.require.number(lookup) == 0) {
        dropped_by = c.reason;
        break;
      }
    if (!dropped_by.empty()) {
      ++out.dropped[dropped_by];
      continue;
    }
    Point p;
    p.index = static_cast<int64_t>(i);
    nlohmann::ordered_json key = nlohmann::ordered_json::object();
    for (const auto& [path, text] : values) {
      p.overrides.push_back({path, text});
      key[path] = text;
    }
    p.key = key.dump();
    if (!seen.insert(p.key).second) {
      ++out.dropped["the same values as an earlier sample"];
      continue;
    }
    out.points.push_back(std::move(p));
  }
  return out;
}

scenario::Scenario point_scenario(const Space& space, const Point& p) {
  try {
    return space.base_file.empty() ? scenario::parse_scenario(space.base_text, space.base_name, p.overrides)
                                   : scenario::load_scenario(space.base_file, p.overrides);
  } catch (const core::InputError& e) {
    throw locate_in_space(space, e);
  }
}

core::InputError locate_in_space(const Space& space, const core::InputError& e) {
  if (space.base_line_offset == 0 || e.where().file != space.file || e.where().line == 0) return e;
  return e.with_location(space.file, e.where().line + space.base_line_offset);
}

std::string scenario_hash(const scenario::Scenario& s) {
  std::string text;
  for (const scenario::InputValue& v : scenario::input_rows(s)) text += v.section + "." + v.field + "=" + v.value + "\n";
  return fmt::format("{:016x}", core::stable_hash(text));
}

nlohmann::ordered_json point_metrics(const Space& space, const Point& p, const nlohmann::ordered_json& result) {
  Values values;
  for (const scenario::Override& o : p.overrides) values.emplace_back(o.path, o.value);
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const Metric& m : space.metrics) {
    const Lookup lookup = [&](const std::string& name) -> std::optional<ExprValue> {
      if (name.rfind("result.", 0) == 0) {
        const nlohmann::ordered_json* j = &result;
        for (size_t pos = 7;;) {
          const size_t dot = name.find('.', pos);
          const std::string key = name.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
          if (!j->is_object() || !j->contains(key)) return std::nullopt;
          j = &(*j)[key];
          if (dot == std::string::npos) break;
          pos = dot + 1;
        }
        if (j->is_number()) return ExprValue::of(j->get<double>());
        if (j->is_boolean()) return ExprValue::of(j->get<bool>() ? 1 : 0);
        if (j->is_string()) return ExprValue::of_text(j->get<std::string>());
        return std::nullopt;
      }
      for (const auto& [path, text] : values)
        if (path == name) return scalar_value(text);
      return std::nullopt;
    };
    try {
      const double v = m.value.number(lookup);
      out[m.name] = std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json();
    } catch (const core::InputError&) {
      out[m.name] = nullptr;
    }
  }
  return out;
}

}  // namespace anatomy::sweep
