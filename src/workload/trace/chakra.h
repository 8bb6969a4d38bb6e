#pragma once
// Chakra execution traces (ET 1.0, protobuf; et_def.proto) in and out.
//
// A trace is one file per rank, "<name>.<rank>.et": a GlobalMetadata
// message, then the nodes, each a varint length and a Node message.
// Read: COMP_NODE -> compute (duration_micros; "num_ops" FLOPs, where
// given, as a GEMM of that many FLOPs for rescaling), COMM_COLL_NODE ->
// collective ("comm_type", "comm_size" bytes, "pg_name"), COMM_SEND_NODE /
// COMM_RECV_NODE -> send / receive ("comm_dst" / "comm_src", "comm_tag",
// "comm_size"), MEM_LOAD_NODE / MEM_STORE_NODE -> memory ("tensor_size"
// bytes, duration_micros), METADATA_NODE -> a zero-time node kept for its
// edges; data_deps and ctrl_deps both become dependencies. Attributes
// anatomy adds and reads back, which other tools ignore: "anatomy_phase"
// (forward, backward, optimizer), "anatomy_comm" (DP, TP, CP, EP, PP),
// "anatomy_duration_ps" (the exact duration, where microseconds would
// round), "anatomy_host", "anatomy_idle"; the metadata's "pg_ranks:<name>" (int64 list)
// gives a process group's ranks.
//
//   TraceGraph g = read_chakra_dir("traces/", {"traces/llama.0.et", ...});
//   write_chakra(g, "out/", "anatomy");  // out/anatomy.0.et, out/anatomy.1.et

#include <string>
#include <vector>

#include "workload/trace/trace_graph.h"

namespace anatomy::workload::trace {

// `files` in rank order. Throws InputError "file: record N: field: message"
// for a truncated file, a message that is not a Chakra node, or a node
// that names what anatomy cannot run (an unknown node or collective type).
TraceGraph read_chakra(const std::vector<std::string>& files, const std::string& source);

// Writes one file per rank, `dir`/`prefix`.<rank>.et; returns their paths.
// Throws InputError (field "--export-chakra") when a file cannot be written.
std::vector<std::string> write_chakra(const TraceGraph& g, const std::string& dir, const std::string& prefix);

}  // namespace anatomy::workload::trace
