#include "scenario/yaml_fields.h"

#include "scenario/overrides.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

#include <fmt/format.h>

namespace anatomy::scenario::detail {

const char* to_string(Kind k) {
  switch (k) {
    case Kind::kInt: return "integer";
    case Kind::kDouble: return "number";
    case Kind::kBool: return "true/false";
    case Kind::kString: return "text";
    case Kind::kBytes: return "size";
    case Kind::kBandwidth: return "rate";
    case Kind::kTime: return "time";
    case Kind::kLongTime: static_assert(core::kMaxJobYears == 100); return "time (to 100 years)";
    case Kind::kEnum: return "one of";
    case Kind::kPath: return "path";
    case Kind::kSection: return "section";
  }
  return "?";
}

Check int_range(int64_t lo, int64_t hi) {
  return [lo, hi](const Value& v) -> std::string {
    if (v.integer < lo) return fmt::format("must be at least {} (got {})", lo, v.integer);
    if (v.integer > hi) return fmt::format("must be at most {} (got {})", hi, v.integer);
    return {};
  };
}

Check int_one_of(std::vector<int64_t> allowed, std::string reason) {
  return [allowed = std::move(allowed), reason = std::move(reason)](const Value& v) -> std::string {
    if (std::find(allowed.begin(), allowed.end(), v.integer) != allowed.end()) return {};
    return fmt::format("{} (got {})", reason, v.integer);
  };
}

Check number_at_least(double lo) {
  return [lo](const Value& v) -> std::string {
    if (v.number >= lo) return {};
    return fmt::format("must be at least {} (got {})", lo, v.text);
  };
}

Check number_at_least_below(double lo, double hi) {
  return [lo, hi](const Value& v) -> std::string {
    if (v.number >= lo && v.number < hi) return {};
    return fmt::format("must be at least {} and less than {} (got {})", lo, hi, v.text);
  };
}

Check number_positive() {
  return [](const Value& v) -> std::string {
    if (v.number > 0) return {};
    return fmt::format("must be greater than 0 (got {})", v.text);
  };
}

Check bytes_at_least(core::Bytes lo, bool zero_allowed) {
  return [lo, zero_allowed](const Value& v) -> std::string {
    if (v.bytes >= lo || (zero_allowed && v.bytes.count() == 0)) return {};
    return fmt::format("'{}' is under {}{}: a bucket this small means a collective per few bytes (was a unit left "
                       "out? e.g. 100MB)",
                       v.text, core::format_bytes(lo), zero_allowed ? " (0: the default)" : "");
  };
}

Check bytes_positive() {
  return [](const Value& v) -> std::string {
    if (v.bytes.count() > 0) return {};
    return fmt::format("'{}' must be greater than zero", v.text);
  };
}

Check bytes_positive_at_most(core::Bytes hi, std::string what) {
  return [hi, what](const Value& v) -> std::string {
    if (v.bytes.count() <= 0) return fmt::format("'{}' must be greater than zero", v.text);
    if (v.bytes > hi) return fmt::format("'{}' is over {}: {}", v.text, core::format_bytes(hi), what);
    return {};
  };
}

Check time_positive() {
  return [](const Value& v) { return v.time > core::SimTime::zero() ? std::string() : std::string("must be positive"); };
}

Check rate_positive() {
  return [](const Value& v) -> std::string { return v.rate.bps() > 0 ? "" : "must be greater than zero"; };
}

Check not_empty() {
  return [](const Value& v) -> std::string { return v.text.empty() ? "must not be empty" : ""; };
}

std::string show_value(bool b) { return b ? "true" : "false"; }
std::string show_value(int64_t n) { return fmt::format("{}", n); }
std::string show_value(double x) { return fmt::format("{:g}", x); }
std::string show_value(core::Bytes b) { return core::format_bytes(b); }
std::string show_value(core::Bandwidth b) { return core::format_bandwidth(b); }
std::string show_value(core::SimTime t) { return core::format_time(t); }
std::string show_value(core::JobTime t) { return core::format_time(t); }

int nearest_line(const std::map<std::string, int>& lines, std::string_view field) {
  std::string f(field);
  while (!f.empty()) {
    if (auto it = lines.find(f); it != lines.end()) return it->second;
    const auto dot = f.rfind('.');
    if (dot == std::string::npos) break;
    f.resize(dot);
  }
  return 0;
}

int Context::line_for(std::string_view field) const { return nearest_line(lines, field); }

void Context::fail(int line, const std::string& field, const std::string& message) const {
  if (const std::string set = override_for(overridden, field); !set.empty())
    throw core::InputError({set, 0, field}, message);
  // Every error in a file names a line and a field: a key the file left
  // out points at its first line, an error of the whole document at the top.
  throw core::InputError({file, line > 0 ? line : 1, field.empty() ? kTopLevel : field}, message);
}

core::InputError Context::locate(const core::InputError& e, const std::string& field, int line) const {
  core::InputError out = e.with_field(field);
  if (!e.where().file.empty()) return out;
  if (const std::string set = override_for(overridden, field); !set.empty()) return out.with_location(set, 0);
  return out.with_location(file, line);
}

std::string key_path_at(std::string_view text, int line, int column) {
  std::vector<std::pair<size_t, std::string>> open;  // (indent, key), outermost first
  int n = 0;
  size_t pos = 0;
  while (pos <= text.size() && ++n <= line) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view l = text.substr(pos, end - pos);
    pos = end + 1;
    size_t indent = l.find_first_not_of(' ');
    if (indent == std::string_view::npos || l[indent] == '#') continue;
    if (l.compare(indent, 2, "- ") == 0) indent += 2;  // a list item's first key
    size_t k = indent;
    while (k < l.size() && (std::isalnum(static_cast<unsigned char>(l[k])) || l[k] == '_')) ++k;
    if (k == indent || k >= l.size() || l[k] != ':') continue;
    if (n == line && column >= 0 && static_cast<size_t>(column) <= k) break;  // the key itself is in doubt
    while (!open.empty() && open.back().first >= indent) open.pop_back();
    open.emplace_back(indent, std::string(l.substr(indent, k - indent)));
  }
  std::string path;
  for (const auto& [_, key] : open) path += (path.empty() ? "" : ".") + key;
  return path.empty() ? kTopLevel : path;
}

