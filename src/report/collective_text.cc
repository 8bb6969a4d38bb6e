#include "report/collective_text.h"

#include <fmt/format.h>

#include <iterator>

#include "coll/library_model.h"
#include "core/units.h"
#include "report/schema.h"

namespace anatomy::report {

nlohmann::ordered_json collective_row_json(const coll::CollectiveResult& r) {
  nlohmann::ordered_json row;
  row["bytes"] = r.bytes.count();
  row["time_us"] = r.time.micros();
  row["algbw_GBps"] = r.algbw_GBps;
  row["busbw_GBps"] = r.busbw_GBps;
  row["algo"] = r.algorithm + "/" + r.protocol;
  if (r.chosen_elsewhere) row["chosen_on"] = "flow";
  return row;
}

nlohmann::ordered_json collective_sweep_json(const CollectiveSweepInfo& info,
                                             const std::vector<coll::CollectiveResult>& rows) {
  nlohmann::ordered_json j = schema_header("collective");
  j["op"] = coll::to_string(info.op);
  j["gpus"] = info.gpus;
  j["system"] = info.system;
  j["topology"] = info.topology;
  j["network_model"] = info.network;
  j["library"] = info.library;
  j["fidelity"] = info.fidelity;
  j["rows"] = nlohmann::json::array();
  for (const auto& r : rows) j["rows"].push_back(collective_row_json(r));
  return j;
}

std::string collective_sweep_header(const CollectiveSweepInfo& info) {
  std::string out;
  const auto to = std::back_inserter(out);
  fmt::format_to(to, "# anatomy collective: {} on {} GPUs\n", coll::to_string(info.op), info.gpus);
  fmt::format_to(to, "# topology: {}\n", info.topology);
  fmt::format_to(to, "# network model: {}, library: {}, fidelity: {}, algorithm: {}\n", info.network, info.library,
                 info.fidelity, info.algorithm);
  fmt::format_to(to, "#\n");
  fmt::format_to(to, "# {:>12} {:>12} {:>6} {:>6} {:>5} {:>11} {:>8} {:>8}  {}\n", "size", "count", "type", "redop",
                 "root", "time", "algbw", "busbw", "algorithm");
  fmt::format_to(to, "# {:>12} {:>12} {:>6} {:>6} {:>5} {:>11} {:>8} {:>8}\n", "(B)", "(elements)", "", "", "", "(us)",
                 "(GB/s)", "(GB/s)");
  return out;
}

std::string collective_sweep_row(const CollectiveSweepInfo& info, const coll::CollectiveResult& r) {
  const bool rooted = info.op == coll::Op::kBroadcast || info.op == coll::Op::kReduce;
  const bool reduces =
      info.op == coll::Op::kAllReduce || info.op == coll::Op::kReduceScatter || info.op == coll::Op::kReduce;
  return fmt::format("  {:>12} {:>12} {:>6} {:>6} {:>5} {:>11.2f} {:>8.2f} {:>8.2f}  {}/{}\n", r.bytes.count(),
                     r.bytes.count() / 4, "float", reduces ? "sum" : "none", rooted ? 0 : -1, r.time.micros(),
                     r.algbw_GBps, r.busbw_GBps, r.algorithm, r.protocol);
}

std::string collective_sweep_footer(const std::vector<coll::CollectiveResult>& rows) {
  double sum_busbw = 0;
  for (const auto& r : rows) sum_busbw += r.busbw_GBps;
  return fmt::format("# Avg bus bandwidth    : {:.3f}\n", rows.empty() ? 0.0 : sum_busbw / rows.size());
}

std::string collective_case_text(const scenario::Scenario& s, const coll::CollectiveResult& r,
                                 const std::string& topology) {
  std::string out;
  const auto to = std::back_inserter(out);
  std::string what = fmt::format("{} of {} on {} GPUs", coll::to_string(s.collective->op),
                                 core::format_bytes(s.collective->bytes), s.cluster.gpus);
  if (const std::string ctas = coll::ctas_text(s.collective->min_ctas, s.collective->max_ctas); !ctas.empty())
    what += fmt::format(", NCCL CTAs {}", ctas);
  fmt::format_to(to, "# anatomy run: {} ({}): {}\n", s.name, s.file.empty() ? "built-in" : s.file, what);
  fmt::format_to(to, "# cluster: {}\n\n", topology);
  fmt::format_to(to, "time      {:.2f} us\nalgbw     {:.2f} GB/s\nbusbw     {:.2f} GB/s\nalgorithm {}/{}{}\n",
                 r.time.micros(), r.algbw_GBps, r.busbw_GBps, r.algorithm, r.protocol,
                 r.chosen_elsewhere ? " (chosen on the flow model)" : "");
  return out;
}

nlohmann::ordered_json collective_case_json(const scenario::Scenario& s, const coll::CollectiveResult& r) {
  nlohmann::ordered_json j = schema_header("run.collective");
  j["scenario"] = s.name;
  j["op"] = coll::to_string(s.collective->op);
  j["gpus"] = s.cluster.gpus;
  j["system"] = s.cluster.system.name;
  j.update(collective_row_json(r));  // as anatomy collective prints each size
  return j;
}

}  // namespace anatomy::report
