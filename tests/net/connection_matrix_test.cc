#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "net/connection_matrix.h"

namespace anatomy::net {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_connection_matrix(text, "t.cm");
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ConnectionMatrix, ReadsHtsimsPermutationLines) {
  // htsim's own example: a header, then src->dst with id, start and size
  // in any order; start is in picoseconds (1000000 ps = 1 us).
  const ConnectionMatrix m = parse_connection_matrix(
      "# a comment\nNodes 16\nConnections 2\n7->5 id 1 start 0 size 2000000\n15->1 size 100 start 1000000 id 2\n",
      "t.cm");
  EXPECT_EQ(m.nodes, 16u);
  ASSERT_EQ(m.connections.size(), 2u);
  EXPECT_EQ(m.connections[0].src, 7u);
  EXPECT_EQ(m.connections[0].dst, 5u);
  EXPECT_EQ(m.connections[0].size.count(), 2'000'000);
  EXPECT_EQ(m.connections[1].start, core::SimTime::us(1));
  EXPECT_EQ(m.connections[1].line, 5);
}

TEST(ConnectionMatrix, BadLinesNameTheFileLineAndField) {
  // Each error is file:line: field: message, on the line that is wrong.
  EXPECT_EQ(error_of("Nodes 4\n0->4 start 0 size 10\n"), "t.cm:2: connection: host 4 is not one of the 4 nodes (0 to 3)");
  EXPECT_EQ(error_of("Nodes 4\n0->1 start 0\n"), "t.cm:2: size: missing");
  EXPECT_EQ(error_of("Nodes 4\n0->1 size 5\n"), "t.cm:2: start: missing: every connection needs a start time");
  EXPECT_EQ(error_of("Nodes 4\n0->1 start 0 size 5 colour red\n"), "t.cm:2: colour: unknown (known: id, start, size, prio)");
  EXPECT_EQ(error_of("Nodes 4\nConnections 2\n0->1 start 0 size 5\n"), "t.cm:2: Connections: says 2 but the file has 1");
  EXPECT_EQ(error_of("Nodes 4\n0->1 id 0 start 0 size 5\n"), "t.cm:2: id: must be from 1 to 4294967295 (htsim refuses 0)");
  EXPECT_EQ(error_of("Nodes 4\n0->1 trigger 3 size 5\n").rfind("t.cm:2: trigger: ", 0), 0u);
  EXPECT_EQ(error_of("0->1 start 0 size 5\n"), "t.cm:1: Nodes: must come before the first connection");
  EXPECT_EQ(error_of("Nodes four\n"), "t.cm:1: Nodes: 'four' is not a whole number");
}

}  // namespace
}  // namespace anatomy::net
