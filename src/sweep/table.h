#pragma once
// A store's points as flat rows, one object per point with the same
// columns in the same order for all (missing values null), for CSV,
// JSON lines, the report's table and the Python module's list of dicts
// (ready for pandas.DataFrame):
//
//   index, status, <each axis and derived path>, <each metric>,
//   <each scalar of the result JSON, nested keys dotted:
//    iteration_s, breakdown_s.pipeline_bubble, ...>,
//   error, scenario_hash, version, wall_s
//
// An input is a number when it is written as a plain number ("8"), else
// its text as written ("800Gbps"). Points come in index order; several
// stores (Slurm shards) are merged, a point found in two kept once.
//
//   const sweep::Table t = sweep::load_table({"s.sqlite"});
//   std::fputs(sweep::table_csv(t).c_str(), stdout);

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/store.h"

namespace anatomy::sweep {

struct Table {
  StoreInfo info;                   // the first store's
  std::vector<std::string> stores;  // paths
  std::vector<std::string> columns;
  std::vector<nlohmann::ordered_json> rows;  // objects with exactly `columns`
  std::vector<std::string> keys;             // each row's point key
  std::vector<std::string> inputs;           // the columns that are axes or derived fields
  std::vector<std::string> results;          // the columns from the result JSON
};

Table make_table(const StoreInfo& info, const std::vector<PointRow>& points);
// Throws InputError naming the store that cannot be read.
Table load_table(const std::vector<std::string>& stores);

// Header line, then one line per row; numbers as JSON writes them.
std::string table_csv(const Table& t);
// One JSON object per line.
std::string table_jsonl(const Table& t);

}  // namespace anatomy::sweep