int line_of(const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return m.line >= 0 ? m.line + 1 : 0;
}

std::string join(std::string_view section, std::string_view key) {
  if (section.empty()) return std::string(key);
  return std::string(section) + "." + std::string(key);
}

namespace {

// Optimal-string-alignment distance: edits, with a swap of neighbours as one.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string list(const std::vector<std::string_view>& items) {
  std::string out;
  for (auto s : items) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out;
}

const char* node_kind(const YAML::Node& n) {
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a list";
  return "nothing";
}

}  // namespace

std::string nearest_key(std::string_view key, const std::vector<std::string_view>& keys) {
  std::string_view best;
  size_t best_d = std::string_view::npos;
  for (auto k : keys) {
    const size_t d = edit_distance(key, k);
    if (d < best_d) best_d = d, best = k;
  }
  const size_t allowed = std::max<size_t>(1, std::min<size_t>(3, key.size() / 3));
  if (best_d <= allowed && best_d < key.size()) return std::string(best);
  // "bucket" for "bucket_size": a prefix of a longer key.
  if (key.size() >= 3)
    for (auto k : keys)
      if (k.substr(0, key.size()) == key) return std::string(k);
  return {};
}

YAML::Node sub(const Present& p, std::string_view key) {
  const auto it = p.find(key);
  return it == p.end() ? YAML::Node() : it->second;
}

