#include "coll/ops.h"

#include <array>
#include <utility>

#include <fmt/format.h>

#include "core/error.h"

namespace anatomy::coll {
namespace {

constexpr std::array<std::pair<Op, const char*>, 7> kOps{{
    {Op::kAllReduce, "all_reduce"},
    {Op::kAllGather, "all_gather"},
    {Op::kReduceScatter, "reduce_scatter"},
    {Op::kBroadcast, "broadcast"},
    {Op::kReduce, "reduce"},
    {Op::kAllToAll, "all_to_all"},
    {Op::kSendRecv, "send_recv"},
}};
constexpr std::array<std::pair<Protocol, const char*>, 3> kProtocols{
    {{Protocol::kLL, "LL"}, {Protocol::kLL128, "LL128"}, {Protocol::kSimple, "Simple"}}};
constexpr std::array<std::pair<Fidelity, const char*>, 2> kFidelities{
    {{Fidelity::kStep, "step"}, {Fidelity::kBulk, "bulk"}}};

template <typename E, size_t N>
const char* name_of(const std::array<std::pair<E, const char*>, N>& table, E v) {
  for (auto& [e, n] : table)
    if (e == v) return n;
  return "?";
}

template <typename E, size_t N>
E parse_in(const std::array<std::pair<E, const char*>, N>& table, std::string_view s, std::string_view field,
           std::string_view what) {
  std::string known;
  for (auto& [e, n] : table) {
    std::string_view name(n);
    bool same = name.size() == s.size();
    for (size_t i = 0; same && i < s.size(); ++i) {
      auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
      char a = lower(name[i]), b = lower(s[i]);
      if (a == '_') a = '-';
      if (b == '_') b = '-';
      same = a == b;
    }
    if (same) return e;
    known += (known.empty() ? "" : ", ") + std::string(name);
  }
  throw core::InputError({"", 0, std::string(field)},
                         fmt::format("unknown {} '{}' (known: {})", what, std::string(s), known));
}

}  // namespace

const char* to_string(Op op) { return name_of(kOps, op); }
const char* to_string(Protocol p) { return name_of(kProtocols, p); }
const char* to_string(Fidelity f) { return name_of(kFidelities, f); }
Op parse_op(std::string_view s, std::string_view field) { return parse_in(kOps, s, field, "operation"); }
Protocol parse_protocol(std::string_view s, std::string_view field) {
  return parse_in(kProtocols, s, field, "protocol");
}
Fidelity parse_fidelity(std::string_view s, std::string_view field) {
  return parse_in(kFidelities, s, field, "fidelity");
}

double busbw_factor(Op op, int n) {
  if (n <= 1) return op == Op::kAllReduce || op == Op::kAllGather || op == Op::kReduceScatter || op == Op::kAllToAll
                         ? 0.0
                         : 1.0;
  switch (op) {
    case Op::kAllReduce: return 2.0 * (n - 1) / n;
    case Op::kAllGather:
    case Op::kReduceScatter:
    case Op::kAllToAll: return static_cast<double>(n - 1) / n;
    case Op::kBroadcast:
    case Op::kReduce:
    case Op::kSendRecv: return 1.0;
  }
  return 1.0;
}

}  // namespace anatomy::coll
