#pragma once
// Collectives as anatomy prints them: a sweep over message sizes in
// nccl-tests' table layout (size, count, type, redop, root, time, algbw,
// busbw) or as JSON, and one collective case (a scenario's `collective:`).

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coll/collective.h"
#include "scenario/scenario.h"

namespace anatomy::report {

// What a sweep ran on, for its header.
struct CollectiveSweepInfo {
  coll::Op op = coll::Op::kAllReduce;
  int gpus = 0;
  std::string system;    // the system preset, or the ring/torus topology's kind
  std::string topology;  // the built topology in one line
  std::string network;   // flow or packet[:key=value,...]
  std::string library;
  std::string fidelity;
  std::string algorithm;  // as asked for ("auto" included)
};

// One size as `--format json` prints it: bytes, time_us, algbw_GBps,
// busbw_GBps and algo ("ring/Simple").
nlohmann::ordered_json collective_row_json(const coll::CollectiveResult& r);

// The table in three parts, so rows can be written as each size finishes:
// the header, one line per size, and the closing average.
std::string collective_sweep_header(const CollectiveSweepInfo& info);
std::string collective_sweep_row(const CollectiveSweepInfo& info, const coll::CollectiveResult& r);
std::string collective_sweep_footer(const std::vector<coll::CollectiveResult>& rows);
nlohmann::ordered_json collective_sweep_json(const CollectiveSweepInfo& info,
                                             const std::vector<coll::CollectiveResult>& rows);

std::string collective_case_text(const scenario::Scenario& s, const coll::CollectiveResult& r,
                                 const std::string& topology);
nlohmann::ordered_json collective_case_json(const scenario::Scenario& s, const coll::CollectiveResult& r);

}  // namespace anatomy::report