Present check_keys(const YAML::Node& node, const std::string& path, int line,
                   const std::vector<std::string_view>& keys, Context& ctx) {
  Present present;
  if (!node.IsDefined() || node.IsNull()) return present;
  if (!node.IsMap())
    ctx.fail(line_of(node) ? line_of(node) : line, path, "expects a mapping with keys " + list(keys));
  for (const auto& kv : node) {
    const int at = line_of(kv.first);
    if (!kv.first.IsScalar()) ctx.fail(at, path, "a key must be a plain name, not " + std::string(node_kind(kv.first)));
    const std::string key = kv.first.Scalar();
    // No key is this long; echoing it would bury the error.
    if (key.size() > kMaxKeyBytes)
      ctx.fail(at, path.empty() ? "(top level)" : path,
               fmt::format("a key of {} bytes is not a valid key (keys are at most {} bytes); valid keys: {}", key.size(),
                           kMaxKeyBytes, list(keys)));
    const std::string field = join(path, key);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      const std::string near = nearest_key(key, keys);
      const std::string where = path.empty() ? "at the top level" : "in " + path;
      ctx.fail(at, field,
               fmt::format("unknown key '{}' {}{}; valid keys: {}", key, where,
                           near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near), list(keys)));
    }
    if (present.count(key)) ctx.fail(at, field, fmt::format("is given twice (first on line {})", ctx.lines.at(field)));
    ctx.lines[field] = at;
    present.emplace(key, kv.second);
  }
  return present;
}

Value read_value(const YAML::Node& node, Kind kind, const std::vector<std::string_view>& choices,
                 const std::string& path, int line, const Context& ctx) {
  if (node.IsScalar()) return parse_text(node.Scalar(), kind, choices, path, line, ctx);
  std::string what = to_string(kind);
  if (kind == Kind::kEnum) {
    what += ' ';  // appended in two steps: GCC 12 warns (-Wrestrict, falsely) on " " + string
    what += list(choices);
  }
  if (node.IsNull()) ctx.fail(line, path, fmt::format("has no value (expected {})", what));
  ctx.fail(line, path, fmt::format("expects a single value ({}), not {}", what, node_kind(node)));
}

void check_length(std::string_view text, const std::string& path, int line, const Context& ctx) {
  if (text.size() > kMaxValueBytes)
    ctx.fail(line, path, fmt::format("is {} bytes long; a value may be at most {} bytes", text.size(), kMaxValueBytes));
}

Value parse_text(std::string_view text, Kind kind, const std::vector<std::string_view>& choices,
                 const std::string& path, int line, const Context& ctx) {
  check_length(text, path, line, ctx);
  Value v;
  v.text = std::string(text);
  const char* const end = text.data() + text.size();
  try {
    switch (kind) {
      case Kind::kInt: {
        const auto r = std::from_chars(text.data(), end, v.integer);
        if (text.empty() || r.ec != std::errc() || r.ptr != end)
          ctx.fail(line, path, fmt::format("'{}' is not a whole number", text));
        break;
      }
      case Kind::kDouble: {
        const auto r = std::from_chars(text.data(), end, v.number);
        if (text.empty() || r.ec != std::errc() || r.ptr != end || !std::isfinite(v.number))
          ctx.fail(line, path, fmt::format("'{}' is not a number", text));
        break;
      }
      case Kind::kBool: {
        std::string lower(text);
        for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (lower == "true" || lower == "yes" || lower == "on") {
          v.flag = true;
        } else if (lower == "false" || lower == "no" || lower == "off") {
          v.flag = false;
        } else {
          ctx.fail(line, path, fmt::format("'{}' is not true or false", text));
        }
        break;
      }
      case Kind::kString: break;
      case Kind::kBytes: v.bytes = core::parse_bytes(text, path); break;
      case Kind::kBandwidth: v.rate = core::parse_bandwidth(text, path); break;
      case Kind::kTime: v.time = core::parse_time(text, path); break;
      case Kind::kLongTime: v.long_time = core::parse_long_time(text, path); break;
      case Kind::kEnum:
        if (std::find(choices.begin(), choices.end(), text) == choices.end())
          ctx.fail(line, path, fmt::format("'{}' is not one of: {}", text, list(choices)));
        break;
      case Kind::kPath: {
        if (text.empty()) ctx.fail(line, path, "must not be empty");
        const std::filesystem::path p{std::string(text)};
        v.text = p.is_relative() ? (ctx.folder / p).lexically_normal().string() : p.string();
        break;
      }
      case Kind::kSection: ANATOMY_CHECK(false, "a section has no scalar value: " + path);
    }
  } catch (const core::InputError& e) {
    throw ctx.locate(e, path, line);
  }
  return v;
}

}  // namespace anatomy::scenario::detail
