#pragma once
// Internal to scenario/: a YAML mapping read against a table of fields.
//
// Every scenario key is declared once, as a Field: its key, kind, default,
// validator, help text, the setter that stores the typed value, and how
// the value reads back in a report (show).
// read_section() first checks the mapping's keys against the table (an
// unknown key is an error that names the nearest valid key and lists the
// section's keys; a repeated key is an error), then walks the table in
// order: a present field is parsed (sizes, rates and times through core's
// parsers), checked and set; an absent one takes its default. Every error is
// a core::InputError carrying the file, the 1-based line of the key and the
// dotted field path, and the line of every key read is kept (Context::lines)
// so errors found later — by validate_plan, say — can point at it too.
//
//   const std::vector<Field<ParallelPlan>> kFields = {
//       {"tp", Kind::kInt, by_default("1"), int_range(1, 65536), "tensor-parallel size",
//        [](ParallelPlan& p, const Value& v) { p.tp = v.as_int(); }, shows(&ParallelPlan::tp)},
//   };
//   read_section(node, "parallelism", line, kFields, plan, ctx);

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/error.h"
#include "core/time.h"
#include "core/units.h"

namespace anatomy::scenario::detail {

// The longest value (a name, a path, a number as written) and the longest
// key a scenario may hold: past them the text is not a scenario's, and an
// error echoing it would bury the message.
inline constexpr size_t kMaxValueBytes = 4096;  // PATH_MAX on Linux
inline constexpr size_t kMaxKeyBytes = 128;     // every declared key is under 32

enum class Kind { kInt, kDouble, kBool, kString, kBytes, kBandwidth, kTime, kLongTime, kEnum, kPath, kSection };
const char* to_string(Kind k);

// How an absent key is filled.
struct Default {
  enum How { kValue, kRequired, kDerived };
  How how = kValue;
  // kValue: the default as it would be written in YAML ("1", "80MB");
  // kDerived: how the value is worked out, for help text ("tp x pp x cp ...").
  std::string_view text;
};
constexpr Default by_default(std::string_view yaml) { return {Default::kValue, yaml}; }
constexpr Default required() { return {Default::kRequired, {}}; }
constexpr Default derived(std::string_view how) { return {Default::kDerived, how}; }

// A parsed value; the member matching the field's kind is set.
struct Value {
  std::string text;  // as written (kString, kEnum; kPath resolved)
  int64_t integer = 0;
  double number = 0;
  bool flag = false;
  core::Bytes bytes;
  core::Bandwidth rate;
  core::SimTime time;
  core::JobTime long_time;  // kLongTime: a job's wall clock, to core::kMaxJobYears
  int as_int() const { return static_cast<int>(integer); }
};

// A validator returns "" when the value is fine, else the reason
// ("must be at least 1 (got 0)"). An empty Check accepts everything.
using Check = std::function<std::string(const Value&)>;
Check int_range(int64_t lo, int64_t hi);
Check int_one_of(std::vector<int64_t> allowed, std::string reason);
Check number_at_least(double lo);
Check number_positive();
// At least `lo` and less than `hi`.
Check number_at_least_below(double lo, double hi);
Check bytes_positive();
// Greater than zero and at most `hi`; `what` says why the bound (a value
// past it is no real input and would overflow the arithmetic on it).
Check bytes_positive_at_most(core::Bytes hi, std::string what);
Check time_positive();
Check rate_positive();
// At least `lo` (or 0 when zero_allowed): sizes whose unit was left out
// ("100" bytes for 100MB) are refused instead of simulated for days.
Check bytes_at_least(core::Bytes lo, bool zero_allowed);
Check not_empty();

// How a field's value reads in a report: as it would be written in YAML.
// "" means the field was left to be derived (a zero nic_speed: the
// system's), and the report shows the default's text instead.
template <typename T>
using Show = std::function<std::string(const T&)>;

template <typename T>
struct Field {
  std::string_view key;
  Kind kind;
  Default def;
  Check check;
  std::string_view help;
  std::function<void(T&, const Value&)> set;  // may throw InputError; it is given file and line
  // The value as the key would be written, so that reading it back gives
  // the same value (report inputs tables; `list --format yaml` prints the
  // hardware presets with it); empty: not shown (a preset name, a section).
  Show<T> show;
  std::vector<std::string_view> choices;  // kEnum (left out elsewhere: empty)
};

// A value as it would be written: 7, 0.5, true, 80MB, 800Gbps, 30min, text.
std::string show_value(bool b);
std::string show_value(int64_t n);
inline std::string show_value(int n) { return show_value(int64_t{n}); }
inline std::string show_value(uint64_t n) { return show_value(static_cast<int64_t>(n)); }
std::string show_value(double x);
std::string show_value(core::Bytes b);
std::string show_value(core::Bandwidth b);
std::string show_value(core::SimTime t);
std::string show_value(core::JobTime t);
inline std::string show_value(const std::string& s) { return s; }

// The member as show_value writes it.
template <typename T, typename M>
Show<T> shows(M T::*member) {
  return [member](const T& t) { return show_value(t.*member); };
}
// The same, but "" (derived) while the member holds its zero value, which
// the field's default text explains ("0: the system preset's NIC speed").
template <typename T, typename M>
Show<T> shows_unless_zero(M T::*member) {
  return [member](const T& t) { return t.*member == M{} ? std::string() : show_value(t.*member); };
}

// Where the text came from, and the line of every key read so far.
struct Context {
  std::string file;
  std::filesystem::path folder;          // relative paths in the file are relative to this
  std::map<std::string, int> lines;      // dotted field path -> 1-based line of its key
  // Paths a command line set (overrides.h), with the text that set them:
  // their errors name that text instead of a line of the file.
  std::map<std::string, std::string> overridden;

