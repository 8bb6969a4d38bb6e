#include "coll/algorithm.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"

namespace anatomy::coll {

bool Algorithm::supports(Op op) const { return std::find(ops.begin(), ops.end(), op) != ops.end(); }

void AlgorithmRegistry::add(Algorithm a) { algorithms_.push_back(std::move(a)); }

const Algorithm& AlgorithmRegistry::find(std::string_view name) const {
  for (const auto& a : algorithms_)
    if (a.name == name) return a;
  std::string known;
  for (const auto& a : algorithms_) known += (known.empty() ? "" : ", ") + a.name;
  throw core::InputError({"", 0, "--algo"}, fmt::format("unknown algorithm '{}' (known: {}, auto)", std::string(name), known));
}

void register_builtin_algorithms(AlgorithmRegistry& reg) {
  reg.add(ring_algorithm());
  reg.add(tree_algorithm());
  reg.add(nvls_algorithm());
  reg.add(hierarchical_algorithm());
  reg.add(direct_algorithm());
}

bool any_group(const Group&, Op) { return true; }

}  // namespace anatomy::coll
