#include "report/edge_trace.h"

#include <fmt/format.h>

#include "report/format.h"

namespace anatomy::report {

using core::SimTime;

std::string edge_trace(const job::edge::EdgeResult& r, const std::string& name) {
  std::string out = "{\"traceEvents\": [\n";
  const auto meta = [&](const char* what, int tid, const std::string& value) {
    out += fmt::format("{{\"ph\": \"M\", \"pid\": 1, \"tid\": {}, \"name\": \"{}\", \"args\": {{\"name\": \"{}\"}}}},\n", tid,
                       what, value);
  };
  meta("process_name", 0, name + " site");
  meta("thread_name", 1, "cycles");
  meta("thread_name", 2, "coverage");
  const auto slice = [&](int tid, const std::string& what, SimTime from, SimTime length, const std::string& args) {
    if (length <= SimTime::zero()) return;
    out += fmt::format("{{\"ph\": \"X\", \"pid\": 1, \"tid\": {}, \"name\": \"{}\", \"ts\": {}, \"dur\": {}, \"args\": {{{}}}}},\n",
                       tid, what, exact_micros(from), exact_micros(length), args);
  };
  for (const job::edge::CycleResult& c : r.cycles) {
    const std::string args = fmt::format("\"cycle\": {}, \"version\": {}", c.index, c.version);
    SimTime t = c.start;
    const std::pair<const char*, SimTime> phases[] = {{"collect", c.collect},   {"train", c.train},
                                                      {"validate", c.validate}, {"package", c.package},
                                                      {"rollout", c.rollout},   {"rollback", c.rollback}};
    for (const auto& [what, length] : phases) {
      slice(1, what, t, length, args);
      t += length;
    }
  }
  for (const auto& g : r.gaps) slice(2, "no valid model", g.from, g.to - g.from, fmt::format("\"lines\": {}", g.lines));
  out += fmt::format("{{\"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"name\": \"process_sort_index\", \"args\": {{\"sort_index\": 1}}}}\n");
  out += "]}\n";
  return out;
}

}  // namespace anatomy::report
