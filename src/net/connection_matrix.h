#pragma once
// htsim's connection-matrix traffic files (.cm): which host sends how many
// bytes to which, and when, so that one experiment runs in anatomy and in
// htsim on the same input.
//
// The format (as htsim's ConnectionMatrix reads it): a header of
// "Nodes N" and "Connections C" (also "Triggers T", "Failures F"), '#'
// comment lines, then one line per connection:
//
//   7->5 id 1 start 0 size 2000000
//
// src->dst (host numbers from 0), then key/value words in any order: `id`
// (not 0), `start` (in picoseconds, as htsim's reader takes it), `size`
// (bytes), `prio`. Connections that start on a trigger (`trigger`,
// `send_done_trigger`, `recv_done_trigger`) and `trigger`/`failure` lines
// are refused: anatomy runs flows at their start times only.
//
//   ConnectionMatrix cm = read_connection_matrix("perm.cm");
//   for (const Connection& c : cm.connections) net.transfer(...);

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/time.h"
#include "core/units.h"

namespace anatomy::net {

struct Connection {
  uint32_t src = 0, dst = 0;
  uint32_t id = 0;  // 0: none given
  core::SimTime start;
  core::Bytes size;
  int line = 0;
};

struct ConnectionMatrix {
  std::string file;
  uint32_t nodes = 0;
  std::vector<Connection> connections;
};

// Throws InputError `file:line: field: message` (field: the keyword or
// "connection").
ConnectionMatrix parse_connection_matrix(std::string_view text, const std::string& file);
ConnectionMatrix read_connection_matrix(const std::string& path);

}  // namespace anatomy::net