  // The line of `field`, or of the nearest enclosing section that was
  // written ("parallelism.dp" -> "parallelism"); 0 when none was.
  int line_for(std::string_view field) const;
  [[noreturn]] void fail(int line, const std::string& field, const std::string& message) const;
  // `e` (from a parser that knew neither file nor field) attributed to `field` at `line`.
  core::InputError locate(const core::InputError& e, const std::string& field, int line) const;
};

// The line of `field` in `lines`, or of its nearest enclosing section
// ("parallelism.dp" -> "parallelism"); 0 when none is there.
int nearest_line(const std::map<std::string, int>& lines, std::string_view field);

// What an error names when no key applies: the document itself.
inline constexpr const char* kTopLevel = "(top level)";

// The dotted path of the block-style key open at 1-based `line`, 0-based
// `column` of `text` (the last "key:" above it at each indentation), for
// errors yaml-cpp raises before any node exists (syntax errors); kTopLevel
// when none is. An error at or before a key's colon (that key cannot be
// read) is about what came before it, so that key does not count.
std::string key_path_at(std::string_view text, int line, int column);

// 1-based line of a node; 0 when yaml-cpp has no mark for it.
int line_of(const YAML::Node& n);
std::string join(std::string_view section, std::string_view key);

// The keys present in a mapping, with their value nodes.
using Present = std::map<std::string, YAML::Node, std::less<>>;

// Checks that `node` (the value of section `path`, whose key is on `line`)
// is a mapping whose keys are all in `keys`, each once, and records their
// lines. An undefined or null node is an empty section.
// The value node of `key` in `p`; an undefined node when the key is absent.
YAML::Node sub(const Present& p, std::string_view key);

Present check_keys(const YAML::Node& node, const std::string& path, int line,
                   const std::vector<std::string_view>& keys, Context& ctx);

// Parses a scalar node as `kind` (units through core's parsers), or the
// default text of a field; `line` is where errors point.
Value read_value(const YAML::Node& node, Kind kind, const std::vector<std::string_view>& choices,
                 const std::string& path, int line, const Context& ctx);
Value parse_text(std::string_view text, Kind kind, const std::vector<std::string_view>& choices,
                 const std::string& path, int line, const Context& ctx);
// Fails naming `path` when `text` is longer than kMaxValueBytes (every
// value parse_text reads; a preset's name, before it is looked up).
void check_length(std::string_view text, const std::string& path, int line, const Context& ctx);

// The valid key nearest to `key` when it looks like a typo of it, else "".
std::string nearest_key(std::string_view key, const std::vector<std::string_view>& keys);

template <typename T>
std::vector<std::string_view> keys_of(const std::vector<Field<T>>& fields) {
  std::vector<std::string_view> keys;
  for (const auto& f : fields) keys.push_back(f.key);
  return keys;
}

// Reads section `path` into `target` (see the top of this file). With
// `apply_defaults` false, absent keys leave `target` as it is and nothing is
// required (overrides on top of a preset). Returns the keys present;
// sub-sections (kSection) are returned unread, for the caller.
template <typename T>
Present read_section(const YAML::Node& node, const std::string& path, int line,
                     const std::vector<Field<T>>& fields, T& target, Context& ctx,
                     bool apply_defaults = true) {
  Present present = check_keys(node, path, line, keys_of(fields), ctx);
  for (const auto& f : fields) {
    const std::string field = join(path, f.key);
    const auto it = present.find(f.key);
    const bool given = it != present.end();
    if (!given && (!apply_defaults || f.def.how == Default::kDerived)) continue;
    if (!given && f.def.how == Default::kRequired) ctx.fail(line, field, "is required (" + std::string(f.help) + ")");
    if (f.kind == Kind::kSection) continue;
    const int at = given ? ctx.lines.at(field) : line;
    const Value v = given ? read_value(it->second, f.kind, f.choices, field, at, ctx)
                          : parse_text(f.def.text, f.kind, f.choices, field, at, ctx);
    if (f.check) {
      const std::string why = f.check(v);
      if (!why.empty()) ctx.fail(at, field, why);
    }
    try {
      f.set(target, v);
    } catch (const core::InputError& e) {
      throw ctx.locate(e, field, at);
    }
  }
  return present;
}

// A YAML list of sections at `path` ("edge.sensor.streams"), each read with
// `fields`; an absent or null list is empty.
template <typename Row>
std::vector<Row> read_list(const YAML::Node& list, const std::string& path, const std::vector<Field<Row>>& fields,
                           Context& ctx) {
  std::vector<Row> out;
  if (!list.IsDefined() || list.IsNull()) return out;
  if (!list.IsSequence()) ctx.fail(ctx.line_for(path), path, "expected a list");
  for (size_t i = 0; i < list.size(); ++i) {
    Row r;
    read_section(list[i], path + "[" + std::to_string(i) + "]", line_of(list[i]), fields, r, ctx);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace anatomy::scenario::detail
