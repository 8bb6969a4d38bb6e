#pragma once
// A sweep: a base scenario and the points of a design space around it,
// read from a sweep file. Every point is the base with a few fields set at
// their dotted paths, through the same overrides as `--set` (so any field
// `anatomy schema` lists can be an axis, and an error in a point names the
// override that caused it).
//
//   name: NIC speed x plan
//   base: ../validation/a1-1_7b.yaml     # a scenario file, relative to this one;
//   # scenario: {...}                    # or the scenario inline; neither: the built-in default
//   axes:                                # in order; the first varies slowest
//     cluster.fabric.nic_speed: [200Gbps, 400Gbps, 800Gbps]      # values (any YAML)
//     parallelism.tp: {from: 1, to: 8, factor: 2}                # 1 2 4 8
//     training.global_batch: {from: 256, to: 1024, step: 256}    # 256 512 768 1024
//     cluster.fabric.link_speed: {from: 100, to: 800, count: 4, unit: Gbps}
//     job.cost.dollars_per_gpu_hour: {from: 1.5, to: 4}          # continuous: random / LHS only
//   sample: grid                         # or {method: random | latin_hypercube, points: 200, seed: 7}
//   derived:                             # fields computed from each point, in order
//     parallelism.dp: cluster.gpus / (parallelism.tp * parallelism.pp)
//   constraints:                         # a point is kept when every one holds
//     - require: parallelism.tp * parallelism.pp <= 64
//       reason: model parallel group larger than a rack
//   metrics:                             # figures computed from each result (result.<key>)
//     cost_per_iteration: result.gpus * result.iteration_s / 3600 * 2.5
//   pareto: {x: cost_per_iteration, y: iteration_s}   # both minimised; ettr is maximised
//   # without metrics: gpu_hours_per_iteration (result.gpus * result.iteration_s / 3600)
//
// Expressions are sweep/expression.h's; a name is an axis, a derived
// field, or a value the base scenario writes at that path. A point's index
// is its place in the full grid (or sample), so dropping points by a
// constraint never renumbers the others; its key, the JSON object of the
// values it sets, is what the store keeps it under. Errors are InputErrors
// at the sweep file's line: `sweep.yaml:7: axes.parallelism.tp: ...`.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario/overrides.h"
#include "scenario/scenario.h"
#include "sweep/expression.h"

namespace anatomy::sweep {

struct Axis {
  std::string path;                 // "cluster.fabric.nic_speed"
  std::vector<std::string> values;  // YAML text of each value; empty for a continuous range
  // A continuous range (random and LHS samples only): from .. to, on a log
  // scale when `log`; whole numbers only when `integer: true`; `unit` appended.
  bool continuous = false;
  double from = 0, to = 0;
  bool log = false, integer = false;
  std::string unit;
  int line = 0;
};

struct Constraint {
  Expression require;
  std::string reason;
};

struct Derived {
  std::string path;
  Expression value;
};

struct Metric {
  std::string name;
  Expression value;
};

struct Sample {
  enum Method { kGrid, kRandom, kLatinHypercube } method = kGrid;
  int64_t points = 0;  // random / LHS
  uint64_t seed = 1;
};

struct Pareto {
  std::string x, y;  // metric names or result keys ("iteration_s")
  bool x_max = false, y_max = false;  // maximise instead of minimise
};

struct Point {
  int64_t index = 0;
  std::vector<scenario::Override> overrides;  // axes then derived fields, in order
  std::string key;                            // {"path": "value", ...} in that order, one line
};

struct Space {
  std::string file;  // the sweep file ("" for text given inline)
  std::string name;
  // The base: a scenario file, or the scenario's YAML text (inline or the
  // built-in default) with the name it has in errors.
  std::string base_file;
  std::string base_text, base_name;
  int base_line_offset = 0;  // inline: the sweep file's line of the scenario's first line, minus one
  std::vector<Axis> axes;
  Sample sample;
  std::vector<Derived> derived;
  std::vector<Constraint> constraints;
  std::vector<Metric> metrics;
  Pareto pareto;
  // A stable hash of the whole definition (the base's text included), kept
  // by the store so a store is never filled by two different sweeps.
  std::string hash;
};

// The base as a report names it: its file, "inline in <sweep file>", or
// "<built-in default>".
std::string base_label(const Space& s);

// Reads a sweep file; `file` names it in errors. Throws InputError.
Space load_space(const std::string& path);
Space parse_space(const std::string& yaml_text, const std::string& file);

struct Expansion {
  std::vector<Point> points;                  // kept, in index order
  int64_t considered = 0;                     // the grid or sample's size
  std::map<std::string, int64_t> dropped;     // by constraint reason
};

// Every point of the space, constraints applied; throws InputError (at the
// sweep file's line) for an expression that cannot be evaluated, and when
// the grid would pass kMaxPoints.
inline constexpr int64_t kMaxPoints = 10'000'000;
Expansion expand(const Space& space);

// The base scenario with a point's overrides, read and checked; throws
// InputError naming the override or the base's file and line.
scenario::Scenario point_scenario(const Space& space, const Point& p);

// An error in an inline base scenario, moved to its line in the sweep file.
core::InputError locate_in_space(const Space& space, const core::InputError& e);

// A hash of the resolved scenario: every input as a report lists it,
// defaults included (scenario::input_rows), 16 hex digits (FNV-1a).
std::string scenario_hash(const scenario::Scenario& s);

// The space's metrics for one result, as a JSON object {name: number or
// null}: a metric reads the point's fields and result.<key> (a number in
// the result's JSON: result.iteration_s, result.breakdown_s.pipeline_bubble);
// one this result cannot give (a collective has no iteration_s) is null.
nlohmann::ordered_json point_metrics(const Space& space, const Point& p, const nlohmann::ordered_json& result);

}  // namespace anatomy::sweep
