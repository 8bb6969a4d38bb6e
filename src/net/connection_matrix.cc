#include "net/connection_matrix.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "core/error.h"
#include "core/input_file.h"

namespace anatomy::net {
namespace {

using core::InputError;

inline constexpr int64_t kMaxMatrixBytes = 256 << 20;  // a million connections is ~40 MB

uint64_t cm_whole(std::string_view s, const InputError& on_error) {
  uint64_t v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) throw on_error;
  return v;
}

}  // namespace

ConnectionMatrix parse_connection_matrix(std::string_view text, const std::string& file) {
  ConnectionMatrix m;
  m.file = file;
  int64_t declared = -1;
  int nodes_line = 0, connections_line = 0;
  std::set<uint32_t> ids;
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    const auto w = core::words_of(line);
    if (w.empty() || w[0][0] == '#') continue;
    const auto fail = [&](std::string_view field, const std::string& why) {
      return InputError({file, line_no, std::string(field)}, why);
    };
    const auto header_value = [&](std::string_view key) -> uint64_t {
      if (w.size() != 2) throw fail(key, "expects one whole number");
      return cm_whole(w[1], fail(key, fmt::format("'{}' is not a whole number", w[1])));
    };
    if (w[0] == "Nodes") {
      if (nodes_line) throw fail("Nodes", fmt::format("given twice (first at line {})", nodes_line));
      nodes_line = line_no;
      const uint64_t n = header_value("Nodes");
      if (n == 0 || n > (1u << 24)) throw fail("Nodes", fmt::format("must be from 1 to {} (got {})", 1u << 24, n));
      m.nodes = static_cast<uint32_t>(n);
      continue;
    }
    if (w[0] == "Connections") {
      if (connections_line) throw fail("Connections", fmt::format("given twice (first at line {})", connections_line));
      connections_line = line_no;
      declared = static_cast<int64_t>(header_value("Connections"));
      continue;
    }
    if (w[0] == "Triggers" || w[0] == "Failures" || w[0] == "trigger" || w[0] == "failure")
      throw fail(w[0], "triggers and failures are htsim features anatomy's reader does not run: only connections "
                       "with a start time");
    const size_t arrow = w[0].find("->");
    if (arrow == std::string_view::npos)
      throw fail(w[0], "unknown (a header line is Nodes or Connections; a connection is src->dst ...)");
    if (!nodes_line) throw fail("Nodes", "must come before the first connection");
    Connection c;
    c.line = line_no;
    const InputError bad_ends = fail("connection", fmt::format("'{}' is not src->dst with host numbers", w[0]));
    c.src = static_cast<uint32_t>(cm_whole(w[0].substr(0, arrow), bad_ends));
    c.dst = static_cast<uint32_t>(cm_whole(w[0].substr(arrow + 2), bad_ends));
    for (uint32_t host : {c.src, c.dst})
      if (host >= m.nodes)
        throw fail("connection", fmt::format("host {} is not one of the {} nodes (0 to {})", host, m.nodes, m.nodes - 1));
    if (c.src == c.dst) throw fail("connection", fmt::format("host {} sends to itself", c.src));
    bool have_start = false, have_size = false;
    for (size_t i = 1; i < w.size(); i += 2) {
      const std::string_view key = w[i];
      if (key == "trigger" || key == "send_done_trigger" || key == "recv_done_trigger" || key == "addon")
        throw fail(key, "triggered connections are not run by anatomy's reader: give a start time");
      if (key != "id" && key != "start" && key != "size" && key != "prio")
        throw fail(key, "unknown (known: id, start, size, prio)");
      if (i + 1 >= w.size()) throw fail(key, "expects a value");
      const std::string_view v = w[i + 1];
      if (key == "start") {
        double ps = 0;
        const auto r = std::from_chars(v.data(), v.data() + v.size(), ps);
        if (r.ec != std::errc() || r.ptr != v.data() + v.size() || !std::isfinite(ps) || ps < 0)
          throw fail(key, fmt::format("'{}' is not a time in picoseconds >= 0", v));
        c.start = core::SimTime::ps(static_cast<int64_t>(std::llround(ps)));
        have_start = true;
      } else {
        const uint64_t x = cm_whole(v, fail(key, fmt::format("'{}' is not a whole number", v)));
        if (key == "size") {
          if (x == 0) throw fail(key, "must be greater than zero");
          c.size = core::Bytes(static_cast<int64_t>(x));
          have_size = true;
        } else if (key == "id") {
          if (x == 0 || x > UINT32_MAX) throw fail(key, "must be from 1 to 4294967295 (htsim refuses 0)");
          c.id = static_cast<uint32_t>(x);
          if (!ids.insert(c.id).second) throw fail(key, fmt::format("{} is used twice", c.id));
        }
      }
    }
    if (!have_start) throw fail("start", "missing: every connection needs a start time");
    if (!have_size) throw fail("size", "missing");
    m.connections.push_back(c);
  }
  if (!nodes_line) throw InputError({file, 1, "Nodes"}, "missing from the header");
  if (declared >= 0 && declared != static_cast<int64_t>(m.connections.size()))
    throw InputError({file, connections_line, "Connections"},
                     fmt::format("says {} but the file has {}", declared, m.connections.size()));
  return m;
}

ConnectionMatrix read_connection_matrix(const std::string& path) {
  return parse_connection_matrix(core::read_input_file(path, kMaxMatrixBytes, "connection matrix"), path);
}

}  // namespace anatomy::net
