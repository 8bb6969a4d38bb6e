#pragma once
// Collective operations, protocols and fidelities, with the size
// conventions nccl-tests uses so tables read the same:
//  * all_reduce, broadcast, reduce: S is one rank's buffer;
//  * all_gather: S is the total output (each rank contributes S/n);
//  * reduce_scatter: S is the total input (each rank ends with S/n);
//  * all_to_all: S is one rank's total send buffer (S/n to each peer);
//  * send_recv: S is what each rank sends to its ring neighbour.

#include <string>
#include <string_view>

namespace anatomy::coll {

enum class Op { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kReduce, kAllToAll, kSendRecv };
enum class Protocol { kLL, kLL128, kSimple };
enum class Fidelity {
  kStep,  // every algorithm step's transfers, chunk by chunk
  kBulk,  // each edge carries its whole volume as one flow, latency terms added
};

const char* to_string(Op op);
const char* to_string(Protocol p);
const char* to_string(Fidelity f);
// Parse names as printed ("all_reduce", "LL128", "bulk"); throw InputError naming `field`.
Op parse_op(std::string_view s, std::string_view field);
Protocol parse_protocol(std::string_view s, std::string_view field);
Fidelity parse_fidelity(std::string_view s, std::string_view field);

// nccl-tests' bus-bandwidth factor: busbw = algbw x factor (PERFORMANCE.md).
double busbw_factor(Op op, int ranks);

}  // namespace anatomy::coll
